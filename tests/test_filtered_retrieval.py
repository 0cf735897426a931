"""Filters apply inside retrieval: ``k`` results come back whenever ``k`` matching items exist.

1,000 notes, of which 20 match the filter and are worded to lose to the others on the query
(unfiltered, none of them is in the top 10): every retriever, filtered, returns 10 items, each
from a matching note. A post-filter of the unfiltered top 10 would return none. The filter is
metadata, then speaker, then a time window, then all three at once.
"""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from memgraph_agents import Memory
from memgraph_agents.model import Conversation, Session, Turn

pytestmark = pytest.mark.slow  # seconds per test: left out of the fast subset (-m "not slow")

RETRIEVERS = ["dense", "bm25", "hybrid", "ppr", "sentence_hop", "dwpr", "fusion", "navigator"]
QUERY = "coffee with the team at the office"
N, EVERY, OFFSET = 1000, 50, 7  # notes i with i % 50 == 7 match: 20 of 1,000
BASE = datetime(2025, 1, 1)
NAMES = ["Orla", "Tamsin", "Ivo", "Petra"]


def _note(i: int) -> Session:
    when = BASE + timedelta(hours=i)
    sid = f"note-{i:04d}"
    if i % EVERY == OFFSET:  # the matching ones: one speaker, one project, one week
        who, meta = "Wendeline", {"project": "atlas", "n": i}
        text = f"{who} brewed coffee at home on day {i} before gardening."
        when = datetime(2025, 9, 1) + timedelta(hours=i)
    else:
        who, meta = NAMES[i % 4], {"project": f"other-{i % 7}", "n": i}
        text = f"{who} had coffee with the team at the office on day {i} and talked about the roadmap."
    return Session(id=sid, date=when, metadata=meta, turns=[Turn(id=f"{sid}:1", speaker=who, text=text)])


MATCHING = {f"note-{i:04d}" for i in range(N) if i % EVERY == OFFSET}
FILTERS = {
    "metadata": {"filter": {"project": {"$in": ["atlas"]}}},
    "speaker": {"speaker": "wendeline"},
    "window": {"since": "2025-09-01", "until": datetime(2025, 10, 1)},
    "all": {"filter": {"project": "atlas"}, "speaker": ["Wendeline", "Nobody"], "since": datetime(2025, 8, 1)},
}


@pytest.fixture(scope="module")
def many(tmp_path_factory) -> Memory:
    # No Chroma index: the commits of 1,000 notes stay fast; dense search is exact either way.
    mem = Memory(
        tmp_path_factory.mktemp("filtered") / "mem", embeddings="hash", namespace="many", chroma_index_nodes=10**6
    )
    mem.add(Conversation(id="notes", sessions=[_note(i) for i in range(N)]))
    return mem


def _sessions(evidence) -> set[str]:
    return {s for ev in evidence for s in ev.session_ids}


@pytest.mark.parametrize("retriever", RETRIEVERS)
def test_k_matching_items_come_back_from_1000_notes_where_20_match(many, retriever):
    unfiltered = many.search(QUERY, k=10, retriever=retriever)
    assert len(unfiltered) == 10 and not _sessions(unfiltered) & MATCHING  # a post-filter would return nothing
    for name, args in FILTERS.items():
        got = many.search(QUERY, k=10, retriever=retriever, **args)
        assert len(got) == 10, (name, len(got))
        assert _sessions(got) <= MATCHING, (name, _sessions(got) - MATCHING)
        assert all(ev.metadata["project"] == "atlas" and ev.namespace == "many" for ev in got), name
        assert all(t.startswith(tuple(MATCHING)) for ev in got for t in ev.turn_ids), name


def test_k_larger_than_the_matches_returns_every_match_and_no_other(many):
    got = many.search(QUERY, k=50, retriever="dense", filter={"project": "atlas"})
    turns = {t for ev in got for t in ev.turn_ids}
    assert turns == {f"{s}:1" for s in MATCHING}


def test_a_filter_nothing_passes_gives_no_evidence_and_ask_says_why(many):
    assert many.search(QUERY, k=10, retriever="dense", filter={"project": "none"}) == []
    assert many.search(QUERY, k=10, retriever="navigator", until="2024-01-01") == []
    out = many.ask(QUERY, k=5, retriever="bm25", speaker="nobody")
    assert out.evidence == [] and out.trace == ["nothing in namespace 'many' matches the filter"]


def test_ask_and_list_use_the_same_filter(many):
    out = many.ask(QUERY, k=10, retriever="navigator", filter={"project": "atlas"})
    assert len(out.evidence) == 10 and _sessions(out.evidence) <= MATCHING
    page = many.list(filter={"project": "atlas"}, limit=100)
    assert {i.id for i in page.items} == MATCHING and page.cursor is None
    assert {i.id for i in many.list(speaker="WENDELINE", limit=100).items} == MATCHING
    window = many.list(since="2025-09-01", limit=100)
    assert {i.id for i in window.items} == MATCHING  # every other note is dated before September


def test_the_provenance_matrix_is_retrievals_provenance_for_every_node(tmp_path):
    """The view keeps a node by its provenance turns, computed for all nodes at once; on a
    conversation with shared arguments, relations and topics it agrees with the per-node rule."""
    from memgraph_agents.retrieval.evidence import provenance
    from memgraph_agents.retrieval.scope import provenance_matrix
    from memgraph_agents.runtime import get_store
    from tests.conftest import make_conversation

    mem = Memory(tmp_path / "mem", embeddings="hash", namespace="prov")
    mem.add(make_conversation())
    snap = get_store(mem.settings, "prov", create=False).snapshot()
    matrix = provenance_matrix(snap)
    kinds = set()
    for i in range(len(snap)):
        want = {snap.index[f"turn:{t}"] for t in provenance(snap, i) if f"turn:{t}" in snap.index}
        row = matrix.getrow(i)
        assert set(row.indices[row.data > 0]) == want, snap.ids[i]
        kinds.add(snap.kind_of(i))
    assert {"event", "argument", "topic", "turn", "session"} <= kinds
