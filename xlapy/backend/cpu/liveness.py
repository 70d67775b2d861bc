"""Liveness and buffer aliasing of one plan: when each value can be dropped, and which operand
buffers a step may overwrite in place (``RunContext.donatable``).

Every array leaf an instruction produces is a *buffer*. Buffers that may share memory (a
numpy view, an operand passed through, a kernel whose ``views`` name the operand) are merged
into one *alias class* (union-find, flow-insensitive: two buffers that may alias anywhere are
treated as one everywhere). Tuples and get-tuple-element only rearrange references, so they
keep their operands' classes leaf by leaf and create none.

A class is *owned* by the plan when it holds only buffers the plan's kernels made (never a
constant, never a fallback's result, which may be another device's value or a user's infeed)
and parameter leaves the caller handed over (``owned`` at run time). An operand is donatable
at a step when every class of its array leaves is owned, none is read after the step (by any
value that may alias it, through tuples included) nor by another operand of the same step,
and its leaves are distinct classes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from enum import Enum

from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode
from xlapy.shape import Shape

# A value's buffers mirror its shape: a frozenset of buffer ids per array or token leaf (empty
# for tokens), nested tuples for tuples.
Tree = frozenset[int] | tuple["Tree", ...]


class Origin(Enum):
    """Where a buffer comes from, which decides whether the plan may overwrite it."""

    FRESH = "made by a kernel of this plan"
    PARAMETER = "a parameter leaf (owned when the caller says so)"
    CONSTANT = "a constant or memory a kernel keeps (never overwritten, copied for the user)"
    FOREIGN = "a fallback's result (may be another device's or the user's memory)"


@dataclass(frozen=True, slots=True)
class NodeInfo:
    """What the analysis needs of one instruction of the plan.

    Attributes:
        instr: the instruction (its operands are earlier nodes).
        views: operand positions the result may share memory with (None: any); unused for
            parameters, constants, tuples and get-tuple-element, which the analysis knows.
        origin: the origin of the buffers the node makes.
        template: the value is set before the plan runs (parameters, constants): no step.
    """

    instr: HloInstruction
    views: tuple[int, ...] | None
    origin: Origin
    template: bool


@dataclass(frozen=True, slots=True)
class LeafOwnership:
    """Whether the caller owns one leaf of the plan's result: never when ``possible`` is
    False, else when it owned every parameter leaf in ``needs``."""

    possible: bool
    needs: tuple[int, ...]


@dataclass(frozen=True)
class Liveness:
    """The analysis of one plan; lists are indexed by node (= slot) number.

    Attributes:
        dead_after: slots whose value is last used by this node (dropped once it ran); a
            value nobody uses is dropped right after it is made.
        donatable: operand positions the node may overwrite whatever the caller owns.
        conditional: ``(position, parameter leaves)``: donatable when the caller owns those
            parameter leaves.
        result: ownership of each flattened leaf of the root's value.
        result_constant: per flattened root leaf: it may be a constant's memory.
        parameter_leaves: flattened leaf count of each parameter, by parameter number.
    """

    dead_after: tuple[tuple[int, ...], ...]
    donatable: tuple[frozenset[int], ...]
    conditional: tuple[tuple[tuple[int, tuple[int, ...]], ...], ...]
    result: tuple[LeafOwnership, ...]
    result_constant: tuple[bool, ...]
    parameter_leaves: tuple[int, ...]


def leaf_count(shape: Shape) -> int:
    """Number of leaves (arrays and tokens) of ``shape`` flattened depth first."""
    if shape.is_tuple:
        return sum(leaf_count(s) for s in shape.tuple_shapes)
    return 1


class _Buffers:
    """Union-find over buffer ids, with the origin and parameter leaf of each buffer."""

    def __init__(self) -> None:
        self.parent: list[int] = []
        self.origin: list[Origin] = []
        self.parameter_leaf: list[int] = []

    def new(self, origin: Origin, parameter_leaf: int = -1) -> int:
        self.parent.append(len(self.parent))
        self.origin.append(origin)
        self.parameter_leaf.append(parameter_leaf)
        return len(self.parent) - 1

    def find(self, b: int) -> int:
        parent = self.parent
        while parent[b] != b:
            parent[b] = parent[parent[b]]
            b = parent[b]
        return b

    def union(self, a: int, b: int) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)


def _flat(tree: Tree) -> list[frozenset[int]]:
    if isinstance(tree, frozenset):
        return [tree]
    return [leaf for sub in tree for leaf in _flat(sub)]


def _all(tree: Tree) -> frozenset[int]:
    return frozenset().union(*_flat(tree))


def _make(shape: Shape, origin: Origin, buffers: _Buffers) -> Tree:
    """A new buffer of ``origin`` for every array leaf of ``shape``."""
    if shape.is_tuple:
        return tuple(_make(s, origin, buffers) for s in shape.tuple_shapes)
    if shape.is_token:
        return frozenset()
    return frozenset({buffers.new(origin)})


def _parameter_tree(shape: Shape, leaves: Iterator[int], buffers: _Buffers) -> Tree:
    """A parameter's buffers: one per array leaf, numbered with the flattened leaf index."""
    if shape.is_tuple:
        return tuple(_parameter_tree(s, leaves, buffers) for s in shape.tuple_shapes)
    leaf = next(leaves)
    if shape.is_token:
        return frozenset()
    return frozenset({buffers.new(Origin.PARAMETER, leaf)})


def _resolve(tree: Tree, find: Callable[[int], int]) -> Tree:
    """``tree`` with every buffer replaced by its alias class."""
    if isinstance(tree, frozenset):
        return frozenset(find(b) for b in tree)
    return tuple(_resolve(t, find) for t in tree)


