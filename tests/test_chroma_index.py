"""A Chroma index only for namespaces past ``MEMGRAPH_CHROMA_INDEX_NODES`` (``storage.chroma_index``).

* with the default threshold a small namespace writes nothing to Chroma (no collection), and
  answers exactly as the same memory indexed in Chroma;
* the commit that takes a namespace past the threshold builds the index: afterwards Chroma
  holds exactly the committed embedded nodes, each with its rows' vector and text, through
  later writes and deletes;
* a crash in that commit leaves the mark off and the graph whole; the next commit builds the
  index again from scratch (no vector of the lost write stays);
* recovery of a crash in a namespace without an index never opens Chroma;
* a namespace from before the mark counts as indexed; ``memgraph migrate`` decides by the
  target's threshold.
"""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest

from memgraph_agents.config import Settings
from memgraph_agents.ingest import ingest_conversation
from memgraph_agents.registry import retrieve
from memgraph_agents.runtime import forget_store, get_store
from memgraph_agents.storage import MemoryStore
from memgraph_agents.storage.chroma_index import INDEX_META
from memgraph_agents.storage.commit import StoreFault
from memgraph_agents.storage.migrate import copy_namespace
from memgraph_agents.storage.vector_rows import matching
from memgraph_agents.storage.vectors import chroma_client
from tests.conftest import make_conversation

QUESTIONS = ["What did Ana adopt?", "How long did the half marathon take?", "Where do they run on Sunday?"]


@pytest.fixture
def lazy(monkeypatch, tmp_path):
    """Settings with the library's default threshold (the suite's conftest indexes everything)."""
    monkeypatch.delenv("MEMGRAPH_CHROMA_INDEX_NODES", raising=False)

    def make(name: str = "lazy", **kw) -> Settings:
        return Settings(data_dir=tmp_path / name, embeddings="hash", namespace="t", **kw)

    return make


def _collections(settings: Settings) -> set[str]:
    return {c.name for c in chroma_client(settings.data_dir).list_collections()}


def _evidence(settings: Settings) -> list:
    store = get_store(settings)
    return [
        [(e.node_id, round(e.score, 6)) for e in retrieve(name, q, store, k=5)]
        for name in ("dense", "ppr")
        for q in QUESTIONS
    ]


def _chroma_equals_rows(store: MemoryStore) -> None:
    """Chroma holds exactly the committed embedded nodes, each with its committed text and vector."""
    text = {r[0]: r[2] for r in store.db.raw_nodes() if r[6]}
    got = store.vectors.collection.get(include=["embeddings", "documents"])
    assert sorted(got["ids"]) == sorted(text)
    rows = matching(store.db.node_vectors(list(text)), text)
    for i, emb, doc in zip(got["ids"], got["embeddings"], got["documents"]):
        assert doc == text[i]
        np.testing.assert_allclose(np.asarray(emb), rows[i], atol=1e-6)


@pytest.mark.slow
def test_a_small_namespace_writes_nothing_to_chroma_and_answers_the_same(lazy):
    small, indexed = lazy("small"), lazy("indexed", chroma_index_nodes=0)
    for s in (small, indexed):
        ingest_conversation(make_conversation(), s)
    store = get_store(small)
    assert store.db.get_meta(INDEX_META) == "off" and not store.indexed()
    assert store.vectors.name not in _collections(small)  # no collection was ever created
    assert get_store(indexed).db.get_meta(INDEX_META) == "on" and get_store(indexed).vectors.count() > 0
    assert _evidence(small) == _evidence(indexed)
    assert store.stats()["vectors"] == store.db.embedded_count() == get_store(indexed).stats()["vectors"]
    # deleting a session needs no Chroma either
    store.delete_session("S2")
    assert not store.db.vector_garbage() and store.stats()["vectors"] == store.db.embedded_count()


@pytest.mark.slow
def test_the_commit_past_the_threshold_builds_the_index(lazy):
    s = lazy(chroma_index_nodes=40)  # one session has 32 embedded nodes, two 55
    ingest_conversation(make_conversation(n_sessions=1), s)
    store = get_store(s)
    assert not store.indexed() and store.vectors.name not in _collections(s)
    ingest_conversation(make_conversation(n_sessions=2), s)
    assert store.db.get_meta(INDEX_META) == "on" and store.indexed()
    _chroma_equals_rows(store)
    ingest_conversation(make_conversation(n_sessions=3), s)
    _chroma_equals_rows(store)
    store.delete_session("S1")  # below the threshold again: the index stays, and stays exact
    assert store.db.embedded_count() <= 55 and store.indexed()
    _chroma_equals_rows(store)
    # a dense query past the exact-search threshold now asks Chroma, and finds the same nodes
    exact = store.search(store.embedder.embed_one(QUESTIONS[1]), 5)
    store.exact_search_nodes = 10
    assert [i for i, _ in store.search(store.embedder.embed_one(QUESTIONS[1]), 5)] == [i for i, _ in exact]


