"""Storage: round trip, atomic commit across SQLite + Chroma, deletion, namespace isolation.

The commit-protocol cases run on both graph stores (``on_both_stores``: SQLite and PostgreSQL)."""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest

from memgraph_agents.ingest import ingest_conversation
from memgraph_agents.runtime import forget_store, get_store
from memgraph_agents.storage import MemoryStore, NamespaceError, StoreFault, delete_namespace, list_namespaces
from tests.conftest import make_conversation, on_both_stores


def _fresh(settings, ns):
    """A new store object on the same files, as a restarted process would open it."""
    forget_store(settings, ns)
    return MemoryStore.open(settings, ns)


def _graph_rows(store):
    return sorted(store.db.raw_nodes()), sorted(store.db.raw_edges())


@on_both_stores
def test_round_trip_restores_the_same_graph(settings, conversation):
    ingest_conversation(conversation, settings, namespace="a")
    before = _graph_rows(get_store(settings, "a"))
    snap = get_store(settings, "a").snapshot()
    reopened = _fresh(settings, "a")
    assert _graph_rows(reopened) == before
    snap2 = reopened.snapshot()
    assert snap2.ids.tolist() == snap.ids.tolist() and snap2.text.tolist() == snap.text.tolist()
    assert (snap2.adjacency() != snap.adjacency()).nnz == 0
    assert sorted(reopened.vectors.all_ids()) == sorted(n[0] for n in before[0] if n[6])
    g = snap2.to_networkx()
    assert g.number_of_nodes() == len(snap2.ids) and g.number_of_edges() == len(snap2.src)


@on_both_stores
def test_reingest_is_idempotent(settings, conversation):
    first = ingest_conversation(conversation, settings, namespace="a")
    gen = get_store(settings, "a").db.generation()
    again = ingest_conversation(conversation, settings, namespace="a")
    assert first.sessions_new == 3 and again.sessions_new == 0 and again.sessions_unchanged == 3
    assert get_store(settings, "a").db.generation() == gen


@pytest.mark.slow
@on_both_stores
def test_crash_between_vectors_and_graph_leaves_no_half_session(settings):
    conv = make_conversation()
    two = conv.model_copy(update={"sessions": conv.sessions[:2]})
    ingest_conversation(two, settings, namespace="a")
    store = get_store(settings, "a")
    rows_before, vec_before = _graph_rows(store), sorted(store.vectors.all_ids())

    def crash(stage):
        raise StoreFault(stage)

    store.fault_hook = crash
    with pytest.raises(StoreFault):
        ingest_conversation(conv, settings, namespace="a")
    # The failed session's vectors are in Chroma, its graph rows are not committed.
    assert any(i.startswith("turn:D3:") for i in store.vectors.all_ids())
    assert "turn:D3:1" not in store.snapshot()
    reopened = _fresh(settings, "a")  # recovery rolls the pending session back
    assert _graph_rows(reopened) == rows_before
    assert sorted(reopened.vectors.all_ids()) == vec_before
    assert [s["id"] for s in reopened.sessions()] == ["S1", "S2"]
    forget_store(settings, "a")
    report = ingest_conversation(conv, settings, namespace="a")  # and the session can be ingested again
    assert report.sessions_new == 1
    assert "turn:D3:1" in get_store(settings, "a").snapshot()
    if settings.graph_url is None:  # SQLite's own check (PostgreSQL checks itself)
        ok = sqlite3.connect(get_store(settings, "a").db.path).execute("PRAGMA integrity_check").fetchone()[0]
        assert ok == "ok"


@on_both_stores
def test_delete_session_removes_exactly_its_rows(settings, conversation):
    ingest_conversation(conversation, settings, namespace="a")
    store = get_store(settings, "a")
    all_before = {r[0]: r for r in store.db.raw_nodes()}
    out = store.delete_session("S2")
    snap = store.snapshot()
    assert out["nodes_removed"] > 0
    assert not any(o == "S2" for o in snap.owner)
    assert not any(t.startswith("D2:") for ts in snap.turn_ids for t in ts)
    assert not any(e[4] == "S2" for e in store.db.raw_edges())
    # Nothing of S1 or S3 went missing (apart from derived topic rows).
    kept = {r[0] for r in store.db.raw_nodes()}
    for nid, row in all_before.items():
        if row[3] in ("S1", "S3"):
            assert nid in kept, nid
    vec_ids = set(store.vectors.all_ids())
    assert vec_ids <= kept and not any(i.startswith("turn:D2:") for i in vec_ids)
    assert [s["id"] for s in store.sessions()] == ["S1", "S3"]
    with pytest.raises(KeyError):
        store.delete_session("S2")


