"""StableHLO emitters of custom calls (and the ``check.*`` / ``interpreter.*`` test ops they
stand for), gathers, collectives, send/recv, infeed/outfeed, CHLO ops with attributes and the
dynamic-shape ops: the inverse of ``stablehlo_ops_extra``, ``stablehlo_ops_chlo`` and the dynamic
lowerings.

* A custom call ``check.X`` with no results prints as the ``check.X`` op with its
  ``backend_config`` (an MLIR dictionary) as attributes; ``interpreter.probe``/``print``/
  ``run_parallel`` likewise. Other targets print ``stablehlo.custom_call @target``.
* Channels: ``channel_id`` -> ``#stablehlo.channel_handle<handle = id, type = T>`` with type 1
  (device to device), 2 (send to host) or 3 (receive from host).
* send / recv carry an ``u32[]`` context in HLO that StableHLO has no value for: it travels as
  an ``Opaque`` element and is dropped by send-done / recv-done.
"""

from __future__ import annotations

from xlapy.errors import InvalidArgument, XlaError
from xlapy.ir import attrs as A
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode
from xlapy.shape import Shape
from xlapy.text.stablehlo_ops_extra import API_VERSIONS
from xlapy.text.stablehlo_print_dense import dense_array, dense_ints, mlir_string
from xlapy.text.stablehlo_print_ops import (
    arrays,
    conv_attrs,
    conv_labels,
    int_list,
    precision_config,
    reshape,
    results,
)
from xlapy.text.stablehlo_print_regions import define_generic, dimension_fields, flag
from xlapy.text.stablehlo_printer import (
    Opaque,
    Pack,
    Scope,
    Ssa,
    Value,
    emits,
    function_type,
    generic,
    names,
    result_shapes,
    symbol,
    types,
    unflatten,
    unsupported,
)

_API_NUMBERS = {version: number for number, version in sorted(API_VERSIONS.items())}
"""HLO api version -> custom_call ``api_version`` (the largest number of each: ORIGINAL is 1)."""

_TEST_OPS = frozenset(
    {
        "check.expect_eq",
        "check.expect_almost_eq",
        "check.expect_close",
        "check.expect_serialized_eq",
        "interpreter.print",
    }
)
"""Custom-call targets that stand for a ``check``/``interpreter`` op without results."""


def _generic_op(scope: Scope, instr: HloInstruction, name: str, operands: list[Ssa],
                config: str, shapes: list[Shape]) -> Value:  # fmt: skip
    """A test op whose attribute dictionary is the custom call's backend config."""
    text = generic(name, operands, shapes)
    if config:
        head, _, signature = text.partition(" : ")
        text = f"{head} {config} : {signature}"
    return results(scope, scope.reserve() if shapes else "", text, instr.shape)


def _test_op(scope: Scope, instr: HloInstruction, args: list[Ssa]) -> Value | None:
    """The ``check.*`` / ``interpreter.*`` op a test custom call stands for, or None."""
    target = instr.attrs.custom_call_target
    config = instr.backend_config.strip()
    if target in _TEST_OPS and instr.shape.is_tuple and not instr.shape.tuple_shapes:
        return _generic_op(scope, instr, target, args, config, [])
    if target == "interpreter.probe":
        return _generic_op(scope, instr, target, args, config, [instr.shape])
    if target == "interpreter.run_parallel":
        for comp in instr.attrs.called_computations:
            if scope.printer.function_name(comp) != comp.name:
                raise unsupported(
                    instr, "the programs of run_parallel must keep their function names",
                    comp.name,
                )  # fmt: skip
        return _generic_op(scope, instr, target, args, config, result_shapes(instr.shape))
    return None


def _layout(shape: Shape) -> str:
    """``dense<[1, 0]> : tensor<2xindex>`` (minor to major) of an array shape."""
    minor_to_major = list(shape.layout.minor_to_major) if shape.layout else []
    if not minor_to_major:
        return "dense<> : tensor<0xindex>"
    return f"dense<{int_list(minor_to_major)}> : tensor<{len(minor_to_major)}xindex>"


