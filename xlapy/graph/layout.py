"""A layered (Sugiyama-style) layout of a graph model, for pictures drawn without Graphviz.

Clusters are laid out inside out: each cluster is a layered drawing of its own nodes and of
its child clusters (boxes of the size their own layout gave), so a fusion or a called
computation stays one box. An edge is laid out in the innermost cluster holding both of its
ends, between the items there that contain them. Per cluster: cycles broken by reversing DFS
back edges; layers by longest path (sources other than parameters sit just above their first
user); long edges get one dummy point per layer crossed; crossings reduced by barycentre
sweeps (the best order seen is kept); x by weighted least squares under the order and gap
constraints (pool-adjacent-violators), alternating downward and upward passes.

Text is measured as monospace (0.6 em a character): the SVG writer draws it in a monospace
font, so boxes fit their labels in every browser.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from dataclasses import dataclass

from xlapy.graph.model import Cluster, Edge, Graph, Node

CHAR = 0.6  # advance of a monospace character, in em
FONT = 11.0
TITLE_FONT = 11.0
SMALL_FONT = 8.5
LINE = 1.3  # line height, in em
PAD_X, PAD_Y = 7.0, 4.0
CLUSTER_PAD = 10.0
NODE_GAP = 18.0
DUMMY_GAP = 8.0
RANK_GAP = 30.0
SWEEPS = 8
X_PASSES = 8

Point = tuple[float, float]


@dataclass(frozen=True, slots=True)
class Box:
    """A rectangle: top-left corner, width and height."""

    x: float
    y: float
    width: float
    height: float

    @property
    def centre(self) -> float:
        return self.x + self.width / 2

    @property
    def bottom(self) -> float:
        return self.y + self.height


@dataclass(frozen=True, slots=True)
class Route:
    """The polyline of one edge, source first; between points the path is vertical at both
    ends (the SVG writer draws each step as a curve with vertical tangents)."""

    edge: Edge
    points: tuple[Point, ...]


@dataclass(frozen=True, slots=True)
class Layout:
    """Where everything goes, in pixels from the top-left corner of the drawing."""

    width: float
    height: float
    nodes: dict[str, Box]
    clusters: dict[str, Box]
    routes: tuple[Route, ...]


def text_width(text: str, size: float) -> float:
    return len(text) * CHAR * size


def node_lines(node: Node) -> list[tuple[str, float, bool]]:
    """``(text, font size, bold)`` of each line of a node's label."""
    size = SMALL_FONT if node.small else FONT
    lines = [(node.title, SMALL_FONT if node.small else TITLE_FONT, True)]
    lines += [(line, size, False) for line in node.lines]
    if node.hidden:
        lines.append((node.hidden, SMALL_FONT, False))
    return lines


def cluster_lines(cluster: Cluster) -> list[tuple[str, float, bool]]:
    return [(cluster.title, TITLE_FONT, True)] + [(line, FONT, False) for line in cluster.lines]


def _block_size(lines: list[tuple[str, float, bool]]) -> tuple[float, float]:
    width = max(text_width(text, size) for text, size, _ in lines)
    return width, sum(size * LINE for _, size, _ in lines)


# ---- one level: layered drawing of items with sizes --------------------------------------
@dataclass(slots=True)
class _Level:
    """The layered drawing of one cluster's items: centre x, top y and layer bottom of each
    item, and the dummy points ``(x, layer top, layer bottom)`` of each long item pair.
    Items align at the top of their layer (sources, which no edge enters, at the bottom);
    edges leave from the bottom of the layer, so that every bend happens in the gaps
    between layers, never beside a tall item."""

    width: float
    height: float
    x: dict[str, float]
    y: dict[str, float]
    bottom: dict[str, float]
    chains: dict[tuple[str, str], list[tuple[float, float, float]]]


