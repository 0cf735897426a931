"""Filtered search cost: every retriever, unfiltered vs filtered, on N notes of which 2 % match.

    python docs/bench-verbs/filtered_search.py --notes 1000 [--embeddings hash] [--data-dir DIR]

A filtered search runs on the filtered part of the namespace (``retrieval.scope``): built once per
snapshot and filter ("cold": the first query after a write or with a new filter), reused after
("warm"). Prints, per retriever, the median latency over ``--repeat`` queries of: unfiltered,
filtered cold (the view and the retriever's per-snapshot structures rebuilt each time),
filtered warm; and the time to build a view alone. Each filtered query must return k items
of matching notes (checked).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from datetime import datetime, timedelta

RETRIEVERS = ["dense", "bm25", "hybrid", "ppr", "sentence_hop", "dwpr", "fusion", "navigator"]
QUERY = "coffee with the team at the office"


def notes(n: int):
    from memgraph_agents.model import Conversation, Session, Turn

    names = ["Orla", "Tamsin", "Ivo", "Petra"]
    sessions = []
    for i in range(n):
        who = names[i % 4]
        when = datetime(2025, 1, 1) + timedelta(hours=i)
        match = i % 50 == 7
        text = (
            f"{who} brewed coffee at home on day {i} before gardening."
            if match
            else f"{who} had coffee with the team at the office on day {i} and talked about the roadmap."
        )
        meta = {"project": "atlas" if match else f"other-{i % 7}"}
        sid = f"note-{i:05d}"
        sessions.append(Session(id=sid, date=when, metadata=meta, turns=[Turn(id=f"{sid}:1", speaker=who, text=text)]))
    return Conversation(id="notes", sessions=sessions)


def median_ms(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--notes", type=int, default=1000)
    p.add_argument("--embeddings", default="minilm")
    p.add_argument("--data-dir", default=None)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("-k", type=int, default=10)
    args = p.parse_args()

    from memgraph_agents import Memory
    from memgraph_agents.model.filters import MemoryFilter
    from memgraph_agents.retrieval.scope import _build_view
    from memgraph_agents.runtime import get_store

    data_dir = args.data_dir or tempfile.mkdtemp(prefix="memgraph-filtered-")
    mem = Memory(data_dir, embeddings=args.embeddings, namespace="filtered")
    t0 = time.perf_counter()
    mem.add(notes(args.notes))
    print(f"{args.notes} notes added in {time.perf_counter() - t0:.1f} s ({data_dir})")
    store = get_store(mem.settings, "filtered", create=False)
    flt = {"project": "atlas"}
    snap = store.snapshot()
    view_ms = median_ms(lambda: _build_view(snap, MemoryFilter(metadata=flt)), args.repeat)
    print(f"nodes {len(snap)}, edges {len(snap.src)}; building a view alone: {view_ms:.1f} ms")
    print(f"{'retriever':<13} {'unfiltered':>11} {'filtered cold':>14} {'filtered warm':>14}  (median ms, k={args.k})")

    def cold(name: str):
        # As after a write: the view, the tables it is built from and the view's retriever
        # structures are built again (the unfiltered snapshot's own reload is not counted).
        for key in ("scope_views", "provenance_matrix", "turn_table"):
            store.snapshot()._derived.pop(key, None)
        got = mem.search(QUERY, k=args.k, retriever=name, filter=flt)
        assert len(got) == args.k and all(ev.metadata["project"] == "atlas" for ev in got)

    for name in RETRIEVERS:
        mem.search(QUERY, k=args.k, retriever=name)  # warm the unfiltered snapshot's structures
        plain = median_ms(lambda n=name: mem.search(QUERY, k=args.k, retriever=n), args.repeat)
        cold_ms = median_ms(lambda n=name: cold(n), args.repeat)
        warm = median_ms(lambda n=name: mem.search(QUERY, k=args.k, retriever=n, filter=flt), args.repeat)
        print(f"{name:<13} {plain:>11.1f} {cold_ms:>14.1f} {warm:>14.1f}")


if __name__ == "__main__":
    main()