def _alias(alias: A.OutputOperandAlias) -> str:
    return (
        f"#stablehlo.output_operand_alias<output_tuple_indices = {int_list(alias.output_index)}, "
        f"operand_index = {alias.operand_number}, "
        f"operand_tuple_indices = {int_list(alias.operand_index)}>"
    )


def _check_dictionary(instr: HloInstruction, config: str) -> None:
    """A typed-FFI backend_config is printed as an MLIR attribute dictionary: it must be one
    (HLO text keeps it verbatim; XLA's conversion parses it and fails the same way)."""
    from xlapy.text.mlir_lexer import Tok
    from xlapy.text.mlir_parser import MlirParser

    try:
        parser = MlirParser(config, "backend_config")
        parser.parse_attr_dict()
        if parser.tok.kind is not Tok.EOF:
            raise parser.error("unexpected text after the dictionary")
    except XlaError as err:
        raise InvalidArgument(
            f"custom-call {instr.name}: its typed-FFI backend_config is not an MLIR attribute "
            f"dictionary: {str(err).splitlines()[0]}"
        ) from None


@emits(Opcode.CUSTOM_CALL)
def _custom_call(scope: Scope, instr: HloInstruction, operands: list[Value]) -> Value:
    a = instr.attrs
    args = arrays(scope, instr, operands)
    test = _test_op(scope, instr, args)
    if test is not None:
        return test
    for key in ("window", "dim_labels", "literal", "padding_type"):
        if a[key] is not None:
            raise unsupported(instr, f"a custom call's {key} has no StableHLO form", a[key])
    target = a.custom_call_target
    config = instr.backend_config
    attrs: list[str] = []
    number = _API_NUMBERS[a.api_version]
    typed_dictionary = (
        a.api_version is A.CustomCallApiVersion.TYPED_FFI and config.lstrip().startswith("{")
    )
    if typed_dictionary:
        # As jax.ffi prints a typed-FFI call: the dictionary in mhlo.backend_config
        # (which makes the call typed FFI in XLA's conversion) and an empty string config.
        _check_dictionary(instr, config)
        attrs += ['backend_config = ""', f"mhlo.backend_config = {config}"]
    elif number != 1:
        attrs.append(f"api_version = {number} : i32")
    if target == "shape_assertion":  # jax.export: the message travels as the config
        attrs.append(f"error_message = {mlir_string(config)}")
    elif target == "stablehlo.dynamic_rng_bit_generator":  # ... and so does the algorithm
        attrs.append(f"rng_algorithm = #stablehlo<rng_algorithm {config or 'DEFAULT'}>")
    elif config and not typed_dictionary:
        attrs.append(f"backend_config = {mlir_string(config)}")
    if a.called_computations:
        called = ", ".join(symbol(scope.printer.function_name(c)) for c in a.called_computations)
        attrs.append(f"called_computations = [{called}]")
    if a.custom_call_has_side_effect:
        attrs.append("has_side_effect = true")
    shapes = result_shapes(instr.shape)
    if a.operand_layout_constraints:
        attrs.append(f"operand_layouts = [{', '.join(map(_layout, a.operand_layout_constraints))}]")
        attrs.append(f"result_layouts = [{', '.join(map(_layout, shapes))}]")
    if a.output_to_operand_aliasing:
        aliases = ", ".join(map(_alias, a.output_to_operand_aliasing))
        attrs.append(f"output_operand_aliases = [{aliases}]")
    # Shardy's exported sharding rules (xla.sdy.*) describe how to partition the call, not
    # what it computes; XLA reads them back as Shardy attributes, so they are left out.
    frontend = sorted(
        (k, v) for k, v in instr.frontend_attributes.items() if not k.startswith("xla.sdy.")
    )
    if frontend:
        fe = ", ".join(f"{k} = {mlir_string(v)}" for k, v in frontend)
        attrs.append(f"mhlo.frontend_attributes = {{{fe}}}")
    if instr.sharding is not None:  # Sharding / SPMD*Shape custom calls need theirs
        attrs.append(f"mhlo.sharding = {mlir_string(instr.sharding.to_string(False))}")
    attr_text = f" {{{', '.join(sorted(attrs))}}}" if attrs else ""
    text = (
        f"stablehlo.custom_call {symbol(target)}({names(args)}){attr_text} : "
        f"{function_type(args, shapes)}"
    )
    return results(scope, scope.reserve() if shapes else "", text, instr.shape)


