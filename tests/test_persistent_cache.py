"""``persistent_cache.source_digest``: the digest of xlapy's source kept in the cache directory
under the files' (path, size, mtime) listing changes whenever a file's content, name or
presence changes, and a damaged entry is recomputed."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from xlapy import persistent_cache


@pytest.fixture
def package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A small package standing in for xlapy's source, and an empty cache directory (the
    process's memoized digest is dropped after: it is the stand-in's)."""
    root = tmp_path / "pkg"
    (root / "sub").mkdir(parents=True)
    (root / "a.py").write_text("A = 1\n")
    (root / "sub" / "b.py").write_text("B = 2\n")
    (root / "sub" / "notes.txt").write_text("not Python\n")
    monkeypatch.setattr(persistent_cache, "_PACKAGE", root)
    monkeypatch.setenv("XLAPY_CACHE_DIR", str(tmp_path / "cache"))
    yield root
    persistent_cache.source_digest.cache_clear()


def _digest() -> str:
    persistent_cache.source_digest.cache_clear()
    return persistent_cache.source_digest()


def _entries(package: Path) -> list[Path]:
    return sorted((package.parent / "cache" / "source").iterdir())


def test_the_digest_is_the_hash_of_paths_and_contents_and_is_kept(package: Path) -> None:
    first = _digest()
    assert first == persistent_cache._content_digest(["a.py", "sub/b.py"])
    (entry,) = _entries(package)
    assert entry.read_text() == first
    assert _digest() == first
    assert _entries(package) == [entry]


def test_an_edited_file_changes_the_digest_even_at_the_same_size(package: Path) -> None:
    first = _digest()
    edited = package / "sub" / "b.py"
    stat = edited.stat()
    edited.write_text("B = 3\n")  # same size; the write moves its mtime
    os.utime(edited, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000))
    second = _digest()
    assert second != first
    assert second == persistent_cache._content_digest(["a.py", "sub/b.py"])
    assert len(_entries(package)) == 2


def test_an_added_or_removed_file_changes_the_digest(package: Path) -> None:
    first = _digest()
    (package / "c.py").write_text("")
    added = _digest()
    (package / "c.py").unlink()
    assert len({first, added, _digest()}) == 2
    assert _digest() == first


def test_a_damaged_entry_is_recomputed(package: Path) -> None:
    first = _digest()
    (entry,) = _entries(package)
    entry.write_text("garbage")
    assert _digest() == first
    assert entry.read_text() == first


def test_an_unwritable_cache_directory_still_gives_the_digest(
    package: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = package.parent / "blocker"
    blocker.write_text("a file where the cache directory should be")
    monkeypatch.setenv("XLAPY_CACHE_DIR", str(blocker))
    assert _digest() == persistent_cache._content_digest(["a.py", "sub/b.py"])


def test_old_listings_are_evicted(package: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(persistent_cache, "MAX_SOURCE_ENTRIES", 2)
    for i in range(4):
        (package / "a.py").write_text(f"A = {i}\n" * (i + 1))
        _digest()
    assert len(_entries(package)) == 2


def test_the_real_package_digest_is_stable_within_a_process() -> None:
    persistent_cache.source_digest.cache_clear()
    digest = persistent_cache.source_digest()
    assert len(digest) == 16
    assert persistent_cache.source_digest() is digest
