"""numpy-style indexing of XlaOps (``x[1:3, 0]``, ``x[..., None]``, ``x[i]`` with a scalar
XlaOp): static slices become Slice, scalar XlaOp indices DynamicSlice, then a Reshape drops
integer-indexed dimensions and inserts ``None`` ones."""

from __future__ import annotations

from xlapy import dtypes
from xlapy.builder.helpers import is_int, reshape
from xlapy.builder.xla_builder import XlaOp, as_op
from xlapy.errors import InvalidArgument


def _expand(key: object, rank: int) -> list[object]:
    items = list(key) if isinstance(key, tuple) else [key]
    ellipses = sum(1 for k in items if k is Ellipsis)
    if ellipses > 1:
        raise InvalidArgument("index: at most one '...' is allowed")
    used = sum(1 for k in items if k is not None and k is not Ellipsis)
    if used > rank:
        raise InvalidArgument(f"index: too many indices ({used}) for an array of rank {rank}")
    if ellipses:
        at = items.index(Ellipsis)
        items[at : at + 1] = [slice(None)] * (rank - used)
    else:
        items.extend([slice(None)] * (rank - used))
    return items


def index(op: XlaOp, key: object) -> XlaOp:
    """``op[key]`` (see the module docstring). Negative integers count from the end; slice
    steps must be positive."""
    from xlapy.builder import ops

    if not op.shape.is_array:
        if isinstance(key, int):
            return ops.GetTupleElement(op, key)
        raise InvalidArgument(f"index: tuples take an int index; got {key!r}")
    items = _expand(key, op.ndim)
    starts: list[int] = []
    limits: list[int] = []
    strides: list[int] = []
    dynamic: list[XlaOp | None] = []
    out_dims: list[int] = []
    dim = 0
    for item in items:
        if item is None:
            out_dims.append(-1)  # placeholder for a new axis
            continue
        size = op.shape.dims[dim]
        if isinstance(item, slice):
            for part in (item.start, item.stop, item.step):
                if part is not None and not is_int(part):
                    raise InvalidArgument(f"index: slice bounds must be ints or None; got {item}")
            start, stop, step = item.indices(size)
            if step <= 0:
                raise InvalidArgument(f"index: slice steps must be positive; got {item}")
            stop = max(stop, start)
            starts.append(start)
            limits.append(stop)
            strides.append(step)
            dynamic.append(None)
            out_dims.append(-(-(stop - start) // step))
        elif isinstance(item, XlaOp):
            if item.ndim != 0 or not item.dtype.is_integer:
                raise InvalidArgument(f"index: XlaOp indices must be integer scalars; got {item}")
            starts.append(0)
            limits.append(1)
            strides.append(1)
            dynamic.append(item)
        else:
            if not is_int(item):
                raise InvalidArgument(
                    f"index: indices must be ints, slices, ..., None or integer scalar XlaOps; "
                    f"got {item!r:.60}"
                )
            i = int(item)  # type: ignore[call-overload]
            if not -size <= i < size:
                raise InvalidArgument(
                    f"index {i} is out of bounds for dimension {dim} of size {size}"
                )
            i %= size
            starts.append(i)
            limits.append(i + 1)
            strides.append(1)
            dynamic.append(None)
        dim += 1
    if any(d is not None for d in dynamic):
        if any(s != 1 for s in strides):
            raise InvalidArgument("index: strided slices cannot be mixed with XlaOp indices")
        index_type = next(d.dtype for d in dynamic if d is not None)
        start_ops = [
            d if d is not None else as_op(op.builder, s, index_type)
            for d, s in zip(dynamic, starts, strict=True)
        ]
        if len({s.dtype for s in start_ops}) > 1:
            start_ops = [ops.ConvertElementType(s, dtypes.S32) for s in start_ops]
        sizes = [
            lim - s if d is None else 1 for d, s, lim in zip(dynamic, starts, limits, strict=True)
        ]
        sliced = ops.DynamicSlice(op, start_ops, sizes)
    elif starts == [0] * op.ndim and limits == list(op.shape.dims) and strides == [1] * op.ndim:
        sliced = op
    else:
        sliced = ops.Slice(op, starts, limits, strides)
    final = [1 if d == -1 else d for d in out_dims]
    if tuple(final) == sliced.shape.dims:
        return sliced
    return reshape(sliced, final)
