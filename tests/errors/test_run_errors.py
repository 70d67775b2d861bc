"""``xlapy.run``: wrong number, type, shape or dtype of arguments, bad per-device lists and bad
options raise InvalidArgument naming the argument, the parameter and the values."""

from __future__ import annotations

import numpy as np
import pytest

import xlapy
from xlapy.errors import InvalidArgument

PROGRAM = """HloModule m

ENTRY e {
  x = f32[2] parameter(0)
  n = u8[] parameter(1)
  c = f32[] convert(n)
  b = f32[2] broadcast(c), dimensions={}
  ROOT r = f32[2] add(x, b)
}
"""


@pytest.fixture(scope="module")
def module():
    return xlapy.load(PROGRAM)


def test_runs_with_good_arguments(module):
    (out,) = xlapy.run(module, np.array([1, 2], np.float32), 3, platform="interpreter")
    np.testing.assert_array_equal(out, np.array([4, 5], np.float32))
    (out,) = xlapy.run(module, [1.0, 2], np.uint8(1), platform="interpreter")
    np.testing.assert_array_equal(out, np.array([2, 3], np.float32))


@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        ((np.zeros(2, np.float32),), ["e takes 2 arguments (f32[2], u8[]); got 1"]),
        ((np.zeros(2, np.float64), 1), ["argument 0 (x): expected element type f32", "float64"]),
        ((np.zeros(3, np.float32), 1), ["argument 0 (x): expected shape f32[2]; got f32[3]"]),
        ((None, 1), ["argument 0 (x): expected a value of f32[2]", "got NoneType None"]),
        (("ab", 1), ["argument 0 (x): expected a value of f32[2]", "got str 'ab'"]),
        (([[1], [1, 2]], 1), ["argument 0 (x): expected numbers for f32[2] (nested lists must "
                              "be rectangular)"]),
        (([1.0, 2.0], 300), ["argument 1 (n): values out of the range of u8 [0, 255]; got int 300"]),
        (([1.0, 2.0], 1.5), ["argument 1 (n): float64 values cannot become u8 without changing"]),
        (([1j, 2.0], 1), ["argument 0 (x): complex128 values cannot become f32"]),
        (([1.0, 2.0], object()), ["argument 1 (n): expected numbers for u8[]"]),
    ],
)  # fmt: skip
def test_bad_arguments(module, args, fragments):
    with pytest.raises(InvalidArgument) as info:
        xlapy.run(module, *args, platform="interpreter")
    for fragment in fragments:
        assert fragment in str(info.value)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"replicas": 0}, "run: replicas must be a positive int; got 0"),
        ({"partitions": 1.5}, "run: partitions must be a positive int; got 1.5"),
        ({"timeout": -1}, "run: timeout must be a positive number of seconds; got -1"),
        ({"infeed": 3}, "run: infeed must be a list of values; got int 3"),
        ({"outfeed": ()}, "run: outfeed must be a list (or None); got tuple ()"),
    ],
)
def test_bad_options(module, options, message):
    with pytest.raises(InvalidArgument, match=message.replace("(", r"\(").replace(")", r"\)")):
        xlapy.run(module, [1.0, 2.0], 1, platform="interpreter", **options)


def test_module_must_be_an_hlo_module():
    with pytest.raises(InvalidArgument, match=r"run: expected an HloModule .*got str"):
        xlapy.run(PROGRAM, platform="interpreter")  # type: ignore[arg-type]


def test_per_device_list_of_the_wrong_length(module):
    arrays = [np.zeros(2, np.float32)] * 3
    with pytest.raises(InvalidArgument) as info:
        xlapy.run(module, arrays, 1, replicas=2, platform="interpreter")
    assert "argument 0 (x): a per-device list needs one value per device (2 = 2 replicas x 1 " in (
        str(info.value)
    )
    assert "got 3" in str(info.value)
    with pytest.raises(InvalidArgument, match=r"argument 1 \(n\): a per-device list"):
        xlapy.run(module, np.ones(2, np.float32), [1, 2, 3], replicas=2, platform="interpreter")
    outs = xlapy.run(
        module, [np.zeros(2, np.float32)] * 2, [1, 2], replicas=2, platform="interpreter"
    )
    assert [o[0].tolist() for o in outs] == [[1.0, 1.0], [2.0, 2.0]]
