"""Namespace statistics read from the graph store alone (SQLite file or PostgreSQL).

``memgraph stats`` needs no embeddings and no vector store: counting from the graph rows
keeps it free of Chroma, torch and the embedding model (it starts in well under a second).
Vectors are counted as the committed embedded nodes, which is what the commit protocol puts
in Chroma (``storage.commit``).
"""

from __future__ import annotations

from pathlib import Path

from memgraph_agents.errors import NamespaceNotFoundError
from memgraph_agents.model.notes import is_note_id
from memgraph_agents.presets import get_preset
from memgraph_agents.storage.graph_store import graph_exists, is_server_url, open_graph_store, stored_namespaces


def missing_namespace(
    data_dir: Path, namespace: str, graph_url: str | None = None, store_id: str = "default"
) -> NamespaceNotFoundError:
    """The error for a namespace that does not exist, naming the ones that do."""
    names = stored_namespaces(Path(data_dir), graph_url, store_id)
    have = f"existing: {', '.join(names)}" if names else "no namespace yet: run `memgraph ingest FILE` first"
    where = f"store {store_id!r} of the graph database" if is_server_url(graph_url) else str(data_dir)
    return NamespaceNotFoundError(f"namespace {namespace!r} does not exist in {where} ({have})")


def namespace_stats(data_dir: Path, namespace: str, graph_url: str | None = None, store_id: str = "default") -> dict:
    """Sessions (and how many are notes), turns, presets, nodes and edges by kind, vectors, bytes on
    disk, the embedding model the vectors were made with and when the last session was stored."""
    if not graph_exists(Path(data_dir), namespace, graph_url, store_id):
        raise missing_namespace(data_dir, namespace, graph_url, store_id)
    db = open_graph_store(Path(data_dir), namespace, graph_url, store_id)
    try:
        nodes, edges = db.counts()
        sessions = db.sessions("committed")
        vectors = db.embedded_count()
        model = db.get_meta("embedding_model")
        user_id = db.get_meta("user_id")  # the user id the namespace was made for (api.owners)
    finally:
        db.close()
    size = db.stored_bytes()  # closed: SQLite's WAL is folded back into the file first
    presets = sorted({get_preset((s.get("info") or {}).get("preset")).name for s in sessions})
    notes = sum(1 for s in sessions if is_note_id(s["id"]))
    return {
        "namespace": namespace,
        "sessions": len(sessions),
        "notes": notes,  # of the sessions: a note is a one-turn session of its own
        "turns": sum(int(s.get("n_turns") or 0) for s in sessions),
        "embedding_model": model or "",
        "user_id": user_id or "",
        "last_write": max((str(s.get("ingested_at") or "") for s in sessions), default=""),
        "presets": presets,
        "nodes": nodes,
        "edges": edges,
        "vectors": vectors,
        "graph_bytes": size,
    }