# ---- gathers ------------------------------------------------------------------------------------


def gather_dims(instr: HloInstruction) -> str:
    a = instr.attrs
    dims = dimension_fields([
        ("offset_dims", a.offset_dims),
        ("collapsed_slice_dims", a.collapsed_slice_dims),
        ("operand_batching_dims", a.operand_batching_dims),
        ("start_indices_batching_dims", a.start_indices_batching_dims),
        ("start_index_map", a.start_index_map),
        ("index_vector_dim", a.index_vector_dim),
    ])  # fmt: skip
    return f"dimension_numbers = #stablehlo.gather<{dims}>"


@emits(Opcode.GATHER)
def _gather(scope: Scope, instr: HloInstruction, operands: list[Value]) -> Value:
    props = [
        gather_dims(instr),
        flag("indices_are_sorted", instr.attrs.indices_are_sorted),
        f"slice_sizes = {dense_array(instr.attrs.slice_sizes)}",
    ]
    return define_generic(scope, instr, "stablehlo.gather", arrays(scope, instr, operands),
                          props, [])  # fmt: skip


@emits(Opcode.DYNAMIC_GATHER)
def _dynamic_gather(scope: Scope, instr: HloInstruction, operands: list[Value]) -> Value:
    props = [gather_dims(instr), flag("indices_are_sorted", instr.attrs.indices_are_sorted)]
    return define_generic(scope, instr, "stablehlo.dynamic_gather",
                          arrays(scope, instr, operands), props, [])  # fmt: skip


@emits(Opcode.DYNAMIC_CONV)
def _dynamic_conv(scope: Scope, instr: HloInstruction, operands: list[Value]) -> Value:
    props = [
        f"dimension_numbers = #stablehlo.conv<{conv_labels(instr.attrs.dim_labels)}>",
        *conv_attrs(instr),
    ]
    dims = instr.attrs.window.dimensions  # the padding is an operand
    props.append(f"window_strides = {dense_array([d.stride for d in dims])}")
    props.append(f"lhs_dilation = {dense_array([d.base_dilation for d in dims])}")
    props.append(f"rhs_dilation = {dense_array([d.window_dilation for d in dims])}")
    reversal = ", ".join("true" if d.window_reversal else "false" for d in dims)
    props.append(f"window_reversal = array<i1{': ' + reversal if dims else ''}>")
    return define_generic(scope, instr, "stablehlo.dynamic_conv", arrays(scope, instr, operands),
                          props, [])  # fmt: skip


# ---- collectives ---------------------------------------------------------------------------------


def channel_handle(instr: HloInstruction, kind: int = 1) -> list[str]:
    """``channel_handle = #stablehlo.channel_handle<...>`` when the op has a channel."""
    channel = instr.attrs.channel_id
    if channel is None or channel <= 0:
        return []
    return [f"channel_handle = #stablehlo.channel_handle<handle = {channel}, type = {kind}>"]


def replica_groups(instr: HloInstruction) -> str:
    """``replica_groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>`` (ragged groups padded
    with -1, no groups ``dense<> : tensor<0x0xi64>``)."""
    value = instr.attrs.replica_groups
    if value.mesh_text is not None:
        raise unsupported(instr, "mesh-axes replica groups have no StableHLO form", value)
    groups = value.groups()
    width = max((len(g) for g in groups), default=0)
    rows = [list(g) + [-1] * (width - len(g)) for g in groups]
    return f"replica_groups = {dense_ints(rows, width)}"


