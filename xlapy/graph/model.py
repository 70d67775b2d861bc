"""The drawing model of an HLO module: nodes, edges and nested clusters, independent of output.

``build_graph`` decides what is drawn, as XLA's graph dumper does: one node per instruction
(title, name, attributes, shape; constants small, with their value when tiny), operand edges
numbered when an instruction has several operands, each fusion drawn as a cluster holding its
fused computation (operands enter its parameters, users leave its root), every other called
computation (while body and condition, branches, reducers, comparators) drawn as a cluster with
a dashed edge from its root to the caller, named by role. ``--depth`` keeps the instructions
within N steps of one instruction. The DOT, SVG and HTML writers all read this model.
"""

from __future__ import annotations

import enum
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field

from xlapy.errors import InvalidArgument
from xlapy.graph.families import Family, family_of
from xlapy.ir.computation import HloComputation
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.module import HloModule
from xlapy.ir.opcode import Opcode
from xlapy.ir.opdefs import AttrKind, AttrSpec, PrintPolicy
from xlapy.literal import Literal
from xlapy.text import hlo_attr_text
from xlapy.text.literal_text import format_literal

TINY_CONSTANT = 8
"""Constants with at most this many elements show their value."""

MAX_LINE = 48
MAX_SHAPE = 64
MAX_ATTRIBUTE_LINES = 5

# How a called computation's attribute is named on its edge.
_ROLES = {"branch_computations": "branch", "called_computations": "calls"}


class EdgeKind(enum.Enum):
    """Why an edge is drawn."""

    OPERAND = "operand"  # operand -> user; labelled with the operand number
    CONTROL = "control"  # control predecessor -> successor
    CALL = "call"  # root of a called computation -> its caller; labelled with the role


class ClusterKind(enum.Enum):
    TOP = "top"  # the computation the picture is of
    FUSION = "fusion"  # a fusion instruction, drawn as the box of its fused computation
    CALLED = "called"  # a computation an instruction calls


@dataclass(frozen=True, slots=True)
class Node:
    """One drawn instruction.

    Attributes:
        id: identifier in the output (``n<k>``), safe in every format.
        name: the instruction's name.
        title: the first, bold line: ``ROOT`` and the opcode, or ``Parameter N``.
        lines: the following lines: name, attributes, value (constants), shape.
        family: what colours the node.
        tooltip: the instruction as HLO-like text, with its metadata.
        hidden: what is not drawn around a node cut by ``--depth`` ("2 operands not shown").
    """

    id: str
    name: str
    title: str
    lines: tuple[str, ...]
    family: Family
    tooltip: str
    is_root: bool = False
    is_parameter: bool = False
    small: bool = False
    focus: bool = False
    hidden: str = ""


@dataclass(frozen=True, slots=True)
class Edge:
    """From ``source`` to ``target`` (node ids), with its number or role as ``label``."""

    id: str
    source: str
    target: str
    kind: EdgeKind
    label: str = ""


@dataclass(slots=True)
class Cluster:
    """A box of nodes: the top computation, a fusion, or a called computation."""

    id: str
    kind: ClusterKind
    title: str
    lines: tuple[str, ...]
    family: Family
    nodes: list[str] = field(default_factory=list)
    clusters: list[Cluster] = field(default_factory=list)

    def walk(self) -> list[Cluster]:
        """This cluster and every cluster inside it, outer first."""
        out = [self]
        for child in self.clusters:
            out.extend(child.walk())
        return out


@dataclass(slots=True)
class Graph:
    """What to draw: the top cluster (holding every other), the nodes and the edges."""

    name: str
    top: Cluster
    nodes: dict[str, Node]
    edges: list[Edge]


