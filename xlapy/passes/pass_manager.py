"""The pass framework: ``Pass`` (a named IR -> IR transformation), the pass registry and
``Pipeline`` (passes in order, optionally to a fixpoint, verified and dumped after each).

A pass is a frozen dataclass with a ``name`` ClassVar and ``run(module) -> bool`` (True when it
changed the module). ``XLAPY_DUMP=<dir>`` writes the module after each pass as
``<nn>.<pass>.hlo``. ``collect_stats()`` counts the rewrite rules that fire (``record``), for
``xlapy opt --stats``.
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar, TypeVar

from xlapy.errors import InvalidArgument, VerificationError
from xlapy.ir.module import HloModule


@dataclass(frozen=True)
class Pass(ABC):
    """A named transformation of a module. Subclasses set ``name`` and implement ``run``."""

    name: ClassVar[str] = ""

    @abstractmethod
    def run(self, module: HloModule) -> bool:
        """Transforms ``module`` in place; returns True if anything changed."""


PASSES: dict[str, type[Pass]] = {}
"""Every registered pass class, by name (``xlapy opt --list-passes``)."""

P = TypeVar("P", bound=type[Pass])


def register_pass(cls: P) -> P:
    """Class decorator: registers a Pass subclass under its ``name``."""
    if not cls.name:
        raise RuntimeError(f"pass class {cls.__name__} has no name")
    if cls.name in PASSES and PASSES[cls.name] is not cls:
        raise RuntimeError(f"two passes registered as {cls.name!r}")
    PASSES[cls.name] = cls
    return cls


def make_pass(name: str) -> Pass:
    """An instance of the pass registered as ``name``, with default options."""
    load_passes()
    cls = PASSES.get(name)
    if cls is None:
        known = ", ".join(sorted(PASSES))
        raise InvalidArgument(f"unknown pass {name!r}; known passes: {known}")
    return cls()


def load_passes() -> None:
    """Imports every module of ``xlapy.passes`` so that its passes register."""
    import importlib
    import pkgutil

    import xlapy.passes as package

    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
        importlib.import_module(f"{package.__name__}.{info.name}")


_FIRED: ContextVar[Counter[str] | None] = ContextVar("xlapy_pass_stats", default=None)


def record(event: str, count: int = 1) -> None:
    """Counts ``event`` (a rule that fired, named ``<pass>/<rule>``) in the innermost active
    ``collect_stats`` block; does nothing outside one."""
    fired = _FIRED.get()
    if fired is not None:
        fired[event] += count


@contextmanager
def collect_stats() -> Iterator[Counter[str]]:
    """Collects the events ``record``-ed by the passes run inside the block::

    with collect_stats() as fired:
        pipeline.run(module)
    fired.most_common()  # [("algebraic-simplifier/fold_mul_one", 3), ...]
    """
    fired: Counter[str] = Counter()
    token = _FIRED.set(fired)
    try:
        yield fired
    finally:
        _FIRED.reset(token)


def _verify(module: HloModule, after: str) -> None:
    from xlapy.ir.verifier import verify

    try:
        verify(module)
    except VerificationError:
        raise
    except Exception as err:
        raise VerificationError(
            f"after pass {after}: the module no longer verifies: {err}"
        ) from err


@dataclass
class Pipeline:
    """Passes run in order; with ``fixpoint``, the whole list repeats until no pass changes
    the module (at most ``max_iterations`` rounds). An item may itself be a Pipeline (say, a
    fixpoint group inside a straight list); it runs with the outer pipeline's ``verify``,
    dump directory, ``log`` and ``on_pass``.

    Attributes:
        verify: run the structural verifier after every pass that changed the module, and
            check that a pass returning False left the module's structure alone (tests turn
            this on).
        dump_dir: write the module after each pass (default: ``$XLAPY_DUMP``).
        log: names of the passes that changed the module, in order (filled by ``run``).
    """

    passes: Sequence[Pass | Pipeline]
    fixpoint: bool = False
    max_iterations: int = 25
    verify: bool = False
    dump_dir: Path | None = None
    log: list[str] = field(default_factory=list)
    on_pass: Callable[[Pass, HloModule, bool], None] | None = None

    def run(self, module: HloModule) -> bool:
        """Runs the passes on ``module`` (in place); True if any changed it."""
        env_dump = os.environ.get("XLAPY_DUMP")
        dump = self.dump_dir or (Path(env_dump) if env_dump else None)
        return self._run(module, self, dump, [0])

    def flat_passes(self) -> list[Pass]:
        """Every pass, nested pipelines expanded, in order."""
        return [
            p
            for item in self.passes
            for p in (item.flat_passes() if isinstance(item, Pipeline) else [item])
        ]

    def _run(self, module: HloModule, top: Pipeline, dump: Path | None, step: list[int]) -> bool:
        changed_any = False
        for _ in range(self.max_iterations if self.fixpoint else 1):
            changed_round = False
            for p in self.passes:
                if isinstance(p, Pipeline):
                    changed_round |= p._run(module, top, dump, step)
                    continue
                before = _fingerprint(module) if top.verify else ()
                changed = p.run(module)
                if changed:
                    top.log.append(p.name)
                changed_round |= changed
                if top.verify and (changed or _fingerprint(module) != before):
                    if not changed:
                        raise VerificationError(
                            f"after pass {p.name}: it changed the module but returned False"
                        )
                    _verify(module, p.name)
                step[0] += 1
                if dump is not None:
                    _dump(module, dump, step[0], p.name)
                if top.on_pass is not None:
                    top.on_pass(p, module, changed)
            changed_any |= changed_round
            if not changed_round:
                break
        return changed_any


def _fingerprint(module: HloModule) -> tuple[int, ...]:
    """Cheap identity of a module's structure (computations, instruction lists, roots):
    with ``verify``, a pass that returns False must leave it unchanged, and the verifier is
    not run again on a module no pass changed."""
    parts = [id(module.entry)]
    for comp in module.computations:
        parts += [id(comp), id(comp.root), len(comp.instructions), *map(id, comp.instructions)]
    return tuple(parts)


def _dump(module: HloModule, directory: Path, step: int, name: str) -> None:
    from xlapy.text.hlo_printer import print_hlo

    directory.mkdir(parents=True, exist_ok=True)
    (directory / f"{step:02d}.{name}.hlo").write_text(print_hlo(module))
