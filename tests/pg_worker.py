"""A worker process of the many-workers test (tests/test_many_workers.py).

    python -m tests.pg_worker RUN_DIR NAME NS:CID:SESSIONS:TAG ... [--victim]

The servers come from the environment (MEMGRAPH_GRAPH_URL, MEMGRAPH_STORE_ID,
MEMGRAPH_CHROMA_HOST/PORT, hash embeddings); the worker's data dir is ``RUN_DIR/NAME``, empty
at start and its own. It ingests each conversation session by session, retrying while a
server restarts (ingest is idempotent per session), and between sessions reads the shared
namespace, counting snapshots in which a committed session is not whole. ``--victim``: in
its second commit, after the vectors are written, it touches ``RUN_DIR/victim-in-commit``
and waits to be SIGKILLed. Then it touches ``RUN_DIR/NAME.done``, waits for
``RUN_DIR/verify``, and prints one JSON line per namespace: its own view of the memory.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from memgraph_agents.config import Settings
from memgraph_agents.ingest import ingest_conversation
from memgraph_agents.registry import retrieve
from memgraph_agents.runtime import forget_store, get_store
from tests.workloads import conversation

QUESTION = "Where did they go for a weekend, and what did the course cost?"
TURNS = 4


def parse(spec: str) -> tuple[str, str, int, str]:
    ns, cid, n, tag = spec.split(":")
    return ns, cid, int(n), tag


def expected_turns(spec: str) -> dict[str, set[str]]:
    """session id -> its turn ids, for the conversation ``spec`` names."""
    _, cid, n, tag = parse(spec)
    return {s.id: {t.id for t in s.turns} for s in conversation(cid, n, tag=tag, turns=TURNS).sessions}


def torn_sessions(settings: Settings, ns: str, want: dict[str, set[str]]) -> int:
    """Committed sessions of a snapshot that are not whole (a reader must never see one)."""
    try:
        snap = get_store(settings, ns, create=False).snapshot()
    except Exception as e:  # not created yet, or a server restarting: not what is checked
        print(f"read skipped: {type(e).__name__}", file=sys.stderr, flush=True)
        return 0
    have: dict[str, set[str]] = {}
    for i in snap.indices_of("turn"):
        have.setdefault(snap.owner[i], set()).add(snap.attrs[i]["turn_id"])
    return sum(have.get(sid, set()) != want.get(sid) for sid in snap.sessions)


def ingest(settings: Settings, specs: list[str], victim: Path | None) -> int:
    reader_ns, torn = parse(specs[0])[0], 0
    reader_want = expected_turns(specs[0])
    commits = {"n": 0}
    for spec in specs:
        ns, cid, n, tag = parse(spec)
        conv = conversation(cid, n, tag=tag, turns=TURNS)
        deadline = time.monotonic() + 120
        for session in conv.sessions:
            while True:
                try:
                    if victim is not None:
                        store = get_store(settings, ns)

                        def hook(stage: str) -> None:
                            commits["n"] += 1
                            if commits["n"] == 2 and victim is not None:
                                victim.touch()
                                time.sleep(300)  # SIGKILLed here: vectors written, graph not committed

                        store.fault_hook = hook
                    ingest_conversation(conv.model_copy(update={"sessions": [session]}), settings, namespace=ns)
                    break
                except Exception as e:  # a server restarting: retry the (idempotent) session
                    if time.monotonic() > deadline:
                        raise
                    print(f"retry {ns}/{session.id}: {type(e).__name__}: {e}"[:300], file=sys.stderr, flush=True)
                    forget_store(settings, ns)  # reopen: recovery rolls back what the failure left
                    time.sleep(0.3)
            torn += torn_sessions(settings, reader_ns, reader_want)  # a reader during the writes
            time.sleep(0.1)  # spread the run over the server restarts
    return torn


def view(settings: Settings, ns: str) -> dict:
    store = get_store(settings, ns, create=False)
    snap = store.snapshot()
    return {
        "namespace": ns,
        "sessions": [s["id"] for s in store.db.sessions(None)],
        "statuses": sorted({s["status"] for s in store.db.sessions(None)}),
        "pending_writes": store.db.pending_writes(),
        "garbage": store.db.vector_garbage(),
        "turns": sorted(snap.attrs[i]["turn_id"] for i in snap.indices_of("turn")),
        "turn_owner": {snap.attrs[i]["turn_id"]: snap.owner[i] for i in snap.indices_of("turn")},
        "nodes": len(snap.ids),
        "node_ids_unique": len(set(snap.ids)) == len(snap.ids),
        "embedded": sorted(r[0] for r in store.db.raw_nodes() if r[6]),
        "vectors": sorted(store.vectors.all_ids()),
        "answer": [(e.node_id, round(e.score, 6)) for e in retrieve("ppr", QUESTION, store, k=8)],
    }


def main(argv: list[str]) -> None:
    run_dir, name, *rest = argv
    victim = Path(run_dir, "victim-in-commit") if "--victim" in rest else None
    specs = [a for a in rest if a != "--victim"]
    settings = Settings(data_dir=Path(run_dir, name))
    torn = ingest(settings, specs, victim)
    Path(run_dir, f"{name}.done").touch()
    deadline = time.monotonic() + 180
    while not Path(run_dir, "verify").exists():
        if time.monotonic() > deadline:
            raise SystemExit("no verify signal")
        time.sleep(0.1)
    namespaces = json.loads(Path(run_dir, "verify").read_text())
    print(json.dumps({"worker": name, "torn_reads": torn}), flush=True)
    for ns in namespaces:
        print(json.dumps({"worker": name, **view(settings, ns)}), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