def _layered(
    items: list[str],
    size: dict[str, tuple[float, float]],
    pairs: list[tuple[str, str]],
    pinned: set[str],
) -> _Level:
    """Lays out ``items`` (in their given order) joined by ``pairs`` (source, target);
    ``pinned`` items (entered by edges from outside the cluster) keep their first layer;
    every other item moves down to just above its first user."""
    index = {item: k for k, item in enumerate(items)}
    successors: dict[str, list[str]] = defaultdict(list)
    for a, b in pairs:
        successors[a].append(b)
    # Cycles: reverse the back edges of a depth-first search in item order.
    forward: set[tuple[str, str]] = set()
    state: dict[str, int] = {}
    for start in items:
        if start in state:
            continue
        stack = [(start, iter(successors[start]))]
        state[start] = 1
        while stack:
            item, pending = stack[-1]
            nxt = next(pending, None)
            if nxt is None:
                state[item] = 2
                stack.pop()
            elif state.get(nxt) == 1:
                forward.add((nxt, item))
            else:
                forward.add((item, nxt))
                if nxt not in state:
                    state[nxt] = 1
                    stack.append((nxt, iter(successors[nxt])))
    preds: dict[str, list[str]] = defaultdict(list)
    succs: dict[str, list[str]] = defaultdict(list)
    for a, b in sorted(forward, key=lambda p: (index[p[0]], index[p[1]])):
        succs[a].append(b)
        preds[b].append(a)
    layer = _layers(items, preds, succs, pinned)
    order = _order(items, layer, preds, succs, forward)
    x = _x_positions(order, size, preds, succs)
    sources = {item for item in items if not preds[item]}
    return _finish(order, layer, size, x, forward, sources)


def _layers(
    items: list[str],
    preds: dict[str, list[str]],
    succs: dict[str, list[str]],
    pinned: set[str],
) -> dict[str, int]:
    remaining = {item: len(preds[item]) for item in items}
    ready = [item for item in items if remaining[item] == 0]
    topological: list[str] = []
    while ready:
        item = ready.pop()
        topological.append(item)
        for nxt in succs[item]:
            remaining[nxt] -= 1
            if remaining[nxt] == 0:
                ready.append(nxt)
    layer: dict[str, int] = {}
    for item in topological:
        layer[item] = max((layer[p] + 1 for p in preds[item]), default=0)
    for item in reversed(topological):  # as late as possible: just above the first user
        if succs[item] and item not in pinned:
            layer[item] = min(layer[s] for s in succs[item]) - 1
    return layer


def _order(
    items: list[str],
    layer: dict[str, int],
    preds: dict[str, list[str]],
    succs: dict[str, list[str]],
    pairs: set[tuple[str, str]],
) -> list[list[str]]:
    """Items and dummies per layer, ordered to cross few edges (dummies join long pairs)."""
    depth = max(layer.values(), default=-1) + 1
    for a, b in sorted(pairs):
        if layer[b] - layer[a] > 1:
            chain = [a] + [f"\0{a}\0{b}\0{k}" for k in range(layer[a] + 1, layer[b])] + [b]
            succs[a].remove(b)
            preds[b].remove(a)
            for k, (u, v) in enumerate(itertools.pairwise(chain)):
                if k:
                    layer[u] = layer[a] + k
                succs[u].append(v)
                preds[v].append(u)
    layers: list[list[str]] = [[] for _ in range(depth)]
    seen: set[str] = set()

    def place(item: str) -> None:  # depth first from each source: related items stay near
        stack = [item]
        while stack:
            current = stack.pop()
            if current in seen:
                continue
            seen.add(current)
            layers[layer[current]].append(current)
            stack.extend(reversed(succs[current]))

    for item in items:
        if not preds[item]:
            place(item)
    for item in items:
        place(item)
    best = [list(level) for level in layers]
    best_crossings = _crossings(layers, succs)
    for sweep in range(SWEEPS):
        downward = sweep % 2 == 0
        steps = range(1, depth) if downward else range(depth - 2, -1, -1)
        for k in steps:
            neighbours = preds if downward else succs
            other = {item: i for i, item in enumerate(layers[k - 1 if downward else k + 1])}
            key: dict[str, float] = {}
            for i, item in enumerate(layers[k]):
                linked = [other[n] for n in neighbours[item] if n in other]
                key[item] = sum(linked) / len(linked) if linked else float(i)
            layers[k].sort(key=key.__getitem__)
        crossings = _crossings(layers, succs)
        if crossings < best_crossings:
            best, best_crossings = [list(level) for level in layers], crossings
    return best


