"""``memgraph bench query``: the CPU of a default query against an ``InMemoryStore`` search.

What a user would otherwise write: a LangGraph ``InMemoryStore`` indexed with the same
embedding model (``index={"dims", "embed": the model, "fields": ["text"]}``), every turn's
``speaker: text`` put into it, and ``store.search(namespace, query=question, limit=k)``. The
memgraph side is ``Memory.search`` of the same question with the default retriever (or
``--retriever``) on the memory in the data dir (each conversation is ingested first when it is
not stored yet, as ``bench locomo`` does).

Both sides run in this one process, question by question, the order alternating (A B, then
B A), so a busy machine weighs on both alike. Each call is timed in CPU seconds of the whole
process (``time.process_time``: every thread, so the navigator's worker threads count) and
in wall seconds; each side embeds the question itself (memgraph's query vectors are
forgotten before each call, the store's embedder has no cache). Reported: the median CPU and
wall per query of each side and their ratios (goal: CPU at most 2x), and the turn recall@k
of each (how much the extra CPU buys). Beside them, the LangGraph floor: the CPU of one invoke
of the navigator's graph with nodes that do nothing (``bench.graph_floor``), the part of a
default query its runtime costs whatever the nodes do.
"""

from __future__ import annotations

import json
import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from memgraph_agents.bench.graph_floor import bare_graph_cpu_ms
from memgraph_agents.bench.metrics import turn_recall_at_k
from memgraph_agents.model.evidence import flatten_turns

GOAL_CPU = 2.0


def _plain_store(model: Any, dim: int, turns: list[tuple[str, str]], namespace: tuple[str, ...]):
    """An ``InMemoryStore`` indexed with ``model`` holding every turn (``(turn id, speaker: text)``)."""
    from langgraph.store.memory import InMemoryStore

    store = InMemoryStore(index={"dims": dim, "embed": model, "fields": ["text"]})
    for i in range(0, len(turns), 256):  # a user's script batches its puts
        from langgraph.store.base import PutOp

        store.batch([PutOp(namespace, tid, {"text": text}) for tid, text in turns[i : i + 256]])
    return store


def _timed(fn: Callable[[str], list[str]], text: str) -> tuple[list[str], float, float]:
    c0, t0 = time.process_time(), time.perf_counter()
    out = fn(text)
    return out, time.process_time() - c0, time.perf_counter() - t0


def run_query_bench(
    data: Path,
    settings: Any,
    out: Path,
    *,
    conversations: list[str] | None = None,
    retriever: str | None = None,
    k: int = 10,
    max_questions: int | None = None,
    command: str | None = None,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Every question of ``data`` (categories 1-4; ``max_questions`` per conversation) on both
    sides; writes and returns ``out/query.json``."""
    from memgraph_agents.api import Memory
    from memgraph_agents.bench.options import namespace_for, select_samples
    from memgraph_agents.loaders import iter_locomo_questions, load_locomo
    from memgraph_agents.runtime import get_embedding_model

    samples = select_samples(load_locomo(data), conversations, str(data))
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    memory = Memory(settings=settings)
    model = get_embedding_model(memory.settings)
    runs: dict[str, list[dict[str, float]]] = {"memgraph": [], "plain": []}
    n = 0
    for sample in samples:
        ns = namespace_for(sample.sample_id)
        memory.add(sample.conversation, namespace=ns)  # stored already: nothing is rebuilt
        turns = [(t.id, t.content) for s in sample.conversation.sessions for t in s.turns]
        plain = _plain_store(model.inner, model.dim, turns, ("bench", ns))
        questions = [q for _, q in iter_locomo_questions([sample])][:max_questions]
        memory.search(questions[0].question, namespace=ns, k=k, retriever=retriever)  # warm: model, snapshot
        plain.search(("bench", ns), query=questions[0].question, limit=k)

        def ours(question: str, ns: str = ns) -> list[str]:
            model.forget_queries()
            found = memory.search(question, namespace=ns, k=k, retriever=retriever)
            return flatten_turns(list(found), k)

        def theirs(question: str, plain: Any = plain, ns: str = ns) -> list[str]:
            return [item.key for item in plain.search(("bench", ns), query=question, limit=k)]

        for q in questions:
            order = (("memgraph", ours), ("plain", theirs))
            for side, fn in order if n % 2 == 0 else order[::-1]:
                got, cpu, wall = _timed(fn, q.question)
                runs[side].append({"cpu": cpu, "wall": wall, "recall": turn_recall_at_k(got, q.evidence, k)})
            n += 1
        if progress:
            progress(f"{sample.sample_id}: {len(questions)} questions")

    def med(side: str, key: str) -> float:
        return float(statistics.median(r[key] for r in runs[side]))

    def recall(side: str) -> float:
        vals = [r["recall"] for r in runs[side] if r["recall"] == r["recall"]]  # nan: no gold turn
        return round(sum(vals) / max(len(vals), 1), 4)

    floor_ms = bare_graph_cpu_ms()
    doc: dict[str, Any] = {
        "command": command,
        "data": str(data),
        "conversations": conversations,
        "retriever": retriever or memory.settings.default_retriever,
        "embeddings": memory.settings.embeddings,
        "k": k,
        "questions": n,
        **{f"{side}_{key}_ms": round(1000 * med(side, key), 2) for side in runs for key in ("cpu", "wall")},
        **{f"{side}_recall_at_k": recall(side) for side in runs},
        "cpu_ratio": round(med("memgraph", "cpu") / max(med("plain", "cpu"), 1e-9), 2),
        "wall_ratio": round(med("memgraph", "wall") / max(med("plain", "wall"), 1e-9), 2),
        "goal_cpu_ratio": GOAL_CPU,
        "bare_graph_cpu_ms": round(floor_ms, 2),
        "bare_graph_to_plain_cpu": round(floor_ms / max(1000 * med("plain", "cpu"), 1e-9), 2),
        "load_average_1m": round(os.getloadavg()[0], 2),
    }
    (out / "query.json").write_text(json.dumps(doc, indent=2) + "\n")
    return doc
