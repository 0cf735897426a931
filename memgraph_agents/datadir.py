"""The data dir: usable or a one-line ``StorageError``, and private to its owner.

Memory is personal data, so everything memgraph creates under a data dir is private:
directories ``0700`` and files ``0600``, whatever the process umask. Our own files (SQLite
graphs, lock files) are created with those modes; SQLite gives its
``-wal`` / ``-shm`` files the mode of the database. Chroma's embedded files are created by
Chroma with the umask's mode, so ``tighten`` sets them after each write; until then they sit
in a ``0700`` directory that no one else can enter. A data dir (or a parent) that already
exists keeps its mode: it was made by someone else.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from memgraph_agents.errors import StorageError

__all__ = ["check_data_dir", "ensure_private_dir", "create_private_file", "tighten", "DIR_MODE", "FILE_MODE"]

DIR_MODE = 0o700
FILE_MODE = 0o600


def check_data_dir(data_dir: Path, *, must_exist: bool = False) -> Path:
    """``data_dir`` if memgraph can use it, else a ``StorageError`` saying what is wrong: a
    file, under a file, not writable (SQLite's WAL and the locks need writing even to read)."""
    path = Path(data_dir)
    probe = path
    while not probe.exists():
        if probe.parent == probe:
            break
        probe = probe.parent
    if probe.exists() and not probe.is_dir():
        if probe == path:
            raise StorageError(f"data dir {path} is a file, not a directory")
        raise StorageError(f"data dir {path} lies under {probe}, which is a file")
    if not path.exists():
        if must_exist:
            raise StorageError(f"data dir {path} does not exist")
        if not os.access(probe, os.W_OK | os.X_OK):
            raise StorageError(f"data dir {path} cannot be created: {probe} is not writable")
        return path
    if not os.access(path, os.W_OK | os.X_OK):
        raise StorageError(
            f"data dir {path} is read-only: memgraph needs write access to it, "
            "even to read (SQLite's write-ahead log and the locks live there)"
        )
    return path


def ensure_private_dir(path: Path) -> Path:
    """Create ``path`` and its missing parents as ``0700`` directories (existing ones are kept)."""
    path = Path(path)
    missing = []
    p = path
    while not p.exists():
        missing.append(p)
        if p.parent == p:
            break
        p = p.parent
    for d in reversed(missing):
        try:
            d.mkdir(mode=DIR_MODE)
        except FileExistsError:
            continue
        os.chmod(d, DIR_MODE)  # mkdir's mode is filtered by the umask
    return path


def create_private_file(path: Path) -> Path:
    """Create ``path`` empty with mode ``0600`` unless it exists (SQLite then opens it as is)."""
    path = Path(path)
    ensure_private_dir(path.parent)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
    except FileExistsError:
        return path
    os.close(fd)
    os.chmod(path, FILE_MODE)
    return path


def tighten(root: Path) -> None:
    """Drop group/other permissions from everything under ``root`` (Chroma's own files)."""
    root = Path(root)
    if not root.exists():
        return
    for p in [root, *root.rglob("*")]:
        try:
            st = p.lstat()
            if stat.S_ISLNK(st.st_mode):
                continue
            want = DIR_MODE if stat.S_ISDIR(st.st_mode) else FILE_MODE
            if stat.S_IMODE(st.st_mode) & 0o077:
                os.chmod(p, stat.S_IMODE(st.st_mode) & want)
        except OSError:  # gone meanwhile, or not ours: nothing to tighten
            continue