def build_graph(
    module: HloModule,
    *,
    computation: str | None = None,
    instruction: str | None = None,
    depth: int | None = None,
) -> Graph:
    """The drawing of ``computation`` (default: the entry) and of what it calls.

    With ``instruction``, only the instructions within ``depth`` steps of it are drawn
    (default 3). A step goes from an instruction to an operand, a user, a control
    neighbour, or, across a call, between a caller and the root or a parameter of a
    computation it calls. Drawn nodes with undrawn operands or users say so.

    Raises:
        InvalidArgument: an unknown computation or instruction, ``depth`` below 0, or
            ``depth`` without ``instruction``.
    """
    top = module.computation(computation) if computation else module.entry
    if depth is not None and instruction is None:
        raise InvalidArgument("graph: --depth needs --instruction (the centre of the picture)")
    if depth is not None and depth < 0:
        raise InvalidArgument(f"graph: --depth must be at least 0; got {depth}")
    return _Builder(top, instruction, 3 if depth is None else depth).build(module.name)


class _Builder:
    def __init__(self, top: HloComputation, focus: str | None, depth: int) -> None:
        self.top = top
        self.computations, self.owner = _placement(top)
        self.ids: dict[int, str] = {}
        for comp in self.computations:
            for instr in comp.instructions:
                self.ids[id(instr)] = f"n{len(self.ids)}"
        # A fusion that owns its fused computation is drawn as that computation's box.
        self.expanded: set[int] = {
            id(instr)
            for comp in self.computations
            for instr in comp.instructions
            if instr.opcode is Opcode.FUSION and self.owner.get(id(instr.attrs.calls)) is instr
        }
        self.focus: HloInstruction | None = None
        self.visible: set[int] | None = None
        if focus is not None:
            self.focus = self._find(focus)
            self.visible = _neighbourhood(self.computations, self.focus, depth)
        self.edges: list[Edge] = []
        self.users: dict[int, dict[HloInstruction, list[HloInstruction]]] = {}

    def _find(self, name: str) -> HloInstruction:
        for comp in self.computations:
            for instr in comp.instructions:
                if instr.name == name:
                    return instr
        raise InvalidArgument(
            f"graph: no instruction named {name!r} in computation {self.top.name} or the "
            "computations it calls"
        )

    def shown(self, instr: HloInstruction) -> bool:
        return self.visible is None or id(instr) in self.visible

    # ---- output --------------------------------------------------------------------
    def build(self, module_name: str) -> Graph:
        nodes: dict[str, Node] = {}
        top = self._cluster(self.top, None, nodes)
        assert top is not None  # the top cluster is kept even when empty
        self._add_edges()
        return Graph(module_name, top, nodes, self.edges)

    def _cluster(
        self, comp: HloComputation, caller: HloInstruction | None, nodes: dict[str, Node]
    ) -> Cluster | None:
        """The cluster of ``comp`` (None when nothing in it is shown)."""
        if caller is None:
            cluster = Cluster("cluster_top", ClusterKind.TOP, comp.name, (), Family.CONTROL_FLOW)
        elif id(caller) in self.expanded:
            kind = f"kind={caller.attrs.kind.value}"
            lines = (caller.name, kind, _shape_text(caller), f"calls {comp.name}")
            cluster = Cluster(
                f"cluster_{self.ids[id(caller)]}",
                ClusterKind.FUSION,
                "fusion",
                lines,
                Family.FUSION,
            )
        else:
            roles = ", ".join(role for role, c in _called(caller) if c is comp)
            cluster = Cluster(
                f"cluster_{self.ids[id(caller)]}_{_index(caller, comp)}",
                ClusterKind.CALLED,
                comp.name,
                (f"{roles} of {caller.name}",),
                family_of(caller),
            )
        root = comp.root
        for instr in comp.instructions:
            if self.shown(instr) and id(instr) not in self.expanded:
                node = self._node(instr, is_root=instr is root)
                nodes[node.id] = node
                cluster.nodes.append(node.id)
            for _, callee in _called(instr):
                if self.owner.get(id(callee)) is instr:
                    child = self._cluster(callee, instr, nodes)
                    if child is not None:
                        cluster.clusters.append(child)
        if caller is not None and not cluster.nodes and not cluster.clusters:
            return None
        return cluster

    def _node(self, instr: HloInstruction, *, is_root: bool) -> Node:
        title, lines = _label(instr)
        if is_root:
            title = f"ROOT {title}"
        return Node(
            id=self.ids[id(instr)],
            name=instr.name,
            title=title,
            lines=lines,
            family=family_of(instr),
            tooltip=_tooltip(instr),
            is_root=is_root,
            is_parameter=instr.opcode is Opcode.PARAMETER,
            small=instr.opcode is Opcode.CONSTANT,
            focus=instr is self.focus,
            hidden=self._hidden(instr),
        )

    def _hidden(self, instr: HloInstruction) -> str:
        if self.visible is None or instr.parent is None:
            return ""
        operands = {id(o) for o in instr.operands if not self.shown(o)}
        comp = instr.parent
        if id(comp) not in self.users:
            self.users[id(comp)] = comp.user_map()
        users = {id(u) for u in self.users[id(comp)][instr] if not self.shown(u)}
        parts = [
            f"{n} {word}{'s' if n > 1 else ''}"
            for n, word in ((len(operands), "operand"), (len(users), "user"))
            if n
        ]
        return f"{', '.join(parts)} not shown" if parts else ""

    # ---- edges ---------------------------------------------------------------------
    def _output(self, instr: HloInstruction) -> HloInstruction:
        """The node an edge from ``instr`` leaves: an expanded fusion's fused root."""
        while id(instr) in self.expanded:
            instr = instr.attrs.calls.root
        return instr

    def _edge(self, source: HloInstruction, target: HloInstruction, kind: EdgeKind,
              label: str = "") -> None:  # fmt: skip
        source = self._output(source)
        if self.shown(source) and self.shown(target):
            edge_id = f"e{len(self.edges)}"
            source_id, target_id = self.ids[id(source)], self.ids[id(target)]
            self.edges.append(Edge(edge_id, source_id, target_id, kind, label))

    def _add_edges(self) -> None:
        for comp in self.computations:
            for instr in comp.instructions:
                expanded = id(instr) in self.expanded
                several = len(instr.operands) > 1
                for number, operand in enumerate(instr.operands):
                    # An expanded fusion's operand enters the fused parameter of its number.
                    target = instr.attrs.calls.parameter(number) if expanded else instr
                    self._edge(operand, target, EdgeKind.OPERAND, str(number) if several else "")
                if not expanded:
                    for predecessor in instr.control_predecessors:
                        self._edge(predecessor, instr, EdgeKind.CONTROL, "ctrl")
                    for role, callee in _called(instr):
                        self._edge(callee.root, instr, EdgeKind.CALL, role)


