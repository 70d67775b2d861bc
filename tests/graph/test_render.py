"""Rendering of graph models: DOT text, SVG (builtin layout, and Graphviz when installed), the
HTML page; escaping of any name; geometry of the builtin layout on every example."""

from __future__ import annotations

import itertools
import json
import re
import shutil
import subprocess
from pathlib import Path
from xml.etree import ElementTree

import pytest

from tests.graph.test_model import EXAMPLES, FAMILIES_HLO, PROGRAMS
from xlapy.errors import InvalidArgument
from xlapy.graph import build_graph, render
from xlapy.graph.dot import dot_to_svg, to_dot
from xlapy.graph.families import PALETTE, Family
from xlapy.graph.layout import Box, layout_graph
from xlapy.graph.model import Graph
from xlapy.loader import load

SVG = "{http://www.w3.org/2000/svg}"
NASTY = "x<&>\"\\'</script><b>\n%"
STABLEHLO = sorted(EXAMPLES.glob("*.mlir"))
NEEDS_DOT = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz dot not installed")


def nasty_graph() -> Graph:
    """FAMILIES_HLO with a parameter renamed to characters every format must escape."""
    module = load(FAMILIES_HLO, verify=False)
    module.entry.instruction("x").name = NASTY
    return build_graph(module)


def svg_texts(svg: str) -> list[str]:
    root = ElementTree.fromstring(svg)
    return ["".join(t.itertext()) for t in root.iter(f"{SVG}text")]


def script_data(page: str) -> dict[str, object]:
    match = re.search(r"^const GRAPH = (.*);$", page, re.M)
    assert match is not None
    data: dict[str, object] = json.loads(match.group(1))
    return data


# ---- DOT ---------------------------------------------------------------------------------
def test_dot_nodes_edges_clusters_and_colours() -> None:
    graph = build_graph(load(FAMILIES_HLO, verify=False))
    text = to_dot(graph)
    ids = {n.name: n.id for n in graph.nodes.values()}
    fill, border = PALETTE[Family.CONTRACTION]
    assert (
        f"{ids['d']} [label=<<b>dot</b><br/>d<br/>lhs_contracting_dims={{1}}<br/>"
        f'rhs_contracting_dims={{0}}<br/>f32[4]>, fillcolor="{fill}", color="{border}", '
        'style="rounded,filled", tooltip="d = f32[4]{0} dot(m, r)", id="' + ids["d"] + '"];'
    ) in text
    assert f"{ids['m']} -> {ids['d']} [id=" in text
    assert 'headlabel="1"' in text
    root = next(line for line in text.splitlines() if line.strip().startswith(ids["result"] + " "))
    assert "<b>ROOT tuple</b>" in root
    assert "penwidth=2.5" in root
    constant = next(line for line in text.splitlines() if line.strip().startswith(ids["zero"]))
    assert '<font point-size="8"><b>constant</b><br/>zero<br/>f32[] 0</font>' in constant
    assert text.count("subgraph cluster_") == 3
    call = next(
        line for line in text.splitlines() if f"-> {ids['loop']}" in line and "body" in line
    )
    assert "style=dashed" in call
    assert "ltail=cluster_" in call
    # Edges follow every cluster (Graphviz needs that for edges crossing cluster borders).
    last_cluster_line = max(i for i, line in enumerate(text.splitlines()) if "subgraph" in line)
    first_edge_line = min(i for i, line in enumerate(text.splitlines()) if " -> " in line)
    assert first_edge_line > last_cluster_line


def test_dot_escapes_names() -> None:
    text = to_dot(nasty_graph())
    assert "<br/>x&lt;&amp;&gt;&quot;\\&#39;&lt;/script&gt;&lt;b&gt;" in text
    assert 'tooltip="x<&>\\"\\\\\'</script><b>\\n% = f32[4]{0} parameter()"' in text
    # A custom-call target, as HLO text writes it, then escaped for the label.
    assert "custom_call_target=&quot;my&lt;target&gt;&amp;\\&quot;q\\&quot;&quot;<br/>" in text


@NEEDS_DOT
def test_dot_parses_escaped_names() -> None:
    svg = dot_to_svg(to_dot(nasty_graph()))
    lines = svg_texts(svg)
    assert any(line.startswith("x<&>\"\\'</script><b>") for line in lines)
    assert 'custom_call_target="my<target>&\\"q\\""' in lines


# ---- builtin SVG and HTML ------------------------------------------------------------------
def test_builtin_svg_escapes_names_and_has_every_node() -> None:
    graph = nasty_graph()
    svg = render(graph, "svg", layout="builtin")
    root = ElementTree.fromstring(svg)
    node_ids = [g.get("id") for g in root.iter(f"{SVG}g") if g.get("class") == "node"]
    edge_ids = [g.get("id") for g in root.iter(f"{SVG}g") if g.get("class") == "edge"]
    assert sorted(node_ids) == sorted(graph.nodes)
    assert sorted(edge_ids) == sorted(e.id for e in graph.edges)
    assert NASTY in svg_texts(svg)  # the whole name on its label line, unharmed
    legend = next(g for g in root.iter(f"{SVG}g") if g.get("class") == "legend")
    assert [t.text for t in legend.iter(f"{SVG}text")][:3] == [
        "elementwise",
        "data movement",
        "reduction",
    ]


