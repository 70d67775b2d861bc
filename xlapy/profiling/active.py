"""The observers active in this context: the profile of ``with xlapy.profile()`` (read when a
call is prepared) and the compile progress of a call shown on a terminal (read while the
``cpu`` platform compiles). Kept free of imports so that the interpreter and the compiler
can consult it without depending on the rest of ``xlapy.profiling``.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from xlapy.profiling.live import CompileProgress
    from xlapy.profiling.observer import RunObserver

ACTIVE_PROFILE: ContextVar[RunObserver | None] = ContextVar("xlapy_profile", default=None)
"""Set by ``xlapy.profile()`` for the calls made inside its block."""

COMPILE_PROGRESS: ContextVar[CompileProgress | None] = ContextVar(
    "xlapy_compile_progress", default=None
)
"""Set while a call with ``progress=True`` compiles on a terminal: passes and kernels report
to it."""


def current_observer() -> RunObserver | None:
    """The profile of the innermost ``xlapy.profile()`` block, or None."""
    return ACTIVE_PROFILE.get()


def compile_progress() -> CompileProgress | None:
    """The compile progress display to report passes and kernels to, or None."""
    return COMPILE_PROGRESS.get()
