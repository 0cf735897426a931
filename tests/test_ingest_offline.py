"""The offline ingest pipeline end to end, on the fixture chat and on examples/conversation.json."""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from memgraph_agents.config import IngestParams, Settings
from memgraph_agents.errors import SessionConflictError
from memgraph_agents.ingest import ingest_conversation
from memgraph_agents.loaders import load_conversations
from memgraph_agents.runtime import get_store
from tests.conftest import make_conversation
from tests.workloads import graph_rows

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "conversation.json"
NODE_KINDS = {"session", "turn", "sentence", "event", "argument", "topic"}
EDGE_KINDS = {"contains", "next", "evidence", "relation", "role", "member", "similar"}


def _settings(root: Path, namespace: str = "test", **update) -> Settings:
    return Settings(data_dir=root / "mem", embeddings="hash", namespace=namespace, **update)


@pytest.fixture(scope="module")
def chat(tmp_path_factory):
    """(conversation, store) for ``make_conversation()``, ingested once for the read-only tests."""
    conv = make_conversation()
    s = _settings(tmp_path_factory.mktemp("chat"))
    report = ingest_conversation(conv, s)
    assert report.sessions_new == 3 and report.notes == [] and report.llm_usage == {}
    return conv, get_store(s)


@pytest.fixture(scope="module")
def example(tmp_path_factory):
    (conv,) = load_conversations(EXAMPLE)
    s = _settings(tmp_path_factory.mktemp("example"), "maya-jonas")
    report = ingest_conversation(conv, s)
    assert report.sessions_new == len(conv.sessions) == 5 and report.turns == 60
    return conv, get_store(s)


BOTH = ["chat", "example"]


def nodes(store, kind=None):
    found = store.db.nodes("WHERE kind=?", (kind,)) if kind else store.db.nodes()
    return {n.id: n for n in found}


def edges(store, kind=None, label=None):
    return [
        e for e in store.db.edges() if (kind is None or e.kind.value == kind) and (label is None or e.label == label)
    ]


def owned_rows(store, session_id):
    """Raw SQLite rows and Chroma entries owned by one session."""
    c = store.db.conn
    n = c.execute("SELECT * FROM nodes WHERE session_id=? ORDER BY id", (session_id,)).fetchall()
    e = c.execute("SELECT * FROM edges WHERE session_id=? ORDER BY src, dst, kind, label", (session_id,)).fetchall()
    got = store.vectors.collection.get(where={"session_id": session_id}, include=["embeddings", "documents"])
    vecs = sorted(
        (i, d, tuple(round(float(x), 6) for x in v)) for i, d, v in zip(got["ids"], got["documents"], got["embeddings"])
    )
    return n, e, vecs


def all_rows(store):
    c = store.db.conn
    return (
        c.execute("SELECT * FROM nodes ORDER BY id").fetchall(),
        c.execute("SELECT * FROM edges ORDER BY src, dst, kind, label").fetchall(),
        sorted(store.vectors.all_ids()),
    )


def with_turn_text(conv, s: int, t: int, text: str):
    """A copy of ``conv`` whose ``t``-th turn of the ``s``-th session says ``text`` (models are frozen)."""
    sessions = list(conv.sessions)
    turns = list(sessions[s].turns)
    turns[t] = turns[t].model_copy(update={"text": text})
    sessions[s] = sessions[s].model_copy(update={"turns": turns})
    return conv.model_copy(update={"sessions": sessions})


def assert_vectors_match_graph(store):
    """Chroma holds exactly the embedded nodes of the graph, with their current text."""
    embedded = {n.id: n.text for n in store.db.nodes("WHERE embed=1")}
    got = store.vectors.collection.get(include=["documents"])
    assert dict(zip(got["ids"], got["documents"])) == embedded


# --------------------------------------------------------------------------- layers