@pytest.mark.slow
@on_both_stores
def test_shared_argument_survives_deleting_its_first_session(settings, conversation):
    ingest_conversation(conversation, settings, namespace="a")
    store = get_store(settings, "a")
    snap = store.snapshot()
    # "Pixel" is mentioned in S1 (created there) and again in S2 and S3.
    pixel = [i for i in snap.ids if i.startswith("arg:") and "pixel" in i]
    assert pixel, "expected an argument node for Pixel"
    store.delete_session("S1")
    snap = store.snapshot()
    for nid in pixel:
        if nid in snap:
            assert snap.owner[snap.index[nid]] in ("S2", "S3")
    assert any(i in snap for i in pixel)


@pytest.mark.slow
def test_namespaces_are_isolated(settings):
    a = make_conversation("alpha")
    ingest_conversation(a, settings, namespace="alpha")
    ingest_conversation(make_conversation("beta", 2), settings, namespace="beta")
    sa, sb = get_store(settings, "alpha"), get_store(settings, "beta")
    q = sa.embedder.embed_one("Lisbon half marathon")
    for nid, _ in sb.search(q, 50):
        assert nid in sb.snapshot() and sb.snapshot().owner[sb.snapshot().index[nid]] in ("S1", "S2")
    assert {s["id"] for s in sb.sessions()} == {"S1", "S2"}
    beta_rows = _graph_rows(sb)
    beta_vecs = sorted(sb.vectors.all_ids())
    forget_store(settings, "alpha")
    delete_namespace(settings.data_dir, "alpha")
    assert list_namespaces(settings.data_dir) == ["beta"]
    sb2 = _fresh(settings, "beta")
    assert _graph_rows(sb2) == beta_rows and sorted(sb2.vectors.all_ids()) == beta_vecs
    with pytest.raises(NamespaceError):
        MemoryStore.open(settings, "alpha", create=False)


@pytest.mark.parametrize("bad", ["../../etc", "a/b", "", "x" * 65, "-lead", "trail_", "sp ace", "ü"])
def test_bad_namespace_names_are_rejected(settings, bad):
    with pytest.raises(NamespaceError):
        MemoryStore.open(settings, bad)
    assert not (settings.data_dir / "etc").exists()


def test_embedding_cache_hits_on_second_use(settings):
    from memgraph_agents.embeddings import make_embedding_model

    m = make_embedding_model("hash")
    texts = ["one text", "another text", "one text"]
    a = m.embed(texts)
    hits = m.hits
    b = m.embed(texts)
    assert np.allclose(a, b) and m.hits - hits == 3
    assert np.allclose(np.linalg.norm(a, axis=1), 1.0, atol=1e-3)  # float16 components: within 2**-11 of unit


class _CountingEmbeddings:
    """Hash embeddings that count model calls (the batching contract of ``embed_queries``)."""

    def __init__(self) -> None:
        from memgraph_agents.embeddings import HashEmbeddings

        self.inner, self.calls = HashEmbeddings(32), []

    def embed_documents(self, texts):
        self.calls.append(list(texts))
        return self.inner.embed_documents(texts)

    def embed_query(self, text):
        return self.embed_documents([text])[0]


def test_query_vectors_one_call_never_from_the_document_vectors(settings):
    from memgraph_agents.embeddings import EmbeddingModel

    inner = _CountingEmbeddings()
    m = EmbeddingModel(inner, "counting-32")
    m.embed(["what a question"])  # a document: held at half precision
    inner.calls.clear()
    q = m.embed_queries(["what a question", "a mention", "what a question"])
    assert inner.calls == [["what a question", "a mention"]]  # one call, the document's vector not used
    assert np.allclose(q[0], q[2]) and np.allclose(np.linalg.norm(q, axis=1), 1.0)
    assert np.allclose(m.embed_one("a mention"), q[1]) and len(inner.calls) == 1  # the query LRU
    m.forget_queries()
    m.embed_one("a mention")
    assert inner.calls[-1] == ["a mention"] and len(inner.calls) == 2
    m.close()
