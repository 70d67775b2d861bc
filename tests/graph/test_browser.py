"""The HTML page in a real headless browser (Chromium, when installed): its script runs, fits
the drawing, lights up the focus instruction's neighbours, and the screenshot is not blank.
Without Chromium the same page is checked for structure only."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.graph.test_model import EXAMPLES, FAMILIES_HLO
from tests.graph.test_render import script_data
from xlapy.graph import build_graph, render
from xlapy.graph.model import Graph
from xlapy.loader import load

CHROMIUM = next(
    (p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None
)
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
    "--virtual-time-budget=5000",
    "--window-size=1400,900",
)


def browse(page: Path, profile: Path, *extra: str) -> str:
    """Loads ``page`` in headless Chromium; returns what it prints (``--dump-dom``: the DOM)."""
    assert CHROMIUM is not None
    result = subprocess.run(
        [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *extra, page.as_uri()],
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout


def classes(dom: str, element_id: str) -> set[str]:
    match = re.search(rf'<g [^>]*id="{element_id}"[^>]*>', dom)
    assert match is not None, element_id
    found = re.search(r'class="([^"]*)"', match.group())
    return set(found.group(1).split()) if found else set()


def focus_graph() -> Graph:
    return build_graph(load(FAMILIES_HLO, verify=False), instruction="d", depth=2)


@pytest.mark.parametrize("layout", ["builtin", "dot"])
def test_page_in_browser(layout: str, tmp_path: Path) -> None:
    if layout == "dot" and shutil.which("dot") is None:
        layout = "builtin"  # auto would choose the same
    graph = focus_graph()
    page = tmp_path / "focus.html"
    page.write_text(render(graph, "html", layout=layout))
    data = script_data(page.read_text())
    ids = {n.name: n.id for n in graph.nodes.values()}
    assert data["focus"] == ids["d"]
    if CHROMIUM is None:  # structure only: the script finds everything it needs
        text = page.read_text()
        assert all(f'id="{node_id}"' in text for node_id in ids.values())
        for needed in ('id="view"', 'id="find"', 'id="fit"', 'id="status"', "<header>"):
            assert needed in text
        return
    dom = browse(page, tmp_path / "profile", "--dump-dom")
    assert 'data-ready="true"' in dom  # the script ran to its end
    svg_tag = re.search(r"<svg[^>]*>", dom)
    assert svg_tag is not None
    assert " width=" not in svg_tag.group()  # fitted to the window by the script
    # The focus is picked: it, its neighbours and the edges between them stay bright; what
    # lies two steps away (drawn, since depth is 2) is dimmed.
    assert "picked" in classes(dom, ids["d"])
    assert all("dim" not in classes(dom, ids[name]) for name in ("d", "m", "r", "s", "ar"))
    assert all("dim" in classes(dom, ids[name]) for name in ("e", "zero", "out", "init"))
    edges = {(e.source, e.target): e.id for e in graph.edges}
    assert "dim" not in classes(dom, edges[(ids["m"], ids["d"])])
    assert "dim" in classes(dom, edges[(ids["e"], ids["r"])])


def test_screenshot_of_transformer(tmp_path: Path) -> None:
    """The example of the README: a screenshot with the graph in it (a blank page of this size
    compresses to a few KB)."""
    graph = build_graph(load(EXAMPLES / "transformer.hlo"))
    page = tmp_path / "transformer.html"
    page.write_text(render(graph, "html"))
    if CHROMIUM is None:
        assert page.read_text().count('class="node"') == len(graph.nodes)
        return
    shot = tmp_path / "shot.png"
    browse(page, tmp_path / "profile", f"--screenshot={shot}")
    data = shot.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    assert len(data) > 30_000
