"""``memgraph bench scale --growth TURNS``: ingest cost per session against what is stored (it must not grow with it).

    memgraph bench scale --growth 20000 --out DIR

Synthetic two-person chat sessions (22 turns, sentences drawn from a common vocabulary plus
Zipf-popular invented names and places, so arguments recur and events are similar without
being identical) are ingested one by one through the real ingest graph (offline build,
``hash`` embeddings, embedded SQLite + Chroma) into one namespace until ``TURNS`` turns are
stored. Each session's wall time is recorded against the turns stored before it; the summary
compares the median per-session time around 1,000 stored turns with the one near the end.
Each session's CPU time (``time.process_time``: every thread of this process, Chroma's
included) is recorded too, with its own ratio: on a machine shared with other work, wall
time grows with the load, CPU time much less.

Writes ``DIR/growth.json`` and ``DIR/growth.png``.
"""

from __future__ import annotations

import json
import time
from datetime import datetime, timedelta
from pathlib import Path

import numpy as np

from memgraph_agents.bench.synthetic import _COMMON, _names

TURNS_PER_SESSION = 22
TARGET_RATIO = 1.5


def synthetic_session(rng: np.random.Generator, s: int, names: list[str], people: tuple[str, str]):
    from memgraph_agents.model import Session, Turn

    pop = 1.0 / np.arange(1, len(names) + 1) ** 1.1
    pop /= pop.sum()
    turns = []
    for t in range(1, TURNS_PER_SESSION + 1):
        words = list(rng.choice(_COMMON, size=int(rng.integers(6, 14))))
        for k in rng.choice(len(names), size=int(rng.integers(1, 3)), p=pop):
            words.insert(int(rng.integers(0, len(words))), names[int(k)])
        text = " ".join(words).capitalize() + "."
        turns.append(Turn(id=f"D{s}:{t}", speaker=people[t % 2], text=text))
    return Session(id=f"S{s}", date=datetime(2022, 1, 1, 10) + timedelta(days=s), turns=turns)


def run_growth(
    total_turns: int,
    out_dir: Path,
    *,
    data_dir: Path | None = None,
    seed: int = 0,
    progress=print,
    command: str | None = None,
) -> dict:
    from memgraph_agents.config import Settings
    from memgraph_agents.ingest import ingest_conversation
    from memgraph_agents.model import Conversation

    out_dir.mkdir(parents=True, exist_ok=True)
    settings = Settings(data_dir=data_dir or out_dir / "growth-data", embeddings="hash", namespace="growth")
    rng = np.random.default_rng(seed)
    names = _names(rng, 400)
    people = ("Ana", "Ben")
    rows: list[dict] = []
    stored, s = 0, 0
    while stored < total_turns:
        s += 1
        conv = Conversation(id="growth", speakers=list(people), sessions=[synthetic_session(rng, s, names, people)])
        t, c = time.perf_counter(), time.process_time()
        ingest_conversation(conv, settings)
        wall, cpu = time.perf_counter() - t, time.process_time() - c
        rows.append({"session": s, "stored_turns": stored, "seconds": round(wall, 4), "cpu_seconds": round(cpu, 4)})
        stored += TURNS_PER_SESSION
        if s % 50 == 0:
            progress(f"growth: {stored:,} turns stored, last session {rows[-1]['seconds']:.3f}s")
    summary = _summary(rows)
    doc = {
        "command": command or f"memgraph bench scale --growth {total_turns} --out {out_dir}",
        "embeddings": "hash",
        "turns_per_session": TURNS_PER_SESSION,
        "sessions": rows,
        "summary": summary,
    }
    (out_dir / "growth.json").write_text(json.dumps(doc, indent=2))
    _plot(rows, out_dir / "growth.png")
    return doc


def _window(rows: list[dict], around: int, width: int = 10, key: str = "seconds") -> float:
    near = sorted(rows, key=lambda r: (abs(r["stored_turns"] - around), r["session"]))[:width]
    return float(np.median([r[key] for r in near]))


def _summary(rows: list[dict]) -> dict:
    last = rows[-1]["stored_turns"]
    at_1k, at_end = _window(rows, 1000), _window(rows, last)
    cpu_1k, cpu_end = _window(rows, 1000, key="cpu_seconds"), _window(rows, last, key="cpu_seconds")
    return {
        "median_cpu_seconds_at_1000_turns": round(cpu_1k, 4),
        f"median_cpu_seconds_at_{last}_turns": round(cpu_end, 4),
        "cpu_ratio": round(cpu_end / cpu_1k, 3) if cpu_1k else None,
        "median_seconds_at_1000_turns": round(at_1k, 4),
        f"median_seconds_at_{last}_turns": round(at_end, 4),
        "ratio": round(at_end / at_1k, 3) if at_1k else None,
        "target_ratio": TARGET_RATIO,
        "target_met": bool(at_1k and at_end / at_1k <= TARGET_RATIO),
        "total_seconds": round(sum(r["seconds"] for r in rows), 1),
    }


def _plot(rows: list[dict], path: Path) -> None:
    from memgraph_agents.extras import require

    matplotlib = require("matplotlib", "bench", "a benchmark's plot")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    ax.plot([r["stored_turns"] for r in rows], [r["seconds"] for r in rows], ".", ms=2, alpha=0.5)
    ax.set_xlabel("turns stored before the session")
    ax.set_ylabel("seconds to ingest one 22-turn session")
    ax.set_title("Ingest cost per session vs memory size (hash embeddings)")
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