# ---- what calls what ------------------------------------------------------------------
def _called(instr: HloInstruction) -> list[tuple[str, HloComputation]]:
    """``(role, computation)`` for each computation ``instr`` calls, in attribute order."""
    out: list[tuple[str, HloComputation]] = []
    for spec in instr.opdef.attrs:
        value = instr.attrs[spec.name]
        if value is None:
            continue
        role = _ROLES.get(spec.name, spec.name)
        if spec.kind is AttrKind.COMPUTATION:
            out.append((role, value))
        elif spec.kind is AttrKind.COMPUTATIONS:
            out.extend((f"{role} {k}", c) for k, c in enumerate(value))
    return out


def _index(caller: HloInstruction, comp: HloComputation) -> int:
    return next(k for k, (_, c) in enumerate(_called(caller)) if c is comp)


def _placement(
    top: HloComputation,
) -> tuple[list[HloComputation], dict[int, HloInstruction]]:
    """The computations reachable from ``top`` (breadth first) and, for each but ``top``, the
    instruction that owns its drawing: the first caller met. Other callers get an edge."""
    order = [top]
    owner: dict[int, HloInstruction] = {}
    seen = {id(top)}
    queue = deque([top])
    while queue:
        comp = queue.popleft()
        for instr in comp.instructions:
            for _, callee in _called(instr):
                if id(callee) not in seen:
                    seen.add(id(callee))
                    owner[id(callee)] = instr
                    order.append(callee)
                    queue.append(callee)
    return order, owner


