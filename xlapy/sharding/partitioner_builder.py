"""``SpmdBuilder``: adds the per-device instructions the partitioner emits to one computation.

Shapes come from shape inference (``HloComputation.make_instruction``). Collectives are built
as XLA's partitioner builds them for a module of partitions (replica count 1): a fresh
``channel_id``, ``use_global_device_ids`` (all-reduce, all-gather) and explicit groups of
partition ids. Per-device numbers (a shard's offset, its valid length) come from constant
tables indexed by ``partition-id``, as XLA's ``MakePartitionOffsets`` does.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from xlapy import dtypes
from xlapy.ir import attrs as A
from xlapy.ir.computation import HloComputation
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.module import HloModule
from xlapy.ir.opcode import Opcode
from xlapy.literal import Literal
from xlapy.shape import Shape

S32 = dtypes.BY_NAME["s32"]
PRED = dtypes.BY_NAME["pred"]


@dataclass
class ModuleState:
    """What the builders of one partitioned module share: the module, the device count, the
    next channel id and the scalar computations made for collectives (by op and type)."""

    module: HloModule
    num_devices: int
    dry_runs: int = 0  # > 0: computations being built to look at, not kept
    next_channel: int = 1
    reducers: dict[tuple[Opcode, str], HloComputation] = field(default_factory=dict)

    def channel(self) -> int:
        self.next_channel += 1
        return self.next_channel - 1

    def reducer(self, opcode: Opcode, element_type: dtypes.ElementType) -> HloComputation:
        """``(a, b) -> opcode(a, b)`` over scalars of ``element_type``."""
        key = (opcode, element_type.name)
        if key not in self.reducers:
            comp = HloComputation(f"{opcode.value}.{element_type.name}.reducer")
            scalar = Shape.scalar(element_type)
            a = comp.add_instruction(HloInstruction(Opcode.PARAMETER, scalar, (), {
                "parameter_number": 0}, name="a"))  # fmt: skip
            b = comp.add_instruction(HloInstruction(Opcode.PARAMETER, scalar, (), {
                "parameter_number": 1}, name="b"))  # fmt: skip
            comp.add_instruction(comp.make_instruction(opcode, [a, b]), root=True)
            self.module.add_computation(comp, before=self.module.computations[0])
            self.reducers[key] = comp
        return self.reducers[key]


class SpmdBuilder:
    """Appends instructions to ``comp`` (see the module doc)."""

    def __init__(self, comp: HloComputation, state: ModuleState) -> None:
        self.comp = comp
        self.state = state
        self._partition_id: HloInstruction | None = None
        self._tables: dict[bytes, HloInstruction] = {}

    # ---- generic ---------------------------------------------------------------------
    def add(
        self,
        opcode: Opcode,
        operands: Sequence[HloInstruction],
        attrs: dict[str, Any] | None = None,
        *,
        shape: Shape | None = None,
        name: str = "",
    ) -> HloInstruction:
        instr = self.comp.make_instruction(opcode, operands, attrs, shape=shape, name=name)
        return self.comp.add_instruction(instr)

    def copy(self, instr: HloInstruction, operands: Sequence[HloInstruction]) -> HloInstruction:
        """``instr`` as written (its shape, attributes, name and annotations) over ``operands``."""
        return self.comp.add_instruction(
            HloInstruction(
                instr.opcode,
                instr.shape,
                operands,
                instr.attrs,
                name=instr.name,
                metadata=instr.metadata,
                frontend_attributes=instr.frontend_attributes,
                backend_config=instr.backend_config,
            )
        )

    def constant(self, value: Any, element_type: dtypes.ElementType = S32) -> HloInstruction:
        array = np.asarray(value, dtype=element_type.numpy)
        return self.add(Opcode.CONSTANT, [], {"literal": Literal.from_numpy(array)})

    def scalar_like(self, value: HloInstruction, dims: Sequence[int]) -> HloInstruction:
        """The scalar ``value`` broadcast to ``dims``."""
        shape = Shape.array(value.shape.element_type, dims)
        return self.add(Opcode.BROADCAST, [value], {"dimensions": ()}, shape=shape)

    def reshape(self, x: HloInstruction, dims: Sequence[int]) -> HloInstruction:
        if tuple(x.shape.dims) == tuple(dims):
            return x
        return self.add(Opcode.RESHAPE, [x], shape=Shape.array(x.shape.element_type, dims))

    def transpose(self, x: HloInstruction, perm: Sequence[int]) -> HloInstruction:
        if list(perm) == list(range(len(perm))):
            return x
        return self.add(Opcode.TRANSPOSE, [x], {"dimensions": tuple(perm)})

    def slice(self, x: HloInstruction, limits: Sequence[int]) -> HloInstruction:
        """``x[0:limits]`` (the whole of ``x`` when the limits are its dims)."""
        if tuple(x.shape.dims) == tuple(limits):
            return x
        spec = A.SliceSpec(tuple(A.SliceDimension(0, int(n)) for n in limits))
        return self.add(Opcode.SLICE, [x], {"slice": spec})

    def pad_to(self, x: HloInstruction, dims: Sequence[int]) -> HloInstruction:
        """``x`` padded at the high end to ``dims`` with zeros."""
        if tuple(x.shape.dims) == tuple(dims):
            return x
        zero = self.constant(0, x.shape.element_type)
        config = A.PaddingConfig.make([(0, int(n) - m) for n, m in zip(dims, x.shape.dims,
                                                                         strict=True)])  # fmt: skip
        return self.add(Opcode.PAD, [x, zero], {"padding": config})

    # ---- per-device numbers --------------------------------------------------------------
    def partition_id(self) -> HloInstruction:
        """This device's partition id as an s32 scalar (``partition-id`` is u32)."""
        if self._partition_id is None:
            pid = self.add(Opcode.PARTITION_ID, [])
            self._partition_id = self.add(Opcode.CONVERT, [pid], shape=Shape.scalar(S32))
        return self._partition_id

    def table(self, values: Sequence[int]) -> HloInstruction:
        """``values[partition-id]`` as an s32 scalar (a constant when all values agree)."""
        array = np.asarray(values, np.int32)
        if np.all(array == array[0]):
            return self.constant(int(array[0]))
        key = array.tobytes()
        if key not in self._tables:
            table = self.constant(array)
            piece = self.dynamic_slice(table, [self.partition_id()], (1,))
            self._tables[key] = self.reshape(piece, ())
        return self._tables[key]

    def dynamic_slice(
        self, x: HloInstruction, starts: Sequence[HloInstruction], sizes: Sequence[int]
    ) -> HloInstruction:
        return self.add(Opcode.DYNAMIC_SLICE, [x, *starts], {"dynamic_slice_sizes": tuple(sizes)})

    def valid_mask(self, dims: Sequence[int], dim: int, limits: Sequence[int]) -> HloInstruction:
        """pred[dims]: true where the index along ``dim`` is below ``limits[partition]``."""
        iota = self.add(Opcode.IOTA, [], {"iota_dimension": dim}, shape=Shape.array(S32, dims))
        limit = self.scalar_like(self.table(limits), dims)
        return self.add(Opcode.COMPARE, [iota, limit], {"direction": A.ComparisonDirection.LT})

    def select(
        self, mask: HloInstruction, x: HloInstruction, fill: HloInstruction
    ) -> HloInstruction:
        """``mask ? x : fill`` (``fill`` a scalar)."""
        return self.add(Opcode.SELECT, [mask, x, self.scalar_like(fill, x.shape.dims)])

    # ---- collectives ---------------------------------------------------------------------
    @staticmethod
    def _groups(groups: Sequence[Sequence[int]]) -> A.ReplicaGroups:
        return A.ReplicaGroups(explicit=tuple(tuple(int(d) for d in g) for g in groups))

    def all_gather(
        self, x: HloInstruction, dim: int, groups: Sequence[Sequence[int]]
    ) -> HloInstruction:
        dims = list(x.shape.dims)
        dims[dim] *= len(groups[0])
        return self.add(
            Opcode.ALL_GATHER,
            [x],
            {
                "channel_id": self.state.channel(),
                "replica_groups": self._groups(groups),
                "dimensions": (dim,),
                "use_global_device_ids": True,
            },
            shape=Shape.array(x.shape.element_type, dims),
        )

    def all_reduce(
        self, x: HloInstruction, reducer: HloComputation, groups: Sequence[Sequence[int]]
    ) -> HloInstruction:
        return self.add(
            Opcode.ALL_REDUCE,
            [x],
            {
                "channel_id": self.state.channel(),
                "replica_groups": self._groups(groups),
                "use_global_device_ids": True,
                "to_apply": reducer,
            },
        )

    def all_to_all(
        self, x: HloInstruction, dim: int, groups: Sequence[Sequence[int]]
    ) -> HloInstruction:
        return self.add(
            Opcode.ALL_TO_ALL,
            [x],
            {
                "channel_id": self.state.channel(),
                "replica_groups": self._groups(groups),
                "dimensions": (dim,),
            },
        )

    def collective_permute(
        self, x: HloInstruction, pairs: Sequence[tuple[int, int]]
    ) -> HloInstruction:
        return self.add(
            Opcode.COLLECTIVE_PERMUTE,
            [x],
            {
                "channel_id": self.state.channel(),
                "source_target_pairs": tuple((int(s), int(t)) for s, t in pairs),
            },
        )