def test_html_page_is_self_contained_and_escaped() -> None:
    graph = nasty_graph()
    page = render(graph, "html", layout="builtin")
    assert page.count("<script>") == 1
    assert page.count("</script>") == 1
    assert page.count("<svg") == 1
    assert "<?xml" not in page
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page)
    assert "<link" not in page
    assert "@import" not in page
    data = script_data(page)
    names = data["names"]
    assert isinstance(names, dict)
    assert NASTY in names.values()
    assert sorted(names) == sorted(graph.nodes)
    assert data["edges"] == [[e.id, e.source, e.target] for e in graph.edges]
    assert data["focus"] is None
    assert "drawn by xlapy&#39;s layered layout" in page


@NEEDS_DOT
def test_html_page_embeds_graphviz_svg() -> None:
    graph = build_graph(load(FAMILIES_HLO, verify=False), instruction="d", depth=1)
    page = render(graph, "html", layout="dot")
    assert "drawn by Graphviz dot" in page
    assert "<?xml" not in page
    assert "<!DOCTYPE svg" not in page
    svg = page[page.index("<svg") : page.index("</svg>") + 6]
    root = ElementTree.fromstring(svg)
    nodes = {g.get("id") for g in root.iter(f"{SVG}g") if g.get("class") == "node"}
    assert nodes == set(graph.nodes)
    assert script_data(page)["focus"] == next(n.id for n in graph.nodes.values() if n.focus)


def test_unknown_format_and_layout() -> None:
    graph = build_graph(load(FAMILIES_HLO, verify=False))
    with pytest.raises(InvalidArgument, match="format must be one of dot, svg, html; got 'png'"):
        render(graph, "png")
    with pytest.raises(InvalidArgument, match="--layout must be one of auto, dot, builtin"):
        render(graph, "svg", layout="neato")


def test_dot_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "")
    graph = build_graph(load(FAMILIES_HLO, verify=False))
    with pytest.raises(InvalidArgument, match="needs its dot program, not found on PATH"):
        render(graph, "svg", layout="dot")
    # auto falls back to the builtin layout; DOT text needs no program at all.
    assert "drawn by xlapy" in render(graph, "html", layout="auto")
    assert render(graph, "dot").startswith('digraph "families" {')


# ---- every example -------------------------------------------------------------------------
def inside(inner: Box, outer: Box) -> bool:
    eps = 1e-6
    return (
        inner.x >= outer.x - eps
        and inner.y >= outer.y - eps
        and inner.x + inner.width <= outer.x + outer.width + eps
        and inner.bottom <= outer.bottom + eps
    )


def overlap(a: Box, b: Box) -> bool:
    return (
        a.x < b.x + b.width - 1e-6
        and b.x < a.x + a.width - 1e-6
        and a.y < b.bottom - 1e-6
        and b.y < a.bottom - 1e-6
    )


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.name)
def test_builtin_layout_geometry(path: Path) -> None:
    """Boxes nest and never overlap; every edge runs from its source's box to its target's."""
    graph = build_graph(load(path, verify=False))
    layout = layout_graph(graph)
    for cluster in graph.top.walk():
        box = layout.clusters[cluster.id]
        items = [layout.nodes[n] for n in cluster.nodes]
        items += [layout.clusters[c.id] for c in cluster.clusters]
        assert all(inside(item, box) for item in items), cluster.id
        for a, b in itertools.combinations(items, 2):
            assert not overlap(a, b), (cluster.id, a, b)
    assert len(layout.routes) == len(graph.edges)
    for route in layout.routes:
        source, target = layout.nodes[route.edge.source], layout.nodes[route.edge.target]
        (x0, y0), (x1, y1) = route.points[0], route.points[-1]
        assert source.x <= x0 <= source.x + source.width
        assert target.x <= x1 <= target.x + target.width
        downward = (y0, y1) == (source.bottom, target.y)
        assert downward or (y0, y1) == (source.y, target.bottom)


@pytest.mark.parametrize("path", PROGRAMS + STABLEHLO, ids=lambda p: p.name)
def test_render_every_example(path: Path, tmp_path: Path) -> None:
    graph = build_graph(load(path, verify=False))
    assert to_dot(graph).count(" -> ") == len(graph.edges)
    svg = render(graph, "svg", layout="builtin")
    root = ElementTree.fromstring(svg)
    assert sum(g.get("class") == "node" for g in root.iter(f"{SVG}g")) == len(graph.nodes)
    page = render(graph, "html", layout="builtin")
    assert len(script_data(page)["names"]) == len(graph.nodes)  # type: ignore[arg-type]


@NEEDS_DOT
@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.name)
def test_graphviz_renders_every_example(path: Path) -> None:
    graph = build_graph(load(path, verify=False))
    result = subprocess.run(["dot", "-Tsvg"], input=to_dot(graph).encode(), capture_output=True,
                            check=False, timeout=300)  # fmt: skip
    assert (result.returncode, result.stderr.decode()) == (0, "")
    root = ElementTree.fromstring(result.stdout)
    assert {g.get("id") for g in root.iter(f"{SVG}g") if g.get("class") == "node"} == set(
        graph.nodes
    )
