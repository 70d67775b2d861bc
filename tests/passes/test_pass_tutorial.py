"""docs/tutorial.md section 7 (writing a pass) stays true: its code runs on its own and prints
exactly the text the tutorial shows."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

TUTORIAL = Path(__file__).resolve().parents[2] / "docs" / "tutorial.md"


def test_the_pass_section_prints_what_it_shows():
    text = TUTORIAL.read_text()
    section = text[text.index("## 7. Write a pass") :]
    code = re.findall(r"```python\n(.*?)```", section, re.S)
    shown = re.findall(r"```text\n(.*?)```", section, re.S)
    assert len(code) == 1
    assert len(shown) == 1
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(code[0], {})
    assert out.getvalue() == shown[0]