@pytest.mark.slow
def test_a_crash_in_the_commit_that_builds_the_index_leaves_it_unbuilt(lazy):
    s = lazy(chroma_index_nodes=40)
    ingest_conversation(make_conversation(n_sessions=1), s)
    store = get_store(s)
    before = sorted(r[0] for r in store.db.raw_nodes())

    def crash(stage: str) -> None:
        raise StoreFault(stage)

    store.fault_hook = crash
    with pytest.raises(StoreFault):
        ingest_conversation(make_conversation(n_sessions=2), s)
    assert len(store.vectors.all_ids()) > 32  # the index was being built: the rows, then S2's own
    forget_store(s, "t")
    reopened = MemoryStore.open(s)  # recovery: S2 goes, the mark stays off
    assert reopened.db.get_meta(INDEX_META) == "off" and [x["id"] for x in reopened.sessions()] == ["S1"]
    assert sorted(r[0] for r in reopened.db.raw_nodes()) == before
    reopened.close()
    ingest_conversation(make_conversation(n_sessions=2), s)  # builds again, from scratch
    store = get_store(s)
    assert store.indexed()
    _chroma_equals_rows(store)


def test_recovery_without_an_index_never_opens_chroma(lazy):
    s = lazy()
    ingest_conversation(make_conversation(n_sessions=1), s)
    store = get_store(s)
    store.fault_hook = lambda stage: (_ for _ in ()).throw(StoreFault(stage))
    with pytest.raises(StoreFault):
        ingest_conversation(make_conversation(n_sessions=2), s)
    forget_store(s, "t")
    reopened = MemoryStore.open(s)
    assert [x["id"] for x in reopened.sessions()] == ["S1"] and not reopened.db.pending_writes()
    assert not reopened.vectors.opened
    assert store.vectors.name not in _collections(s)


def test_a_namespace_from_before_the_mark_counts_as_indexed(lazy):
    s = lazy(chroma_index_nodes=0)
    ingest_conversation(make_conversation(n_sessions=2), s)
    store = get_store(s)
    path = store.db.path
    forget_store(s, "t")
    con = sqlite3.connect(path)
    con.execute("DELETE FROM meta WHERE key = ?", (INDEX_META,))
    con.commit()
    con.close()
    old = MemoryStore.open(Settings(**{**s.model_dump(), "chroma_index_nodes": None}))
    assert old.indexed()  # written when every commit wrote Chroma: complete
    old.close()
    ingest_conversation(make_conversation(n_sessions=3), lazy("lazy"))  # same data dir, default threshold
    store = get_store(lazy("lazy"))
    _chroma_equals_rows(store)  # still written at every commit


@pytest.mark.slow
def test_migrate_indexes_by_the_target_threshold(lazy):
    src_settings = lazy("src", chroma_index_nodes=0)
    ingest_conversation(make_conversation(), src_settings)
    src = MemoryStore.open(src_settings)
    small = MemoryStore.open(lazy("dst-small"))
    out = copy_namespace(src, small)
    assert out["chroma_index"] is False and not small.indexed() and not small.vectors.opened
    full = MemoryStore.open(lazy("dst-full", chroma_index_nodes=0))
    assert copy_namespace(src, full)["chroma_index"] is True and full.db.get_meta(INDEX_META) == "on"
    _chroma_equals_rows(full)
    for s in ("dst-small", "dst-full"):
        assert _evidence(lazy(s)) == _evidence(src_settings)


def test_embedded_bound_is_an_upper_bound_of_the_count(lazy):
    """The commit's threshold check reads the cheap bound first: it never undercounts, after
    deletions and rewrites either."""
    s = lazy()
    store = get_store(s)
    assert store.db.embedded_bound() == store.db.embedded_count() == 0
    ingest_conversation(make_conversation(n_sessions=3), s)
    assert store.db.embedded_bound() >= store.db.embedded_count() > 0
    store.delete_session("S1")
    assert store.db.embedded_bound() >= store.db.embedded_count() > 0
