"""SVG of a graph model drawn by xlapy's own layout (``layout.py``), without Graphviz.

Same look as the DOT writer: rounded boxes coloured by op family, bold titles, dashed call
edges named by role, operand numbers at arrow heads. Elements carry the model's ids (``n<k>``
nodes, ``e<k>`` edges, ``cluster_*`` boxes) and a ``<title>`` tooltip, as Graphviz's SVG does,
so the HTML page handles both alike.
"""

from __future__ import annotations

from xlapy.graph.dot import html_escape
from xlapy.graph.families import PALETTE, Family
from xlapy.graph.layout import (
    CLUSTER_PAD,
    FONT,
    LINE,
    PAD_Y,
    Layout,
    Point,
    cluster_lines,
    layout_graph,
    node_lines,
    text_width,
)
from xlapy.graph.model import Cluster, ClusterKind, EdgeKind, Graph

MARGIN = 16.0
MONOSPACE = "DejaVu Sans Mono, Menlo, Consolas, Liberation Mono, monospace"
CALL_COLOUR = "#4a7a5a"
EDGE_COLOUR = "#555555"
CONTROL_COLOUR = "#888888"
FOCUS_COLOUR = "#d6336c"


def _number(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


def _text_lines(lines: list[tuple[str, float, bool]], centre: float, top: float) -> list[str]:
    out = []
    y = top
    for text, size, bold in lines:
        baseline = y + size * LINE / 2 + size * 0.35
        weight = ' font-weight="bold"' if bold else ""
        out.append(
            f'<text x="{_number(centre)}" y="{_number(baseline)}" font-size="{_number(size)}"'
            f'{weight} text-anchor="middle">{html_escape(text)}</text>'
        )
        y += size * LINE
    return out


def _path(points: tuple[Point, ...]) -> str:
    """Straight vertical steps, and curves with vertical tangents where x changes."""
    x, y = points[0]
    parts = [f"M{_number(x)},{_number(y)}"]
    for qx, qy in points[1:]:
        if abs(qx - x) < 0.5:
            parts.append(f"L{_number(qx)},{_number(qy)}")
        else:
            middle = (qy - y) / 2
            parts.append(
                f"C{_number(x)},{_number(y + middle)} {_number(qx)},{_number(qy - middle)} "
                f"{_number(qx)},{_number(qy)}"
            )
        x, y = qx, qy
    return " ".join(parts)


def _cluster(cluster: Cluster, layout: Layout) -> list[str]:
    box = layout.clusters[cluster.id]
    border = PALETTE[cluster.family][1]
    out = [f'<g class="cluster" id="{cluster.id}">']
    if cluster.kind is not ClusterKind.TOP:
        fill = "#f1f1f1" if cluster.kind is ClusterKind.FUSION else "#fbfbfb"
        width = 1.5 if cluster.kind is ClusterKind.CALLED else 1.0
        out.append(
            f'<rect x="{_number(box.x)}" y="{_number(box.y)}" width="{_number(box.width)}" '
            f'height="{_number(box.height)}" rx="8" fill="{fill}" stroke="{border}" '
            f'stroke-width="{width}"/>'
        )
    out += _text_lines(cluster_lines(cluster), box.centre, box.y + CLUSTER_PAD)
    out.append("</g>")
    return out


def _edges(graph: Graph, layout: Layout) -> list[str]:
    out = []
    for route in layout.routes:
        edge = route.edge
        source, target = graph.nodes[edge.source].name, graph.nodes[edge.target].name
        colour, dash, marker = EDGE_COLOUR, "", "arrow"
        if edge.kind is EdgeKind.CALL:
            colour, dash, marker = CALL_COLOUR, ' stroke-dasharray="5,3"', "arrow-call"
        elif edge.kind is EdgeKind.CONTROL:
            colour, dash, marker = CONTROL_COLOUR, ' stroke-dasharray="2,3"', "arrow-control"
        out.append(f'<g class="edge" id="{edge.id}">')
        out.append(f"<title>{html_escape(f'{source} -> {target}')}</title>")
        out.append(
            f'<path d="{_path(route.points)}" fill="none" stroke="{colour}" stroke-width="1"'
            f'{dash} marker-end="url(#{marker})"/>'
        )
        if edge.label and edge.kind is EdgeKind.OPERAND:
            x, y = route.points[-1]
            out.append(
                f'<text x="{_number(x + 3)}" y="{_number(y - 5)}" font-size="8" '
                f'fill="#666666">{html_escape(edge.label)}</text>'
            )
        elif edge.label:
            x, y = route.points[len(route.points) // 2]
            out.append(
                f'<text x="{_number(x + 4)}" y="{_number(y)}" font-size="9" '
                f'fill="{colour}">{html_escape(edge.label)}</text>'
            )
        out.append("</g>")
    return out


def _nodes(graph: Graph, layout: Layout) -> list[str]:
    out = []
    for node in graph.nodes.values():
        box = layout.nodes[node.id]
        fill, border = PALETTE[node.family]
        width = 3.0 if node.focus else 2.5 if node.is_root else 1.0
        dash = ' stroke-dasharray="4,2"' if node.hidden else ""
        out.append(f'<g class="node" id="{node.id}">')
        out.append(f"<title>{html_escape(node.tooltip)}</title>")
        out.append(
            f'<rect x="{_number(box.x)}" y="{_number(box.y)}" width="{_number(box.width)}" '
            f'height="{_number(box.height)}" rx="5" fill="{fill}" '
            f'stroke="{FOCUS_COLOUR if node.focus else border}" stroke-width="{width}"{dash}/>'
        )
        out += _text_lines(node_lines(node), box.centre, box.y + PAD_Y)
        out.append("</g>")
    return out


def _legend(graph: Graph, top: float) -> tuple[list[str], float]:
    """Swatches of the families the graph uses, in one row; returns (elements, height)."""
    used = [f for f in Family if any(n.family is f for n in graph.nodes.values())]
    out, x = [], 0.0
    for family in used:
        fill, border = PALETTE[family]
        out.append(
            f'<rect x="{_number(x)}" y="{_number(top)}" width="14" height="10" rx="2" '
            f'fill="{fill}" stroke="{border}"/>'
        )
        out.append(
            f'<text x="{_number(x + 18)}" y="{_number(top + 9)}" font-size="{_number(FONT)}">'
            f"{html_escape(family.value)}</text>"
        )
        x += 18 + text_width(family.value, FONT) + 14
    return out, 18.0


def to_svg(graph: Graph, *, legend: bool = True) -> str:
    """A standalone SVG drawing of ``graph`` (``legend``: a row of family colours on top)."""
    layout = layout_graph(graph)
    legend_elements, legend_height = _legend(graph, 0.0) if legend else ([], 0.0)
    width = layout.width + 2 * MARGIN
    height = layout.height + legend_height + 2 * MARGIN
    markers = [
        f'<marker id="{name}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
        f'markerHeight="7" orient="auto-start-reverse"><path d="M0,1 L10,5 L0,9 z" '
        f'fill="{colour}"/></marker>'
        for name, colour in (
            ("arrow", EDGE_COLOUR),
            ("arrow-call", CALL_COLOUR),
            ("arrow-control", CONTROL_COLOUR),
        )
    ]
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_number(width)}" '
        f'height="{_number(height)}" viewBox="0 0 {_number(width)} {_number(height)}" '
        f'font-family="{MONOSPACE}">',
        f"<title>{html_escape(f'{graph.name}: {graph.top.title}')}</title>",
        f"<defs>{''.join(markers)}</defs>",
        f'<rect width="{_number(width)}" height="{_number(height)}" fill="#ffffff"/>',
        f'<g class="legend" transform="translate({_number(MARGIN)},{_number(MARGIN)})">',
        *legend_elements,
        "</g>",
        f'<g class="graph" transform="translate({_number(MARGIN)},'
        f'{_number(MARGIN + legend_height)})">',
    ]
    for cluster in graph.top.walk():
        out += _cluster(cluster, layout)
    out += _edges(graph, layout)
    out += _nodes(graph, layout)
    out += ["</g>", "</svg>"]
    return "\n".join(out) + "\n"