def _collective(scope: Scope, instr: HloInstruction, operands: list[Value], name: str,
                extra: list[str], region: bool) -> Value:  # fmt: skip
    props = [*channel_handle(instr), replica_groups(instr), *extra]
    spec = instr.opdef.attr("use_global_device_ids")
    if spec is not None and instr.attrs.use_global_device_ids:
        props.append("use_global_device_ids")
    comps = [instr.attrs.to_apply] if region else []
    args = [leaf for o in operands for leaf in scope.leaves(o)]
    return define_generic(scope, instr, name, args, props, comps)


@emits(Opcode.ALL_REDUCE, Opcode.ALL_REDUCE_START)
def _all_reduce(scope: Scope, instr: HloInstruction, operands: list[Value]) -> Value:
    return _collective(scope, instr, operands, "stablehlo.all_reduce", [], region=True)


@emits(Opcode.COLLECTIVE_REDUCE)
def _collective_reduce(scope: Scope, instr: HloInstruction, operands: list[Value]) -> Value:
    return _collective(scope, instr, operands, "stablehlo.collective_reduce", [], region=True)


@emits(Opcode.REDUCE_SCATTER)
def _reduce_scatter(scope: Scope, instr: HloInstruction, operands: list[Value]) -> Value:
    (dim,) = instr.attrs.dimensions
    extra = [f"scatter_dimension = {dim} : i64"]
    return _collective(scope, instr, operands, "stablehlo.reduce_scatter", extra, region=True)


@emits(Opcode.ALL_GATHER)
def _all_gather(scope: Scope, instr: HloInstruction, operands: list[Value]) -> Value:
    (dim,) = instr.attrs.dimensions
    extra = [f"all_gather_dim = {dim} : i64"]
    return _collective(scope, instr, operands, "stablehlo.all_gather", extra, region=False)


@emits(Opcode.ALL_TO_ALL)
def _all_to_all(scope: Scope, instr: HloInstruction, operands: list[Value]) -> Value:
    """The array form (``dimensions={d}``) splits and concatenates along ``d``, in as many
    blocks as the group has members. The tuple form (operand i goes to member i, result j
    comes from member j) is the array form on the operands stacked along a new leading
    dimension, then unstacked; it needs operands of one type."""
    if instr.attrs.dimensions:
        (dim,) = instr.attrs.dimensions
        props = _all_to_all_properties(scope, instr, dim)
        return _collective(scope, instr, operands, "stablehlo.all_to_all", props, region=False)
    args = [leaf for o in operands for leaf in scope.leaves(o)]
    if len({a.shape.to_mlir() for a in args}) != 1:
        raise unsupported(
            instr, "a tuple all-to-all needs operands of one type to have a StableHLO form",
            types(args),
        )  # fmt: skip
    part = args[0].shape
    stacked_shape = Shape.array(part.element_type, [len(args), *part.dims])
    pieces = [reshape(scope, a, Shape.array(part.element_type, [1, *part.dims])) for a in args]
    if len(pieces) > 1:
        sig = function_type(pieces, [stacked_shape])
        stacked = scope.op1(f"stablehlo.concatenate {names(pieces)}, dim = 0 : {sig}",
                            stacked_shape)  # fmt: skip
    else:
        stacked = pieces[0]
    props = [*channel_handle(instr), replica_groups(instr),
             *_all_to_all_properties(scope, instr, 0)]  # fmt: skip
    exchanged = scope.op1(
        generic("stablehlo.all_to_all", [stacked], [stacked_shape], props), stacked_shape
    )
    out = []
    for j in range(len(args)):
        ranges = ", ".join([f"{j}:{j + 1}", *(f"0:{d}" for d in part.dims)])
        one = Shape.array(part.element_type, [1, *part.dims])
        sig = function_type([exchanged], [one])
        block = scope.op1(f"stablehlo.slice {exchanged.name} [{ranges}] : {sig}", one)
        out.append(reshape(scope, block, part))
    return Pack(tuple(out))


def _all_to_all_properties(scope: Scope, instr: HloInstruction, dim: int) -> list[str]:
    """Split and concat dimension ``dim``; the split count is the size of a group (all
    replicas, or all partitions with a channel, when there are no groups)."""
    groups = instr.attrs.replica_groups.groups()
    config = scope.printer.module.config
    if groups:
        count = len(groups[0])
    elif instr.attrs.channel_id:
        count = config.num_partitions
    else:
        count = config.replica_count
    return [
        f"concat_dimension = {dim} : i64",
        f"split_count = {count} : i64",
        f"split_dimension = {dim} : i64",
    ]


