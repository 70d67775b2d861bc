"""Shardings as JAX writes them, put on the HLO IR the way XLA imports them (GSPMD form).

Whatever the front end, a loaded module ends up with:

* ``parameter.sharding`` / ``root.sharding`` from the entry function's argument and result
  attributes (``mhlo.sharding = "{...}"`` or ``sdy.sharding = #sdy.sharding<@mesh, ...>``; a
  tuple sharding on the root when there are several results);
* ``instr.sharding`` from an op's ``mhlo.sharding`` attribute;
* constraints (``with_sharding_constraint``) as ``custom-call(x), custom_call_target="Sharding"``
  carrying the sharding, with ``backend_config="unspecified_dims=[...]"`` listing the dims
  propagation may still shard (Shardy's open dims ``{?}``; JAX's ``P.UNCONSTRAINED``);
* ``shard_alike``: ``Sharding`` custom calls ``{unknown shard_as N}`` (GSPMD) or
  ``xla.sdy.ShardingGroup`` custom calls (``sdy.sharding_group``), which propagation reads;
* Shardy's ``xla.sdy.FuncResultSharding`` custom calls removed (the root carries the result
  shardings);
* ``shard_map`` inside jit (``sdy.manual_computation``, or the HLO ``xla.sdy.GlobalToLocalShape``
  / ``xla.sdy.LocalToGlobalShape`` custom calls) as XLA's GSPMD form: per operand
  ``Sharding`` (the in sharding) -> ``SPMDFullToShardShape`` (manual sharding, the per-device
  shape) -> ``call`` of the body -> per result ``Sharding`` (manual) -> ``SPMDShardToFullShape``
  (the out sharding). With only some mesh axes manual, the manual sharding is a
  ``last_tile_dims={manual, replicated}`` subgroup sharding and constraints inside the body
  get the manual axes as their manual subgroup.

``lower_*`` functions are called by the StableHLO lowering; ``import_sdy_hlo(module)`` rewrites
an HLO module printed by JAX with Shardy (its ``xla.sdy.*`` custom calls and frontend
attributes) into the same form, and named (mesh) shardings of HLO text
(``{mesh['a'=2], [{'a'}]}``) into tile-assignment ones. ``module_meshes(module)`` reads ``xla.sdy.meshes``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from xlapy.errors import InvalidArgument
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.module import HloModule
from xlapy.ir.opcode import Opcode
from xlapy.shape import Shape
from xlapy.sharding.hlo_sharding import HloSharding
from xlapy.sharding.sdy import (
    Mesh,
    TensorSharding,
    manual_sharding,
    named_to_hlo,
    parse_manual_axes,
    parse_meshes,
    parse_sharding_list,
    parse_tensor_sharding,
    to_hlo_sharding,
)

if TYPE_CHECKING:
    from xlapy.ir.computation import HloComputation

SHARDING = "Sharding"
FULL_TO_SHARD = "SPMDFullToShardShape"
SHARD_TO_FULL = "SPMDShardToFullShape"
SHARDING_GROUP = "xla.sdy.ShardingGroup"
"""``shard_alike`` with Shardy: operand 0 joins group ``xla.sdy.sharding_group_id``."""

ManualContext = tuple[Mesh, tuple[str, ...]]
"""Inside a manual computation: its mesh and manual axes."""


def unspecified_dims_config(dims: Sequence[int]) -> str:
    """The backend config JAX writes on a ``Sharding`` custom call with open dims."""
    return "unspecified_dims=[" + ",".join(map(str, dims)) + "]" if dims else ""


def unspecified_dims(instr: HloInstruction) -> tuple[int, ...]:
    """The dims a ``Sharding`` custom call leaves open (from its backend config)."""
    config = instr.backend_config if isinstance(instr.backend_config, str) else ""
    if not config.startswith("unspecified_dims=["):
        return ()
    body = config[len("unspecified_dims=[") : config.index("]")]
    return tuple(int(d) for d in body.split(",") if d.strip())


def _sdy_to_hlo(
    sharding: TensorSharding, meshes: Mapping[str, Mesh], shape: Shape, manual: ManualContext | None
) -> HloSharding:
    if not shape.is_array:
        raise InvalidArgument(f"an sdy sharding on the non-array value {shape.to_mlir()}")
    axes = manual[1] if manual is not None else ()
    if manual is not None and axes and not _uses_mesh(sharding, manual[0], meshes):
        axes = ()
    return to_hlo_sharding(sharding, meshes, shape.rank, axes)


def _uses_mesh(sharding: TensorSharding, mesh: Mesh, meshes: Mapping[str, Mesh]) -> bool:
    own = sharding.mesh if isinstance(sharding.mesh, Mesh) else meshes.get(sharding.mesh)
    return own == mesh


def attr_sharding(
    attrs: Mapping[str, Any],
    meshes: Mapping[str, Mesh],
    shape: Shape,
    manual: ManualContext | None = None,
) -> tuple[HloSharding, tuple[int, ...]] | None:
    """The sharding in an attribute dict (``mhlo.sharding`` or ``sdy.sharding``) for a value
    of ``shape``, and its open dims; None when there is none."""
    text = attrs.get("mhlo.sharding")
    if isinstance(text, str) and text.strip():
        return HloSharding.parse(text, shape), ()
    sdy = attrs.get("sdy.sharding")
    if sdy is not None:
        body = getattr(sdy, "opaque", sdy)
        name = getattr(sdy, "name", "sdy.sharding")
        if name == "sdy.sharding_per_value":
            parsed = parse_sharding_list(str(body))
            if len(parsed) != 1:
                raise InvalidArgument(f"{len(parsed)} shardings for one value")
            tensor = parsed[0]
        else:
            tensor = parse_tensor_sharding(str(body))
        return _sdy_to_hlo(tensor, meshes, shape, manual), tensor.open_dims
    return None


def op_shardings(
    attrs: Mapping[str, Any],
    shapes: Sequence[Shape],
    meshes: Mapping[str, Mesh],
    manual: ManualContext | None = None,
) -> list[HloSharding]:
    """One sharding per result of an op with ``mhlo.sharding`` or ``sdy.sharding``."""
    text = attrs.get("mhlo.sharding")
    if isinstance(text, str) and text.strip():
        shape = shapes[0] if len(shapes) == 1 else Shape.tuple_of(list(shapes))
        sharding = HloSharding.parse(text, shape)
        if len(shapes) == 1:
            return [sharding]
        return [sharding.get_sub_sharding(shape, (i,)) for i in range(len(shapes))]
    sdy = attrs["sdy.sharding"]
    tensors = parse_sharding_list(str(getattr(sdy, "opaque", sdy)))
    if len(tensors) != len(shapes):
        raise InvalidArgument(
            f"sdy.sharding has {len(tensors)} shardings for {len(shapes)} results"
        )
    return [_sdy_to_hlo(t, meshes, s, manual) for t, s in zip(tensors, shapes, strict=True)]


def constraint(
    add: Any, x: HloInstruction, sharding: HloSharding, open_dims: Sequence[int] = ()
) -> HloInstruction:
    """``custom-call(x), custom_call_target="Sharding"`` with ``sharding`` (``add`` is the
    builder's ``add``)."""
    return add(
        Opcode.CUSTOM_CALL,
        x.shape,
        [x],
        {"custom_call_target": SHARDING},
        sharding=sharding,
        backend_config=unspecified_dims_config(open_dims),
    )


def lower_sharding_constraint(
    b: Any, x: HloInstruction, text: str, manual: ManualContext | None
) -> HloInstruction:
    """``sdy.sharding_constraint %x <@mesh, [...]>``."""
    tensor = parse_tensor_sharding(text)
    sharding = _sdy_to_hlo(tensor, b.module.meshes, x.shape, manual)
    return constraint(b.add, x, sharding, tensor.open_dims)


def lower_manual_computation(
    b: Any,
    operands: Sequence[HloInstruction],
    attrs: Mapping[str, Any],
    body: Any,
    result_shapes: Sequence[Shape],
    offset: int,
) -> list[HloInstruction]:
    """``sdy.manual_computation`` in GSPMD form; ``body(manual_context, local_shapes)``
    lowers the region to a computation."""
    meshes = b.module.meshes
    ins = parse_sharding_list(str(attrs.get("in_shardings", "[]")))
    outs = parse_sharding_list(str(attrs.get("out_shardings", "[]")))
    axes = parse_manual_axes(str(attrs.get("manual_axes", "{}")))
    if len(ins) != len(operands) or len(outs) != len(result_shapes):
        raise InvalidArgument(
            f"sdy.manual_computation has {len(operands)} operands and {len(result_shapes)} "
            f"results but {len(ins)} in_shardings and {len(outs)} out_shardings"
        )
    mesh = _mesh_of(ins + outs, meshes)
    context: ManualContext = (mesh, axes)
    local_args: list[HloInstruction] = []
    for x, s in zip(operands, ins, strict=True):
        full = constraint(b.add, x, to_hlo_sharding(s, meshes, x.shape.rank), s.open_dims)
        local = _local_shape(x.shape, s, mesh, axes)
        local_args.append(
            b.add(
                Opcode.CUSTOM_CALL,
                local,
                [full],
                {"custom_call_target": FULL_TO_SHARD},
                sharding=manual_sharding(mesh, axes, x.shape.rank),
                backend_config=unspecified_dims_config(s.open_dims),
            )
        )
    comp = body(context, [a.shape for a in local_args])
    b.module.hlo.add_computation(comp)
    root = comp.root.shape
    call = b.add(Opcode.CALL, root, local_args, {"to_apply": comp})
    values = [call] if len(result_shapes) == 1 else b.unpack(call)
    results = []
    for v, s, shape in zip(values, outs, result_shapes, strict=True):
        manual = manual_sharding(mesh, axes, shape.rank)
        inner = constraint(b.add, v, manual, s.open_dims)
        results.append(
            b.add(
                Opcode.CUSTOM_CALL,
                shape,
                [inner],
                {"custom_call_target": SHARD_TO_FULL},
                sharding=to_hlo_sharding(s, meshes, shape.rank),
                backend_config=unspecified_dims_config(s.open_dims),
            )
        )
    return results


def _mesh_of(shardings: Sequence[TensorSharding], meshes: Mapping[str, Mesh]) -> Mesh:
    found: list[Mesh] = []
    for s in shardings:
        mesh = s.mesh if isinstance(s.mesh, Mesh) else meshes.get(s.mesh)
        if mesh is None:
            raise InvalidArgument(f"sharding refers to an undefined mesh @{s.mesh}")
        found.append(mesh)
    if not found:
        if len(meshes) == 1:
            return next(iter(meshes.values()))
        raise InvalidArgument("sdy.manual_computation without shardings names no mesh")
    if any(m != found[0] for m in found):
        raise InvalidArgument("sdy.manual_computation uses shardings over different meshes")
    return found[0]


def _local_shape(
    shape: Shape, sharding: TensorSharding, mesh: Mesh, manual_axes: Sequence[str]
) -> Shape:
    """The per-device shape inside the manual computation: each dim divided by the sizes of
    its manual axes."""
    dims = list(shape.dims)
    for i, d in enumerate(sharding.dims):
        for ref in d.axes:
            if ref.name in manual_axes:
                size = mesh.axis_size(ref.name) if ref.size is None else ref.size
                if dims[i] % size:
                    raise InvalidArgument(
                        f"dim {i} of {shape.to_mlir()} is not divisible by the manual axis "
                        f"{ref.name!r} of size {size}"
                    )
                dims[i] //= size
    return shape.with_dims(dims)


def apply_function_shardings(
    comp: HloComputation,
    arg_attrs: Sequence[Mapping[str, Any]],
    result_attrs: Sequence[Mapping[str, Any]],
    meshes: Mapping[str, Mesh],
) -> None:
    """Parameter shardings from the argument attributes; the root's from the results'."""
    params = {p.attrs.parameter_number: p for p in comp.parameters}
    for i, attrs in enumerate(arg_attrs):
        found = attr_sharding(attrs, meshes, params[i].shape)
        if found is not None:
            params[i].sharding = found[0]
    root = comp.root
    shapes = [root.shape] if len(result_attrs) == 1 else list(root.shape.tuple_shapes)
    if len(shapes) != len(result_attrs):
        return
    found = [attr_sharding(a, meshes, s) for a, s in zip(result_attrs, shapes, strict=True)]
    if all(f is None for f in found):
        return
    leaves: list[HloSharding] = []
    for f, shape in zip(found, shapes, strict=True):
        sharding = f[0] if f is not None else HloSharding.replicate()
        leaves.extend(sharding.leaf_shardings(shape))
    result = leaves[0] if len(result_attrs) == 1 and not shapes[0].is_tuple else None
    result = result or HloSharding.tuple(leaves)
    if root.opcode is Opcode.PARAMETER or (root.sharding is not None and root.sharding != result):
        root = comp.add_instruction(HloInstruction(Opcode.COPY, root.shape, [root]))
        comp.root = root
    root.sharding = result


# ---- HLO text printed by JAX with Shardy ------------------------------------------------------


def module_meshes(module: HloModule) -> dict[str, Mesh]:
    """The meshes of ``xla.sdy.meshes`` (module frontend attributes), by name."""
    text = module.config.frontend_attributes.get("xla.sdy.meshes", "")
    return parse_meshes(text) if text else {}


def _target(instr: HloInstruction) -> str:
    if instr.opcode is not Opcode.CUSTOM_CALL:
        return ""
    return str(instr.attrs.custom_call_target)


def import_sdy_hlo(module: HloModule) -> bool:
    """Rewrites the ``xla.sdy.*`` custom calls of an HLO module into the GSPMD form (see the
    module docstring); returns whether anything changed."""
    meshes = module_meshes(module)
    changed = False
    for comp in list(module.computations):
        for instr in list(comp.instructions):
            target = _target(instr)
            if instr.sharding is not None and _has_named(instr.sharding):
                instr.sharding = _resolve_named(instr.sharding)
                changed = True
            if target in ("xla.sdy.GlobalToLocalShape", "xla.sdy.LocalToGlobalShape"):
                _import_manual_edge(comp, instr, meshes)
                changed = True
            elif target == SHARDING and "xla.sdy.sharding" in instr.frontend_attributes:
                found = _frontend_sharding(instr, "xla.sdy.sharding", meshes, None)
                if found is not None and found[1] and not instr.backend_config:
                    instr.backend_config = unspecified_dims_config(found[1])
                    changed = True
            elif target == "xla.sdy.FuncResultSharding":
                # The result's sharding, which the root already carries (sharding=).
                comp.replace_all_uses(instr, instr.operands[0])
                comp.remove_instruction(instr)
                changed = True
    return changed


def _has_named(s: HloSharding) -> bool:
    return s.kind == "named" or any(e.kind == "named" for e in s.tuple_elements)


def _resolve_named(s: HloSharding) -> HloSharding:
    """Named (mesh) shardings as their tile-assignment form."""
    if s.is_tuple:
        return HloSharding.tuple(_resolve_named(e) for e in s.tuple_elements)
    return named_to_hlo(s.raw) if s.kind == "named" else s


def _adder(comp: HloComputation, before: HloInstruction) -> Any:
    """An ``add(opcode, shape, operands, attrs, **fields)`` inserting before ``before``."""

    def add(opcode: Opcode, shape: Shape, operands: Sequence[HloInstruction],
            attrs: dict[str, Any] | None = None, **fields: Any) -> HloInstruction:  # fmt: skip
        return comp.add_instruction(
            HloInstruction(opcode, shape, operands, attrs, **fields), before=before
        )

    return add


def _frontend_sharding(
    instr: HloInstruction, key: str, meshes: Mapping[str, Mesh], manual: ManualContext | None
) -> tuple[HloSharding, tuple[int, ...]] | None:
    text = instr.frontend_attributes.get(key, "")
    if not text:
        return None
    tensors = (
        parse_sharding_list(text) if "sharding_per_value" in text else [parse_tensor_sharding(text)]
    )
    if len(tensors) != 1:
        return None
    return _sdy_to_hlo(tensors[0], meshes, instr.shape, manual), tensors[0].open_dims


def _import_manual_edge(
    comp: HloComputation, instr: HloInstruction, meshes: Mapping[str, Mesh]
) -> None:
    """``xla.sdy.GlobalToLocalShape`` -> ``Sharding`` + ``SPMDFullToShardShape`` per operand
    (and the body's constraints re-read with the manual axes); ``xla.sdy.LocalToGlobalShape``
    -> ``Sharding`` (manual) + ``SPMDShardToFullShape`` per operand."""
    entering = _target(instr) == "xla.sdy.GlobalToLocalShape"
    fa = instr.frontend_attributes
    shardings = parse_sharding_list(fa.get("xla.sdy.in_shardings" if entering else
                                           "xla.sdy.out_shardings", "[]"))  # fmt: skip
    axes = parse_manual_axes(fa.get("xla.sdy.manual_axes", "{}"))
    mesh = _mesh_of(shardings, meshes)
    shapes = list(instr.shape.tuple_shapes) if instr.shape.is_tuple else [instr.shape]
    if len(shardings) != len(instr.operands) or len(shapes) != len(instr.operands):
        raise InvalidArgument(
            f"{instr.name}: {len(instr.operands)} operands, {len(shapes)} results and "
            f"{len(shardings)} shardings"
        )
    add = _adder(comp, instr)
    results: list[HloInstruction] = []
    for x, s, shape in zip(instr.operands, shardings, shapes, strict=True):
        global_shape = x.shape if entering else shape
        full = to_hlo_sharding(s, meshes, global_shape.rank)
        manual = manual_sharding(mesh, axes, global_shape.rank)
        config = unspecified_dims_config(s.open_dims)
        first = constraint(add, x, full if entering else manual, s.open_dims)
        target = FULL_TO_SHARD if entering else SHARD_TO_FULL
        results.append(
            add(
                Opcode.CUSTOM_CALL,
                shape,
                [first],
                {"custom_call_target": target},
                sharding=manual if entering else full,
                backend_config=config,
            )
        )
    replacement = (
        results[0] if not instr.shape.is_tuple else add(Opcode.TUPLE, instr.shape, results)
    )
    users = comp.users(instr)
    comp.replace_all_uses(instr, replacement)
    comp.remove_instruction(instr)
    if entering:
        for body in _called_bodies(comp, users):
            _reread_body(body, meshes, (mesh, axes))


def _called_bodies(comp: HloComputation, users: Sequence[HloInstruction]) -> list[HloComputation]:
    found: list[HloComputation] = []
    for u in users:
        if u.opcode is Opcode.CALL:
            found.append(u.attrs.to_apply)
        elif u.opcode is Opcode.GET_TUPLE_ELEMENT:
            found.extend(_called_bodies(comp, comp.users(u)))
    return found


def _reread_body(body: HloComputation, meshes: Mapping[str, Mesh], manual: ManualContext) -> None:
    """Constraints inside a manual body: their Shardy sharding with the manual axes."""
    for instr in body.instructions:
        if _target(instr) == SHARDING:
            found = _frontend_sharding(instr, "xla.sdy.sharding", meshes, manual)
            if found is not None:
                instr.sharding = found[0]
                instr.backend_config = unspecified_dims_config(found[1])
        for called in instr.called_computations():
            _reread_body(called, meshes, manual)
