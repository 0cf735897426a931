"""A real ``chroma run`` server on 127.0.0.1 for tests (free port, temporary directory).

Started as a subprocess in its own session and stopped by its pid (SIGTERM, then SIGKILL).
``chroma_executable()`` is ``None`` when the ``chroma`` CLI (shipped with chromadb) is missing.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path


def chroma_executable() -> str | None:
    here = Path(sys.executable).parent / "chroma"
    return str(here) if here.exists() else shutil.which("chroma")


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ChromaServer:
    """``chroma run --path PATH --host 127.0.0.1 --port PORT``; ``restart`` keeps path and port."""

    host = "127.0.0.1"

    def __init__(self, path: Path, port: int | None = None) -> None:
        exe = chroma_executable()
        if exe is None:
            raise RuntimeError("the `chroma` executable is not installed")
        self.exe = exe
        self.path = Path(path)
        self.port = port or free_port()
        self.proc: subprocess.Popen | None = None
        self.log_path = self.path.with_name(self.path.name + ".log")
        self.starts = 0

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def heartbeat(self) -> bool:
        try:
            with urllib.request.urlopen(f"{self.url}/api/v2/heartbeat", timeout=1) as r:
                return "nanosecond heartbeat" in json.loads(r.read().decode())
        except (urllib.error.URLError, ConnectionError, TimeoutError, OSError, ValueError):
            return False

    def start(self, timeout: float = 60) -> ChromaServer:
        assert self.proc is None, "already running"
        self.path.mkdir(parents=True, exist_ok=True)
        log = self.log_path.open("a")
        env = {**os.environ, "ANONYMIZED_TELEMETRY": "False", "NO_COLOR": "1"}
        self.proc = subprocess.Popen(
            [self.exe, "run", "--path", str(self.path), "--host", self.host, "--port", str(self.port)],
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env=env,
            start_new_session=True,
        )
        log.close()
        self.starts += 1
        deadline = time.monotonic() + timeout
        while not self.heartbeat():
            if self.proc.poll() is not None:
                raise RuntimeError(f"chroma run exited with {self.proc.returncode}: {self.log_tail()}")
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"chroma run did not answer in {timeout:g} s: {self.log_tail()}")
            time.sleep(0.1)
        return self

    def stop(self, timeout: float = 20) -> None:
        proc, self.proc = self.proc, None
        if proc is None or proc.poll() is not None:
            return
        proc.send_signal(signal.SIGTERM)  # by pid: only the server this object started
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)

    def restart(self) -> ChromaServer:
        self.stop()
        deadline = time.monotonic() + 10
        while self.heartbeat() and time.monotonic() < deadline:  # the old one is really gone
            time.sleep(0.05)
        return self.start()

    def log_tail(self, n: int = 2000) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-n:]
        except OSError:
            return ""