@emits(Opcode.COLLECTIVE_PERMUTE)
def _collective_permute(scope: Scope, instr: HloInstruction, operands: list[Value]) -> Value:
    if instr.attrs.slice_sizes:
        raise unsupported(
            instr, "a collective-permute with slice_sizes has no StableHLO form",
            instr.attrs.slice_sizes,
        )  # fmt: skip
    pairs = [list(p) for p in instr.attrs.source_target_pairs]
    props = [*channel_handle(instr), f"source_target_pairs = {dense_ints(pairs, 2)}"]
    return define_generic(scope, instr, "stablehlo.collective_permute",
                          arrays(scope, instr, operands), props, [])  # fmt: skip


@emits(Opcode.COLLECTIVE_BROADCAST)
def _collective_broadcast(scope: Scope, instr: HloInstruction, operands: list[Value]) -> Value:
    extra = ["has_dynamic_root"] if instr.attrs.has_dynamic_root else []
    return _collective(scope, instr, operands, "stablehlo.collective_broadcast", extra,
                       region=False)  # fmt: skip


@emits(Opcode.ALL_REDUCE_DONE)
def _all_reduce_done(scope: Scope, instr: HloInstruction, operands: list[Value]) -> Value:
    return operands[0]


@emits(Opcode.ALL_GATHER_START)
def _all_gather_start(scope: Scope, instr: HloInstruction, operands: list[Value]) -> Value:
    """``(operands, results)``: the gather happens at the start."""
    (dim,) = instr.attrs.dimensions
    results_shape = instr.shape.tuple_shapes[1]
    props = [*channel_handle(instr), replica_groups(instr), f"all_gather_dim = {dim} : i64"]
    if instr.attrs.use_global_device_ids:
        props.append("use_global_device_ids")
    args = [leaf for o in operands for leaf in scope.leaves(o)]
    shapes = result_shapes(results_shape)
    text = generic("stablehlo.all_gather", args, shapes, props)
    gathered = scope.define(scope.reserve(), text, shapes)
    value = gathered[0] if not results_shape.is_tuple else Pack(tuple(gathered))
    return Pack((operands[0] if len(operands) == 1 else Pack(tuple(operands)), value))


@emits(Opcode.COLLECTIVE_PERMUTE_START)
def _collective_permute_start(scope: Scope, instr: HloInstruction, operands: list[Value]) -> Value:
    """``(operand, result, contexts...)``: the permute happens at the start."""
    (x,) = arrays(scope, instr, operands)
    result_shape = instr.shape.tuple_shapes[1]
    pairs = [list(p) for p in instr.attrs.source_target_pairs]
    props = [*channel_handle(instr), f"source_target_pairs = {dense_ints(pairs, 2)}"]
    text = generic("stablehlo.collective_permute", [x], [result_shape], props)
    result = scope.op1(text, result_shape)
    context = [Opaque(s, f"the context of {instr.name}") for s in instr.shape.tuple_shapes[2:]]
    return Pack((x, result, *context))


@emits(Opcode.ALL_GATHER_DONE, Opcode.COLLECTIVE_PERMUTE_DONE)
def _collective_done(scope: Scope, instr: HloInstruction, operands: list[Value]) -> Value:
    return scope.element(operands[0], 1)


@emits(Opcode.COPY_START)
def _copy_start(scope: Scope, instr: HloInstruction, operands: list[Value]) -> Value:
    context = [Opaque(s, f"the context of {instr.name}") for s in instr.shape.tuple_shapes[2:]]
    return Pack((operands[0], operands[0], *context))


@emits(Opcode.COPY_DONE)
def _copy_done(scope: Scope, instr: HloInstruction, operands: list[Value]) -> Value:
    return scope.element(operands[0], 0)


# ---- send, recv, feeds ---------------------------------------------------------------------------


