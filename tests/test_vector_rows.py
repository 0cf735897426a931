"""Vectors beside the graph rows (``storage.vector_rows``).

* the vectors a snapshot reads from the graph rows are the ones written (and Chroma's);
* a namespace from before the table (no ``node_vectors``, schema 2) still loads: its vectors
  are copied from Chroma once;
* exact dense search (``storage.exact_search``) agrees with Chroma's and orders ties by id;
* a read-only query never opens the namespace's Chroma collection, so a process reading many
  embedded namespaces holds no Chroma index: its memory is bounded by the store cache.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from memgraph_agents.bench.process import in_child
from memgraph_agents.ingest import ingest_conversation
from memgraph_agents.model.graph import Node, NodeKind
from memgraph_agents.registry import retrieve
from memgraph_agents.runtime import cached_stores, get_store
from memgraph_agents.storage import MemoryStore, SessionRecord, SessionWrite
from memgraph_agents.storage.sqlite_schema import SCHEMA_VERSION
from memgraph_agents.storage.vector_rows import matching
from tests.conftest import make_conversation
from tests.workloads import conversation


def _embedded(store) -> dict[str, str]:
    return {r[0]: r[2] for r in store.db.raw_nodes() if r[6]}


def test_vectors_read_from_rows_are_the_ones_written(settings):
    ingest_conversation(make_conversation(), settings)
    store = get_store(settings)
    text = _embedded(store)
    rows = matching(store.db.node_vectors(list(text)), text)
    chroma = store.vectors.get_vectors(list(text), list(text.values()))
    assert set(rows) == set(text) == set(chroma)
    for i, t in text.items():
        assert rows[i].dtype == np.float32
        np.testing.assert_array_equal(rows[i], store.embedder.embed([t])[0])  # as written, bit for bit
        np.testing.assert_allclose(rows[i], chroma[i], atol=1e-6)  # Chroma renormalises (last bits)
    # A fresh store's snapshot: its matrix is these rows.
    fresh = MemoryStore.open(settings)
    snap = fresh.snapshot()
    mat = snap.vectors()
    for i in text:
        np.testing.assert_array_equal(mat[snap.index[i]], rows[i])
    # A vector stored for another text is never used for this one.
    some = next(iter(text))
    assert matching(store.db.node_vectors([some]), {some: text[some] + " (edited)"}) == {}


@pytest.mark.slow
def test_a_store_from_before_the_vector_rows_still_loads(settings):
    ingest_conversation(make_conversation(), settings)
    store = get_store(settings)
    before = store.snapshot().vectors().copy()
    ids = list(store.snapshot().ids)
    path = store.db.path
    store.close()
    con = sqlite3.connect(path)  # the schema 2 file: no table, no mark
    con.executescript(
        "DROP TABLE node_vectors; DELETE FROM meta WHERE key='vectors'; UPDATE meta SET value='2' WHERE key='schema';"
    )
    con.close()
    old = MemoryStore.open(settings)  # migrates: the table again, the vectors copied from Chroma
    assert old.db.get_meta("vectors") == "rows" and old.db.get_meta("schema") == SCHEMA_VERSION
    snap = old.snapshot()
    assert snap.ids.tolist() == ids
    np.testing.assert_allclose(snap.vectors(), before, atol=1e-6)  # Chroma's copies (renormalised)
    text = _embedded(old)
    assert set(matching(old.db.node_vectors(list(text)), text)) == set(text)
    # and it takes new sessions as before
    ingest_conversation(make_conversation(n_sessions=3).model_copy(update={"id": "other"}), settings, namespace="x")


def _write(store, nodes: list[tuple[str, np.ndarray]], sid: str) -> None:
    rec = SessionRecord(id=sid, date="2024-01-01T00:00:00")
    ns = [Node(id=i, kind=NodeKind.EVENT, text=f"text of {i}", session_id=sid) for i, _ in nodes]
    store.commit_session(SessionWrite(record=rec, nodes=ns, edges=[], vectors=dict(nodes)))


def test_exact_search_is_exact_and_orders_ties_by_id(settings):
    store = MemoryStore.open(settings, "ties")
    dim = store.embedder.dim if hasattr(store.embedder, "dim") else len(store.embedder.embed(["x"])[0])
    rng = np.random.default_rng(7)
    a, b = rng.normal(size=dim).astype(np.float32), rng.normal(size=dim).astype(np.float32)
    # Inserted in an order that is not the id order; e3, e1, e2 share one vector (ties).
    _write(store, [("e3", a), ("e9", b), ("e1", a * 2), ("e2", a)], "S1")
    hits = store.search(a, 3)
    assert [i for i, _ in hits] == ["e1", "e2", "e3"]
    assert all(s == pytest.approx(1.0, abs=1e-6) for _, s in hits)
    assert [i for i, _ in store.search(a, 2)] == ["e1", "e2"]  # the cut goes through the ties by id
    assert store.search(a, 10) == store.search(a, 10)
    assert [i for i, _ in store.search(a, 10)] == ["e1", "e2", "e3", "e9"]
    assert store.search(a, 4, ["turn"]) == []  # kinds filter


def test_exact_search_agrees_with_chroma(settings):
    ingest_conversation(make_conversation(), settings)
    store = get_store(settings)
    for q in ["Lisbon half marathon", "puppy chewed shoes", "what did Ana cook"]:
        vec = store.embedder.embed([q])[0]
        exact = get_store(settings).search(vec, 8)
        ann = get_store(settings.model_copy(update={"exact_search_nodes": 0})).search(vec, 8)  # Chroma's index
        assert [i for i, _ in exact] == [i for i, _ in ann]
        np.testing.assert_allclose([s for _, s in exact], [s for _, s in ann], atol=1e-5)


def test_a_read_only_query_does_not_open_the_chroma_collection(settings):
    ingest_conversation(make_conversation(), settings)
    store = MemoryStore.open(settings)  # a fresh store, as after an eviction or in a new process
    for name in ("ppr", "dense", "hybrid"):
        assert retrieve(name, "Where did Ben run the half marathon?", store, k=5)
    assert not store.vectors.opened


def _ingest_many(data_dir: str, names: list[str]) -> None:
    from memgraph_agents.config import Settings

    s = Settings(data_dir=Path(data_dir), embeddings="hash")
    for ns in names:
        ingest_conversation(conversation(ns, 1, tag=ns, turns=4), s, namespace=ns)


def _read_many(data_dir: str, names: list[str], cache: int) -> dict:
    """In a fresh process: touch every namespace through the LRU; what stays open."""
    from memgraph_agents.config import Settings

    s = Settings(data_dir=Path(data_dir), embeddings="hash", cache_namespaces=cache)
    opened, most = 0, 0
    for ns in names:
        store = get_store(s, ns, create=False)
        assert retrieve("ppr", "what happened", store, k=3)
        assert retrieve("dense", "what happened", store, k=3)
        opened += store.vectors.opened
        most = max(most, cached_stores())
    chroma = str((Path(data_dir) / "chroma").resolve())
    held = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if target.startswith(chroma) and not target.endswith(("chroma.sqlite3", "-wal", "-shm", ".lock")):
            held.append(target)
    return {"opened": opened, "most_stores": most, "chroma_index_files": held}


@pytest.mark.slow
def test_a_reader_of_many_embedded_namespaces_holds_no_chroma_index(settings):
    names = [f"u{i}" for i in range(8)]
    in_child(_ingest_many, str(settings.data_dir), names)
    got = in_child(_read_many, str(settings.data_dir), names, 3)
    assert got["opened"] == 0
    assert got["most_stores"] <= 3
    assert got["chroma_index_files"] == []
