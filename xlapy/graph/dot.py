"""Graphviz DOT text of a graph model, and SVG through Graphviz's ``dot`` program.

Labels are Graphviz HTML-like labels (bold titles, small constants); every name reaches the
output escaped (``&<>"`` in labels, ``\\`` and ``"`` in quoted strings), so any instruction
name is safe. Edges are written after every cluster, as Graphviz needs for edges that cross
cluster borders.
"""

from __future__ import annotations

import shutil
import subprocess

from xlapy.errors import InvalidArgument
from xlapy.graph.families import PALETTE
from xlapy.graph.model import Cluster, ClusterKind, Edge, EdgeKind, Graph, Node

FONT = "Helvetica,Arial,sans-serif"
DOT_TIMEOUT = 300.0


def html_escape(text: str) -> str:
    """Text as it may stand inside a Graphviz HTML-like label (or XML)."""
    return (
        text.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
        .replace("'", "&#39;")
    )


def quote(text: str) -> str:
    """A DOT double-quoted string; newlines become ``\\n`` (a new line in tooltips)."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


def _lines(title: str, lines: tuple[str, ...], small: bool) -> str:
    body = [f"<b>{html_escape(title)}</b>", *(html_escape(line) for line in lines)]
    text = "<br/>".join(body)
    return f'<font point-size="8">{text}</font>' if small else text


def _node(node: Node) -> str:
    fill, border = PALETTE[node.family]
    lines = node.lines + ((node.hidden,) if node.hidden else ())
    styles = ["rounded", "filled"] + (["dashed"] if node.hidden else [])
    attrs = [
        f"label=<{_lines(node.title, lines, node.small)}>",
        f'fillcolor="{fill}"',
        f'color="{"#d6336c" if node.focus else border}"',
        f'style="{",".join(styles)}"',
        f"tooltip={quote(node.tooltip)}",
        f'id="{node.id}"',
    ]
    if node.is_root or node.focus:
        attrs.append(f"penwidth={3 if node.focus else 2.5}")
    if node.small:
        attrs.append('margin="0.04,0.02" height=0.2')
    return f"{node.id} [{', '.join(attrs)}];"


def _cluster(cluster: Cluster, graph: Graph, indent: str) -> list[str]:
    border = PALETTE[cluster.family][1]
    background = "#f1f1f1" if cluster.kind is ClusterKind.FUSION else "#fbfbfb"
    out = [
        f"{indent}subgraph {cluster.id} {{",
        f"{indent}  label=<{_lines(cluster.title, cluster.lines, False)}>;",
        f'{indent}  style="rounded,filled"; fillcolor="{background}"; color="{border}";',
        f'{indent}  id="{cluster.id}";',
    ]
    if cluster.kind is ClusterKind.CALLED:
        out.append(f"{indent}  penwidth=1.5;")
    out += [f"{indent}  {_node(graph.nodes[n])}" for n in cluster.nodes]
    for child in cluster.clusters:
        out += _cluster(child, graph, indent + "  ")
    out.append(f"{indent}}}")
    return out


def _edge(edge: Edge, cluster_of: dict[str, str]) -> str:
    attrs = [f'id="{edge.id}"']
    if edge.kind is EdgeKind.OPERAND and edge.label:
        attrs.append(f'headlabel="{edge.label}", labeldistance=1.6, labelfontsize=8')
        attrs.append('labelfontcolor="#555555"')
    elif edge.kind is EdgeKind.CONTROL:
        attrs.append('style=dotted, color="#888888", label="ctrl", fontcolor="#888888"')
    elif edge.kind is EdgeKind.CALL:
        attrs.append(f'style=dashed, color="#4a7a5a", label={quote(edge.label)}')
        attrs.append('fontcolor="#4a7a5a"')
        tail = cluster_of.get(edge.source)
        if tail is not None and cluster_of.get(edge.target) != tail:
            attrs.append(f"ltail={tail}")
    return f"{edge.source} -> {edge.target} [{', '.join(attrs)}];"


def to_dot(graph: Graph) -> str:
    """The DOT text of ``graph``: operands above users, clusters as rounded boxes."""
    # nslimit bounds dot's x-placement (network simplex) to 3 x nodes iterations: a module of
    # 500 instructions in large fusions draws in 1-2 s instead of 10-30 s, a few % wider.
    # A call edge leaves the box of the called computation, where its root is drawn.
    cluster_of = {n: c.id for c in graph.top.walk()[1:] for n in c.nodes}
    title = f"{graph.name}: {graph.top.title}"
    out = [
        f"digraph {quote(graph.name)} {{",
        f"  graph [rankdir=TB, compound=true, newrank=true, nslimit=3, nodesep=0.25, ranksep=0.35, "
        f'fontname="{FONT}", fontsize=11, labelloc=t, label={quote(title)}, '
        f"tooltip={quote(title)}];",
        f'  node [shape=box, fontname="{FONT}", fontsize=10, margin="0.08,0.04", height=0.3];',
        f'  edge [fontname="{FONT}", fontsize=8, color="#555555", arrowsize=0.6];',
    ]
    out += [f"  {_node(graph.nodes[n])}" for n in graph.top.nodes]
    for child in graph.top.clusters:
        out += _cluster(child, graph, "  ")
    out += [f"  {_edge(edge, cluster_of)}" for edge in graph.edges]
    out.append("}")
    return "\n".join(out) + "\n"


def have_dot() -> bool:
    """True when Graphviz's ``dot`` program is on the PATH."""
    return shutil.which("dot") is not None


def dot_to_svg(dot_text: str) -> str:
    """SVG text drawn by Graphviz's ``dot`` from ``dot_text``.

    Raises:
        InvalidArgument: ``dot`` is not installed, or failed.
    """
    program = shutil.which("dot")
    if program is None:
        raise InvalidArgument(
            "graph: drawing SVG with Graphviz needs its dot program, not found on PATH; "
            "install Graphviz (apt-get install graphviz) or use --layout builtin"
        )
    result = subprocess.run(
        [program, "-Tsvg"],
        input=dot_text.encode(),
        capture_output=True,
        timeout=DOT_TIMEOUT,
        check=False,
    )
    if result.returncode != 0:
        why = result.stderr.decode(errors="replace").strip()
        raise InvalidArgument(f"graph: Graphviz dot failed (exit {result.returncode}): {why}")
    return result.stdout.decode()