def _transfer(instr: HloInstruction, host_kind: int) -> list[str]:
    host = bool(instr.attrs.is_host_transfer)
    return [*channel_handle(instr, host_kind if host else 1), flag("is_host_transfer", host)]


@emits(Opcode.SEND)
def _send(scope: Scope, instr: HloInstruction, operands: list[Value]) -> Value:
    data, token = operands
    args = [*scope.leaves(data), scope.ssa(token, f"token of {instr.name}")]
    text = generic("stablehlo.send", args, [Shape.token()], _transfer(instr, 2))
    done = scope.op1(text, Shape.token())
    context = Opaque(instr.shape.tuple_shapes[1], f"the context of {instr.name}")
    return Pack((data, context, done))


@emits(Opcode.SEND_DONE)
def _send_done(scope: Scope, instr: HloInstruction, operands: list[Value]) -> Value:
    return scope.element(operands[0], 2)


@emits(Opcode.RECV)
def _recv(scope: Scope, instr: HloInstruction, operands: list[Value]) -> Value:
    token = scope.ssa(operands[0], f"token of {instr.name}")
    data_shape = instr.shape.tuple_shapes[0]
    shapes = [*data_shape.leaves(), Shape.token()]
    text = generic("stablehlo.recv", [token], shapes, _transfer(instr, 3))
    *data, out_token = scope.op(text, shapes)
    context = Opaque(instr.shape.tuple_shapes[1], f"the context of {instr.name}")
    return Pack((unflatten(data_shape, iter(data)), context, out_token))


@emits(Opcode.RECV_DONE)
def _recv_done(scope: Scope, instr: HloInstruction, operands: list[Value]) -> Value:
    recv = operands[0]
    return Pack((scope.element(recv, 0), scope.element(recv, 2)))


@emits(Opcode.INFEED)
def _infeed(scope: Scope, instr: HloInstruction, operands: list[Value]) -> Value:
    token = scope.ssa(operands[0], f"token of {instr.name}")
    data_shape = instr.shape.tuple_shapes[0]
    shapes = [*data_shape.leaves(), Shape.token()]
    props = [f"infeed_config = {mlir_string(instr.attrs.infeed_config)}"]
    *data, out_token = scope.op(generic("stablehlo.infeed", [token], shapes, props), shapes)
    return Pack((unflatten(data_shape, iter(data)), out_token))


@emits(Opcode.OUTFEED)
def _outfeed(scope: Scope, instr: HloInstruction, operands: list[Value]) -> Value:
    data, token = operands
    args = [*scope.leaves(data), scope.ssa(token, f"token of {instr.name}")]
    props = [f"outfeed_config = {mlir_string(instr.attrs.outfeed_config)}"]
    return scope.op1(generic("stablehlo.outfeed", args, [Shape.token()], props),
                     Shape.token())  # fmt: skip


# ---- CHLO ------------------------------------------------------------------------------------


@emits(Opcode.TOPK)
def _top_k(scope: Scope, instr: HloInstruction, operands: list[Value]) -> Value:
    if not instr.attrs.largest:
        raise unsupported(instr, "chlo.top_k takes the largest values only", "largest=false")
    (x,) = arrays(scope, instr, operands)
    shapes = result_shapes(instr.shape)
    text = f"chlo.top_k({x.name}, k = {instr.attrs.k}) : {x.shape.to_mlir()} -> ({types(shapes)})"
    return results(scope, scope.reserve(), text, instr.shape)


@emits(Opcode.RAGGED_DOT)
def _ragged_dot(scope: Scope, instr: HloInstruction, operands: list[Value]) -> Value:
    a = instr.attrs
    dims = dimension_fields([
        ("lhs_batching_dimensions", a.lhs_batch_dims),
        ("rhs_batching_dimensions", a.rhs_batch_dims),
        ("lhs_contracting_dimensions", a.lhs_contracting_dims),
        ("rhs_contracting_dimensions", a.rhs_contracting_dims),
        ("lhs_ragged_dimensions", a.lhs_ragged_dims),
        ("rhs_group_dimensions", a.rhs_group_dims),
    ])  # fmt: skip
    props = [f"ragged_dot_dimension_numbers = #chlo.ragged_dot<{dims}>"]
    precision = precision_config(instr)
    if precision:
        props.append(
            "precision_config = [" + ", ".join(f"#chlo<precision {p}>" for p in precision) + "]"
        )
    return define_generic(scope, instr, "chlo.ragged_dot", arrays(scope, instr, operands),
                          props, [])  # fmt: skip


