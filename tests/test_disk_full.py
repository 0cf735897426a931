"""A full disk, for real: the data dir on a small tmpfs filled to the last byte.

An ingest on it says the disk is full (one line, not "cannot rollback - no transaction is
active" or a Chroma traceback), leaves no namespace behind and changes no other namespace;
``stats`` still reads every namespace (opening one to read writes nothing), and a namespace it
cannot read makes it fail (exit 2) instead of listing the others as if they were all.

Mounting needs root (or CAP_SYS_ADMIN); elsewhere the test is skipped with the reason.
"""

from __future__ import annotations

import errno
import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from memgraph_agents.cli.main import main
from memgraph_agents.config import Settings
from memgraph_agents.runtime import forget_store

pytestmark = pytest.mark.slow  # seconds per test: left out of the fast subset (-m "not slow")

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "conversation.json"


@pytest.fixture
def small_disk():
    """A 6 MiB tmpfs (unmounted afterwards)."""
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a tmpfs needs root")
    where = Path(tempfile.mkdtemp(prefix="mg-full-"))
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=6m,mode=0700", "tmpfs", str(where)], capture_output=True)
    if done.returncode != 0:
        where.rmdir()
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)
        where.rmdir()


def cli(data_dir: Path, *argv: str) -> int:
    return main(["--embeddings", "hash", "--data-dir", str(data_dir), *argv])


def files_of(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def fill(disk: Path) -> None:
    """Write until ENOSPC, unbuffered: a buffered file raises again on close with bytes left."""
    fd = os.open(disk / "filler", os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        for size in (65536, 4096, 1):
            try:
                while True:
                    os.write(fd, b"\0" * size)
            except OSError as e:
                if e.errno != errno.ENOSPC:
                    raise
    finally:
        os.close(fd)
    assert shutil.disk_usage(disk).free < 65536


def test_an_ingest_on_a_full_disk_says_so_and_leaves_nothing(small_disk, capsys):
    data = small_disk / "mem"
    for ns in ("first", "second"):
        assert cli(data, "ingest", str(EXAMPLE), "--namespace", ns) == 0
    forget_store(Settings(data_dir=data, embeddings="hash"), "first")
    forget_store(Settings(data_dir=data, embeddings="hash"), "second")
    fill(small_disk)
    before = {ns: files_of(data / "namespaces" / ns) for ns in ("first", "second")}
    capsys.readouterr()

    assert cli(data, "ingest", str(EXAMPLE), "--namespace", "third") == 2
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if "error" in line.lower()]
    assert len(lines) == 1 and "Traceback" not in err, err
    assert lines[0].startswith(f"error: the disk holding {data} is full"), err
    err = lines
    assert "nothing was stored (namespace 'third' was not created)" in err[0]
    assert sorted(p.name for p in (data / "namespaces").iterdir()) == ["first", "second"]  # no empty one
    assert {ns: files_of(data / "namespaces" / ns) for ns in before} == before

    # stats: a namespace whose WAL index must be re-created cannot be read on a full disk;
    # every one it cannot read is named and the exit is 2, never a partial listing with 0.
    code = cli(data, "stats")
    out = capsys.readouterr()
    unread = [ns for ns in ("first", "second") if f"cannot read namespace {ns!r}" in out.err]
    if unread:
        assert code == 2 and f"error: the disk holding {data} is full" in out.err, out.err
        assert f"{len(unread)} of 2 namespaces could not be read" in out.err
    else:
        assert code == 0
    assert all(ns in out.out for ns in ("first", "second") if ns not in unread)


def test_stats_fails_when_a_namespace_cannot_be_read(tmp_path, capsys):
    data = tmp_path / "mem"
    for ns in ("first", "second", "third"):
        assert cli(data, "ingest", str(EXAMPLE), "--namespace", ns) == 0
        forget_store(Settings(data_dir=data, embeddings="hash"), ns)
    for p in (data / "namespaces" / "second").glob("graph.sqlite*"):
        p.write_bytes(b"not a database" * 100)
    capsys.readouterr()
    assert cli(data, "stats") == 2  # not 0 with two of three listed
    out = capsys.readouterr()
    assert "first" in out.out and "third" in out.out
    assert out.err.strip().splitlines()[-1].startswith("error: 1 of 3 namespaces could not be read ('second')")
