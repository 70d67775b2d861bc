"""The compiled dot kernel against the interpreter: random dimension numbers (batch and
contracting dims anywhere), every type category; integers bit for bit, floats within the
summation-order tolerance."""

import itertools

import ml_dtypes
import numpy as np
import pytest
from op_kernels_util import assert_close, assert_same, random_array, run_both, shape_text

from xlapy.backend.cpu.kernel import CompileOptions
from xlapy.backend.cpu.kernels import blas


def dot_text(lhs, rhs, out_type, lb, lc, rb, rc, out_dims):
    dims = ",".join(map(str, out_dims))
    attrs = []
    if lb:
        attrs.append(f"lhs_batch_dims={{{','.join(map(str, lb))}}}")
    attrs.append(f"lhs_contracting_dims={{{','.join(map(str, lc))}}}")
    if rb:
        attrs.append(f"rhs_batch_dims={{{','.join(map(str, rb))}}}")
    attrs.append(f"rhs_contracting_dims={{{','.join(map(str, rc))}}}")
    return f"""HloModule m
ENTRY e {{
  a = {shape_text(lhs)} parameter(0)
  b = {shape_text(rhs)} parameter(1)
  ROOT d = {out_type}[{dims}] dot(a, b), {", ".join(attrs)}
}}"""


def random_dot(rng, lhs_dtype, rhs_dtype, n_batch, n_contract, n_lf, n_rf, sizes=(0, 1, 2, 3, 5)):
    """Operands with batch/contracting/free dims scattered at random positions."""
    batch = [int(rng.choice(sizes[1:])) for _ in range(n_batch)]
    contract = [int(rng.choice(sizes)) for _ in range(n_contract)]
    lfree = [int(rng.choice(sizes[1:])) for _ in range(n_lf)]
    rfree = [int(rng.choice(sizes[1:])) for _ in range(n_rf)]
    lroles = [("b", i) for i in range(n_batch)] + [("c", i) for i in range(n_contract)]
    lroles += [("f", i) for i in range(n_lf)]
    rroles = [("b", i) for i in range(n_batch)] + [("c", i) for i in range(n_contract)]
    rroles += [("f", i) for i in range(n_rf)]
    rng.shuffle(lroles)
    rng.shuffle(rroles)
    size = {"b": batch, "c": contract}

    def shape(roles, free):
        return [size[r][i] if r != "f" else free[i] for r, i in roles]

    lhs = random_array(rng, lhs_dtype, shape(lroles, lfree))
    rhs = random_array(rng, rhs_dtype, shape(rroles, rfree))
    lb = [lroles.index(("b", i)) for i in range(n_batch)]
    lc = [lroles.index(("c", i)) for i in range(n_contract)]
    rb = [rroles.index(("b", i)) for i in range(n_batch)]
    rc = [rroles.index(("c", i)) for i in range(n_contract)]
    lf_sizes = [lfree[i] for r, i in lroles if r == "f"]
    rf_sizes = [rfree[i] for r, i in rroles if r == "f"]
    return lhs, rhs, lb, lc, rb, rc, [*batch, *lf_sizes, *rf_sizes]


CASES = [
    ("f32", "f32", "f32"),
    ("f64", "f64", "f64"),
    ("c64", "c64", "c64"),
    ("c128", "c128", "c128"),
    ("bf16", "bf16", "bf16"),
    ("f16", "f16", "f16"),
    ("bf16", "bf16", "f32"),
    ("f32", "f64", "f32"),
    ("s8", "s8", "s32"),
    ("u8", "s8", "s32"),
    ("s32", "s32", "s32"),
    ("s64", "s64", "s64"),
    ("u64", "u64", "u64"),
    ("s16", "s16", "s16"),
    ("u32", "u32", "u32"),
    ("pred", "pred", "pred"),
    ("s8", "s8", "s8"),
    ("s4", "s4", "s32"),
]
NUMPY = {
    "f32": np.float32, "f64": np.float64, "c64": np.complex64, "c128": np.complex128,
    "bf16": ml_dtypes.bfloat16, "f16": np.float16, "s8": np.int8, "u8": np.uint8,
    "s16": np.int16, "s32": np.int32, "s64": np.int64, "u32": np.uint32, "u64": np.uint64,
    "pred": np.bool_, "s4": ml_dtypes.int4,
}  # fmt: skip