def _crossings(layers: list[list[str]], succs: dict[str, list[str]]) -> int:
    """Edge crossings between consecutive layers (inversions, counted with a Fenwick tree)."""
    total = 0
    for upper, lower in itertools.pairwise(layers):
        position = {item: i for i, item in enumerate(lower)}
        targets = [position[t] for i, s in enumerate(upper) for t in succs[s] if t in position]
        tree = [0] * (len(lower) + 1)
        for seen, target in enumerate(targets):
            k, below = target + 1, 0
            while k > 0:  # how many earlier edges end at or left of target
                below += tree[k]
                k -= k & -k
            total += seen - below
            k = target + 1
            while k <= len(lower):
                tree[k] += 1
                k += k & -k
    return total


def _is_dummy(item: str) -> bool:
    return item.startswith("\0")


def _x_positions(
    order: list[list[str]],
    size: dict[str, tuple[float, float]],
    preds: dict[str, list[str]],
    succs: dict[str, list[str]],
) -> dict[str, float]:
    def width(item: str) -> float:
        return 0.0 if _is_dummy(item) else size[item][0]

    def gap(a: str, b: str) -> float:
        dummy = _is_dummy(a) or _is_dummy(b)
        return (width(a) + width(b)) / 2 + (DUMMY_GAP if dummy else NODE_GAP)

    x: dict[str, float] = {}
    for level in order:
        position = 0.0
        for k, item in enumerate(level):
            position += gap(level[k - 1], item) if k else 0.0
            x[item] = position
    for step in range(X_PASSES):
        downward = step % 2 == 0
        for level in order if downward else reversed(order):
            neighbours = preds if downward else succs
            targets, weights = [], []
            for item in level:
                linked = neighbours[item] or (succs if downward else preds)[item]
                if linked:
                    # Long edges pull hardest, so that they run straight.
                    pull = [8.0 if _is_dummy(item) and _is_dummy(n) else 1.0 for n in linked]
                    targets.append(sum(x[n] * w for n, w in zip(linked, pull, strict=True))
                                   / sum(pull))  # fmt: skip
                    weights.append(sum(pull))
                else:
                    targets.append(x[item])
                    weights.append(0.1)
            offsets = [0.0]
            for a, b in itertools.pairwise(level):
                offsets.append(offsets[-1] + gap(a, b))
            placed = _isotonic([t - o for t, o in zip(targets, offsets, strict=True)], weights)
            for item, base, offset in zip(level, placed, offsets, strict=True):
                x[item] = base + offset
    return x


def _isotonic(values: list[float], weights: list[float]) -> list[float]:
    """The non-decreasing sequence nearest to ``values`` in weighted least squares (PAV)."""
    blocks: list[list[float]] = []  # [mean, weight, count]
    for value, weight in zip(values, weights, strict=True):
        blocks.append([value, weight, 1])
        while len(blocks) > 1 and blocks[-2][0] > blocks[-1][0]:
            m2, w2, c2 = blocks.pop()
            m1, w1, c1 = blocks.pop()
            blocks.append([(m1 * w1 + m2 * w2) / (w1 + w2), w1 + w2, c1 + c2])
    out: list[float] = []
    for mean, _, count in blocks:
        out.extend([mean] * int(count))
    return out


