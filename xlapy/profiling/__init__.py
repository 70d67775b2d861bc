"""Profiles and progress of running programs.

- ``Profile`` / ``profile()`` (``recorder.py``): time per instruction on both platforms,
  as a table (``table.py``) or a Chrome trace with one track per device (``trace.py``).
- ``observer.py``: the layer the platforms plug into (``RunObserver``, per-device logs:
  counts, loop iterations, timed events); the platforms' observed code lives beside them
  (``xlapy.interpreter.observed``, ``xlapy.backend.cpu.observed_plan``). Nothing here imports a
  platform.
- ``live.py``: the status line of long calls on a terminal.
- ``active.py``: the profile of the current ``profile()`` block, and the compile progress.
"""

from xlapy.profiling.recorder import Profile, profile
from xlapy.profiling.table import ProfileRow

__all__ = ["Profile", "ProfileRow", "profile"]