@pytest.mark.parametrize(("lt", "rt", "out"), CASES)
def test_dot_random_dimension_numbers(lt, rt, out):
    rng = np.random.default_rng(abs(hash((lt, rt, out))) % 2**32)
    exact = out not in ("f32", "f64", "c64", "c128", "bf16", "f16")
    for n_batch, n_contract, n_lf, n_rf in itertools.product((0, 1, 2), (0, 1, 2), (0, 1), (0, 2)):
        lhs, rhs, lb, lc, rb, rc, dims = random_dot(
            rng, NUMPY[lt], NUMPY[rt], n_batch, n_contract, n_lf, n_rf
        )
        text = dot_text(lhs, rhs, out, lb, lc, rb, rc, dims)
        got, want, kernel = run_both(text, lhs, rhs)
        assert kernel.exact == exact
        if exact:
            assert_same(got, want)
        else:
            rtol = {"bf16": 1e-2, "f16": 1e-3}.get(out, 1e-5)
            assert_close(got, want, rtol=rtol)


def test_dot_large_integers_use_wrapping_path():
    # Products over 2**53 cannot go through f64: the int64 path wraps like the result type.
    rng = np.random.default_rng(1)
    lhs = random_array(rng, np.int64, (4, 7))
    rhs = random_array(rng, np.int64, (7, 3))
    text = dot_text(lhs, rhs, "s64", [], [1], [], [0], [4, 3])
    got, want, _ = run_both(text, lhs, rhs)
    assert_same(got, want)
    lhs = np.full((2, 3), 2**31 - 1, np.int32)
    text = dot_text(lhs, lhs, "s32", [], [1], [], [1], [2, 2])
    got, want, _ = run_both(text, lhs, lhs)
    assert_same(got, want)
    v = 3 * (2**31 - 1) ** 2
    assert int(got[0, 0]) == (v + 2**31) % 2**32 - 2**31


def test_dot_mlp_shape_matches_float64_reference():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((256, 784)).astype(np.float32)
    w = rng.standard_normal((784, 512)).astype(np.float32)
    text = dot_text(x, w, "f32", [], [1], [], [0], [256, 512])
    got, want, kernel = run_both(text, x, w)
    assert "BLAS" in kernel.how
    assert_close(got, want, rtol=1e-5)
    assert_close(got, (x.astype(np.float64) @ w).astype(np.float32), rtol=1e-5)


def test_dot_flush_denormals_matches_interpreter():
    tiny = np.float32(1e-40)
    lhs = np.array([[tiny, 1.0], [2.0, tiny]], np.float32)
    rhs = np.array([[1.0, 0.0], [0.0, 1.0]], np.float32)
    text = dot_text(lhs, rhs, "f32", [], [1], [], [0], [2, 2])
    from xlapy.interpreter.evaluator import EvalOptions, Evaluator
    from xlapy.text.hlo_parser import parse_hlo

    got, _, _ = run_both(text, lhs, rhs, options=CompileOptions(flush_denormals=True))
    module = parse_hlo(text)
    want = Evaluator(module, EvalOptions(flush_denormals=True)).evaluate(
        module.entry.root, [lhs, rhs]
    )
    assert_same(got, want)
    assert got[0, 0] == 0.0


