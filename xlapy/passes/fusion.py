"""The ``fusion`` pass: XLA's instruction fusion for the CPU and GPU pipelines, deciding
through indexing maps (``xlapy.indexing``). Rules (``fusion_policy.py``, edits in
``fusion_graph.py``):

* **Loop fusion (kLoop).** Elementwise ops, broadcast, reshape, bitcast, transpose, slice,
  concatenate, pad, iota, reverse, dynamic-slice, reduce-window and constants of at most
  ``max_fused_constant_elements`` elements are *loop ops*. Consumers are visited from the
  root up; each pulls its loop-op producers in, one at a time, growing its fusion.
* **Input fusion (kInput).** A ``reduce`` (any reducer, variadic too) is a consumer like a
  loop op and stays the root of its fusion; it is never fused into a consumer.
* **Duplication.** A producer with other users (or the computation's root) is copied into
  the consumer and stays for the others, unless it is *expensive* (XLA's ``IsExpensive``:
  exp, log, tanh, power, sqrt, rsqrt, float division, reduce-window, ...).
* **Reuse.** An expensive producer is fused only if the consumer reads each of its elements
  at most once: one access path whose map from the consumer's iteration space (a reduce's
  input index, another op's output index) is injective (``fusion_injective.py``). A
  broadcast, a reduce over a broadcast dimension, overlapping reduce-windows and two paths
  (``p + transpose(p)``) all read elements more than once.
* **Indexing.** An op without an indexing rule (an undefined map) is never fused, merged
  or wrapped.
* **Multi-output fusion** (``multi_output``): a producer that still has several users merges
  into a user fusion that reads it at its own loop index (identity map, same iteration
  space), when no other path leads from the producer to that user; two fusions reading one
  operand at the same indices (``reduce(x)`` and ``reduce(x*x)``, mean and variance) merge
  when their iteration spaces match and neither depends on the other. The merged fusion's
  root is a tuple; users read it with get-tuple-element; equal instructions the two brought
  in (copies of one cheap producer) become one.
* **Wrapping** (``wrap_single_ops``): loop ops and reduces left alone become one-op fusions
  (as XLA:CPU's fusion wrapper does), except constants and bitcasts.
* **Never fused:** dot, convolution, sort, scatter, gather, while, conditional, call,
  custom-call, collectives, rng and side-effecting ops, parameters, tuples, kOutput and
  kCustom fusions, instructions with control edges, dynamic shapes. The pass runs on every
  computation reached from the entry through while, conditional and call; reducer and
  comparator regions and fused computations are left alone. Limits: ``max_fused_instructions``
  and ``max_fusion_parameters`` per fusion.

Fused computations are named ``fused_computation`` (parameter N, ``param_N``, is operand
N, numbered in the order the root reaches them), fusions ``fusion``. Fusion changes no
evaluation order, so the interpreter's results stay bit-identical. Softmax becomes one
fusion per reduction plus the epilogue; the exponential (expensive, used twice) is the
second output of the sum's fusion:

>>> import xlapy
>>> from xlapy.text.hlo_printer import PrintOptions, print_computation
>>> module = xlapy.load('''
... HloModule softmax
... max { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT m = f32[] maximum(a, b) }
... add { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT s = f32[] add(a, b) }
... ENTRY main {
...   x = f32[4,8] parameter(0)
...   low = f32[] constant(-inf)
...   m = f32[4] reduce(x, low), dimensions={1}, to_apply=max
...   mb = f32[4,8] broadcast(m), dimensions={0}
...   d = f32[4,8] subtract(x, mb)
...   e = f32[4,8] exponential(d)
...   zero = f32[] constant(0)
...   s = f32[4] reduce(e, zero), dimensions={1}, to_apply=add
...   sb = f32[4,8] broadcast(s), dimensions={0}
...   ROOT r = f32[4,8] divide(e, sb)
... }''')
>>> Fusion().run(module)
True
>>> text = PrintOptions.short_parsable()
>>> for instr in module.entry.instructions:
...     if instr.opcode is Opcode.FUSION:
...         print(print_computation(instr.attrs.calls, options=text))
fused_computation.3 {
  param_0.2 = f32[4,8]{1,0} parameter(0)
  low = f32[] constant(-inf)
  ROOT m.1 = f32[4]{0} reduce(param_0.2, low), dimensions={1}, to_apply=max
}
fused_computation.1 {
  param_0.1 = f32[4,8]{1,0} parameter(0)
  param_1.1 = f32[4]{0} parameter(1)
  mb = f32[4,8]{1,0} broadcast(param_1.1), dimensions={0}
  d = f32[4,8]{1,0} subtract(param_0.1, mb)
  e = f32[4,8]{1,0} exponential(d)
  zero = f32[] constant(0)
  s.1 = f32[4]{0} reduce(e, zero), dimensions={1}, to_apply=add
  ROOT tuple = (f32[4]{0}, f32[4,8]{1,0}) tuple(s.1, e)
}
fused_computation {
  param_0 = f32[4,8]{1,0} parameter(0)
  param_1 = f32[4]{0} parameter(1)
  sb = f32[4,8]{1,0} broadcast(param_1), dimensions={0}
  ROOT r = f32[4,8]{1,0} divide(param_0, sb)
}
>>> print(print_computation(module.entry, options=text))  # doctest: +NORMALIZE_WHITESPACE
ENTRY main {
  x = f32[4,8]{1,0} parameter(0)
  fusion.3 = f32[4]{0} fusion(x), kind=kInput, calls=fused_computation.3
  fusion.1 = (f32[4]{0}, f32[4,8]{1,0}) fusion(x, fusion.3), kind=kInput,
      calls=fused_computation.1
  get-tuple-element.1 = f32[4,8]{1,0} get-tuple-element(fusion.1), index=1
  get-tuple-element = f32[4]{0} get-tuple-element(fusion.1), index=0
  ROOT fusion = f32[4,8]{1,0} fusion(get-tuple-element.1, get-tuple-element), kind=kLoop,
      calls=fused_computation
}
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from xlapy.errors import InvalidArgument
from xlapy.indexing.per_op import OperandIndexing
from xlapy.ir.computation import HloComputation
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.module import HloModule
from xlapy.ir.opcode import Opcode
from xlapy.passes.fusion_graph import FusionEditor, distinct
from xlapy.passes.fusion_injective import reads_each_element_once
from xlapy.passes.fusion_policy import (
    FusionLimits,
    NodeKind,
    ReadMaps,
    access_key,
    all_defined,
    by_operand,
    fused_reads,
    instruction_count,
    is_expensive,
    is_identity,
    iteration_maps,
    iteration_space,
    node_kind,
    union,
)
from xlapy.passes.pass_manager import Pass, register_pass

_CONTROL_FLOW = frozenset({Opcode.WHILE, Opcode.CONDITIONAL, Opcode.CALL})
_NOT_A_CANDIDATE = ""  # a refusal not worth reporting (the pair is not a fusion candidate)


@dataclass(frozen=True)
class Refusal:
    """A fusion the pass considered and refused: the instructions' names and why."""

    producer: str
    consumer: str
    reason: str