def analyze(nodes: Sequence[NodeInfo], root: int) -> Liveness:
    """Liveness, donation and result ownership of a plan whose instructions, in execution
    order, are ``nodes`` (operands before users); ``root`` is the result's node."""
    index = {id(n.instr): i for i, n in enumerate(nodes)}
    operands = [[index[id(o)] for o in n.instr.operands] for n in nodes]
    buffers = _Buffers()
    trees: list[Tree] = []
    leaf_base: dict[int, int] = {}
    parameters = sorted(
        (n.instr.parameter_number, i)
        for i, n in enumerate(nodes)
        if n.instr.opcode is Opcode.PARAMETER
    )
    counts = [leaf_count(nodes[i].instr.shape) for _, i in parameters]
    start = 0
    for (_, i), count in zip(parameters, counts, strict=True):
        leaf_base[i] = start
        start += count

    # Pass 1: the buffers of every value, merged where they may alias.
    for i, node in enumerate(nodes):
        instr, shape = node.instr, node.instr.shape
        ops = operands[i]
        if instr.opcode is Opcode.PARAMETER:
            numbers = iter(range(leaf_base[i], leaf_base[i] + leaf_count(shape)))
            trees.append(_parameter_tree(shape, numbers, buffers))
        elif instr.opcode is Opcode.TUPLE:
            trees.append(tuple(trees[o] for o in ops))
        elif instr.opcode is Opcode.GET_TUPLE_ELEMENT and isinstance(trees[ops[0]], tuple):
            trees.append(trees[ops[0]][int(instr.attrs.index)])  # type: ignore[index]
        else:
            tree = _make(shape, node.origin, buffers)
            viewed = range(len(ops)) if node.views is None else node.views
            viewed_buffers = [b for k in viewed if k < len(ops) for b in _all(trees[ops[k]])]
            made = _all(tree)
            if viewed_buffers and made:  # a token result shares no memory
                anchor = next(iter(made))
                for b in (*made, *viewed_buffers):
                    buffers.union(anchor, b)
            trees.append(tree)

    # Pass 2: alias classes, the last step reading each, and the last use of each value.
    find = buffers.find
    klass: list[Tree] = [_resolve(t, find) for t in trees]
    end = len(nodes)
    last_read: dict[int, int] = {}
    last_use = [-1] * len(nodes)
    reads: list[list[frozenset[int]]] = []
    for i, node in enumerate(nodes):
        per_position = []
        for o in operands[i]:
            tree = klass[o]
            if node.instr.opcode is Opcode.GET_TUPLE_ELEMENT and isinstance(tree, tuple):
                tree = tree[int(node.instr.attrs.index)]
            read = _all(tree)
            per_position.append(read)
            for c in read:
                last_read[c] = i
            last_use[o] = i
        reads.append(per_position)
    for c in _all(klass[root]):
        last_read[c] = end
    last_use[root] = end

    origins: dict[int, set[Origin]] = {}
    needs: dict[int, set[int]] = {}
    for b in range(len(buffers.parent)):
        c = find(b)
        origins.setdefault(c, set()).add(buffers.origin[b])
        if buffers.parameter_leaf[b] >= 0:
            needs.setdefault(c, set()).add(buffers.parameter_leaf[b])

    def ownable(c: int) -> bool:
        return origins[c] <= {Origin.FRESH, Origin.PARAMETER}

    dead_after: list[list[int]] = [[] for _ in nodes]
    for i in range(len(nodes)):
        if last_use[i] == -1:
            if not nodes[i].template:
                dead_after[i].append(i)
        elif last_use[i] < end:
            dead_after[last_use[i]].append(i)

    donatable: list[frozenset[int]] = []
    conditional: list[tuple[tuple[int, tuple[int, ...]], ...]] = []
    for i, node in enumerate(nodes):
        static: set[int] = set()
        maybe: list[tuple[int, tuple[int, ...]]] = []
        structural = node.template or node.instr.opcode in (
            Opcode.TUPLE,
            Opcode.GET_TUPLE_ELEMENT,
        )
        for k, o in enumerate(operands[i]):
            if structural or operands[i].count(o) != 1:
                continue
            arrays = [leaf for leaf in _flat(klass[o]) if leaf]
            classes: frozenset[int] = frozenset().union(*arrays)
            if not classes or sum(len(leaf) for leaf in arrays) != len(classes):
                continue
            others = frozenset().union(*(r for j, r in enumerate(reads[i]) if j != k))
            if classes & others:
                continue
            if not all(ownable(c) and last_read.get(c) == i for c in classes):
                continue
            needed = tuple(sorted(p for c in classes for p in needs.get(c, ())))
            if needed:
                maybe.append((k, needed))
            else:
                static.add(k)
        donatable.append(frozenset(static))
        conditional.append(tuple(maybe))

    root_leaves = _flat(klass[root])
    result = []
    for j, leaf in enumerate(root_leaves):
        aliased = any(leaf & other for m, other in enumerate(root_leaves) if m != j)
        possible = bool(leaf) and not aliased and all(ownable(c) for c in leaf)
        needed = tuple(sorted(p for c in leaf for p in needs.get(c, ()))) if possible else ()
        result.append(LeafOwnership(possible, needed))
    constant = tuple(any(Origin.CONSTANT in origins[c] for c in leaf) for leaf in root_leaves)
    return Liveness(
        dead_after=tuple(tuple(sorted(d)) for d in dead_after),
        donatable=tuple(donatable),
        conditional=tuple(conditional),
        result=tuple(result),
        result_constant=constant,
        parameter_leaves=tuple(counts),
    )