def test_batched_dot_flush_denormals_bitwise_as_the_interpreter():
    """The f32 BLAS path under flush_denormals (transposed batched operands): subnormal
    operands of both signs read as signed zeros, tiny products summing to subnormals are
    flushed, other sums unchanged; every element bit for bit as the interpreter's flush mode
    (the values make every sum exact, so BLAS's order cannot show)."""
    import xlapy

    rng = np.random.default_rng(11)
    values = np.array([0.0, -0.0, 1.0, -2.0, 0.5, 1e-40, -3e-39, 1e-20, -1e-20], np.float32)
    lhs = rng.choice(values, (3, 6, 4))  # [b, k, m]: contracting dim 1
    rhs = rng.choice(values, (3, 6, 5))  # [b, k, n]
    lhs[0, :, 0] = rhs[0, :, 0] = np.float32(1e-20)  # six products of 1e-40: subnormal sum
    text = dot_text(lhs, rhs, "f32", [0], [1], [0], [1], [3, 4, 5])
    module = xlapy.load(text)
    want = xlapy.run(module, lhs, rhs, flush_denormals=True, platform="interpreter")[0]
    exe = xlapy.compile(module, platform="cpu", flush_denormals=True)
    got = exe(lhs, rhs)[0]
    assert "BLAS" in exe.report()
    assert_same(got, want)
    assert got[0, 0, 0] == 0.0
    assert (
        xlapy.run(module, lhs, rhs, platform="interpreter")[0][0, 0, 0] != 0.0
    )  # a subnormal without flushing


@pytest.mark.parametrize(("batch", "m"), [(4, 64), (1, 300)])
def test_dot_large_products_split_over_threads(batch, m, monkeypatch):
    # Over blas._SPLIT_FLOPS multiply-adds (lowered here to keep the products small): row
    # blocks (or batch blocks) on the BLAS thread pool, the bits of the one-thread product.
    rng = np.random.default_rng(3)
    lhs = random_array(rng, np.float32, (batch, m, 256))
    rhs = random_array(rng, np.float32, (batch, 256, 300))
    text = dot_text(lhs, rhs, "f32", [0], [2], [0], [1], [batch, m, 300])
    monkeypatch.setattr(blas, "spare_core", lambda: False)  # not on OpenBLAS's threads
    one_thread, _, _ = run_both(text, lhs, rhs)
    monkeypatch.setattr(blas, "_SPLIT_FLOPS", 1 << 20)
    got, want, _ = run_both(text, lhs, rhs)
    assert_close(got, want, rtol=1e-5)
    assert_same(got, one_thread)
    lhs8 = random_array(rng, np.int8, (batch, m, 256))
    rhs8 = random_array(rng, np.int8, (batch, 256, 300))
    text = dot_text(lhs8, rhs8, "s32", [0], [2], [0], [1], [batch, m, 300])
    got, want, _ = run_both(text, lhs8, rhs8)
    assert_same(got, want)


def _blas_thread_settings(monkeypatch, spare: bool) -> list[int]:
    """The thread counts the dot kernel asks of OpenBLAS from now on, with a spare core or
    not (on 2 workers)."""
    settings: list[int] = []
    real = blas.blas_threads

    def recording(count):
        settings.append(count)
        return real(count)

    monkeypatch.setattr(blas, "blas_threads", recording)
    monkeypatch.setattr(blas, "spare_core", lambda: spare)
    monkeypatch.setattr(blas, "workers", lambda: 2)
    return settings


@pytest.mark.parametrize(
    "shape",
    [
        (1, 512, 128, 512),  # the GPT's projections
        (4, 96, 256, 130),
        (2, 300, 200, 77),
        (1, 1031, 255, 517),
    ],
)
def test_dot_on_openblas_threads_gives_the_one_thread_bits(shape, monkeypatch):
    # With a spare core, float32 products of blas._OPENBLAS_THREADS_FLOPS multiply-adds or
    # more, summing at most _OPENBLAS_THREADS_MAX_K terms, run on OpenBLAS's own threads,
    # which split rows and columns: the bits are the one-thread product's.
    batch, m, k, n = shape
    rng = np.random.default_rng(5)
    lhs = random_array(rng, np.float32, (batch, m, k))
    rhs = random_array(rng, np.float32, (batch, k, n))
    text = dot_text(lhs, rhs, "f32", [0], [2], [0], [1], [batch, m, n])
    alone = _blas_thread_settings(monkeypatch, spare=False)
    one_thread, want, _ = run_both(text, lhs, rhs)
    assert 2 not in alone
    shared = _blas_thread_settings(monkeypatch, spare=True)
    got, _, _ = run_both(text, lhs, rhs)
    assert 2 in shared
    assert_same(got, one_thread)
    assert_close(got, want, rtol=1e-4)


