"""The write path's cheap parts stay correct: settings overrides, build forks, snapshot reloads."""

from __future__ import annotations

import pytest

from memgraph_agents.config import Settings
from memgraph_agents.construct.build import SessionBuild
from memgraph_agents.errors import ConfigError
from memgraph_agents.ingest import ingest_conversation
from memgraph_agents.model.graph import Edge, EdgeKind, Node, NodeKind
from memgraph_agents.runtime import MemoryContext, get_store
from memgraph_agents.storage.snapshot import GraphSnapshot
from tests.workloads import chat_thread


def test_override_keeps_the_settings_values_and_never_rereads_the_environment(tmp_path, monkeypatch):
    s = Settings(data_dir=tmp_path, embeddings="hash", top_k=7)
    monkeypatch.setenv("MEMGRAPH_TOP_K", "99")  # changed after: must not leak into an override
    monkeypatch.setenv("MEMGRAPH_INGEST_SENTENCE_KNN", "9")
    t = s.override(namespace="other")
    assert (t.top_k, t.namespace, t.ingest.sentence_knn) == (7, "other", s.ingest.sentence_knn)
    assert s.override(namespace=s.namespace, data_dir=str(tmp_path)) is s  # nothing changes: no copy
    assert s.override(limits={"max_turn_chars": 50}).limits.max_file_bytes == s.limits.max_file_bytes
    with pytest.raises(ConfigError, match="top_k"):
        s.override(top_k=-5)


def test_a_context_made_from_settings_gives_them_back(tmp_path, monkeypatch):
    s = Settings(data_dir=tmp_path, embeddings="hash", namespace="n1", ingest={"sentence_knn": 2})
    ctx = MemoryContext.from_settings(s)
    monkeypatch.setenv("MEMGRAPH_EMBEDDINGS", "minilm")
    assert ctx.settings() == s
    ctx.namespace = "n2"  # a change to the context (Studio's form) still applies
    assert ctx.settings().namespace == "n2" and ctx.settings().ingest.sentence_knn == 2


def test_a_forked_build_changes_without_touching_its_origin():
    node = Node(id="event:s:1", kind=NodeKind.EVENT, text="t", session_id="s", turn_ids=["s:1"], attrs={"a": 1})
    edge = Edge(src="event:s:1", dst="turn:s:1", kind=EdgeKind.EVIDENCE, session_id="s", attrs={"x": 1})
    b = SessionBuild(session_id="s", nodes=[node], edges=[edge], notes=["n"])
    f = b.fork()
    f.nodes[0].attrs["merged_into"] = "event:s:0"
    f.nodes[0].turn_ids.append("s:2")
    f.edges[0].attrs["y"] = 2
    f.nodes.append(node.model_copy())
    f.notes.append("m")
    assert b.nodes[0].attrs == {"a": 1} and b.nodes[0].turn_ids == ["s:1"]
    assert b.edges[0].attrs == {"x": 1} and len(b.nodes) == 1 and b.notes == ["n"]
    assert f.model_dump(exclude={"nodes", "edges", "notes"}) == b.model_dump(exclude={"nodes", "edges", "notes"})


@pytest.mark.slow
def test_a_reload_after_a_write_equals_a_fresh_load(settings):
    ingest_conversation(chat_thread(10), settings)
    store = get_store(settings)
    before = store.snapshot()
    ingest_conversation(chat_thread(14), settings)  # an append: most rows unchanged
    after = store.snapshot()
    assert after.generation != before.generation
    gen, node_rows, edge_rows, sessions = store.db.read_graph()
    fresh = GraphSnapshot.from_rows(gen, node_rows, edge_rows, sessions)
    for col in (
        "ids",
        "text",
        "owner",
        "turn_ids",
        "attrs",
        "kind",
        "src",
        "dst",
        "ekind",
        "eweight",
        "elabel",
        "eturns",
    ):  # arrays (object arrays but for the codes, endpoints and weights)
        assert getattr(after, col).tolist() == getattr(fresh, col).tolist(), col
    # Unchanged rows reuse the parsed values of the snapshot before (nothing parsed twice).
    shared = [i for i, n in enumerate(before.ids) if after.index.get(n) is not None and before.attrs[i]]
    assert shared and all(after.attrs[after.index[before.ids[i]]] is before.attrs[i] for i in shared[:20])


@pytest.mark.slow
def test_own_appends_update_the_cached_snapshot_without_a_full_read(settings, monkeypatch):
    """A commit of a namespace without a Chroma index is one transaction (one generation): the
    snapshot after it is spliced from the rows it wrote, never re-read whole."""
    from memgraph_agents.storage.graph_db import GraphDB

    settings = settings.override(chroma_index_nodes=100_000)  # a small namespace: no Chroma index
    ingest_conversation(chat_thread(5), settings)
    store = get_store(settings)
    assert not store.indexed()
    store.snapshot()
    full_reads = []
    real = GraphDB.read_graph
    monkeypatch.setattr(GraphDB, "read_graph", lambda self, rowid=False: full_reads.append(1) or real(self, rowid))
    for n in range(6, 12):
        ingest_conversation(chat_thread(n), settings)
    after = store.snapshot()
    assert full_reads == []
    gen, node_rows, edge_rows, sessions = real(store.db)
    fresh = GraphSnapshot.from_rows(gen, node_rows, edge_rows, sessions)
    assert after.generation == gen and after.ids.tolist() == fresh.ids.tolist()
    assert after.src.tolist() == fresh.src.tolist() and after.text.tolist() == fresh.text.tolist()
