"""Mapping of custom calls, collectives, send/recv/feeds, and the ``check.*`` and
``interpreter.*`` test ops onto HLO. This module is imported with the first op needing one of
its lowerings (``stablehlo_lower.ModuleLowering.lower_op``): a JAX program without custom
calls or collectives does without it. CHLO ops are in ``stablehlo_ops_chlo``.

* ``check.*`` ops and ``@check.*`` custom calls -> ``custom-call`` with target ``check.<name>``
  (``*_const`` forms check against a ``constant``); parameters go in ``backend_config`` as an
  MLIR dictionary with every default written out: ``check.expect_almost_eq`` ops default to
  ``tolerance = 1e-4``, the ``@check.expect_almost_eq`` custom call to ``1e-3``;
  ``check.expect_close`` ops to ULP range [0, 1], the custom call to [0, 3].
* ``interpreter.probe`` -> ``custom-call`` target ``interpreter.probe`` (returns its operand,
  ``backend_config = {probe_id = "..."}``); ``interpreter.print`` -> target
  ``interpreter.print``; ``interpreter.run_parallel`` -> target ``interpreter.run_parallel``
  whose ``called_computations`` are the program (and infeed) functions in order of first
  appearance, with ``backend_config`` the source text of the op's ``{programs = [[@f, ...],
  ...], infeed = [...]}`` attributes; its results are the flattened per-process results.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from xlapy import dtypes
from xlapy.errors import InvalidArgument
from xlapy.ir import attrs as A
from xlapy.ir.computation import HloComputation
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode
from xlapy.literal import Literal
from xlapy.shape import Shape
from xlapy.text.mlir_ast import DialectAttr, Op, SymbolRef
from xlapy.text.stablehlo_lower import Builder, lowers
from xlapy.text.stablehlo_ops import (
    enum_name,
    fields,
    int_attr,
    ints,
    need_regions,
)

API_VERSIONS = {
    0: A.CustomCallApiVersion.ORIGINAL,
    1: A.CustomCallApiVersion.ORIGINAL,
    2: A.CustomCallApiVersion.STATUS_RETURNING,
    3: A.CustomCallApiVersion.STATUS_RETURNING_UNIFIED,
    4: A.CustomCallApiVersion.TYPED_FFI,
}
"""custom_call ``api_version`` -> HLO; ``stablehlo_print_extra`` prints it back from this table."""


def _float_text(value: float) -> str:
    return f"{value:.17e}"


def _check_call(b: Builder, op: Op, target: str, operands: list[HloInstruction],
                config: str, shape: Shape | None = None) -> HloInstruction:  # fmt: skip
    attrs = {"custom_call_target": target, "custom_call_has_side_effect": True}
    return b.add(Opcode.CUSTOM_CALL, shape or Shape.tuple_of([]), operands, attrs,
                 backend_config=config)  # fmt: skip


# ---- custom_call ------------------------------------------------------------------------------


def _with_layout(shape: Shape, layout: Any, what: str) -> Shape:
    """``shape`` with the ``dense<[minor, ..., major]>`` layout of a custom_call's
    ``operand_layouts``/``result_layouts`` entry ``what``."""
    if not isinstance(layout, Literal) or not shape.is_array:
        return shape
    minor_to_major = ints(layout)
    if sorted(minor_to_major) != list(range(shape.rank)):
        raise InvalidArgument(
            f"{what} must be a permutation of the {shape.rank} dimensions of "
            f"{shape.to_mlir()}; got {list(minor_to_major)}"
        )
    return Shape.array(shape.element_type, shape.dims, minor_to_major, shape.dynamic)


def _with_layouts(shapes: list[Shape], layouts: Any, what: str, of: str) -> list[Shape]:
    """``shapes`` with one layout each from the list ``layouts`` (attribute ``what``)."""
    if len(layouts) != len(shapes):
        raise InvalidArgument(
            f"{what} has {len(layouts)} entries; the custom_call has {len(shapes)} {of}"
        )
    return [
        _with_layout(s, lay, f"{what}[{i}]")
        for i, (s, lay) in enumerate(zip(shapes, layouts, strict=True))
    ]


@lowers("stablehlo.custom_call")
def _custom_call(b: Builder, op: Op) -> list[HloInstruction]:
    target = str(op.attrs.get("call_target_name", ""))
    if target.startswith("check."):
        return _check_custom_call(b, op, target)
    operands = b.operands(op)
    if target in _PLACEMENT_TARGETS:
        return _placement(b, op, target, operands)
    if target == "ApproxTopK":
        return _approx_top_k(b, op, operands)
    attrs: dict[str, Any] = {
        "custom_call_target": target,
        "custom_call_has_side_effect": bool(op.attrs.get("has_side_effect", False)),
        "api_version": API_VERSIONS.get(
            int_attr(op.attrs.get("api_version", 1), "api_version"), A.CustomCallApiVersion.ORIGINAL
        ),
    }
    called = op.attrs.get("called_computations") or []
    if called:
        attrs["called_computations"] = tuple(
            b.module.function(s.name, op.offset) for s in called if isinstance(s, SymbolRef)
        )
    aliases = []
    for alias in op.attrs.get("output_operand_aliases") or []:
        f = fields(alias, op, "output_operand_alias")
        aliases.append(A.OutputOperandAlias(ints(f.get("output_tuple_indices")),
                                            int_attr(f.get("operand_index", 0), "operand_index"),
                                            ints(f.get("operand_tuple_indices"))))  # fmt: skip
    if aliases:
        attrs["output_to_operand_aliasing"] = tuple(aliases)
    layouts = op.attrs.get("operand_layouts")
    if layouts:
        attrs["operand_layout_constraints"] = tuple(
            _with_layouts([o.shape for o in operands], layouts, "operand_layouts", "operands")
        )
    config = op.attrs.get("backend_config", "")
    backend_config = config if isinstance(config, str) else op.raw.get("backend_config", "")
    if target == "shape_assertion":  # jax.export: the message travels as the backend config
        backend_config = str(op.attrs.get("error_message", ""))
    if target == "stablehlo.dynamic_rng_bit_generator":  # ... and so does the algorithm
        backend_config = enum_name(op.attrs.get("rng_algorithm", "DEFAULT"))
    if isinstance(op.attrs.get("mhlo.backend_config"), dict) and not backend_config:
        # XLA's conversion: a dictionary in ``mhlo.backend_config`` (jax.ffi calls such as
        # the LAPACK kernels) is the typed-FFI call's backend config.
        backend_config = op.raw.get("mhlo.backend_config", "")
        attrs["api_version"] = A.CustomCallApiVersion.TYPED_FFI
    shapes = b.result_shapes(op)
    # One tuple-typed result (XLA's HLO -> StableHLO conversion writes multi-result calls such
    # as the LAPACK kernels this way) is the tuple-shaped HLO custom-call itself; its
    # result_layouts then give the layouts of the tuple's elements.
    packed = len(shapes) == 1 and shapes[0].is_tuple
    result_layouts = op.attrs.get("result_layouts")
    if result_layouts:
        if packed:
            elements = list(shapes[0].tuple_shapes)
            shapes = [Shape.tuple_of(
                _with_layouts(elements, result_layouts, "result_layouts", "tuple elements")
            )]  # fmt: skip
        else:
            shapes = _with_layouts(shapes, result_layouts, "result_layouts", "results")
    frontend = op.attrs.get("mhlo.frontend_attributes")
    fe = {str(k): str(v) for k, v in frontend.items()} if isinstance(frontend, dict) else {}
    shape = shapes[0] if len(shapes) == 1 else Shape.tuple_of(shapes)
    call = b.add(Opcode.CUSTOM_CALL, shape, operands, attrs, backend_config=backend_config,
                 frontend_attributes=fe)  # fmt: skip
    return [call] if len(shapes) == 1 else b.unpack(call)


_PLACEMENT_TARGETS = frozenset({"annotate_device_placement", "MoveToHost", "MoveToDevice"})
"""Custom calls that only annotate where a value lives (memory space): xlapy runs the
program on one host, so each is its operand when the shapes agree. (``Sharding``,
``SPMDFullToShardShape`` and ``SPMDShardToFullShape`` stay custom calls with their
``mhlo.sharding``: sharding propagation and the SPMD partitioner read them.)"""


def _placement(b: Builder, op: Op, target: str, operands: list[HloInstruction]
               ) -> list[HloInstruction]:  # fmt: skip
    shapes = b.result_shapes(op)
    if len(operands) != 1 or len(shapes) != 1:
        raise InvalidArgument(f"@{target} takes one operand and has one result")
    if not operands[0].shape.compatible(shapes[0]):
        raise b.module.unsupported(
            op.offset,
            f"@{target} from {operands[0].shape.to_mlir()} to {shapes[0].to_mlir()} splits the "
            "data over devices; xlapy runs the global (unpartitioned) program only",
        )
    return operands


def _approx_top_k(b: Builder, op: Op, operands: list[HloInstruction]) -> list[HloInstruction]:
    """``@ApproxTopK(operands..., init_values...)`` as XLA runs it on CPU (its fallback): a
    stable ``sort`` of the operands along ``reduction_dim`` by the called comparator, then
    the leading entries (the result's size along that dimension)."""
    config = op.attrs.get("mhlo.backend_config")
    config = config if isinstance(config, dict) else {}
    called = op.attrs.get("called_computations") or []
    shapes = b.result_shapes(op)
    n = len(shapes)
    if len(called) != 1 or not isinstance(called[0], SymbolRef) or len(operands) != 2 * n:
        raise InvalidArgument(
            "@ApproxTopK needs one comparator and operands (inputs..., init values...) for "
            f"its {n} results; got {len(operands)} operands"
        )
    inputs = operands[:n]
    dim = int(config.get("reduction_dim", inputs[0].shape.rank - 1))
    comparator = b.module.function(called[0].name, op.offset)
    sort_shape = Shape.tuple_of([x.shape for x in inputs])
    attrs = {"dimensions": (dim,), "is_stable": True, "to_apply": comparator}
    sorted_ = b.unpack(b.add(Opcode.SORT, sort_shape, inputs, attrs))
    results = []
    for value, shape in zip(sorted_, shapes, strict=True):
        spec = A.SliceSpec(tuple(A.SliceDimension(0, d, 1) for d in shape.dims))
        results.append(b.add(Opcode.SLICE, shape, [value], {"slice": spec}))
    return results


def _check_custom_call(b: Builder, op: Op, target: str) -> list[HloInstruction]:
    operands = b.operands(op)
    if len(operands) != 2:
        raise InvalidArgument(f"@{target} takes two operands; got {len(operands)}")
    if target == "check.expect_almost_eq":
        config = f"{{tolerance = {_float_text(1e-3)} : f64}}"
    elif target == "check.expect_close":
        config = "{max_ulp_difference = 3 : i64, min_ulp_difference = 0 : i64}"
    elif target == "check.eq":
        config = f"{{tolerance = {_float_text(1e-4)} : f64}}"
    elif target == "check.expect_eq":
        config = ""
    else:
        raise b.module.unsupported(op.offset, f"unknown check custom call @{target}")
    shapes = b.result_shapes(op)
    call = _check_call(b, op, target, operands, config, shapes[0] if shapes else None)
    return [call] if shapes else []


# ---- check and interpreter ops ----------------------------------------------------------------


def _check_operands(b: Builder, op: Op) -> list[HloInstruction]:
    operands = b.operands(op)
    if op.name.endswith("_const"):
        value = op.attrs.get("value")
        if not isinstance(value, Literal):
            raise InvalidArgument(f"{op.name} needs a dense constant")
        operands.append(b.add(Opcode.CONSTANT, value.shape, (), {"literal": value}))
    if len(operands) != 2:
        raise InvalidArgument(f"{op.name} compares two values; got {len(operands)}")
    return operands


@lowers("check.expect_eq", "check.expect_eq_const")
def _expect_eq(b: Builder, op: Op) -> list[HloInstruction]:
    _check_call(b, op, "check.expect_eq", _check_operands(b, op), "")
    return []


@lowers("check.expect_almost_eq", "check.expect_almost_eq_const")
def _expect_almost_eq(b: Builder, op: Op) -> list[HloInstruction]:
    tolerance = float(op.attrs.get("tolerance", 1e-4))
    config = f"{{tolerance = {_float_text(tolerance)} : f64}}"
    _check_call(b, op, "check.expect_almost_eq", _check_operands(b, op), config)
    return []


@lowers("check.expect_close")
def _expect_close(b: Builder, op: Op) -> list[HloInstruction]:
    hi = int_attr(op.attrs.get("max_ulp_difference", 1), "max_ulp_difference")
    lo = int_attr(op.attrs.get("min_ulp_difference", 0), "min_ulp_difference")
    config = f"{{max_ulp_difference = {hi} : i64, min_ulp_difference = {lo} : i64}}"
    _check_call(b, op, "check.expect_close", _check_operands(b, op), config)
    return []


@lowers("check.expect_serialized_eq")
def _expect_serialized_eq(b: Builder, op: Op) -> list[HloInstruction]:
    probe = str(op.attrs.get("probe_id", ""))
    iteration = int_attr(op.attrs.get("iter", 0), "iter")
    config = f'{{iter = {iteration} : i64, probe_id = "{_escape(probe)}"}}'
    _check_call(b, op, "check.expect_serialized_eq", b.operands(op), config)
    return []


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


@lowers("interpreter.probe")
def _probe(b: Builder, op: Op) -> list[HloInstruction]:
    config = f'{{probe_id = "{_escape(str(op.attrs.get("probe_id", "")))}"}}'
    return [_check_call(b, op, "interpreter.probe", b.operands(op), config, b.result_shape(op))]


@lowers("interpreter.print")
def _print(b: Builder, op: Op) -> list[HloInstruction]:
    _check_call(b, op, "interpreter.print", b.operands(op), "")
    return []


@lowers("interpreter.run_parallel")
def _run_parallel(b: Builder, op: Op) -> list[HloInstruction]:
    names: list[str] = []
    for row in op.attrs.get("programs") or []:
        for sym in row:
            if isinstance(sym, SymbolRef) and sym.name not in names:
                names.append(sym.name)
    for sym in op.attrs.get("infeed") or []:
        if isinstance(sym, SymbolRef) and sym.name not in names:
            names.append(sym.name)
    comps = tuple(b.module.function(n, op.offset) for n in names)
    parts = [f"{key} = {op.raw[key]}" for key in sorted(op.raw) if key in ("infeed", "programs")]
    attrs = {
        "custom_call_target": "interpreter.run_parallel",
        "custom_call_has_side_effect": True,
        "called_computations": comps,
    }
    shapes = b.result_shapes(op)
    operands = b.operands(op)
    _check_run_parallel(b, op, operands, shapes)
    call = b.add(Opcode.CUSTOM_CALL, Shape.tuple_of(shapes), operands, attrs,
                 backend_config="{" + ", ".join(parts) + "}")  # fmt: skip
    return b.unpack(call)


def _check_run_parallel(
    b: Builder, op: Op, operands: list[HloInstruction], shapes: list[Shape]
) -> None:
    """The operands are the programs' parameters and the results their results, program by
    program in ``programs`` order (the interpreter's run_parallel contract)."""
    params: list[Shape] = []
    results: list[Shape] = []
    for row in op.attrs.get("programs") or []:
        for sym in row:
            if not isinstance(sym, SymbolRef):
                continue
            comp = b.module.function(sym.name, op.offset)
            params.extend(p.shape for p in comp.parameters)
            root = comp.root.shape
            results.extend(root.tuple_shapes if root.is_tuple else [root])
    for what, want, got in (
        ("operands", params, [o.shape for o in operands]),
        ("results", results, shapes),
    ):
        if len(want) != len(got) or not all(
            w.compatible(g) for w, g in zip(want, got, strict=True)
        ):
            raise b.module.error(
                op.offset,
                f"interpreter.run_parallel: the {what} must be the programs' {what} in order, "
                f"({', '.join(s.to_mlir() for s in want)}); got "
                f"({', '.join(s.to_mlir() for s in got)})",
            )


# ---- collectives, send/recv, feeds ------------------------------------------------------------


def _replica_groups(value: Any) -> A.ReplicaGroups:
    """``dense<[[0, 1], [2, -1]]> : tensor<2x2xi64>``: one row per group, -1 pads ragged
    rows; an empty tensor means one group of all devices."""
    array = np.asarray(value.value) if isinstance(value, Literal) else None
    if array is None or array.dtype.kind not in "iu" or (array.size and array.ndim != 2):
        got = value.shape.to_mlir() if isinstance(value, Literal) else f"{value!r:.60}"
        raise InvalidArgument(
            f"replica_groups must be a 2-D integer tensor (one row per group); got {got}"
        )
    return A.ReplicaGroups(tuple(tuple(int(x) for x in row if x != -1) for row in array))


def _collective_attrs(op: Op) -> dict[str, Any]:
    attrs: dict[str, Any] = {}
    handle = op.attrs.get("channel_handle")
    if handle is not None:
        if not isinstance(handle, DialectAttr) or "handle" not in handle.fields:
            raise InvalidArgument(
                "channel_handle must be #stablehlo.channel_handle<handle = N, type = T>; got "
                f"{handle!r:.60}"
            )
        channel = int_attr(handle.fields["handle"], "channel_handle handle")
        if channel > 0:
            attrs["channel_id"] = channel
    if "replica_groups" in op.attrs:
        attrs["replica_groups"] = _replica_groups(op.attrs["replica_groups"])
    return attrs


@lowers("stablehlo.all_reduce", "stablehlo.reduce_scatter", "stablehlo.collective_reduce")
def _all_reduce(b: Builder, op: Op) -> list[HloInstruction]:
    need_regions(op, 1, b)
    attrs = _collective_attrs(op)
    attrs["use_global_device_ids"] = bool(op.attrs.get("use_global_device_ids", False))
    attrs["to_apply"] = b.region(op.regions[0], op.offset)
    opcode = {
        "stablehlo.all_reduce": Opcode.ALL_REDUCE,
        "stablehlo.reduce_scatter": Opcode.REDUCE_SCATTER,
        "stablehlo.collective_reduce": Opcode.COLLECTIVE_REDUCE,
    }[op.name]
    if opcode is Opcode.REDUCE_SCATTER:
        attrs["dimensions"] = (int_attr(op.attrs["scatter_dimension"], "scatter_dimension"),)
    if opcode is Opcode.COLLECTIVE_REDUCE:
        attrs.pop("use_global_device_ids")
    return b.multi(op, opcode, b.operands(op), attrs)


@lowers("stablehlo.cross-replica-sum")
def _cross_replica_sum(b: Builder, op: Op) -> list[HloInstruction]:
    (x,) = b.operands(op)
    scalar = Shape.scalar(x.shape.element_type)
    comp = HloComputation(b.module.region_name())
    lhs = comp.add_instruction(
        HloInstruction(Opcode.PARAMETER, scalar, (), {"parameter_number": 0})
    )
    rhs = comp.add_instruction(
        HloInstruction(Opcode.PARAMETER, scalar, (), {"parameter_number": 1})
    )
    comp.add_instruction(HloInstruction(Opcode.ADD, scalar, [lhs, rhs]), root=True)
    b.module.hlo.add_computation(comp)
    attrs = _collective_attrs(op)
    attrs["to_apply"] = comp
    return [b.add(Opcode.ALL_REDUCE, b.result_shape(op), [x], attrs)]


@lowers("stablehlo.all_gather")
def _all_gather(b: Builder, op: Op) -> list[HloInstruction]:
    attrs = _collective_attrs(op)
    attrs["dimensions"] = (int_attr(op.attrs["all_gather_dim"], "all_gather_dim"),)
    attrs["use_global_device_ids"] = bool(op.attrs.get("use_global_device_ids", False))
    return b.multi(op, Opcode.ALL_GATHER, b.operands(op), attrs)


@lowers("stablehlo.all_to_all")
def _all_to_all(b: Builder, op: Op) -> list[HloInstruction]:
    """``split_dimension == concat_dimension``: one all-to-all; otherwise XLA's decomposition:
    split the split dimension into (split_count, size / split_count), all-to-all over the new
    dimension, move it in front of the concat dimension and merge the two."""
    operands = b.operands(op)
    split = int_attr(op.attrs["split_dimension"], "split_dimension")
    concat = int_attr(op.attrs["concat_dimension"], "concat_dimension")
    count = int_attr(op.attrs["split_count"], "split_count")
    if count < 1:
        raise InvalidArgument(f"[C4] split_count must be positive; got {count}")
    for x in operands:
        for label, what, dim in (
            ("C1", "split_dimension", split),
            ("C3", "concat_dimension", concat),
        ):
            if not (x.shape.is_array and 0 <= dim < x.shape.rank):
                raise InvalidArgument(
                    f"[{label}] {what} must be a dimension of the operand "
                    f"{x.shape.to_mlir()}; got {dim}"
                )
    attrs = _collective_attrs(op)
    if split == concat:
        attrs["dimensions"] = (split,)
        return b.multi(op, Opcode.ALL_TO_ALL, operands, attrs)
    reshaped: list[HloInstruction] = []
    for x in operands:
        dims = list(x.shape.dims)
        if dims[split] % count:
            raise InvalidArgument(
                f"[C2] dimension {split} of size {dims[split]} is not divisible by split_count "
                f"{count}"
            )
        sizes = [*dims[:split], count, dims[split] // count, *dims[split + 1 :]]
        reshaped.append(b.add(Opcode.RESHAPE, Shape.array(x.shape.element_type, sizes), [x]))
    attrs["dimensions"] = (split,)
    if len(reshaped) == 1:
        exchanged = [b.add(Opcode.ALL_TO_ALL, reshaped[0].shape, reshaped, attrs)]
    else:
        shape = Shape.tuple_of([r.shape for r in reshaped])
        exchanged = b.unpack(b.add(Opcode.ALL_TO_ALL, shape, reshaped, attrs))
    rank = operands[0].shape.rank
    perm: list[int] = []
    for i in range(rank):
        if i == concat:
            perm.append(split)
        perm.append(i + 1 if i >= split else i)
    results = []
    for value, shape in zip(exchanged, b.result_shapes(op), strict=True):
        moved = Shape.array(shape.element_type, [value.shape.dims[p] for p in perm])
        transposed = b.add(Opcode.TRANSPOSE, moved, [value], {"dimensions": tuple(perm)})
        results.append(b.add(Opcode.RESHAPE, shape, [transposed]))
    return results


def _source_target_pairs(value: Any) -> tuple[tuple[int, int], ...]:
    """``dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>``: one (source, target) row per pair (none
    when absent)."""
    if value is None:
        return ()
    array = np.asarray(value.value) if isinstance(value, Literal) else None
    if (
        array is None
        or array.dtype.kind not in "iu"
        or (array.size and array.ndim != 2)
        or (array.ndim == 2 and array.shape[1] != 2)
    ):
        got = value.shape.to_mlir() if isinstance(value, Literal) else f"{value!r:.60}"
        raise InvalidArgument(
            f"source_target_pairs must be an Nx2 integer tensor (one source, target row per "
            f"pair); got {got}"
        )
    return tuple((int(s), int(t)) for s, t in array.reshape(-1, 2))


@lowers("stablehlo.collective_permute")
def _collective_permute(b: Builder, op: Op) -> list[HloInstruction]:
    attrs = _collective_attrs(op)
    attrs["source_target_pairs"] = _source_target_pairs(op.attrs.get("source_target_pairs"))
    return b.multi(op, Opcode.COLLECTIVE_PERMUTE, b.operands(op), attrs)


@lowers("stablehlo.collective_broadcast")
def _collective_broadcast(b: Builder, op: Op) -> list[HloInstruction]:
    attrs = _collective_attrs(op)
    attrs["has_dynamic_root"] = "has_dynamic_root" in op.attrs
    return b.multi(op, Opcode.COLLECTIVE_BROADCAST, b.operands(op), attrs)


def _transfer_attrs(op: Op) -> dict[str, Any]:
    attrs = _collective_attrs(op)
    attrs["is_host_transfer"] = bool(op.attrs.get("is_host_transfer", False))
    return attrs


_CONTEXT = Shape.scalar(dtypes.U32)


@lowers("stablehlo.send")
def _send(b: Builder, op: Op) -> list[HloInstruction]:
    *data, token = b.operands(op)
    packed = b.pack(data)
    attrs = _transfer_attrs(op)
    shape = Shape.tuple_of([packed.shape, _CONTEXT, Shape.token()])
    send = b.add(Opcode.SEND, shape, [packed, token], attrs)
    return [b.add(Opcode.SEND_DONE, Shape.token(), [send], attrs)]


@lowers("stablehlo.recv")
def _recv(b: Builder, op: Op) -> list[HloInstruction]:
    (token,) = b.operands(op)
    shapes = b.result_shapes(op)
    data_shapes = shapes[:-1]
    data = data_shapes[0] if len(data_shapes) == 1 else Shape.tuple_of(data_shapes)
    attrs = _transfer_attrs(op)
    recv = b.add(Opcode.RECV, Shape.tuple_of([data, _CONTEXT, Shape.token()]), [token], attrs)
    done = b.add(Opcode.RECV_DONE, Shape.tuple_of([data, Shape.token()]), [recv], attrs)
    value, out_token = b.unpack(done)
    values = [value] if len(data_shapes) == 1 else b.unpack(value)
    return [*values, out_token]


@lowers("stablehlo.infeed")
def _infeed(b: Builder, op: Op) -> list[HloInstruction]:
    shapes = b.result_shapes(op)
    data = Shape.tuple_of(shapes[:-1])
    attrs = {"infeed_config": str(op.attrs.get("infeed_config", ""))}
    feed = b.add(Opcode.INFEED, Shape.tuple_of([data, Shape.token()]), b.operands(op), attrs)
    value, token = b.unpack(feed)
    return [*b.unpack(value), token]


@lowers("stablehlo.outfeed")
def _outfeed(b: Builder, op: Op) -> list[HloInstruction]:
    *data, token = b.operands(op)
    packed = b.pack(data)
    attrs = {
        "outfeed_shape": packed.shape,
        "outfeed_config": str(op.attrs.get("outfeed_config", "")),
    }
    return [b.add(Opcode.OUTFEED, Shape.token(), [packed, token], attrs)]