# ---- dynamic shapes ------------------------------------------------------------------------------


@emits(Opcode.DYNAMIC_BROADCAST_IN_DIM)
def _dynamic_broadcast_in_dim(scope: Scope, instr: HloInstruction, operands: list[Value]) -> Value:
    args = arrays(scope, instr, operands)
    a = instr.attrs
    known = [
        f"{key} = {dense_array(a[key])}"
        for key in ("known_expanding_dimensions", "known_nonexpanding_dimensions")
        if a[key]
    ]
    attrs = f" {{{', '.join(known)}}}" if known else ""
    text = (
        f"stablehlo.dynamic_broadcast_in_dim {names(args)}, dims = {int_list(a.dimensions)}"
        f"{attrs} : {function_type(args, [instr.shape])}"
    )
    return scope.op1(text, instr.shape)


@emits(Opcode.DYNAMIC_IOTA)
def _dynamic_iota(scope: Scope, instr: HloInstruction, operands: list[Value]) -> Value:
    args = arrays(scope, instr, operands)
    text = (
        f"stablehlo.dynamic_iota {names(args)}, dim = {instr.attrs.iota_dimension} : "
        f"{function_type(args, [instr.shape])}"
    )
    return scope.op1(text, instr.shape)


@emits(Opcode.DYNAMIC_PAD, Opcode.REAL_DYNAMIC_SLICE)
def _dynamic_operands(scope: Scope, instr: HloInstruction, operands: list[Value]) -> Value:
    args = arrays(scope, instr, operands)
    name = instr.opdef.stablehlo[0]
    sig = function_type(args, [instr.shape])
    return scope.op1(f"stablehlo.{name} {names(args)} : {sig}", instr.shape)


@emits(Opcode.DYNAMIC_RESHAPE)
def _dynamic_reshape(scope: Scope, instr: HloInstruction, operands: list[Value]) -> Value:
    """``stablehlo.dynamic_reshape`` takes a 1-D shape tensor; HLO's scalar sizes are
    reshaped to ``tensor<1xT>`` and concatenated into one."""
    x, *sizes = arrays(scope, instr, operands)
    if len(sizes) == 1 and sizes[0].shape.rank == 1:
        shape = sizes[0]
    elif sizes and all(s.shape.rank == 0 for s in sizes):
        element = sizes[0].shape.element_type
        pieces = [reshape(scope, s, Shape.array(element, [1])) for s in sizes]
        shape_type = Shape.array(element, [len(pieces)])
        if len(pieces) == 1:
            shape = pieces[0]
        else:
            sig = function_type(pieces, [shape_type])
            shape = scope.op1(f"stablehlo.concatenate {names(pieces)}, dim = 0 : {sig}",
                              shape_type)  # fmt: skip
    else:
        raise unsupported(
            instr, "dynamic-reshape needs a shape tensor or one scalar size per dimension",
            [s.shape.to_mlir() for s in sizes],
        )  # fmt: skip
    sig = function_type([x, shape], [instr.shape])
    return scope.op1(f"stablehlo.dynamic_reshape {x.name}, {shape.name} : {sig}", instr.shape)


@emits(Opcode.GET_DIMENSION_SIZE, Opcode.SET_DIMENSION_SIZE)
def _dimension_size(scope: Scope, instr: HloInstruction, operands: list[Value]) -> Value:
    args = arrays(scope, instr, operands)
    (dim,) = instr.attrs.dimensions
    name = instr.opdef.stablehlo[0]
    sig = function_type(args, [instr.shape])
    return scope.op1(f"stablehlo.{name} {names(args)}, dim = {dim} : {sig}", instr.shape)