@dataclass
class FusionReport:
    """What one run did: ``changed``, and the refusals it met (each reason once per pair)."""

    changed: bool = False
    refusals: list[Refusal] = field(default_factory=list)

    def reasons(self, producer: str, consumer: str) -> list[str]:
        return [
            r.reason for r in self.refusals if r.producer == producer and r.consumer == consumer
        ]


@register_pass
@dataclass(frozen=True)
class Fusion(Pass):
    """Instruction fusion (see the module docstring for the rules).

    Attributes:
        max_fused_instructions: most instructions in one fused computation.
        max_fusion_parameters: most operands of one fusion.
        max_fused_constant_elements: larger constants stay operands.
        multi_output: merge producers and siblings into multi-output fusions.
        wrap_single_ops: turn loop ops and reduces left unfused into one-op fusions.
    """

    name: ClassVar[str] = "fusion"
    max_fused_instructions: int = 128
    max_fusion_parameters: int = 64
    max_fused_constant_elements: int = 16
    multi_output: bool = True
    wrap_single_ops: bool = True

    def __post_init__(self) -> None:
        for option in ("max_fused_instructions", "max_fusion_parameters"):
            if getattr(self, option) < 1:
                raise InvalidArgument(
                    f"fusion [options]: {option} must be at least 1; got {getattr(self, option)}"
                )
        if self.max_fused_constant_elements < 0:
            raise InvalidArgument(
                "fusion [options]: max_fused_constant_elements must not be negative; "
                f"got {self.max_fused_constant_elements}"
            )

    def run(self, module: HloModule) -> bool:
        return self.fuse(module).changed

    def fuse(self, module: HloModule) -> FusionReport:
        """Runs the pass; returns its report."""
        report = FusionReport()
        module.entry = module.entry  # explicit: fused computations are added to the module
        shared = shared_computations(module)
        for comp in fusible_computations(module):
            _ComputationFusion(self, module, comp, shared, report).run()
        return report


