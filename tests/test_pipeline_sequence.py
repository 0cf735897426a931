"""The library's writes run the ingest pipeline as its plain step sequence (``pipeline.sequence``);
the graph Studio draws is built from the same steps. Both must store the same graph: turn-by-turn
chat appends, whole conversations, unchanged re-ingests and replacements."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from memgraph_agents.config import Settings
from memgraph_agents.construct.pipeline import sequence
from memgraph_agents.construct.pipeline.graph import run_graph_session
from memgraph_agents.ingest import ingest_conversation
from memgraph_agents.model.conversation import Conversation
from memgraph_agents.runtime import get_store
from tests.conftest import make_conversation
from tests.workloads import chat_thread

pytestmark = pytest.mark.slow  # seconds per test: left out of the fast subset (-m "not slow")

TIMES = ("ingested_at",)


def stored(settings: Settings) -> dict[str, Any]:
    """Everything a namespace holds that a build decides: node and edge rows, committed
    session records (but their timestamps), stored turns and vectors."""
    store = get_store(settings, create=False)
    _, nodes, edges, sessions = store.db.read_graph()
    ids = [r[0] for r in nodes]
    return {
        "nodes": nodes,
        "edges": edges,
        "sessions": [{k: v for k, v in s.items() if k not in TIMES} for s in sessions],
        "turns": {s["id"]: store.db.session_turns(s["id"]) for s in sessions},
        "vectors": sorted(store.db.node_vectors(ids)),
    }


def write_both(tmp_path: Path, monkeypatch, writes: list[Conversation], **settings: Any):
    out = []
    for how in ("sequence", "graph"):
        s = Settings(data_dir=tmp_path / how, namespace="t", **{"embeddings": "hash", **settings})
        with monkeypatch.context() as m:
            if how == "graph":
                m.setattr(sequence, "run_session", run_graph_session)  # ingest imports it per call
            reports = [ingest_conversation(c, s, replace=True) for c in writes]
        out.append((stored(s), [(r.sessions_new, r.sessions_appended, r.sessions_unchanged, r.turns) for r in reports]))
    return out


def test_turn_by_turn_chat_appends_store_the_same_graph_both_ways(tmp_path, monkeypatch):
    writes = [chat_thread(n) for n in range(1, 25)] + [chat_thread(24)]  # the last one: unchanged
    (a, ra), (b, rb) = write_both(tmp_path, monkeypatch, writes)
    assert ra == rb and ra[1] == (1, 1, 0, 1) and ra[-1] == (0, 0, 1, 0)  # appends, then unchanged
    assert len(a["turns"]["thread-s1"]) == 24 and len(a["nodes"]) > 24 and a["vectors"]
    assert a == b


def test_whole_conversations_and_a_replacement_store_the_same_graph_both_ways(tmp_path, monkeypatch):
    first = make_conversation()
    s1 = first.sessions[1]
    turn = s1.turns[0].model_copy(update={"text": "Something else entirely about kayaks on the lake."})
    session = s1.model_copy(update={"turns": [turn, *s1.turns[1:]]})
    changed = first.model_copy(update={"sessions": [first.sessions[0], session, *first.sessions[2:]]})
    (a, ra), (b, rb) = write_both(tmp_path, monkeypatch, [first, changed])
    assert ra == rb and ra[0][0] == 3
    assert "kayaks" in str(a["nodes"]) and a == b


@pytest.mark.integration
def test_chat_appends_with_the_default_model_store_the_same_graph_both_ways(tmp_path, monkeypatch):
    writes = [chat_thread(n) for n in range(1, 9)]
    (a, _), (b, _) = write_both(tmp_path, monkeypatch, writes, embeddings="minilm")
    assert a["vectors"] and a == b


def test_an_unchanged_session_ends_after_the_check(tmp_path):
    s = Settings(data_dir=tmp_path / "m", namespace="t", embeddings="hash")
    ingest_conversation(chat_thread(3), s)
    r = ingest_conversation(chat_thread(3), s)
    assert (r.sessions_unchanged, r.sessions_new) == (1, 0)


def test_the_graph_has_the_sequences_steps_in_its_order():
    from memgraph_agents.construct.pipeline.graph import pipeline

    nodes = [n for n in pipeline.get_graph().nodes if not n.startswith("__")]
    assert nodes == list(sequence.NODES)
