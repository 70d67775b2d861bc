"""A self-contained HTML page of a graph: the SVG drawing inline, with pan, zoom and search.

The page loads nothing (no network, no files): its script and style are inline. The SVG is
Graphviz's when ``dot`` drew it, else xlapy's own layout; both carry the model's element ids,
which the script uses to find instructions by name and to light up a clicked node's edges.
"""

from __future__ import annotations

import json

from xlapy.graph.dot import html_escape
from xlapy.graph.families import PALETTE, Family
from xlapy.graph.model import Graph

_STYLE = """
html, body { margin: 0; height: 100%; font: 13px system-ui, sans-serif; color: #222; }
header { position: absolute; top: 0; left: 0; right: 0; padding: 6px 10px;
  border-bottom: 1px solid #ccc; background: #fafafa; display: flex; flex-wrap: wrap;
  gap: 4px 14px; align-items: center; }
header .legend span { white-space: nowrap; margin-right: 10px; }
header .swatch { display: inline-block; width: 12px; height: 10px; margin-right: 4px;
  border: 1px solid; border-radius: 2px; vertical-align: -1px; }
header .help { color: #777; }
#view { position: absolute; left: 0; right: 0; bottom: 0; overflow: hidden; cursor: grab;
  background: #fff; touch-action: none; }
#view.dragging { cursor: grabbing; }
#view svg { width: 100%; height: 100%; display: block; }
#view .node { cursor: pointer; }
#view .dim { opacity: 0.15; }
#view .picked > rect, #view .picked > polygon, #view .picked > path,
#view .picked > a > path, #view .picked > a > polygon { stroke: #d6336c !important;
  stroke-width: 3px !important; }
#status { color: #b33; }
"""

# Pan: drag. Zoom: wheel, around the pointer. Click a node: only it, its neighbours and the
# edges between them stay bright. Find: type a name (or part) and press Enter. f / 0: fit.
_SCRIPT = """
(function () {
  "use strict";
  const view = document.getElementById("view");
  const header = document.querySelector("header");
  const svg = view.querySelector("svg");
  const status = document.getElementById("status");
  view.style.top = header.offsetHeight + "px";
  svg.removeAttribute("width");
  svg.removeAttribute("height");
  const box = svg.viewBox.baseVal;
  const full = [box.x, box.y, box.width, box.height];
  const setBox = (x, y, w, h) => svg.setAttribute("viewBox", [x, y, w, h].join(" "));
  const fit = () => setBox(...full);
  const toSvg = (cx, cy) => {
    const p = svg.createSVGPoint();
    p.x = cx; p.y = cy;
    return p.matrixTransform(svg.getScreenCTM().inverse());
  };
  view.addEventListener("wheel", (e) => {
    e.preventDefault();
    const v = svg.viewBox.baseVal, p = toSvg(e.clientX, e.clientY);
    const k = Math.exp(Math.max(-0.5, Math.min(0.5, e.deltaY * 0.002)));
    setBox(p.x - (p.x - v.x) * k, p.y - (p.y - v.y) * k, v.width * k, v.height * k);
  }, { passive: false });
  let drag = null;
  view.addEventListener("pointerdown", (e) => {
    drag = { x: e.clientX, y: e.clientY, moved: false };
    view.setPointerCapture(e.pointerId);
  });
  view.addEventListener("pointermove", (e) => {
    if (!drag) return;
    const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
    if (!drag.moved && Math.abs(dx) + Math.abs(dy) < 4) return;
    drag.moved = true;
    view.classList.add("dragging");
    const v = svg.viewBox.baseVal, scale = svg.getScreenCTM().a;
    setBox(v.x - dx / scale, v.y - dy / scale, v.width, v.height);
    drag.x = e.clientX; drag.y = e.clientY;
  });
  view.addEventListener("pointerup", (e) => {
    const clicked = drag && !drag.moved;
    drag = null;
    view.classList.remove("dragging");
    if (!clicked) return;
    const hit = document.elementFromPoint(e.clientX, e.clientY);
    const node = hit && hit.closest(".node");
    pick(node && GRAPH.names[node.id] !== undefined ? node.id : null);
  });
  const neighbours = {};
  for (const [edge, source, target] of GRAPH.edges) {
    (neighbours[source] = neighbours[source] || []).push([edge, target]);
    (neighbours[target] = neighbours[target] || []).push([edge, source]);
  }
  function pick(id) {
    const keep = new Set();
    if (id) {
      keep.add(id);
      for (const [edge, other] of neighbours[id] || []) { keep.add(edge); keep.add(other); }
    }
    for (const el of svg.querySelectorAll(".node, .edge")) {
      el.classList.toggle("dim", id !== null && !keep.has(el.id));
      el.classList.toggle("picked", el.id === id);
    }
  }
  function centre(id) {
    const el = document.getElementById(id);
    const r = el.getBoundingClientRect(), v = svg.viewBox.baseVal;
    const p = toSvg(r.left + r.width / 2, r.top + r.height / 2);
    const w = Math.min(v.width, full[2], 1600), h = w * v.height / v.width;
    setBox(p.x - w / 2, p.y - h / 2, w, h);
  }
  document.getElementById("find").addEventListener("keydown", (e) => {
    if (e.key !== "Enter") return;
    const query = e.target.value.trim();
    const ids = Object.keys(GRAPH.names);
    const id = ids.find((k) => GRAPH.names[k] === query) ||
      ids.find((k) => GRAPH.names[k].includes(query));
    status.textContent = id || !query ? "" : "no instruction named " + query;
    if (id) { pick(id); centre(id); }
  });
  document.getElementById("fit").addEventListener("click", fit);
  document.addEventListener("keydown", (e) => {
    if (e.target.tagName !== "INPUT" && (e.key === "f" || e.key === "0")) fit();
  });
  fit();
  if (GRAPH.focus) { pick(GRAPH.focus); }
  document.body.dataset.ready = "true";
})();
"""


