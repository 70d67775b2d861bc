"""The SPMD partitioner (pass ``spmd-partitioning``): a global-view module whose instructions
carry shardings becomes the per-device module every partition runs (XLA's ``_spmd`` module:
per-device shapes, ``num_partitions`` set, collectives where data must move).

As XLA's ``SpmdPartitioningVisitor``, each instruction of a computation is visited in
post-order and rewritten over per-device shapes (a ``PValue``: the per-device instruction,
the global shape and the ``Tiling``); operands are resharded (``reshard.py``) to what the
op's handler needs, and the result is resharded to the instruction's own sharding when it
has one. An instruction without a sharding keeps the tiling its handler produces (for
elementwise ops, that of its most tiled operand), so a module that only annotates its
parameters and results partitions too; run ``sharding-propagation`` first for XLA's choices.

Handlers by op family live in ``partitioner_ops.py`` (elementwise, shape ops, dot,
reductions, control flow); anything without one is computed on replicated operands
(``replicated_fallback``: all-gather, compute, slice), which is correct for every
deterministic op. Ops whose result depends on the device (``partition-id``, rng,
collectives, send/recv, feeds) and manual shardings are refused, naming the instruction.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from xlapy.errors import Unimplemented
from xlapy.ir.computation import HloComputation
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.module import HloModule
from xlapy.ir.opcode import Opcode
from xlapy.ir.opdefs import Trait
from xlapy.passes.pass_manager import Pass, register_pass
from xlapy.shape import Shape
from xlapy.sharding.hlo_sharding import HloSharding
from xlapy.sharding.partitioner_builder import ModuleState, SpmdBuilder
from xlapy.sharding.partitioner_tiling import Tiling
from xlapy.sharding.reshard import plan_cost, reshard


class Manual:
    """The layout of a value inside a manual region (``shard_map``): already per device."""

    def __repr__(self) -> str:
        return "MANUAL"


MANUAL = Manual()

TilingTree = Tiling | Manual | tuple[Any, ...] | None
"""A Tiling for an array, MANUAL inside a manual region, a tuple of trees for a tuple, None
for a token."""


class PValue:
    """A value of the global program on every device: ``instr`` (this device's piece),
    ``shape`` (the global shape), ``tiling`` (a ``TilingTree``).

    ``pieces`` caches the value resharded to other tilings (XLA's reshard cache), so two
    users asking for the same layout share one collective. A deferred value (``make``: a
    broadcast or iota without a sharding of its own) is built only when a user asks for a
    tiling, directly in that tiling; ``make_cost`` is what building it in a tiling sends.
    """

    def __init__(
        self,
        instr: HloInstruction | None,
        shape: Shape,
        tiling: TilingTree,
        make: Callable[[Any], HloInstruction] | None = None,
        make_cost: Callable[[Tiling], float] | None = None,
        elements: list[PValue] | None = None,
    ) -> None:
        self._instr = instr
        self.shape = shape
        self.tiling = tiling
        self.make = make
        self.make_cost = make_cost
        self.elements = elements
        self.pieces: dict[Tiling, HloInstruction] = {}

    @property
    def instr(self) -> HloInstruction:
        if self._instr is None:
            assert self.make is not None
            self._instr = self.make(self.tiling)
        return self._instr

    def __repr__(self) -> str:
        return f"PValue({self._instr!r}, {self.shape}, {self.tiling!r})"


def local_shape(shape: Shape, tiling: TilingTree) -> Shape:
    """The per-device shape of a value of global ``shape`` tiled as ``tiling``."""
    if shape.is_tuple:
        assert isinstance(tiling, tuple)
        return Shape.tuple_of(
            [local_shape(s, t) for s, t in zip(shape.tuple_shapes, tiling, strict=True)]
        )
    if not shape.is_array or tiling is MANUAL:
        return shape
    assert isinstance(tiling, Tiling)
    return Shape(shape.element_type, tiling.shard_dims(shape.dims), layout=shape.layout)


def tiling_to_sharding(tiling: TilingTree) -> HloSharding:
    if isinstance(tiling, tuple):
        return HloSharding.tuple([tiling_to_sharding(t) for t in tiling])
    if tiling is None:
        return HloSharding.replicate()
    if tiling is MANUAL:
        return HloSharding.manual()
    return tiling.to_sharding()


Handler = Callable[["ComputationPartitioner", HloInstruction], PValue]
HANDLERS: dict[Opcode, Handler] = {}
"""Partitioning handlers by opcode (``partitioner_ops.py`` fills it)."""

REFUSED = {
    Opcode.PARTITION_ID: "its value differs per device",
    Opcode.REPLICA_ID: "its value differs per device",
    Opcode.RNG: "random numbers would differ per device",
    Opcode.RNG_BIT_GENERATOR: "random numbers would differ per device",
    Opcode.RNG_GET_AND_UPDATE_STATE: "random numbers would differ per device",
    Opcode.FUSION: "partition before fusion",
    Opcode.SEND: "channels are not partitioned",
    Opcode.RECV: "channels are not partitioned",
    Opcode.INFEED: "feeds are not partitioned",
    Opcode.OUTFEED: "feeds are not partitioned",
}


class ComputationPartitioner:
    """Partitions instructions of the global program into one per-device computation."""

    def __init__(self, builder: SpmdBuilder, state: ModuleState) -> None:
        self.b = builder
        self.state = state
        self.values: dict[HloInstruction, PValue] = {}

    # ---- shardings -------------------------------------------------------------------
    @property
    def num_devices(self) -> int:
        return self.state.num_devices

    def target(self, instr: HloInstruction) -> TilingTree | None:
        """The tiling ``instr``'s sharding asks for, or None when it has none."""
        if instr.sharding is None:
            return None
        return self.tree_of(instr.sharding, instr.shape, instr.name)

    def tree_of(self, sharding: HloSharding, shape: Shape, what: str) -> TilingTree:
        if shape.is_tuple:
            leaves = (
                list(sharding.tuple_elements)
                if sharding.is_tuple
                else [sharding] * len(shape.tuple_shapes)
            )
            if len(leaves) != len(shape.tuple_shapes):
                # A flat tuple sharding over a nested tuple shape: one per leaf, in order.
                flat = iter(sharding.leaf_shardings(shape))
                return self._nest(shape, flat, what)
            return tuple(
                self.tree_of(s, t, f"{what}[{i}]")
                for i, (s, t) in enumerate(zip(leaves, shape.tuple_shapes, strict=True))
            )
        if not shape.is_array:
            return None
        if sharding.is_manual:
            return MANUAL
        return Tiling.from_sharding(sharding, shape.rank, self.num_devices, what)

    def _nest(self, shape: Shape, flat: Any, what: str) -> TilingTree:
        if shape.is_tuple:
            return tuple(self._nest(s, flat, what) for s in shape.tuple_shapes)
        return self.tree_of(next(flat), shape, what)

    def replicated(self, shape: Shape) -> TilingTree:
        if shape.is_tuple:
            return tuple(self.replicated(s) for s in shape.tuple_shapes)
        if not shape.is_array:
            return None
        return Tiling.replicated(shape.rank, self.num_devices)

    # ---- values ----------------------------------------------------------------------
    def value(self, instr: HloInstruction) -> PValue:
        return self.values[instr]

    def operand(self, instr: HloInstruction, i: int, tiling: TilingTree) -> HloInstruction:
        """Operand ``i`` of ``instr`` resharded to ``tiling``."""
        return self.resharded(self.value(instr.operands[i]), tiling).instr

    def resharded(self, v: PValue, tiling: TilingTree) -> PValue:
        """``v`` as ``tiling`` lays it out (tuples element by element)."""
        if v.shape.is_tuple:
            assert isinstance(tiling, tuple)
            assert isinstance(v.tiling, tuple)
            if _same(v.tiling, tiling):
                return v
            if v.elements is not None:
                return self.tuple_of(v.shape, [
                    self.resharded(e, t) for e, t in zip(v.elements, tiling, strict=True)])  # fmt: skip
            parts = []
            for k, (s, t) in enumerate(zip(v.shape.tuple_shapes, tiling, strict=True)):
                element = self.b.add(Opcode.GET_TUPLE_ELEMENT, [v.instr], {"index": k})
                parts.append(self.resharded(PValue(element, s, v.tiling[k]), t).instr)
            return PValue(self.b.add(Opcode.TUPLE, parts), v.shape, tiling)
        if not v.shape.is_array or tiling is None:
            return v
        if (tiling is MANUAL) != (v.tiling is MANUAL):
            raise Unimplemented(
                f"spmd-partitioning: a value of shape {v.shape.to_hlo(layout=False)} enters or "
                "leaves a manual (shard_map) region other than through SPMDFullToShardShape / "
                "SPMDShardToFullShape"
            )
        if tiling is MANUAL:
            return v
        assert isinstance(v.tiling, Tiling)
        assert isinstance(tiling, Tiling)
        if tiling == v.tiling and (v.make is None or v._instr is not None):
            return v
        if tiling not in v.pieces:
            if v.make is not None:
                v.pieces[tiling] = v.make(tiling)
            else:
                v.pieces[tiling] = reshard(self.b, v.instr, v.shape.dims, v.tiling, tiling)
        return PValue(v.pieces[tiling], v.shape, tiling)

    def tuple_of(self, shape: Shape, elements: list[PValue]) -> PValue:
        """A tuple of ``elements``, built when used whole."""
        return PValue(
            None,
            shape,
            tuple(e.tiling for e in elements),
            lambda _: self.b.add(Opcode.TUPLE, [e.instr for e in elements]),
            elements=elements,
        )

    def cost(self, v: PValue, tiling: Tiling) -> float:
        """Bytes each device sends to have ``v`` (an array) tiled as ``tiling``."""
        if tiling in v.pieces or (tiling == v.tiling and v.make is None):
            return 0.0
        if v.make_cost is not None:
            return v.make_cost(tiling)
        assert isinstance(v.tiling, Tiling)
        return plan_cost(v.tiling, tiling, v.shape.dims, max(1, v.shape.element_type.bits // 8))

    # ---- visiting ---------------------------------------------------------------------
    def partition(self, comp: HloComputation, params: Sequence[PValue]) -> PValue:
        """Partitions ``comp`` with its parameters bound to ``params``; returns its root
        (instructions are added to this partitioner's builder: a call is inlined)."""
        for p in comp.parameters:
            self.values[p] = params[p.parameter_number]
        for instr in comp.post_order():
            if instr.opcode is Opcode.PARAMETER:
                continue
            self.values[instr] = self.visit(instr)
        return self.values[comp.root]

    def visit(self, instr: HloInstruction) -> PValue:
        from xlapy.sharding.partitioner_manual import MANUAL_CALLS, copy_manual, is_manual

        manual = is_manual(self, instr)
        if manual and not _is_custom_call(instr, MANUAL_CALLS):
            return copy_manual(self, instr)
        if instr.opcode in REFUSED or Trait.COLLECTIVE in instr.opdef.traits:
            why = REFUSED.get(instr.opcode, "the global program must not hold collectives")
            raise Unimplemented(
                f"spmd-partitioning: {instr.opcode.value} {instr.name} cannot be partitioned "
                f"({why}; inside shard_map it could)"
            )
        handler = HANDLERS.get(instr.opcode, replicated_fallback)
        result = handler(self, instr)
        target = self.target(instr)
        if isinstance(target, Tiling) and result.make is not None:
            # Still cheap to build in any tiling: keep it deferred, naturally in the target.
            deferred = PValue(None, result.shape, target, result.make, result.make_cost)
            deferred.pieces = result.pieces
            return deferred
        if target is not None:
            result = self.resharded(result, target)
        return result


def _is_custom_call(instr: HloInstruction, targets: Sequence[str]) -> bool:
    return instr.opcode is Opcode.CUSTOM_CALL and instr.attrs.custom_call_target in targets


def _same(a: TilingTree, b: TilingTree) -> bool:
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return a == b


def replicated_fallback(p: ComputationPartitioner, instr: HloInstruction) -> PValue:
    """Any deterministic op: every operand replicated, the op computed whole on every
    device, the result replicated (then sliced to the instruction's sharding)."""
    operands = [p.operand(instr, i, p.replicated(o.shape)) for i, o in enumerate(instr.operands)]
    new = p.b.copy(instr, operands)
    return PValue(new, instr.shape, p.replicated(instr.shape))


def count_devices(module: HloModule) -> int:
    """The partition count of a global module: its ``num_partitions`` when above 1, else
    the largest device count of its shardings (HLO text from JAX omits the count)."""
    if module.config.num_partitions > 1:
        return module.config.num_partitions
    most = 1
    for instr in module.instructions():
        if instr.sharding is not None:
            for leaf in instr.sharding.tuple_elements or (instr.sharding,):
                if leaf.kind == "tiled":
                    most = max(most, int(leaf.tile_assignment.size))
                elif leaf.is_maximal and leaf.device is not None:
                    most = max(most, leaf.device + 1)
    return most


def partition_module(module: HloModule, num_devices: int | None = None) -> HloModule:
    """Rewrites ``module`` (in place, and returns it) into its per-device module over
    ``num_devices`` partitions (default: ``count_devices``)."""
    from xlapy.sharding import (  # noqa: F401 - register the handlers
        partitioner_control,
        partitioner_dot,
        partitioner_gather,
        partitioner_manual,
        partitioner_ops,
        partitioner_windows,
    )

    n = num_devices or count_devices(module)
    if module.config.replica_count != 1:
        raise Unimplemented(
            f"spmd-partitioning: the module has {module.config.replica_count} replicas; "
            "partitioning needs replica_count 1 (devices are partitions)"
        )
    old_entry = module.entry
    state = ModuleState(module, n)
    entry = HloComputation(f"{old_entry.name}_spmd")
    module.add_computation(entry)
    builder = SpmdBuilder(entry, state)
    part = ComputationPartitioner(builder, state)
    params = []
    for p in old_entry.parameters:
        tiling = part.target(p) if p.sharding is not None else part.replicated(p.shape)
        new = entry.add_instruction(
            HloInstruction(
                Opcode.PARAMETER,
                local_shape(p.shape, tiling),
                (),
                {"parameter_number": p.parameter_number},
                name=p.name,
                metadata=p.metadata,
                sharding=tiling_to_sharding(tiling),
            )
        )
        params.append(PValue(new, p.shape, tiling))
    result = part.partition(old_entry, params)
    root = result.instr
    if root.opcode is Opcode.PARAMETER:  # the root carries the result's sharding
        root = part.b.add(Opcode.COPY if root.shape.is_array else Opcode.TUPLE, [root] if
                          root.shape.is_array else [part.b.add(Opcode.GET_TUPLE_ELEMENT, [root],
                          {"index": k}) for k in range(len(root.shape.tuple_shapes))])  # fmt: skip
    root.sharding = tiling_to_sharding(result.tiling)
    entry.root = root
    module.entry = entry
    _keep_reachable(module)
    module.config.num_partitions = n
    module.config.entry_computation_layout = None
    return module


def _keep_reachable(module: HloModule) -> None:
    """Drops computations the new entry no longer calls (the global program's)."""
    reachable: set[int] = set()
    stack = [module.entry]
    while stack:
        comp = stack.pop()
        if id(comp) in reachable:
            continue
        reachable.add(id(comp))
        for instr in comp.instructions:
            stack.extend(instr.called_computations())
    module.computations = [c for c in module.computations if id(c) in reachable]


@register_pass
@dataclass(frozen=True)
class SpmdPartitioner(Pass):
    """``spmd-partitioning``: the global module becomes the per-device module (see the
    module doc). ``num_partitions`` 0 means ``count_devices``."""

    name = "spmd-partitioning"
    num_partitions: int = 0

    def run(self, module: HloModule) -> bool:
        partition_module(module, self.num_partitions or None)
        return True
