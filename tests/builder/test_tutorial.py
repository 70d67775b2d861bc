"""docs/tutorial.md stays true: its code blocks run in order and the errors it shows are the
errors the builder raises."""

import contextlib
import io
import re
from pathlib import Path

import pytest

TUTORIAL = Path(__file__).resolve().parents[2] / "docs" / "tutorial.md"


def test_tutorial_code_runs_and_its_error_messages_are_exact():
    pytest.importorskip("xlapy.text.hlo_parser")
    blocks = re.findall(r"```python\n(.*?)```", TUTORIAL.read_text(), re.S)
    assert blocks
    namespace: dict = {}
    checked = 0
    for block in blocks:
        if block.lstrip().startswith(">>>"):
            lines = block.splitlines()
            for i, line in enumerate(lines):
                if line.startswith(">>> "):
                    with pytest.raises(Exception) as info:  # noqa: PT011
                        exec(line[4:], namespace)
                    assert f"{type(info.value).__name__}: {info.value}" == lines[i + 1]
                    checked += 1
            continue
        with contextlib.redirect_stdout(io.StringIO()):
            exec(block, namespace)
    assert checked == 3