@pytest.mark.parametrize("data", BOTH)
@pytest.mark.slow
def test_every_node_and_edge_kind_is_built(request, data):
    conv, store = request.getfixturevalue(data)
    n_counts, e_counts = store.db.counts()
    assert NODE_KINDS <= set(n_counts), n_counts
    assert EDGE_KINDS <= set(e_counts), e_counts
    assert "follow_up" in {e.label for e in edges(store, "relation")}
    assert n_counts["session"] == len(conv.sessions)
    assert n_counts["turn"] == sum(len(s.turns) for s in conv.sessions)
    assert {s["builder"] for s in store.sessions()} == {"offline"}

    all_nodes = nodes(store)
    for s in conv.sessions:  # session -contains-> turns, turns chained by next
        ids = [f"turn:{t.id}" for t in s.turns]
        assert all_nodes[f"session:{s.id}"].turn_ids == [t.id for t in s.turns]
        assert {e.dst for e in edges(store, "contains") if e.src == f"session:{s.id}"} == set(ids)
        chain = {(e.src, e.dst) for e in edges(store, "next") if e.session_id == s.id}
        assert chain == set(zip(ids, ids[1:]))
        for t in s.turns:
            node = all_nodes[f"turn:{t.id}"]
            assert node.session_id == s.id and node.turn_ids == [t.id] and node.text.startswith(f"{t.speaker}: ")
    for e in edges(store):  # no dangling edge, every edge has an owner or is a topic row
        assert e.src in all_nodes and e.dst in all_nodes
        assert e.session_id or e.kind.value == "member"
    for e in edges(store, "role"):
        assert all_nodes[e.src].kind == "event" and all_nodes[e.dst].kind == "argument" and e.label
        assert e.turn_ids == all_nodes[e.src].turn_ids
    for e in edges(store, "relation", "follow_up"):  # consecutive events of one session
        a, b = all_nodes[e.src], all_nodes[e.dst]
        assert a.session_id == b.session_id == e.session_id
        assert e.turn_ids == [a.turn_ids[-1], b.turn_ids[0]]
    for e in edges(store, "similar", "event"):
        assert all_nodes[e.src].kind == all_nodes[e.dst].kind == "event"
        assert all_nodes[e.src].session_id != all_nodes[e.dst].session_id
    assert_vectors_match_graph(store)


CHAT_DATES = {
    "D1:1": ("yesterday (9 March 2024)", ["2024-03-09"]),
    "D1:4": ("next month (April 2024)", ["2024-04-10"]),
    "D2:1": ("last weekend (the weekend of 8 June 2024)", ["2024-06-08"]),
    "D2:4": ("two days ago (8 June 2024)", ["2024-06-08"]),
    "D3:1": ("this week (the week of 9 September 2024)", ["2024-09-10"]),
}
EXAMPLE_DATES = {
    "S1:2": ("next Friday (8 March 2024)", ["2024-02-29", "2024-03-08"]),
    "S1:5": ("yesterday (1 March 2024)", ["2024-03-01"]),
    "S2:3": ("yesterday (15 March 2024)", ["2024-03-15"]),
    "S3:5": ("this afternoon (6 April 2024)", ["2024-04-06"]),
    "S4:1": ("last Sunday (21 April 2024)", ["2024-04-21"]),
    "S5:1": ("last weekend (the weekend of 18 May 2024)", ["2024-05-18"]),
}


@pytest.mark.parametrize("data,expected", [("chat", CHAT_DATES), ("example", EXAMPLE_DATES)])
def test_relative_dates_are_resolved_in_turn_text_and_event_dates(request, data, expected):
    conv, store = request.getfixturevalue(data)
    turns = nodes(store, "turn")
    for tid, (label, dates) in expected.items():
        node = turns[f"turn:{tid}"]
        assert label in node.text, node.text
        assert node.attrs["dates"] == dates
    # Only the labels were inserted: removing them gives back "speaker: text [image: caption]".
    for s in conv.sessions:
        for t in s.turns:
            stored = re.sub(r" \([^()]*\b\d{4}\)", "", turns[f"turn:{t.id}"].text)
            assert stored == t.content, (stored, t.content)
    # Event dates: the union of the resolved dates of its turns; time: the session day.
    day = {r["id"]: r["date"][:10] for r in store.sessions()}
    for ev in nodes(store, "event").values():
        want = sorted({d for t in ev.turn_ids for d in turns[f"turn:{t}"].attrs["dates"]})
        assert ev.attrs["dates"] == want
        assert ev.attrs["time"] == day[ev.session_id]
    with_dates = [ev for ev in nodes(store, "event").values() if ev.attrs["dates"]]
    assert with_dates and any(label in ev.text for ev in with_dates for label, _ in expected.values())