def _script_json(value: object) -> str:
    """JSON that cannot end the ``<script>`` element it stands in, whatever names hold."""
    text = json.dumps(value, ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _inline_svg(svg: str) -> str:
    """The ``<svg>`` element alone: no XML declaration, doctype or comments before it."""
    return svg[svg.index("<svg") :]


def to_html(graph: Graph, svg: str, *, drawn_by: str) -> str:
    """The page showing ``svg`` (a drawing of ``graph``); ``drawn_by`` names the layout."""
    families = [f for f in Family if any(n.family is f for n in graph.nodes.values())]
    legend = "".join(
        f'<span><i class="swatch" style="background:{PALETTE[f][0]};border-color:'
        f'{PALETTE[f][1]}"></i>{html_escape(f.value)}</span>'
        for f in families
    )
    focus = next((n.id for n in graph.nodes.values() if n.focus), None)
    data = {
        "names": {n.id: n.name for n in graph.nodes.values()},
        "edges": [[e.id, e.source, e.target] for e in graph.edges],
        "focus": focus,
    }
    title = f"{graph.name}: {graph.top.title}"
    counts = f"{len(graph.nodes)} instructions, {len(graph.edges)} edges, drawn by {drawn_by}"
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{html_escape(title)}</title>
<style>{_STYLE}</style>
</head>
<body>
<header>
<b>{html_escape(title)}</b>
<span>{html_escape(counts)}</span>
<input id="find" type="search" placeholder="find instruction (Enter)" size="24">
<button id="fit" type="button">fit</button>
<span id="status"></span>
<span class="legend">{legend}</span>
<span class="help">drag: pan, wheel: zoom, click: neighbours, f: fit</span>
</header>
<main id="view">
{_inline_svg(svg)}
</main>
<script>
const GRAPH = {_script_json(data)};
{_SCRIPT}
</script>
</body>
</html>
"""
