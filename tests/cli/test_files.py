"""xlapy.cli.files: ``--inputs`` arguments given as raw bits of the parameter's type (bf16 as
numpy saves it, uint16 bits, f8/f4 bytes, sub-byte integers) and the errors for the rest."""

from __future__ import annotations

from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from xlapy import dtypes
from xlapy.cli.files import as_argument, load_npz, save_npz
from xlapy.errors import InvalidArgument
from xlapy.shape import Shape


def _round_trip(tmp_path: Path, array: np.ndarray) -> np.ndarray:
    """``array`` written by ``--outputs`` and read back by ``--inputs``."""
    save_npz(str(tmp_path / "a.npz"), "--outputs", {"arg0": array})
    return load_npz(str(tmp_path / "a.npz"), "--inputs")["arg0"]


@pytest.mark.parametrize(
    "etype",
    [dtypes.BF16, dtypes.F8E4M3FN, dtypes.F8E5M2, dtypes.F8E8M0FNU, dtypes.F4E2M1FN,
     dtypes.F6E3M2FN, dtypes.S4, dtypes.U4, dtypes.S2, dtypes.F16, dtypes.S8],
)  # fmt: skip
def test_saved_ml_dtypes_arrays_come_back_bit_for_bit(tmp_path: Path, etype: dtypes.ElementType
                                                      ) -> None:  # fmt: skip
    values = np.array([[0, 1, 2], [3, 1, 0]]).astype(etype.numpy)
    loaded = _round_trip(tmp_path, values)
    if etype.numpy.type.__module__.startswith("ml_dtypes"):
        assert loaded.dtype.kind == "V"  # the raw bits of types numpy has no dtype for
    got = as_argument(loaded, Shape.array(etype, [2, 3]), "arg0", "a.npz")
    assert got.dtype == etype.numpy
    assert got.tobytes() == values.tobytes()


def test_raw_bits_of_other_integer_types_are_reinterpreted() -> None:
    bf16 = np.array([1.5, -2.0, 3.0, 0.0], ml_dtypes.bfloat16)
    shape = Shape.array(dtypes.BF16, [2, 2])
    got = as_argument(bf16.view(np.uint16), shape, "arg0", "a.npz")
    assert got.shape == (2, 2)
    assert got.astype(np.float32).ravel().tolist() == [1.5, -2.0, 3.0, 0.0]
    # Any integer array of the same byte size: bytes for two bf16 values.
    assert as_argument(bf16[:2].view(np.uint8), Shape.array(dtypes.BF16, [2]), "a", "f").tobytes()\
        == bf16[:2].tobytes()  # fmt: skip
    f8 = np.array([0.5, -448.0], ml_dtypes.float8_e4m3fn)
    got = as_argument(f8.view(np.uint8), Shape.array(dtypes.F8E4M3FN, [2]), "arg1", "a.npz")
    assert got.astype(np.float32).tolist() == [0.5, -448.0]


def test_sub_byte_integers_from_int8_values() -> None:
    got = as_argument(np.array([-8, 7, -1, 0], np.int8), Shape.array(dtypes.S4, [4]), "a", "f")
    assert got.astype(np.int64).tolist() == [-8, 7, -1, 0]
    # Stored as ml_dtypes keeps them: one value per byte in the low bits.
    assert got.view(np.uint8).tolist() == [8, 7, 15, 0]
    # The low four bits 1001 alone are ml_dtypes' -7; bits above them must be 0 or a sign.
    assert as_argument(np.array([9], np.uint8), Shape.array(dtypes.S4, [1]), "a", "f") == -7
    with pytest.raises(InvalidArgument, match=r"a: its bytes are not s4 values .* got a byte 25"):
        as_argument(np.array([25], np.uint8), Shape.array(dtypes.S4, [1]), "a", "f")
    with pytest.raises(InvalidArgument, match="not pred values"):
        as_argument(np.array([2], np.uint8), Shape.array(dtypes.PRED, [1]), "a", "f")


def test_sizes_and_value_conversions_are_refused() -> None:
    shape = Shape.array(dtypes.BF16, [2, 2])
    with pytest.raises(
        InvalidArgument,
        match=r"--inputs a.npz: arg0 holds 4 bytes \(uint16\[2\]\) but the parameter bf16\[2,2\] "
        r"takes 8 \(2 per element\)",
    ):
        as_argument(np.zeros(2, np.uint16), shape, "arg0", "a.npz")
    with pytest.raises(InvalidArgument, match=r"arg0 has dtype float32 but the parameter is "
                                              r"bf16\[2,2\]; save it with dtype bfloat16"):  # fmt: skip
        as_argument(np.zeros((2, 2), np.float32), shape, "arg0", "a.npz")


def test_quantized_parameters_take_their_storage_integers() -> None:
    q = dtypes.uniform_quantized(dtypes.S8, dtypes.F32, [0.5], [1])
    values = np.array([1, -3], np.int8)
    assert as_argument(values, Shape.array(q, [2]), "a", "f") is values
    got = as_argument(values.view(np.uint8), Shape.array(q, [2]), "a", "f")
    assert got.tolist() == [1, -3]