@pytest.mark.parametrize("data", BOTH)
def test_events_are_contiguous_and_partition_each_session(request, data):
    conv, store = request.getfixturevalue(data)
    order = {t.id: (s.id, i) for s in conv.sessions for i, t in enumerate(s.turns)}
    events = nodes(store, "event")
    owners = defaultdict(list)  # turn -> events citing it as evidence
    for e in edges(store, "evidence"):
        assert e.src in events and e.dst.startswith("turn:") and e.turn_ids == [e.dst[5:]]
        owners[e.dst[5:]].append(e.src)
    assert set(owners) == set(order)
    for tid, evs in owners.items():
        assert len(evs) == 1, (tid, evs)  # exactly one event per turn
    by_event = defaultdict(list)
    for tid, (ev,) in owners.items():
        by_event[ev].append(tid)
    for eid, tids in by_event.items():
        sessions = {order[t][0] for t in tids}
        assert len(sessions) == 1  # offline, no event spans sessions (no fusion here)
        idx = sorted(order[t][1] for t in tids)
        assert idx == list(range(idx[0], idx[-1] + 1)), (eid, tids)  # contiguous
        assert events[eid].turn_ids == sorted(tids, key=lambda t: order[t][1])
        assert events[eid].session_id == sessions.pop()
        assert len(tids) <= IngestParams().segment_max_turns
    # Offline event text = its turns' stored text.
    turns = nodes(store, "turn")
    for ev in events.values():
        assert ev.text == "\n".join(turns[f"turn:{t}"].text for t in ev.turn_ids)


@pytest.mark.parametrize("data", BOTH)
def test_sentences_and_their_knn_edges(request, data):
    conv, store = request.getfixturevalue(data)
    sentences = nodes(store, "sentence")
    turns = nodes(store, "turn")
    contains = defaultdict(set)
    for e in edges(store, "contains"):
        if e.dst in sentences:
            assert e.src in turns
            contains[e.src].add(e.dst)
    assert set(contains) == set(turns)  # every turn has its sentences
    for sid, s in sentences.items():
        t = s.attrs["turn_id"]
        assert sid in contains[f"turn:{t}"] and s.turn_ids == [t]
        assert s.text.startswith(turns[f"turn:{t}"].attrs["speaker"] + ": ")
    knn = edges(store, "similar", "sentence")
    assert knn
    out_degree = Counter(e.src for e in knn)
    for e in knn:
        assert e.src in sentences and e.dst in sentences and e.src != e.dst
        assert sentences[e.src].session_id == e.session_id  # owned by the newer sentence's session
        assert -1.0 <= e.weight <= 1.0 + 1e-6
    assert max(out_degree.values()) <= IngestParams().sentence_knn
    pairs = [tuple(sorted((e.src, e.dst))) for e in knn]
    assert len(pairs) == len(set(pairs))  # one edge per pair


@pytest.mark.parametrize("data", BOTH)
def test_topics_cover_every_event_exactly_once(request, data):
    _, store = request.getfixturevalue(data)
    events = nodes(store, "event")
    topics = nodes(store, "topic")
    members = edges(store, "member")
    assert topics and all(e.src in topics and e.dst in events for e in members)
    per_event = Counter(e.dst for e in members)
    assert set(per_event) == set(events) and set(per_event.values()) == {1}
    per_topic = Counter(e.src for e in members)
    for tid, t in topics.items():
        assert t.session_id == "" and not t.embed
        assert per_topic[tid] == t.attrs["size"] >= 1
        assert t.text in {events[e.dst].text[:300] for e in members if e.src == tid}


# --------------------------------------------------------------------------- incremental


