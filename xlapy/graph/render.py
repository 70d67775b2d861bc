"""One entry point for every output: ``render(graph, "dot" | "svg" | "html", layout=...)``.

``layout`` chooses who places the nodes of SVG and HTML output: ``dot`` (Graphviz, needed on
PATH), ``builtin`` (xlapy's own layered layout, always available) or ``auto`` (Graphviz when
its ``dot`` program is installed, else builtin). DOT output is always plain text.
"""

from __future__ import annotations

from xlapy.errors import InvalidArgument
from xlapy.graph.dot import dot_to_svg, have_dot, to_dot
from xlapy.graph.html import to_html
from xlapy.graph.model import Graph
from xlapy.graph.svg import to_svg

FORMATS = ("dot", "svg", "html")
LAYOUTS = ("auto", "dot", "builtin")


def resolve_layout(layout: str) -> str:
    """``dot`` or ``builtin``: what ``layout`` means on this machine."""
    if layout not in LAYOUTS:
        raise InvalidArgument(
            f"graph: --layout must be one of {', '.join(LAYOUTS)}; got {layout!r}"
        )
    if layout == "auto":
        return "dot" if have_dot() else "builtin"
    return layout


def render(graph: Graph, fmt: str, *, layout: str = "auto") -> str:
    """The text of ``graph`` in ``fmt``.

    Raises:
        InvalidArgument: an unknown format or layout; ``layout="dot"`` without Graphviz.
    """
    if fmt not in FORMATS:
        raise InvalidArgument(f"graph: the format must be one of {', '.join(FORMATS)}; got {fmt!r}")
    if fmt == "dot":
        return to_dot(graph)
    drawn_by = resolve_layout(layout)
    if drawn_by == "dot":
        svg = dot_to_svg(to_dot(graph))
        return svg if fmt == "svg" else to_html(graph, svg, drawn_by="Graphviz dot")
    if fmt == "svg":
        return to_svg(graph)
    return to_html(graph, to_svg(graph, legend=False), drawn_by="xlapy's layered layout")