def _finish(
    order: list[list[str]],
    layer: dict[str, int],
    size: dict[str, tuple[float, float]],
    x: dict[str, float],
    pairs: set[tuple[str, str]],
    sources: set[str],
) -> _Level:
    left = min((x[i] - (0 if _is_dummy(i) else size[i][0] / 2) for lv in order for i in lv),
               default=0.0)  # fmt: skip
    right = max((x[i] + (0 if _is_dummy(i) else size[i][0] / 2) for lv in order for i in lv),
                default=0.0)  # fmt: skip
    heights = [max((size[i][1] for i in level if not _is_dummy(i)), default=0.0) for level in order]
    tops, top = [], 0.0
    for height in heights:
        tops.append(top)
        top += height + RANK_GAP
    xs = {item: value - left for item, value in x.items()}
    real = [item for level in order for item in level if not _is_dummy(item)]
    ys = {
        item: tops[layer[item]] + (heights[layer[item]] - size[item][1] if item in sources else 0)
        for item in real
    }
    bottoms = {item: tops[layer[item]] + heights[layer[item]] for item in real}
    chains: dict[tuple[str, str], list[tuple[float, float, float]]] = {}
    for a, b in pairs:
        chains[(a, b)] = [
            (xs[f"\0{a}\0{b}\0{k}"], tops[k], tops[k] + heights[k])
            for k in range(layer[a] + 1, layer[b])
        ]
    return _Level(right - left, max(top - RANK_GAP, 0.0), xs, ys, bottoms, chains)


# ---- the whole graph: clusters inside out, then absolute positions and routes ------------
def layout_graph(graph: Graph) -> Layout:
    """Positions of every node and cluster box of ``graph``, and the route of every edge."""
    return _Layouter(graph).run()