def _neighbourhood(
    computations: Sequence[HloComputation], focus: HloInstruction, depth: int
) -> set[int]:
    """Ids of the instructions within ``depth`` steps of ``focus`` (see ``build_graph``)."""
    neighbours: dict[int, list[HloInstruction]] = {}

    def link(a: HloInstruction, b: HloInstruction) -> None:
        neighbours.setdefault(id(a), []).append(b)
        neighbours.setdefault(id(b), []).append(a)

    for comp in computations:
        for instr in comp.instructions:
            for other in (*instr.operands, *instr.control_predecessors):
                link(instr, other)
            for _, callee in _called(instr):
                for inner in (callee.root, *callee.parameters):
                    link(instr, inner)
    distance = {id(focus): 0}
    queue = deque([focus])
    while queue:
        instr = queue.popleft()
        if distance[id(instr)] == depth:
            continue
        for other in neighbours.get(id(instr), ()):
            if id(other) not in distance:
                distance[id(other)] = distance[id(instr)] + 1
                queue.append(other)
    return set(distance)


# ---- labels ---------------------------------------------------------------------------
def _cut(text: str, limit: int = MAX_LINE) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _shape_text(instr: HloInstruction) -> str:
    return _cut(instr.shape.to_hlo(layout=False), MAX_SHAPE)


def _shown_attribute(spec: AttrSpec, value: object) -> bool:
    """Attributes XLA's printer would write, less called computations and literals (drawn
    as clusters and values)."""
    if spec.kind in (AttrKind.COMPUTATION, AttrKind.COMPUTATIONS, AttrKind.LITERAL):
        return False
    if spec.name == "parameter_number" or spec.print_policy is PrintPolicy.NEVER:
        return False
    if spec.print_policy is PrintPolicy.ALWAYS or spec.required:
        return value is not None
    if value is None or value == spec.default:
        return False
    if spec.kind is AttrKind.ENUM and spec.default is None and spec.enum is not None:
        return value is not next(iter(spec.enum))  # DEFAULT / UNSET
    return not (isinstance(value, tuple | str) and not value)


def _attribute_lines(instr: HloInstruction) -> list[str]:
    lines = [
        _cut(f"{spec.name}={hlo_attr_text.format_attr(spec, value, lambda c: c.name)}")
        for spec in instr.opdef.attrs
        if _shown_attribute(spec, value := instr.attrs[spec.name])
    ]
    if len(lines) > MAX_ATTRIBUTE_LINES:
        more = len(lines) - MAX_ATTRIBUTE_LINES + 1
        lines = [*lines[: MAX_ATTRIBUTE_LINES - 1], f"(+{more} attributes)"]
    return lines


def _label(instr: HloInstruction) -> tuple[str, tuple[str, ...]]:
    """``(title, lines)`` of an instruction's node."""
    if instr.opcode is Opcode.PARAMETER:
        return f"Parameter {instr.parameter_number}", (instr.name, _shape_text(instr))
    if instr.opcode is Opcode.CONSTANT:
        literal: Literal = instr.attrs.literal
        shape = instr.shape
        if shape.is_array and shape.num_elements <= TINY_CONSTANT:
            value = _cut(format_literal(literal), 32)
            return "constant", (instr.name, f"{_shape_text(instr)} {value}")
        return "constant", (instr.name, _shape_text(instr))
    title = instr.opcode.value
    if instr.opcode is Opcode.FUSION:
        title = f"fusion {instr.attrs.kind.value}"
    return title, (instr.name, *_attribute_lines(instr), _shape_text(instr))


def _tooltip(instr: HloInstruction) -> str:
    operands = ", ".join(o.name for o in instr.operands)
    text = f"{instr.name} = {instr.shape.to_hlo(layout=True)} {instr.opcode.value}({operands})"
    meta = instr.metadata
    if meta is not None:
        if meta.op_name:
            text += f"\nop_name: {meta.op_name}"
        if meta.source_file and meta.source_line:
            text += f"\nsource: {meta.source_file}:{meta.source_line}"
    return text
