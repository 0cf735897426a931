"""Atomic replacement and exact deletion, no silent overwrite.

* a changed session replaces the old version in one commit: while the new one is being
  written, readers see the old one (rows and vectors); a failure at any point leaves the old
  version whole, byte for byte;
* a node or an edge stated by two sessions survives deleting either one;
* a session that differs is refused (``SessionConflictError``) unless ``replace=True``; a
  builder or preset change rebuilds only when asked.

The commit-protocol cases (readers during a replacement, a failure inside one, rows stated by
two sessions) run on both graph stores (``graph_backend``: SQLite and PostgreSQL).
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from memgraph_agents.cli.main import main
from memgraph_agents.config import Settings
from memgraph_agents.errors import SessionConflictError
from memgraph_agents.ingest import ingest_conversation
from memgraph_agents.model.graph import Edge, EdgeKind, Node, NodeKind
from memgraph_agents.runtime import get_store
from memgraph_agents.storage import SessionRecord, SessionWrite
from tests.conftest import make_conversation
from tests.workloads import chroma_dump, rounded_rows


def edited(conv, text: str = "Flat and fast along the river, a personal best."):
    s2 = conv.sessions[1]
    turns = list(s2.turns)
    turns[2] = turns[2].model_copy(update={"text": text})
    return conv.model_copy(
        update={"sessions": [conv.sessions[0], s2.model_copy(update={"turns": turns}), *conv.sessions[2:]]}
    )


def state(store) -> tuple:
    """Sessions, nodes, edges (through the graph-store interface: either store) and Chroma."""
    sessions = [{k: v for k, v in s.items() if k != "ingested_at"} for s in store.db.sessions(None)]
    return sessions, rounded_rows(store.db.raw_nodes(), store.db.raw_edges()), chroma_dump(store.vectors.collection)


def on(backend, tmp_path) -> Settings:
    """Offline test settings with the graph on ``backend``'s store."""
    return Settings(data_dir=tmp_path / "mem", embeddings="hash", namespace="test", graph_url=backend.database())


def test_readers_see_the_old_version_until_the_replacement_commits(tmp_path, graph_backend):
    settings = on(graph_backend, tmp_path)
    conv = make_conversation()
    ingest_conversation(conv, settings)
    store = get_store(settings)
    old_turn = store.snapshot().node("turn:D2:3").text
    seen: list[tuple] = []

    def look(stage: str) -> None:  # between the vector write and the one SQLite commit
        snap = store.snapshot()
        vec = store.embedder.embed([old_turn])[0]
        hits = dict(store.search(vec, 5, ["turn"]))  # exact, on the snapshot's vectors (graph rows)
        store.exact_search_nodes = 0  # Chroma's index
        ann = dict(store.search(vec, 5, ["turn"]))
        store.exact_search_nodes = 10_000
        seen.append((set(snap.sessions), snap.node("turn:D2:3").text, hits.get("turn:D2:3"), ann.get("turn:D2:3")))

    store.fault_hook = look
    try:
        ingest_conversation(edited(conv), settings, replace=True)
    finally:
        store.fault_hook = None
    ((sessions, text, score, ann),) = seen
    assert sessions == {"S1", "S2", "S3"} and text == old_turn  # the old S2, whole
    # The vector beside the committed row is still the old text's: the reader finds it.
    assert score == pytest.approx(1.0, abs=1e-5)
    # Chroma's vector for that id already holds the next text: a reader never takes it for the old text.
    assert ann is None
    assert store.snapshot().node("turn:D2:3").text.endswith("a personal best.")


@pytest.mark.parametrize("stage", ["vectors", "rows"])
def test_a_failure_during_a_replacement_leaves_the_old_version_whole(tmp_path, graph_backend, monkeypatch, stage):
    settings = on(graph_backend, tmp_path)
    conv = make_conversation()
    ingest_conversation(conv, settings)
    store = get_store(settings)
    before = state(store)
    if stage == "vectors":  # Chroma fails half way: some new vectors already stored
        real = store.vectors.upsert
        calls = []

        def half(ids, vectors, kinds, sessions, texts):
            calls.append(len(ids))
            if len(calls) > 1:  # the store is back for the rollback
                return real(ids, vectors, kinds, sessions, texts)
            real(ids[:3], vectors[:3], kinds[:3], sessions[:3], texts[:3])
            raise RuntimeError("vector store went away")

        monkeypatch.setattr(store.vectors, "upsert", half)
    else:  # all vectors written, then the graph transaction fails

        def boom(_stage):
            raise RuntimeError("disk full")

        store.fault_hook = boom
    with pytest.raises(RuntimeError):
        ingest_conversation(edited(conv), settings, replace=True)
    store.fault_hook = None
    monkeypatch.undo()
    assert state(store) == before
    assert store.db.pending_writes() == [] and store.db.vector_garbage() == []
    # ... and the replacement then goes through.
    assert ingest_conversation(edited(conv), settings, replace=True).sessions_replaced == 1