@pytest.mark.slow
def test_incremental_ingest_equals_one_shot_and_leaves_earlier_rows_alone(tmp_path):
    one = _settings(tmp_path, "oneshot")
    ingest_conversation(make_conversation(n_sessions=3), one)
    inc = _settings(tmp_path, "stepwise")
    store = get_store(inc)
    snapshots = []
    for n in (1, 2, 3):
        report = ingest_conversation(make_conversation(n_sessions=n), inc)
        assert (report.sessions_new, report.sessions_unchanged) == (1, n - 1)
        snapshots.append({s: owned_rows(store, s) for s in ("S1", "S2")[:n]})
    # Rows owned by S1 (and S2) are byte-identical after every later ingest.
    assert snapshots[0]["S1"] == snapshots[1]["S1"] == snapshots[2]["S1"]
    assert snapshots[1]["S2"] == snapshots[2]["S2"]
    assert snapshots[0]["S1"][0] and snapshots[0]["S1"][1] and snapshots[0]["S1"][2]
    # Same graph as one call: node ids (and whole rows) equal, edges equal.
    a, b = all_rows(get_store(one)), all_rows(store)
    assert [r[0] for r in a[0]] == [r[0] for r in b[0]]
    assert a == b
    assert_vectors_match_graph(store)


def test_reingesting_unchanged_sessions_writes_nothing(tmp_path):
    s = _settings(tmp_path)
    conv = make_conversation()
    ingest_conversation(conv, s)
    store = get_store(s)
    before, gen = all_rows(store), store.db.generation()
    report = ingest_conversation(conv, s)
    assert (report.sessions_new, report.sessions_unchanged, report.turns) == (0, 3, 0)
    assert all_rows(store) == before and store.db.generation() == gen


@pytest.mark.slow
def test_changed_session_is_replaced_not_duplicated(tmp_path):
    s = _settings(tmp_path)
    conv = make_conversation()
    ingest_conversation(conv, s)
    store = get_store(s)
    s1_before = owned_rows(store, "S1")
    changed = with_turn_text(conv, 1, 2, "Flat and fast along the river, a personal best.")
    before = graph_rows(store.db.path), sorted(store.vectors.all_ids())
    with pytest.raises(SessionConflictError, match=r"session 'S2' in namespace '.*' differs.*replace=True.*--replace"):
        ingest_conversation(changed, s)  # no silent overwrite: refused, nothing written
    assert (graph_rows(store.db.path), sorted(store.vectors.all_ids())) == before
    report = ingest_conversation(changed, s, replace=True)
    assert (report.sessions_new, report.sessions_replaced, report.sessions_unchanged) == (1, 1, 2)
    assert report.turns == 5
    assert [r["id"] for r in store.sessions()] == ["S1", "S2", "S3"]  # one S2, in its place
    turns = nodes(store, "turn")
    assert len(turns) == 16 and turns["turn:D2:3"].text == "Ben: Flat and fast along the river, a personal best."
    everything = json.dumps([n.text for n in store.db.nodes()])
    assert "castle" not in everything and everything.count("personal best") >= 3  # turn, sentence, event
    sentences = [n for n in nodes(store, "sentence").values() if n.attrs["turn_id"] == "D2:3"]
    assert sentences and all("castle" not in n.text for n in sentences)
    assert owned_rows(store, "S1") == s1_before
    assert_vectors_match_graph(store)
    # ... and the result is the graph a fresh ingest of the changed conversation gives, minus
    # the S3 -> old S2 edges that went with the old S2 (S3 is not rebuilt).
    # Topics are assigned online between drift-scheduled re-clusterings, so their numbering
    # depends on history; every event still belongs to exactly one topic.
    fresh = _settings(tmp_path, "fresh")
    ingest_conversation(changed, fresh)

    def content(st):
        return {i for i, n in nodes(st).items() if n.kind.value != "topic"}

    assert content(get_store(fresh)) == content(store)
    for st in (store, get_store(fresh)):
        members = [e.dst for e in edges(st, "member") if e.src.startswith("topic:")]
        assert sorted(members) == sorted(set(members)) == sorted(nodes(st, "event"))


def test_explicit_ingest_params_are_honoured(tmp_path):
    s = _settings(tmp_path, ingest=IngestParams(sentence_knn=0, segment_min_turns=1, segment_max_turns=1))
    ingest_conversation(make_conversation(n_sessions=1), s)
    store = get_store(s)
    assert not edges(store, "similar", "sentence")
    assert len(nodes(store, "event")) == 6  # one event per turn
