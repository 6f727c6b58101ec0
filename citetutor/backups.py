"""Snapshots of the library a student can restore: a copy after each change that would be
costly to redo (an upload, a finished scan review), the last few kept, and a restore that
moves a damaged library aside instead of deleting it."""

from __future__ import annotations

import os
import shutil
from datetime import datetime, timezone
from pathlib import Path

import duckdb

from citetutor.errors import LibraryUnavailable
from citetutor.store import Store

KEEP = 3
PREFIX, SUFFIX = "library-", ".duckdb"


def folder(data_dir: Path) -> Path:
    """Where snapshots live: beside the library, private like it."""
    return data_dir / "snapshots"


def take(store: Store, data_dir: Path) -> Path:
    """Copy the library to a new snapshot (written whole, then renamed into place)."""
    where = folder(data_dir)
    where.mkdir(mode=0o700, parents=True, exist_ok=True)
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S%f")
    partial, final = where / f".{stamp}.partial", where / f"{PREFIX}{stamp}{SUFFIX}"
    try:
        store.copy_to(partial)
        os.chmod(partial, 0o600)
        os.replace(partial, final)
    finally:
        partial.unlink(missing_ok=True)
        Path(f"{partial}.wal").unlink(missing_ok=True)
    for old in snapshots(data_dir)[KEEP:]:
        old.unlink(missing_ok=True)
    return final


def snapshots(data_dir: Path) -> list[Path]:
    """Snapshots, newest first."""
    where = folder(data_dir)
    return sorted(where.glob(f"{PREFIX}*{SUFFIX}"), reverse=True) if where.is_dir() else []


def taken_at(snapshot: Path) -> str:
    """When a snapshot was taken, in the learner's local time."""
    stamp = snapshot.name.removeprefix(PREFIX).removesuffix(SUFFIX)
    when = datetime.strptime(stamp, "%Y%m%dT%H%M%S%f").replace(tzinfo=timezone.utc).astimezone()
    return when.strftime("%d %b %Y, %H:%M")


def readable(snapshot: Path) -> bool:
    """Whether a snapshot opens and every row of it reads."""
    try:
        Store(snapshot, memory_limit="128MB").close()
    except (LibraryUnavailable, duckdb.Error):
        return False
    return True


def newest_readable(data_dir: Path) -> Path | None:
    """The newest snapshot that reads whole, if any."""
    return next((s for s in snapshots(data_dir) if readable(s)), None)


def restore(db_path: Path, data_dir: Path) -> tuple[Path, Path | None]:
    """Put the newest readable snapshot in place of the library; the damaged file (if any) is
    moved aside, not deleted. Returns (the snapshot used, where the damaged file went)."""
    snapshot = newest_readable(data_dir)
    if snapshot is None:
        raise LibraryUnavailable(f"No readable snapshot in {folder(data_dir)}: rename {db_path} "
                                 "to start a fresh library, and upload your PDFs again.")
    aside = None
    if db_path.exists():
        aside = db_path.with_name(f"{db_path.name}.damaged-{datetime.now().strftime('%Y%m%d-%H%M%S')}")
        os.replace(db_path, aside)
    Path(f"{db_path}.wal").unlink(missing_ok=True)  # a log of the damaged file, not of the copy
    partial = db_path.with_name(f".{db_path.name}.restoring")
    shutil.copyfile(snapshot, partial)
    os.chmod(partial, 0o600)
    os.replace(partial, db_path)
    return snapshot, aside