def fusible_computations(module: HloModule) -> list[HloComputation]:
    """The entry and what it reaches through while, conditional and call, in module order;
    never a computation that some op uses as a region (reducer, comparator, fused, ...)."""
    regions: set[int] = set()
    for comp in module.computations:
        for instr in comp.instructions:
            if instr.opcode not in _CONTROL_FLOW:
                regions.update(id(c) for c in instr.called_computations())
    reached: set[int] = set()
    stack = [module.entry]
    while stack:
        comp = stack.pop()
        if id(comp) in reached or id(comp) in regions:
            continue
        reached.add(id(comp))
        for instr in comp.instructions:
            if instr.opcode in _CONTROL_FLOW:
                stack.extend(instr.called_computations())
    return [c for c in module.computations if id(c) in reached]


def shared_computations(module: HloModule) -> set[int]:
    """Computations called from more than one place (a fusion calling one is not edited)."""
    calls: dict[int, int] = {}
    for comp in module.computations:
        for instr in comp.instructions:
            for callee in instr.called_computations():
                calls[id(callee)] = calls.get(id(callee), 0) + 1
    return {c for c, n in calls.items() if n > 1}


class _ComputationFusion:
    """The pass on one computation: producer-consumer fusion, wrapping, multi-output
    fusion, repeated until nothing changes (so a second run changes nothing)."""

    def __init__(
        self,
        options: Fusion,
        module: HloModule,
        comp: HloComputation,
        shared: set[int],
        report: FusionReport,
    ) -> None:
        self.options = options
        self.limits = FusionLimits(
            options.max_fused_instructions,
            options.max_fusion_parameters,
            options.max_fused_constant_elements,
        )
        self.editor = FusionEditor(module, comp)
        self.shared = shared
        self.report = report
        self._maps: dict[int, tuple[HloInstruction, ReadMaps]] = {}
        self._kinds: dict[int, tuple[HloInstruction, NodeKind]] = {}
        self._sizes: dict[int, tuple[HloInstruction, int]] = {}
        self._refused: set[tuple[int, int, str]] = set()

    def run(self) -> None:
        while True:
            changed = self._fuse_producers()
            if self.options.wrap_single_ops:
                changed |= self._wrap_single_ops()
            if self.options.multi_output:
                changed |= self._merge_producer_outputs()
                changed |= self._merge_siblings()
            if not changed:
                break
            self.report.changed = True
        self.editor.finish()

    # ---- facts, cached per node -----------------------------------------------------
    def kind(self, instr: HloInstruction) -> NodeKind:
        cached = self._kinds.get(id(instr))
        if cached is None or cached[0] is not instr:
            kind = node_kind(instr, self.limits, self.shared)
            if self.editor.has_control_edges(instr):
                kind = NodeKind.OPAQUE
            cached = (instr, kind)
            self._kinds[id(instr)] = cached
        return cached[1]

    def maps(self, instr: HloInstruction) -> ReadMaps:
        """The node's maps from its iteration space to each operand (cached; a fusion's are
        updated as producers join it, see ``_fuse``)."""
        cached = self._maps.get(id(instr))
        if cached is None or cached[0] is not instr:
            cached = (instr, by_operand(instr, iteration_maps(instr)))
            self._maps[id(instr)] = cached
        return cached[1]

    def reads(self, consumer: HloInstruction, operand: HloInstruction) -> list[OperandIndexing]:
        """The distinct maps by which ``consumer`` reads ``operand``."""
        return self.maps(consumer).get(id(operand), [])

    def _forget(self, *instrs: HloInstruction) -> None:
        for instr in instrs:
            self._maps.pop(id(instr), None)
            self._kinds.pop(id(instr), None)
            self._sizes.pop(id(instr), None)

    def size(self, instr: HloInstruction) -> int:
        cached = self._sizes.get(id(instr))
        if cached is None or cached[0] is not instr:
            cached = (instr, instruction_count(instr))
            self._sizes[id(instr)] = cached
        return cached[1]

    def _merged(self, fusion: HloInstruction, maps: ReadMaps) -> None:
        """Records a multi-output merge: ``fusion`` now reads by ``maps``, and the maps of
        instructions whose operands became get-tuple-elements are keyed by those."""
        self._forget(fusion)
        for old, new in self.editor.redirects:
            self._rekey(old, new)
        self.editor.redirects.clear()
        self._maps[id(fusion)] = (fusion, maps)

    def _rekey(self, old: HloInstruction, new: HloInstruction) -> None:
        """Uses of ``old`` now read ``new``: cached maps follow."""
        for _, cached in self._maps.values():
            if id(old) in cached:
                cached[id(new)] = cached.pop(id(old))

    def _log(self, producer: HloInstruction, consumer: HloInstruction, reason: str) -> None:
        key = (id(producer), id(consumer), reason)
        if reason and key not in self._refused:
            self._refused.add(key)
            self.report.refusals.append(Refusal(producer.name, consumer.name, reason))

    def _too_big(self, nodes: list[HloInstruction], dropped: HloInstruction | None) -> str:
        """Why a fusion of ``nodes`` would exceed the limits ('' when it would not);
        ``dropped`` is an operand that becomes internal."""
        count = sum(self.size(n) for n in nodes)
        if count > self.limits.max_instructions:
            return (
                f"the fusion would hold {count} instructions; "
                f"the limit is {self.limits.max_instructions}"
            )
        operands = distinct([o for n in nodes for o in n.operands if o is not dropped])
        operands = [o for o in operands if not any(o is n for n in nodes)]
        if len(operands) > self.limits.max_parameters:
            return (
                f"the fusion would take {len(operands)} operands; "
                f"the limit is {self.limits.max_parameters}"
            )
        return ""

    def _growable(self, fusion: HloInstruction) -> bool:
        """A fusion can take more outputs: single-output, or a tuple root read only through
        get-tuple-element."""
        if fusion.opcode is not Opcode.FUSION:
            return False
        if not fusion.shape.is_tuple:
            return True
        comp = fusion.attrs.calls
        return (
            comp.root.opcode is Opcode.TUPLE
            and fusion is not self.editor.comp.root
            and all(u.opcode is Opcode.GET_TUPLE_ELEMENT for u in self.editor.users(fusion))
        )

    # ---- producer -> consumer ---------------------------------------------------------
    def _fuse_producers(self) -> bool:
        """Visits consumers from the root up; each pulls in producers until none fits."""
        editor = self.editor
        changed = False
        for instr in reversed(editor.comp.post_order()):
            if not editor.alive(instr) or not editor.is_used(instr) or not instr.operands:
                continue
            if self.kind(instr) is NodeKind.OPAQUE:
                continue
            consumer = instr
            progress = True
            while progress:
                progress = False
                for producer in distinct(consumer.operands):
                    reason = self._fusion_refusal(consumer, producer)
                    if reason is None:
                        consumer = self._fuse(consumer, producer)
                        progress = changed = True
                        break
                    self._log(producer, consumer, reason)
        return changed

    def _fusion_refusal(self, consumer: HloInstruction, producer: HloInstruction) -> str | None:
        """None when ``producer`` may be fused into ``consumer``; else why not."""
        editor = self.editor
        if self.kind(producer) is not NodeKind.LOOP or producer.shape.is_tuple:
            return _NOT_A_CANDIDATE
        too_big = self._too_big([consumer, producer], producer)
        if too_big:
            return too_big
        reads = self.reads(consumer, producer)
        if not all_defined([reads, *self.maps(producer).values()]):
            return "an indexing map is undefined (no indexing rule)"
        if is_expensive(producer):
            if editor.has_other_uses(producer, consumer):
                return "the producer is expensive and has other users: it would be computed twice"
            if not reads_each_element_once(reads):
                return "the consumer reads elements of the expensive producer more than once"
        return None

    def _fuse(self, consumer: HloInstruction, producer: HloInstruction) -> HloInstruction:
        editor = self.editor
        maps = fused_reads(self.maps(consumer), producer, self.maps(producer))
        if consumer.opcode is not Opcode.FUSION:
            consumer = self._wrap(consumer)
        editor.fuse_producer(consumer, producer)
        self._forget(consumer)
        if not editor.alive(producer):
            self._forget(producer)
        self._maps[id(consumer)] = (consumer, maps)
        return consumer

    def _wrap_single_ops(self) -> bool:
        editor = self.editor
        changed = False
        for instr in list(editor.comp.instructions):
            if instr.opcode in (Opcode.FUSION, Opcode.CONSTANT, Opcode.BITCAST):
                continue
            if not editor.is_used(instr) or self.kind(instr) is NodeKind.OPAQUE:
                continue
            if not all_defined(self.maps(instr).values()):
                continue
            self._wrap(instr)
            changed = True
        return changed

    def _wrap(self, instr: HloInstruction) -> HloInstruction:
        maps = self.maps(instr)  # a one-op fusion reads its operands as the op does
        fusion = self.editor.wrap(instr, self.kind(instr).fusion_kind)
        self._forget(instr)
        self._rekey(instr, fusion)
        self._maps[id(fusion)] = (fusion, maps)
        return fusion

    # ---- multi-output -----------------------------------------------------------------
    def _merge_producer_outputs(self) -> bool:
        """A producer with several users joins one user fusion as an extra output."""
        editor = self.editor
        changed = False
        for producer in list(editor.comp.instructions):
            if not editor.alive(producer) or producer.shape.is_tuple:
                continue
            if self.kind(producer) is not NodeKind.LOOP or producer.opcode is Opcode.CONSTANT:
                continue
            users = editor.users(producer)
            if len(users) + (producer is editor.comp.root) < 2:
                continue
            for consumer in list(users):
                reason = self._output_refusal(consumer, producer)
                if reason is None:
                    own = self.maps(producer)
                    maps = union(fused_reads(self.maps(consumer), producer, own), own)
                    editor.merge_output(consumer, producer)
                    self._forget(producer)
                    self._merged(consumer, maps)
                    editor.set_kind(consumer, self.kind(consumer).fusion_kind)
                    changed = True
                    break
                self._log(producer, consumer, reason)
        return changed

    def _output_refusal(self, consumer: HloInstruction, producer: HloInstruction) -> str | None:
        editor = self.editor
        if self.kind(consumer) is NodeKind.OPAQUE or not self._growable(consumer):
            return _NOT_A_CANDIDATE
        space = iteration_space(consumer)
        if space is None or space.dims != producer.shape.dims:
            return _NOT_A_CANDIDATE
        too_big = self._too_big([consumer, producer], producer)
        if too_big:
            return too_big
        reads = self.reads(consumer, producer)
        if not all_defined(self.maps(producer).values()):
            return "an indexing map is undefined (no indexing rule)"
        if len(reads) != 1 or not is_identity(reads[0], producer.shape.dims):
            return "multi-output: the consumer does not read the producer at its own loop index"
        others = [u for u in editor.users(producer) if u is not consumer]
        if editor.reaches(others, consumer):
            return "multi-output: another path leads from the producer to the consumer"
        return None

    def _merge_siblings(self) -> bool:
        """Fusions reading one operand at the same indices merge into one."""
        editor = self.editor
        changed = False
        for operand in list(editor.comp.instructions):
            if not editor.alive(operand) or operand.shape.is_tuple:
                continue
            if not operand.shape.is_array or operand.shape.num_elements <= 1:
                continue
            progress = True
            while progress:
                progress = False
                siblings = [
                    u
                    for u in editor.users(operand)
                    if self.kind(u) is not NodeKind.OPAQUE and self._growable(u)
                ]
                pairs = [(a, b) for i, a in enumerate(siblings) for b in siblings[i + 1 :]]
                for a, b in pairs:
                    reason = self._sibling_refusal(a, b, operand)
                    if reason is None:
                        maps = union(self.maps(a), self.maps(b))
                        editor.merge_sibling(a, b)
                        self._forget(b)
                        self._merged(a, maps)
                        editor.set_kind(a, self.kind(a).fusion_kind)
                        progress = changed = True
                        break
                    self._log(b, a, reason)
        return changed

    def _sibling_refusal(
        self, a: HloInstruction, b: HloInstruction, operand: HloInstruction
    ) -> str | None:
        space_a, space_b = iteration_space(a), iteration_space(b)
        if space_a is None or space_b is None or not space_a.compatible(space_b):
            return _NOT_A_CANDIDATE
        reads = self.reads(a, operand)
        keys = {access_key(m) for m in reads}
        if keys != {access_key(m) for m in self.reads(b, operand)}:
            return _NOT_A_CANDIDATE
        if not reads_each_element_once(reads):
            return _NOT_A_CANDIDATE
        if not all_defined([*self.maps(a).values(), *self.maps(b).values()]):
            return "an indexing map is undefined (no indexing rule)"
        too_big = self._too_big([a, b], None)
        if too_big:
            return too_big
        if self.editor.reaches([a], b) or self.editor.reaches([b], a):
            return "multi-output: one sibling depends on the other"
        return None
