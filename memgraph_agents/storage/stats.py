"""Namespace statistics read from the SQLite graph alone.

``memgraph stats`` needs no embeddings and no vector store: counting from the graph file
keeps it free of Chroma, torch and the embedding model (it starts in well under a second).
Vectors are counted as the committed embedded nodes, which is what the commit protocol puts
in Chroma (``storage.memory``).
"""

from __future__ import annotations

from pathlib import Path

from memgraph_agents.errors import NamespaceNotFoundError
from memgraph_agents.storage.graph_db import GraphDB
from memgraph_agents.storage.namespaces import list_namespaces, namespace_dir


def missing_namespace(data_dir: Path, namespace: str) -> NamespaceNotFoundError:
    """The error for a namespace that does not exist, naming the ones that do."""
    names = list_namespaces(Path(data_dir))
    have = f"existing: {', '.join(names)}" if names else "no namespace yet: run `memgraph ingest FILE` first"
    return NamespaceNotFoundError(f"namespace {namespace!r} does not exist in {data_dir} ({have})")


def namespace_stats(data_dir: Path, namespace: str) -> dict:
    """Sessions, presets, nodes and edges by kind, vectors and bytes on disk of one namespace."""
    d = namespace_dir(Path(data_dir), namespace)
    if not (d / "graph.sqlite").exists():
        raise missing_namespace(data_dir, namespace)
    db = GraphDB(d / "graph.sqlite")
    try:
        nodes, edges = db.counts()
        sessions = db.sessions("committed")
        vectors = int(db.reader.execute("SELECT COUNT(*) FROM nodes WHERE embed=1").fetchone()[0])
    finally:
        db.close()
    presets = sorted({(s.get("info") or {}).get("preset") or "default" for s in sessions})
    size = sum(p.stat().st_size for p in d.rglob("*") if p.is_file())
    return {
        "namespace": namespace,
        "sessions": len(sessions),
        "presets": presets,
        "nodes": nodes,
        "edges": edges,
        "vectors": vectors,
        "graph_bytes": size,
    }