class _Layouter:
    def __init__(self, graph: Graph) -> None:
        self.graph = graph
        self.clusters = {c.id: c for c in graph.top.walk()}
        self.parent: dict[str, str] = {}
        for cluster in self.clusters.values():
            for item in (*cluster.nodes, *(c.id for c in cluster.clusters)):
                self.parent[item] = cluster.id
        # Each edge belongs to the innermost cluster holding both ends, between the items
        # of that cluster that contain them.
        # Items entered from outside their cluster (a fusion's parameters) stay on its top
        # layer, where such edges come in.
        self.edges_at: dict[str, list[tuple[Edge, str, str]]] = defaultdict(list)
        self.entered: dict[str, set[str]] = defaultdict(set)
        for edge in graph.edges:
            up_source, up_target = self._ancestors(edge.source), self._ancestors(edge.target)
            common = set(up_target)
            k = next(k for k, item in enumerate(up_source) if item in common and k > 0)
            level = up_source[k]
            below = up_target[: up_target.index(level)]
            a, b = up_source[k - 1], below[-1]
            if a != b:
                self.edges_at[level].append((edge, a, b))
            for item in below[:-1]:
                self.entered[self.parent[item]].add(item)
        self.size: dict[str, tuple[float, float]] = {}
        self.header: dict[str, float] = {}
        self.levels: dict[str, _Level] = {}
        self.boxes: dict[str, Box] = {}
        self.origin: dict[str, Point] = {}

    def _ancestors(self, item: str) -> list[str]:
        chain = [item]
        while chain[-1] in self.parent:
            chain.append(self.parent[chain[-1]])
        return chain

    def run(self) -> Layout:
        for node in self.graph.nodes.values():
            width, height = _block_size(node_lines(node))
            self.size[node.id] = (width + 2 * PAD_X, height + 2 * PAD_Y)
        width, height = self.size[self.graph.top.id] = self._measure(self.graph.top)
        self._place(self.graph.top, 0.0, 0.0)
        nodes = {n: self.boxes[n] for n in self.graph.nodes}
        clusters = {c: self.boxes[c] for c in self.clusters}
        return Layout(width, height, nodes, clusters, self._routes())

    def _measure(self, cluster: Cluster) -> tuple[float, float]:
        for child in cluster.clusters:
            self.size[child.id] = self._measure(child)
        items = [*cluster.nodes, *(c.id for c in cluster.clusters)]
        pairs = list(dict.fromkeys((a, b) for _, a, b in self.edges_at[cluster.id]))
        level = _layered(items, self.size, pairs, self.entered[cluster.id])
        self.levels[cluster.id] = level
        header_width, header_height = _block_size(cluster_lines(cluster))
        self.header[cluster.id] = header_height + CLUSTER_PAD / 2
        width = max(level.width, header_width) + 2 * CLUSTER_PAD
        return width, self.header[cluster.id] + level.height + 2 * CLUSTER_PAD

    def _place(self, cluster: Cluster, left: float, top: float) -> None:
        level = self.levels[cluster.id]
        width, height = self.size[cluster.id]
        self.boxes[cluster.id] = Box(left, top, width, height)
        x0 = left + (width - level.width) / 2
        y0 = top + CLUSTER_PAD + self.header[cluster.id]
        self.origin[cluster.id] = (x0, y0)
        for item, centre in level.x.items():
            if item in level.y:
                item_width, item_height = self.size[item]
                x, y = x0 + centre - item_width / 2, y0 + level.y[item]
                if item in self.clusters:
                    self._place(self.clusters[item], x, y)
                else:
                    self.boxes[item] = Box(x, y, item_width, item_height)

    def _routes(self) -> tuple[Route, ...]:
        routes: list[list[Point]] = []
        edges: list[Edge] = []
        for level_id, level_edges in self.edges_at.items():
            level = self.levels[level_id]
            x0, y0 = self.origin[level_id]
            for edge, a, b in level_edges:
                source, target = self.boxes[edge.source], self.boxes[edge.target]
                upward = (a, b) not in level.chains
                chain = level.chains[(b, a) if upward else (a, b)]
                points: list[Point] = []
                if upward:  # a reversed (cycle) edge climbs from the source's top
                    points.append((source.centre, source.y))
                    for x, layer_top, layer_bottom in reversed(chain):
                        points += [(x0 + x, y0 + layer_bottom), (x0 + x, y0 + layer_top)]
                    points.append((target.centre, target.bottom))
                else:
                    points.append((source.centre, source.bottom))
                    if a in self.clusters:
                        points.append((source.centre, self.boxes[a].bottom))
                    if y0 + level.bottom[a] > points[-1][1] + 0.5:
                        points.append((source.centre, y0 + level.bottom[a]))
                    for x, layer_top, layer_bottom in chain:
                        points += [(x0 + x, y0 + layer_top), (x0 + x, y0 + layer_bottom)]
                    if b in self.clusters:
                        points.append((target.centre, self.boxes[b].y))
                    points.append((target.centre, target.y))
                routes.append(points)
                edges.append(edge)
        _spread(routes, edges, self.boxes, end=-1)
        _spread(routes, edges, self.boxes, end=0)
        return tuple(Route(e, tuple(p)) for e, p in zip(edges, routes, strict=True))


def _spread(routes: list[list[Point]], edges: list[Edge], boxes: dict[str, Box], end: int) -> None:
    """Spreads the ends of the edges meeting one node side by side (``end`` -1: the heads
    at their targets, 0: the tails at their sources), ordered by where each edge comes from,
    so that parallel edges and their operand numbers stay apart."""
    meeting: dict[str, list[int]] = defaultdict(list)
    for k, edge in enumerate(edges):
        meeting[edge.target if end == -1 else edge.source].append(k)
    for node, ks in meeting.items():
        if len(ks) < 2:
            continue
        box = boxes[node]
        step = min(12.0, (box.width - 8) / len(ks))
        neighbour = -2 if end == -1 else 1
        ks.sort(key=lambda k: routes[k][neighbour][0])
        for rank, k in enumerate(ks):
            routes[k][end] = (box.centre + (rank - (len(ks) - 1) / 2) * step, routes[k][end][1])
