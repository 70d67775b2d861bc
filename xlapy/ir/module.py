"""HloModule: computations (callees first, entry last) and the module configuration."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from xlapy.errors import InvalidArgument
from xlapy.ir.attrs import RawAttribute
from xlapy.ir.computation import HloComputation
from xlapy.ir.instruction import HloInstruction
from xlapy.shape import Shape

MAX_DEVICE_COUNT = 2**31 - 1
"""The largest replica_count / num_partitions a program may declare (device ids are 32-bit,
as ``replica-id`` and ``partition-id`` results); running has a lower limit (``run``)."""


_NAME_CHAR = re.compile(r"[^A-Za-z0-9_.\-]")


def sanitized_name(name: str) -> str:
    """``name`` with every character HLO names cannot hold replaced by ``_`` (the first one
    must be a letter or ``_``), as XLA's ``NameUniquer::GetSanitizedName``."""
    if not name:
        return name
    if not (name[0].isascii() and (name[0].isalpha() or name[0] == "_")):
        name = "_" + name[1:]
    return _NAME_CHAR.sub("_", name)


@dataclass
class ModuleConfig:
    """Module-header attributes (HLO text §2.1)."""

    replica_count: int = 1
    num_partitions: int = 1
    is_scheduled: bool = False
    entry_computation_layout: tuple[tuple[Shape, ...], Shape] | None = None
    input_output_alias: RawAttribute | None = None
    buffer_donor: RawAttribute | None = None
    alias_passthrough_params: bool = False
    allow_spmd_sharding_propagation_to_parameters: tuple[bool, ...] = ()
    allow_spmd_sharding_propagation_to_output: tuple[bool, ...] = ()
    frontend_attributes: dict[str, str] = field(default_factory=dict)
    origin_recovery_table: RawAttribute | None = None


@dataclass(frozen=True)
class FileLocation:
    file_name_id: int
    function_name_id: int
    line: int
    end_line: int
    column: int
    end_column: int


@dataclass(frozen=True)
class StackFrame:
    file_location_id: int
    parent_frame_id: int  # as printed: stored parent + 1


@dataclass
class StackFrameIndex:
    """The FileNames / FunctionNames / FileLocations / StackFrames sections of a dump."""

    file_names: list[str] = field(default_factory=list)
    function_names: list[str] = field(default_factory=list)
    file_locations: list[FileLocation] = field(default_factory=list)
    stack_frames: list[StackFrame] = field(default_factory=list)


class HloModule:
    """A module: named computations, one of which is the entry."""

    def __init__(self, name: str, config: ModuleConfig | None = None) -> None:
        self.name = name
        self.computations: list[HloComputation] = []
        self._entry: HloComputation | None = None
        self.config = config or ModuleConfig()
        self.stack_frame_index: StackFrameIndex | None = None
        self._names: dict[str, object] = {}
        self._computation_names: dict[str, object] = {}
        # (namespace, base) -> every suffix below it is taken: ``unique_name`` probes from
        # there, so naming n copies of ``constant`` costs O(n), not O(n^2).
        self._suffix_floor: dict[tuple[bool, str], int] = {}

    def unique_name(self, name: str, owner: object, *, computation: bool = False) -> str:
        """``name`` (sanitized) if free in this module, else ``name.N`` with the smallest free
        N.

        Instructions and computations have separate namespaces, as in XLA (a computation
        ``add`` may hold an instruction ``add``). As XLA's NameUniquer, a character that HLO
        text cannot hold in a name becomes ``_`` (``<lambda>`` -> ``_lambda_``), so every
        name prints as text that parses.
        """
        name = sanitized_name(name)
        names = self._computation_names if computation else self._names
        if names.get(name, owner) is owner:
            names[name] = owner
            return name
        base = re.sub(r"\.\d+$", "", name)
        n = self._suffix_floor.get((computation, base), 1)
        while f"{base}.{n}" in names:
            n += 1
        unique = f"{base}.{n}"
        names[unique] = owner
        self._suffix_floor[(computation, base)] = n + 1
        return unique

    def add_computation(
        self,
        comp: HloComputation,
        *,
        entry: bool = False,
        before: HloComputation | None = None,
    ) -> HloComputation:
        """Adds ``comp`` at the end, or just before ``before`` (callees must come before their
        callers); its computation and instruction names are made unique in the module."""
        comp.parent = self
        comp.name = self.unique_name(comp.name, comp, computation=True)
        for instr in comp.instructions:
            instr.name = self.unique_name(instr.name, instr)
        if before is None:
            self.computations.append(comp)
        else:
            self.computations.insert(self.computations.index(before), comp)
        if entry:
            self._entry = comp
        return comp

    def remove_computation(self, comp: HloComputation) -> None:
        """Removes ``comp``, which must not be the entry nor be called by an instruction of
        another computation of the module. Its names stay taken (as those of removed
        instructions do), so later names never repeat earlier ones.

        Raises:
            InvalidArgument: ``comp`` is the entry, is still called, or is not in the module.
        """
        if comp is self.entry:
            raise InvalidArgument(f"cannot remove computation {comp.name}: it is the entry")
        if not any(c is comp for c in self.computations):
            raise InvalidArgument(f"computation {comp.name} is not in module {self.name}")
        for other in self.computations:
            if other is comp:
                continue
            for instr in other.instructions:
                if any(c is comp for c in instr.called_computations()):
                    raise InvalidArgument(
                        f"cannot remove computation {comp.name}: {instr.name} in "
                        f"{other.name} calls it"
                    )
        self.computations = [c for c in self.computations if c is not comp]
        comp.parent = None

    @property
    def entry(self) -> HloComputation:
        if self._entry is not None:
            return self._entry
        if not self.computations:
            raise InvalidArgument(f"module {self.name} has no computations")
        return self.computations[-1]

    @entry.setter
    def entry(self, comp: HloComputation) -> None:
        self._entry = comp

    def computation(self, name: str) -> HloComputation:
        for comp in self.computations:
            if comp.name == name:
                return comp
        raise InvalidArgument(f"module {self.name} has no computation named {name!r}")

    def instructions(self) -> list[HloInstruction]:
        return [i for c in self.computations for i in c.instructions]

    def __repr__(self) -> str:
        return f"<HloModule {self.name}: {len(self.computations)} computations>"
