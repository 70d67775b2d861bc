"""The numpy broadcast kernel (``kernels/basic.py``, the kernel of the types the generated
kernels do not handle, and the quick tier's) against the interpreter's eval, bit for bit:
dimensions in and out of order, size-1 expansion, scalars, complex, pred and bf16; invalid
dimensions are left to the interpreter."""

import ml_dtypes
import numpy as np
import pytest
from op_kernels_util import assert_same

from xlapy.backend.cpu.kernel import CompileOptions, NoKernel, RunContext
from xlapy.backend.cpu.kernels.basic import broadcast_kernel
from xlapy.interpreter.evaluator import DeviceState, Evaluator
from xlapy.text.hlo_parser import parse_hlo

CASES = [
    ("c64[2,3]", "c64[4,2,3]", "{1,2}", np.complex64, (2, 3)),
    ("c128[3,2]", "c128[2,5,3]", "{2,0}", np.complex128, (3, 2)),
    ("c64[1,3]", "c64[4,3]", "{0,1}", np.complex64, (1, 3)),
    ("f32[]", "f32[2,3]", "{}", np.float32, ()),
    ("pred[3]", "pred[3,2]", "{0}", np.bool_, (3,)),
    ("bf16[2,1,4]", "bf16[4,3,2,5]", "{2,1,0}", ml_dtypes.bfloat16, (2, 1, 4)),
]


@pytest.mark.parametrize(("operand", "result", "dims", "dtype", "shape"), CASES)
def test_broadcast_kernel_matches_the_interpreter(operand, result, dims, dtype, shape):
    text = f"""HloModule m
ENTRY e {{
  p = {operand} parameter(0)
  ROOT b = {result} broadcast(p), dimensions={dims}
}}"""
    module = parse_hlo(text)
    root = module.entry.root
    kernel = broadcast_kernel(root, CompileOptions())
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape) + (
        1j * rng.standard_normal(shape) if dtype in (np.complex64, np.complex128) else 0
    )
    x = np.asarray(x > 0 if dtype is np.bool_ else x).astype(dtype)
    evaluator = Evaluator(module, device=DeviceState())
    want = evaluator.evaluate(root, [x])
    ctx = RunContext(device=evaluator.device, evaluator=evaluator, call=evaluator.call)
    got = kernel.run([x], ctx)
    assert_same(got, want)
    assert got.flags.c_contiguous
    assert got.flags.writeable


def test_broadcast_kernel_leaves_bad_dimensions_to_the_interpreter():
    module = parse_hlo("""HloModule m
ENTRY e {
  p = f32[3] parameter(0)
  ROOT b = f32[2,4] broadcast(p), dimensions={1}
}""")
    with pytest.raises(NoKernel):
        broadcast_kernel(module.entry.root, CompileOptions())