def _write(store, sid: str, nodes, edges, mode="new"):
    vecs = {n.id: store.embedder.embed([n.text])[0] for n in nodes if n.embed}
    store.commit_session(
        SessionWrite(
            record=SessionRecord(id=sid, date="2024-01-01T00:00:00"), nodes=nodes, edges=edges, vectors=vecs, mode=mode
        )
    )


def test_a_node_or_edge_stated_by_two_sessions_survives_deleting_either(tmp_path, graph_backend):
    settings = on(graph_backend, tmp_path)
    store = get_store(settings)
    for first, second in (("A", "B"), ("B", "A")):
        for sid in ("A", "B"):
            arg1 = Node(id="arg:oslo", kind=NodeKind.ARGUMENT, text="Oslo", session_id=sid)
            arg2 = Node(id="arg:kayak", kind=NodeKind.ARGUMENT, text="kayak", session_id=sid)
            edge = Edge(src="arg:oslo", dst="arg:kayak", kind=EdgeKind.SYNONYM, session_id=sid, weight=0.95)
            _write(store, sid, [arg1, arg2], [edge])
        store.delete_session(first)
        snap = store.snapshot()
        assert {"arg:oslo", "arg:kayak"} <= set(snap.ids) and len(snap.src) == 1  # one edge, still there
        assert snap.node("arg:oslo").session_id == second
        assert {"arg:oslo", "arg:kayak"} <= set(store.vectors.all_ids())
        store.delete_session(second)
        assert len(store.snapshot()) == 0 and store.vectors.all_ids() == []


@pytest.mark.slow
def test_an_argument_reused_by_a_later_session_is_owned_by_both(settings):
    conv = make_conversation()
    ingest_conversation(conv, settings)
    store = get_store(settings)
    shared = {r[0] for r in store.db.raw_nodes() if r[1] == "argument" and r[3] == "S1"}
    used_later = {e.dst for e in store.db.edges("WHERE kind='role' AND session_id != 'S1'")} & shared
    assert used_later
    store.delete_session("S1")
    ids = {r[0] for r in store.db.raw_nodes()}
    assert used_later <= ids and not (shared - used_later) & ids


@pytest.mark.slow
def test_a_conflict_is_refused_before_anything_is_written(settings, capsys):
    conv = make_conversation()
    first = conv.model_copy(update={"sessions": conv.sessions[:2]})
    ingest_conversation(first, settings)
    store = get_store(settings)
    before = state(store)
    # S3 would be new, but S2 conflicts: nothing of the conversation is written.
    with pytest.raises(SessionConflictError) as err:
        ingest_conversation(edited(conv), settings)
    msg = str(err.value)
    assert "'S2'" in msg and f"'{settings.namespace}'" in msg and "replace=True" in msg and "--replace" in msg
    assert state(store) == before
    # The CLI: one line, exit 2; with --replace it goes through.
    path = settings.data_dir.parent / "conv.json"
    data = edited(conv).model_dump(mode="json")
    for sess in data["sessions"]:
        sess.pop("participants")
    path.write_text(json.dumps(data))
    argv = [
        "--embeddings",
        "hash",
        "--data-dir",
        str(settings.data_dir),
        "ingest",
        str(path),
        "--namespace",
        settings.namespace,
    ]
    assert main(argv) == 2
    err_lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("error:")]
    assert len(err_lines) == 1 and "--replace" in err_lines[0]
    assert state(store) == before
    assert main(argv + ["--replace"]) == 0
    assert "1 new, 0 appended, 1 replaced, 1 unchanged" in " ".join(capsys.readouterr().err.split())


def test_a_preset_change_rebuilds_only_when_asked(settings):
    conv = make_conversation()
    ingest_conversation(conv, settings)
    store = get_store(settings)
    before = state(store)
    sgmem = settings.model_copy(update={"preset": "sgmem"})
    report = ingest_conversation(conv, sgmem)
    assert report.sessions_unchanged == 3 and any("--preset" in n for n in report.notes)
    assert state(store) == before
    report = ingest_conversation(conv, sgmem, rebuild=True)
    assert report.sessions_replaced == 3
    assert {s["info"]["identity"]["preset"] for s in store.sessions()} == {"sgmem"}
    assert store.db.nodes("WHERE kind='fact'") or store.db.nodes("WHERE kind='summary'")
    assert ingest_conversation(conv, sgmem).sessions_unchanged == 3
    embedded = {n.id for n in store.db.nodes() if n.embed}
    assert set(store.vectors.all_ids()) == embedded
    assert np.isfinite(store.snapshot().vectors()).all()
