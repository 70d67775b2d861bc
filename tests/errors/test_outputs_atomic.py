"""``--outputs`` is written atomically: a failure while writing leaves the previous archive
as it was and no partial file behind (issue #14, "nothing lost")."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from xlapy.cli.files import save_npz
from xlapy.errors import InvalidArgument


class _FailsWhenWritten:
    def __array__(self, dtype: object = None, copy: object = None) -> np.ndarray:
        raise OSError(28, "No space left on device")


def test_a_failed_write_keeps_the_previous_archive(tmp_path: Path) -> None:
    out = tmp_path / "out.npz"
    save_npz(str(out), "--outputs", {"out0": np.arange(3)})
    with pytest.raises(InvalidArgument, match=r"--outputs .*out\.npz: cannot be written"):
        save_npz(str(out), "--outputs", {"out0": np.zeros(5), "out1": _FailsWhenWritten()})  # type: ignore[dict-item]
    with np.load(out) as data:
        assert data["out0"].tolist() == [0, 1, 2]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.npz"]


def test_the_npz_suffix_is_added_as_numpy_does(tmp_path: Path) -> None:
    save_npz(str(tmp_path / "result"), "--outputs", {"out0": np.ones(2, np.float32)})
    with np.load(tmp_path / "result.npz") as data:
        assert data["out0"].tolist() == [1.0, 1.0]
