"""Where a chat write's time goes: the ingest pipeline's steps, timed around each write.

    python docs/bench-light/chat_write_steps.py [--turns 100] [--from 40] [--embeddings minilm]

Writes the invented thread of ``memgraph bench chat`` one turn per write into a fresh data dir
(each write the whole transcript so far, as a chat writer passes it), then reports for the
writes from turn ``--from`` on: process CPU and wall milliseconds per write (median, mean),
the embedding model's part (its calls below the cache: CPU and wall), and each pipeline
step's wall milliseconds per write. Run it with ``PYTHONPATH`` pointing at another checkout
to compare two versions on one machine (interleave the runs: the load moves wall times).
"""

from __future__ import annotations

import argparse
import inspect
import shutil
import statistics
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from memgraph_agents.bench.chat import synthetic_thread
from memgraph_agents.config import Settings
from memgraph_agents.construct.pipeline import sequence
from memgraph_agents.ingest import ingest_conversation
from memgraph_agents.runtime import get_store

SPENT: dict[str, list[float]] = defaultdict(list)


def timed(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` with its wall time per call added to ``SPENT[name]`` (same signature arity)."""
    if inspect.iscoroutinefunction(fn):

        async def run_async(state, runtime):
            t = time.perf_counter()
            out = await fn(state, runtime)
            SPENT[name].append(time.perf_counter() - t)
            return out

        return run_async
    if len(inspect.signature(fn).parameters) > 1:

        def run2(state, runtime):
            t = time.perf_counter()
            out = fn(state, runtime)
            SPENT[name].append(time.perf_counter() - t)
            return out

        return run2

    def run1(state):
        t = time.perf_counter()
        out = fn(state)
        SPENT[name].append(time.perf_counter() - t)
        return out

    return run1


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--turns", type=int, default=100)
    ap.add_argument("--from", dest="first", type=int, default=40, help="first write counted (default 40)")
    ap.add_argument("--embeddings", default="minilm")
    args = ap.parse_args()
    for name, fn in list(sequence.NODES.items()):
        sequence.NODES[name] = timed(name, fn)
    root = Path(tempfile.mkdtemp(prefix="chat-steps-"))
    try:
        s = Settings.load().override(embeddings=args.embeddings, data_dir=root / "mem", namespace="bench")
        ingest_conversation(synthetic_thread(4, "warm"), s.override(data_dir=root / "warm"))  # imports, model load
        full = synthetic_thread(args.turns)
        session = full.sessions[0]
        model = get_store(s).embedder
        real = model._compute  # below the cache: what the model computes

        def compute(texts: list[str]):
            c, t = time.process_time(), time.perf_counter()
            out = real(texts)
            SPENT["model (wall)"].append(time.perf_counter() - t)
            SPENT["model (CPU)"].append(time.process_time() - c)
            return out

        model._compute = compute  # type: ignore[method-assign]
        wall: list[float] = []
        cpu: list[float] = []
        for n in range(1, args.turns + 1):
            if n == args.first:
                SPENT.clear()
            part = full.model_copy(update={"sessions": [session.model_copy(update={"turns": session.turns[:n]})]})
            c, t = time.process_time(), time.perf_counter()
            ingest_conversation(part, s)
            if n >= args.first:
                wall.append(time.perf_counter() - t)
                cpu.append(time.process_time() - c)
        writes = len(wall)
        ms = 1000
        print(f"{writes} writes (turns {args.first}-{args.turns}), ms per write:")
        print(f"  CPU   median {ms * statistics.median(cpu):6.1f}  mean {ms * statistics.mean(cpu):6.1f}")
        print(f"  wall  median {ms * statistics.median(wall):6.1f}  mean {ms * statistics.mean(wall):6.1f}")
        for name, spent in SPENT.items():
            print(f"  {name:14s} {ms * sum(spent) / writes:6.2f}  ({len(spent) / writes:.2f} calls)")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
