"""Profiles and progress of running programs.

- ``Profile`` / ``profile()`` (``recorder.py``): time per instruction on both platforms,
  as a table (``table.py``) or a Chrome trace with one track per device (``trace.py``).
- ``observer.py``: how calls are observed (observed evaluators, counts, loop iterations);
  ``cpu.py``: the observed plans of the ``cpu`` platform.
- ``live.py``: the status line of long calls on a terminal.
- ``active.py``: the profile of the current ``profile()`` block, and the compile progress.
"""

from xlapy.profiling.recorder import Profile, profile
from xlapy.profiling.table import ProfileRow

__all__ = ["Profile", "ProfileRow", "profile"]
