"""What a benchmark measures of its own process, and running a phase in a fresh one.

Resident memory and open descriptors come from ``/proc`` (Linux); ``in_child`` runs a
module-level function in a spawned process (a cold start, or memory that must not leak into
the next phase) and hands back its result, or raises with the child's traceback.
"""

from __future__ import annotations

import multiprocessing
import os
import resource
from collections.abc import Callable
from pathlib import Path
from typing import Any


def rss_mb() -> tuple[float, float]:
    """(current, peak) resident set size in MB, from /proc (Linux) or getrusage."""
    cur = peak = 0.0
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                cur = int(line.split()[1]) / 1024
            elif line.startswith("VmHWM:"):
                peak = int(line.split()[1]) / 1024
    except OSError:
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return cur, peak


def open_fds() -> int:
    try:
        return len(os.listdir("/proc/self/fd"))
    except OSError:  # pragma: no cover - not Linux
        return -1


def dir_bytes(path: Path) -> int:
    """Bytes of every file under ``path`` (0 when it does not exist)."""
    path = Path(path)
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) if path.exists() else 0


def _child(conn, fn: Callable[..., Any], args: tuple, kwargs: dict) -> None:
    try:
        conn.send(("ok", fn(*args, **kwargs)))
    except BaseException as e:  # noqa: BLE001 - reported by the parent
        import traceback

        conn.send(("error", f"{type(e).__name__}: {e}\n{traceback.format_exc()}"))


def in_child(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``fn(*args, **kwargs)`` in a fresh (spawned) process; its result, or RuntimeError."""
    ctx = multiprocessing.get_context("spawn")
    recv, send = ctx.Pipe(duplex=False)
    p = ctx.Process(target=_child, args=(send, fn, args, kwargs))
    p.start()
    send.close()
    status, payload = recv.recv()
    p.join()
    if status != "ok":
        raise RuntimeError(payload)
    return payload
