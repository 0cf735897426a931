"""A real, throwaway PostgreSQL cluster for tests (``initdb`` in a temporary directory).

PostgreSQL refuses to run as root: when the tests run as root the cluster is created and run
as the ``postgres`` user (``runuser``), in a directory and socket directory that user owns;
otherwise as the current user. It listens on a free port on 127.0.0.1 only (trust
authentication: nothing else can reach it). ``pg_bin()`` is ``None`` when the binaries are
absent (``.ci/run`` installs Debian's ``postgresql-15``); ``unusable()`` says why a cluster
cannot be started here, or ``None``.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from tests.chroma_server import free_port


def pg_bin() -> Path | None:
    for d in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True):
        if Path(d, "initdb").exists() and Path(d, "pg_ctl").exists():
            return Path(d)
    found = shutil.which("initdb")
    return Path(found).parent if found and shutil.which("pg_ctl") else None


def unusable() -> str | None:
    """Why no cluster can be started here (the skip reason), or ``None``."""
    if pg_bin() is None:
        return "PostgreSQL binaries (initdb, pg_ctl) are not installed: apt-get install postgresql-15"
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return "running as root and there is no `postgres` user to run PostgreSQL as"
        if shutil.which("runuser") is None:
            return "running as root and `runuser` is missing"
    return None


class PostgresServer:
    host = "127.0.0.1"

    def __init__(self) -> None:
        bin_dir = pg_bin()
        if bin_dir is None:
            raise RuntimeError("PostgreSQL binaries (initdb, pg_ctl) are not installed")
        self.bin = bin_dir
        self.as_root = os.geteuid() == 0
        # /tmp, not pytest's tmp_path: the postgres user must be able to reach the directory.
        self.root = Path(tempfile.mkdtemp(prefix="mg-pg-"))
        self.data = self.root / "data"
        self.sock = self.root / "sock"
        self.sock.mkdir()
        self.port = free_port()
        if self.as_root:  # the cluster's files belong to the user that runs it
            for p in (self.root, self.sock):
                shutil.chown(p, "postgres", "postgres")
        self._run(
            [
                str(self.bin / "initdb"),
                "-D",
                str(self.data),
                "-U",
                "postgres",
                "--auth=trust",
                "-E",
                "UTF8",
                "--no-sync",
            ]
        )

    def _run(self, argv: list[str], check: bool = True) -> subprocess.CompletedProcess:
        if self.as_root:
            argv = ["runuser", "-u", "postgres", "--", *argv]
        r = subprocess.run(argv, capture_output=True, text=True, timeout=120)
        if check and r.returncode != 0:
            raise RuntimeError(f"{' '.join(argv)} failed ({r.returncode}): {r.stderr[-2000:]} {self.log_tail()}")
        return r

    @property
    def url(self) -> str:
        return f"postgresql://postgres@{self.host}:{self.port}/postgres"

    def start(self) -> PostgresServer:
        # fsync off: the tests kill the server, never the machine, and a commit's WAL is still
        # written before it returns (synchronous_commit stays on: an immediate stop, as a
        # crash, must not lose a commit a client saw).
        opts = (
            f"-p {self.port} -k {self.sock} -c listen_addresses={self.host} -c fsync=off "
            "-c full_page_writes=off -c max_connections=100"
        )
        self._run(
            [str(self.bin / "pg_ctl"), "-D", str(self.data), "-l", str(self.root / "pg.log"), "-o", opts, "-w"]
            + ["-t", "60", "start"]
        )
        return self

    def stop(self, mode: str = "fast") -> None:
        self._run([str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "-t", "60", "stop"], check=False)

    def restart(self) -> None:
        """Stop hard (every connection dropped, as a crash would) and start on the same port."""
        self.stop("immediate")
        time.sleep(0.2)
        self.start()

    def log_tail(self, n: int = 2000) -> str:
        try:
            return (self.root / "pg.log").read_text(errors="replace")[-n:]
        except OSError:
            return ""

    def cleanup(self) -> None:
        self.stop("immediate")
        shutil.rmtree(self.root, ignore_errors=True)
