"""The benchmark's ingest phase: build (or reuse) one namespace per LoCoMo conversation."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from rich.progress import TaskID

from memgraph_agents.bench.options import namespace_for
from memgraph_agents.config import Settings
from memgraph_agents.loaders import LocomoSample


def check_builder(samples: Sequence[LocomoSample], settings: Settings, builder: str) -> None:
    """Refuse to score memory built by the other builder (ingest would reuse it unchanged).

    Sessions record ``builder="llm"`` only when their events came from the LLM; an LLM ingest
    whose extraction fell back for some sessions records those as ``offline``. So: the offline
    builder rejects any LLM-built session, the LLM builder rejects a namespace with sessions
    of which none was LLM-built.
    """
    from memgraph_agents.runtime import get_store

    for sample in samples:
        ns = namespace_for(sample.sample_id, settings.preset)
        existing = [s.get("builder") or "offline" for s in get_store(settings, ns).sessions()]
        if not existing:
            continue
        wrong = ("llm" in existing) if builder == "offline" else ("llm" not in existing)
        if wrong:
            found = "llm" if builder == "offline" else "offline"
            raise ValueError(
                f"namespace {ns!r} in {settings.data_dir} was built with the {found} builder, not "
                f"{builder!r}: use another --data-dir or `memgraph forget --namespace {ns}`"
            )


def ingest_samples(samples: Sequence[LocomoSample], settings: Settings, progress) -> dict[str, Any]:
    from memgraph_agents.ingest import ingest_conversation
    from memgraph_agents.runtime import get_store

    per: dict[str, Any] = {}
    nodes: dict[str, int] = {}
    edges: dict[str, int] = {}
    total_seconds, new_turns, turns, graph_bytes, vectors = 0.0, 0, 0, 0, 0
    llm_usage: dict[str, float] = {}
    warm_model_seconds = None
    for sample in samples:
        conv, ns = sample.conversation, namespace_for(sample.sample_id, settings.preset)
        store = get_store(settings, ns)
        emb = store.embedder
        if warm_model_seconds is None:  # load the embedding model outside the timed ingest
            t0 = time.perf_counter()
            emb.inner.embed_documents(["warm up"])
            warm_model_seconds = round(time.perf_counter() - t0, 3)
        hits0, misses0 = emb.hits, emb.misses
        task = progress.add_task(f"ingest {conv.id}", total=len(conv.sessions))

        def advance(sid: str, done: int, total: int, t: TaskID = task) -> None:
            progress.update(t, completed=done)

        report = ingest_conversation(conv, settings, namespace=ns, progress=advance)
        hits, misses = emb.hits - hits0, emb.misses - misses0
        state = "reused" if report.sessions_new == 0 else ("warm" if misses == 0 else "cold")
        progress.update(task, description=f"ingest {conv.id} {state} {report.seconds:.1f}s")
        stats = store.stats()
        builders: dict[str, int] = {}
        for rec in store.sessions():
            b = rec.get("builder") or "offline"
            builders[b] = builders.get(b, 0) + 1
        n_turns = sum(len(s.turns) for s in conv.sessions)
        per[conv.id] = {
            "namespace": ns,
            "state": state,
            "seconds": round(report.seconds, 3),
            "sessions": len(conv.sessions),
            "sessions_new": report.sessions_new,
            "sessions_unchanged": report.sessions_unchanged,
            "sessions_replaced": report.sessions_replaced,
            "turns": n_turns,
            "turns_new": report.turns,
            "embedding_cache": {"hits": hits, "misses": misses},
            "builders": builders,
            "nodes": sum(stats["nodes"].values()),
            "edges": sum(stats["edges"].values()),
            "notes": len(report.notes),
            "llm_usage": dict(report.llm_usage),
        }
        total_seconds += report.seconds
        new_turns += report.turns
        turns += n_turns
        graph_bytes += stats["graph_bytes"]
        vectors += stats["vectors"]
        for kind, n in stats["nodes"].items():
            nodes[kind] = nodes.get(kind, 0) + n
        for kind, n in stats["edges"].items():
            edges[kind] = edges.get(kind, 0) + n
        for k, v in report.llm_usage.items():
            llm_usage[k] = llm_usage.get(k, 0) + v
    history = update_ingest_history(Path(settings.data_dir), per)
    for p in per.values():
        p["history"] = history.get(p["namespace"], {})
    states = {p["state"] for p in per.values()}
    return {
        "seconds": round(total_seconds, 3),
        "state": states.pop() if len(states) == 1 else "mixed",
        "embedding_model_load_seconds": warm_model_seconds,
        "turns": turns,
        "turns_new": new_turns,
        "nodes": dict(sorted(nodes.items())),
        "edges": dict(sorted(edges.items())),
        "vectors": vectors,
        "graph_bytes": graph_bytes,
        "llm_usage": llm_usage,
        "llm_per_session": _per_session(llm_usage, per),
        "preset": settings.preset,
        "per_conversation": per,
    }


def _per_session(usage: dict[str, float], per: dict[str, Any]) -> dict[str, float]:
    """LLM calls and tokens per newly built session (what one more session of chat costs)."""
    built = sum(p["sessions_new"] for p in per.values())
    if not built:
        return {}
    keys = ("calls", "input_tokens", "output_tokens", "failures", "retries")
    return {k: round(usage.get(k, 0) / built, 2) for k in keys if k in usage or k == "calls"}


INGEST_HISTORY = Path("bench") / "ingest_times.json"


def update_ingest_history(data_dir: Path, per: dict[str, Any]) -> dict[str, Any]:
    """Remember the last cold and the last warm ingest time of each namespace in the data dir.

    A run that reuses memory ingests nothing, so its own timing says nothing about the cost of
    building that memory: the history (``DATA_DIR/bench/ingest_times.json``, which survives
    deleting ``namespaces/`` and ``chroma/``) keeps the figures of the runs that built it.
    """
    path = data_dir / INGEST_HISTORY
    try:
        history = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    except (OSError, ValueError):
        history = {}
    now = datetime.now().astimezone().isoformat(timespec="seconds")
    changed = False
    for p in per.values():
        if p["state"] in ("cold", "warm") and p["sessions_new"] == p["sessions"]:  # a full build only
            history.setdefault(p["namespace"], {})[p["state"]] = {
                "seconds": p["seconds"],
                "date": now,
                "sessions": p["sessions"],
                "turns": p["turns"],
                "embedding_misses": p["embedding_cache"]["misses"],
            }
            changed = True
    if changed:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(history, indent=2) + "\n", encoding="utf-8")
        except OSError:
            pass  # a read-only data dir: the history is a convenience
    return history