@pytest.mark.parametrize(
    ("shape", "dtype", "out"),
    [
        ((1, 512, 512, 512), np.float32, "f32"),  # longer sums: blocked otherwise on threads
        ((1, 300, 128, 200), np.float64, "f64"),
        ((2, 128, 96, 160), np.complex64, "c64"),
    ],
)
def test_dot_stays_on_one_openblas_thread_where_threads_change_bits(shape, dtype, out, monkeypatch):
    batch, m, k, n = shape
    rng = np.random.default_rng(6)
    lhs = random_array(rng, dtype, (batch, m, k))
    rhs = random_array(rng, dtype, (batch, k, n))
    text = dot_text(lhs, rhs, out, [0], [2], [0], [1], [batch, m, n])
    settings = _blas_thread_settings(monkeypatch, spare=True)
    run_both(text, lhs, rhs)
    assert 2 not in settings


@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")  # inf * 0
@pytest.mark.parametrize(
    ("batch", "m", "dtype", "out"),
    [
        (32, 784, np.float32, "f32"),  # vmap(grad) of a dense layer: split over the cores
        (1, 600, np.float64, "f64"),  # one batch: rows split
        (2, 3, np.float32, "f32"),  # small: one thread
        (3, 40, np.complex64, "c64"),
    ],
)
def test_outer_product_dot_bitwise_as_the_interpreter(batch, m, dtype, out):
    # A contracting dimension of size 1 runs as an elementwise multiply; one product per
    # element is exact in any order, so the values, signed zeros (a real zero product is
    # BLAS's 0 + (-0) = +0), infinities and NaNs are the interpreter's bit for bit.
    rng = np.random.default_rng(5)
    lhs = random_array(rng, dtype, (batch, 1, m))  # [b, k=1, m]
    rhs = random_array(rng, dtype, (batch, 1, 128))
    lhs[0, 0, :3] = [-0.0, np.inf, 0.0]
    rhs[0, 0, :2] = [2.0, -0.0]
    text = dot_text(lhs, rhs, out, [0], [1], [0], [1], [batch, m, 128])
    got, want, _ = run_both(text, lhs, rhs)
    assert_same(got, want)
    # -0 * 2: BLAS's +0 for reals; complex sums start from the product itself (-0)
    assert np.signbit(got[0, 0, 0].real) == (dtype == np.complex64)


def test_dot_operand_arrangements():
    """Each operand is read as a view when its layout allows (the right one transposed only
    as a single matrix); else copied into the order BLAS reads fastest."""
    from xlapy.backend.cpu.kernels.dot import _arrangement

    # x @ w: both views as they are
    assert _arrangement((512, 128), (), (0,), (1,), left=True) == ((0, 1), (1, 512, 128), False)
    assert _arrangement((128, 64), (), (1,), (0,), left=False) == ((0, 1), (1, 128, 64), False)
    # dy @ w^T (w [n, k]): the single matrix read transposed, no copy
    assert _arrangement((64, 128), (), (0,), (1,), left=False) == ((0, 1), (1, 64, 128), True)
    # x^T @ dy on the left (x [k, m]): read transposed
    assert _arrangement((512, 128), (), (1,), (0,), left=True) == ((0, 1), (1, 512, 128), True)
    # attention keys [b, t, h, d] contracted on d per (b, h): copied as [b*h, d, t]
    assert _arrangement((8, 64, 4, 32), (0, 2), (1,), (3,), left=False) == (
        (0, 2, 3, 1),
        (32, 32, 64),
        False,
    )
    # a stack [b, n, k] on the right is copied to [b, k, n] rather than read transposed
    assert _arrangement((4, 64, 32), (0,), (1,), (2,), left=False) == (
        (0, 2, 1),
        (4, 32, 64),
        False,
    )
