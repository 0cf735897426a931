"""``memgraph bench ingest``: a bulk ingest against a plain Chroma collection of the same turns.

What a user would otherwise write: one persistent Chroma collection, every turn's text
(``speaker: text``, as memgraph embeds a turn) embedded with the same model (``--embeddings``,
default MiniLM) and added in batches of ``CHROMA_BATCH`` turns, ids and documents only: nothing
else. The memgraph side is ``Memory.add`` of each conversation into a fresh data dir: every
text the graph embeds (events, sentences, topics, arguments) is part of its cost.

Each side runs in a fresh (spawned) process, so each pays its own imports and model load and
neither inherits the other's memory; the sides alternate ``repeat`` times (A B A B ...), so a
busy machine weighs on both alike. Per run: CPU seconds (user + system, every thread, from
``getrusage``), wall seconds, peak RSS (``VmHWM``) and the bytes the data dir holds after.
Reported: the medians and their ratios (goals: CPU and disk at most 3x the plain side).
"""

from __future__ import annotations

import hashlib
import json
import os
import resource
import shutil
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from memgraph_agents.bench.process import dir_bytes, in_child, rss_mb
from memgraph_agents.config_process import process_settings
from memgraph_agents.console import progress_bar

SIDES = ("memgraph", "chroma")
GOAL_CPU = 3.0
GOAL_DISK = 3.0
CHROMA_BATCH = 256  # turns per add on the plain side (a user's script batches; Chroma's limit is larger)


def _cpu_seconds() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _load(data: Path, conversations: list[str] | None) -> list[Any]:
    from memgraph_agents.bench.options import select_by_id
    from memgraph_agents.loaders import load_conversations

    return select_by_id(load_conversations(data), conversations, lambda c: c.id, str(data))


def memgraph_side(
    data: Path, conversations: list[str] | None, data_dir: Path, embeddings: str, show: bool
) -> dict[str, Any]:
    """Every conversation through ``Memory.add`` into ``data_dir`` (one namespace each, as
    ``memgraph ingest`` names them); run in a fresh process."""
    t0 = time.perf_counter()
    from memgraph_agents.api import Memory
    from memgraph_agents.bench.options import namespace_for

    convs = _load(data, conversations)
    memory = Memory(data_dir=data_dir, embeddings=embeddings)
    turns = sum(len(s.turns) for c in convs for s in c.sessions)
    with progress_bar("turns") as p:
        task = p.add_task("memgraph", total=turns, visible=show)
        for conv in convs:
            sizes = {s.id: len(s.turns) for s in conv.sessions}

            def advance(session_id: str, done: int, total: int, sizes=sizes) -> None:
                p.advance(task, sizes.get(session_id, 0))

            memory.add(conv, namespace=namespace_for(conv.id), progress=advance)
    return _measured(t0, turns)


def collection_for(conversation_id: str) -> str:
    """A Chroma collection name for any conversation id (Chroma takes 3-512 characters of
    ``[a-zA-Z0-9._-]``; an id such as "ab" or "é" is not one): a hash of the id."""
    return "conv-" + hashlib.sha256(conversation_id.encode("utf-8")).hexdigest()[:24]


def chroma_side(
    data: Path, conversations: list[str] | None, data_dir: Path, embeddings: str, show: bool
) -> dict[str, Any]:
    """The same turns embedded with the same model and added to ONE persistent Chroma
    collection, ``CHROMA_BATCH`` at a time: a user's plain script; run in a fresh process."""
    t0 = time.perf_counter()
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    from memgraph_agents.embeddings import make_embedding_model

    convs = _load(data, conversations)
    model = make_embedding_model(embeddings).inner  # the bare model: a plain script has no wrapper
    client = chromadb.PersistentClient(
        path=str(data_dir / "chroma"), settings=ChromaSettings(anonymized_telemetry=False)
    )
    collection = client.get_or_create_collection("turns", metadata={"hnsw:space": "cosine"})
    turns = [(f"{c.id}/{t.id}", t.content) for c in convs for s in c.sessions for t in s.turns]
    with progress_bar("turns") as p:
        task = p.add_task("plain Chroma", total=len(turns), visible=show)
        for i in range(0, len(turns), CHROMA_BATCH):
            ids, texts = zip(*turns[i : i + CHROMA_BATCH])
            vectors = np.asarray(model.embed_documents(list(texts)), dtype=np.float32)
            collection.add(ids=list(ids), embeddings=vectors, documents=list(texts))
            p.advance(task, len(texts))
    return _measured(t0, len(turns))


def _measured(t0: float, turns: int) -> dict[str, Any]:
    # The child's CPU from its start (imports, model load, every thread): what a user's process pays.
    return {
        "turns": turns,
        "cpu_seconds": _cpu_seconds(),
        "wall_seconds": time.perf_counter() - t0,
        "peak_rss_mb": rss_mb()[1],
    }


_RUNNERS: dict[str, Callable[..., dict[str, Any]]] = {"memgraph": memgraph_side, "chroma": chroma_side}


def run_ingest_bench(
    data: Path,
    out: Path,
    *,
    conversations: list[str] | None = None,
    embeddings: str = "minilm",
    repeat: int = 1,
    command: str | None = None,
    show_progress: bool = True,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Both sides ``repeat`` times, alternating, each into a fresh dir under ``out``; writes and
    returns ``out/ingest.json``."""
    _load(Path(data), conversations)  # a bad file or id: one clear error before any run
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    runs: dict[str, list[dict[str, Any]]] = {s: [] for s in SIDES}
    for i in range(repeat):
        order = SIDES if i % 2 == 0 else SIDES[::-1]
        for side in order:
            data_dir = out / f"{side}-{i + 1}"
            shutil.rmtree(data_dir, ignore_errors=True)
            data_dir.mkdir(parents=True)
            result = in_child(_RUNNERS[side], Path(data), conversations, data_dir, embeddings, show_progress)
            result["disk_bytes"] = dir_bytes(data_dir)
            runs[side].append(result)
            if progress:
                progress(
                    f"run {i + 1}/{repeat} {side}: {result['cpu_seconds']:.1f} CPU-s, "
                    f"{result['wall_seconds']:.1f} s, {result['peak_rss_mb']:.0f} MB peak, "
                    f"{result['disk_bytes'] / 1e6:.1f} MB on disk"
                )

    def med(side: str, key: str) -> float:
        return float(statistics.median(r[key] for r in runs[side]))

    doc: dict[str, Any] = {
        "command": command,
        "data": str(data),
        "conversations": conversations,
        "turns": runs["memgraph"][0]["turns"],
        "repeat": repeat,
        "embeddings": embeddings,
        "model_cache": process_settings().model_cache,
        **{
            f"{side}_{key}": round(med(side, key), 3)
            for side in SIDES
            for key in ("cpu_seconds", "wall_seconds", "peak_rss_mb", "disk_bytes")
        },
        "runs": runs,
        "goal_cpu_ratio": GOAL_CPU,
        "goal_disk_ratio": GOAL_DISK,
        "load_average_1m": round(os.getloadavg()[0], 2),
    }
    for name, key in (("cpu", "cpu_seconds"), ("wall", "wall_seconds"), ("rss", "peak_rss_mb"), ("disk", "disk_bytes")):
        doc[f"{name}_ratio"] = round(med("memgraph", key) / max(med("chroma", key), 1e-9), 2)
    (out / "ingest.json").write_text(json.dumps(doc, indent=2) + "\n")
    return doc
