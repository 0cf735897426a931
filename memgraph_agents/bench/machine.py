"""What machine a benchmark ran on, and how busy it was."""

from __future__ import annotations

import os
import platform
from pathlib import Path
from typing import Any


def machine_info() -> dict[str, Any]:
    cpu = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        cpu = platform.processor()
    ram_gb = None
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                ram_gb = round(int(line.split()[1]) / 1024**2, 1)
                break
    except OSError:
        pass
    try:
        nproc = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        nproc = os.cpu_count() or 0
    return {
        "nproc": nproc,
        "ram_gb": ram_gb,
        "cpu": cpu or "unknown",
        "python": platform.python_version(),
        "platform": platform.platform(),
        "loadavg": loadavg(),
    }


def loadavg() -> list[float] | None:
    """1/5/15-minute load averages: timings on a shared machine are only comparable at similar load."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (AttributeError, OSError):
        return None
