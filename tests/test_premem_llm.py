"""The PREMem layer in LLM mode (scripted fakes), its fallbacks, and session deletion."""

from __future__ import annotations

import json

import pytest

from memgraph_agents.construct.premem.schemas import PATTERNS
from memgraph_agents.ingest import ingest_conversation
from memgraph_agents.runtime import get_store
from tests.conftest import make_conversation
from tests.fakes import always_malformed, is_repair, malformed_then_valid, parse_turn_lines, task_text
from tests.fakes_premem import (
    FRAGMENTS_MARKER,
    REASONING_MARKER,
    SPEC,
    TIME_RE,
    fragments_for,
    link_conversation,
    links,
    premem,
    premem_notes,
    premem_responder,
    realistic_fragment_responder,
    realistic_reasoning_responder,
    use_model,
)
from tests.helpers import calls_for, edges, nodes


def _expected_fragments(model):
    """What the fake wrote for each session, from the prompts it was sent (first tries only)."""
    out = {}
    for call in calls_for(model, FRAGMENTS_MARKER):
        if not is_repair(call):
            turns = parse_turn_lines(task_text(call))
            out["S" + turns[0]["id"].split(":")[0][1:]] = fragments_for(turns)
    return out


def _members(store, cluster_id):
    return {e.dst for e in edges(store, "member") if e.src == cluster_id}


def test_llm_ingest_stores_the_models_fragments_links_and_reasoning(settings):
    conv = link_conversation()
    model = use_model(premem_responder())
    report = ingest_conversation(conv, premem(settings, llm=SPEC))
    store = get_store(settings)
    assert premem_notes(report) == []

    expected = _expected_fragments(model)
    frags = nodes(store, "fragment")
    assert set(expected) == {"S1", "S2", "S3", "S4"}
    for sid, wanted in expected.items():
        own = sorted((f for f in frags.values() if f.session_id == sid), key=lambda f: f.attrs["index"])
        assert [f.text.split(": ", 1)[1].rsplit(" (", 1)[0] for f in own] == [w["content"] for w in wanted]
        assert [f.turn_ids for f in own] == [w["turn_ids"] for w in wanted]  # the answer cites its question too
        assert [f.attrs["category"] for f in own] == [w["category"] for w in wanted]
        assert {f.attrs["builder"] for f in own} == {"llm"}
        assert all(TIME_RE.match(f.attrs["time"]) for f in own)
    yesterday = next(f for f in frags.values() if f.session_id == "S1" and "yesterday" in f.text)
    assert yesterday.attrs["time"] == "on 2024-01-09"  # the fake's "2024-01-09"
    filed = next(f for f in frags.values() if "filed" in f.text)
    assert filed.attrs["time"] == "before 2024-03-10" and filed.attrs["category"] == "experiential"

    # Links: the Pixel sessions chain; taxes stand alone.
    got = links(store)
    assert ("cluster:S2:1", "cluster:S1:1") in got and not any("S3" in a or "S3" in b for a, b in got)

    # Reasoning: one batched call per session that has links, one node per insight.
    linked_sessions = {a.split(":")[1] for a, _ in got}
    reason_calls = [c for c in calls_for(model, REASONING_MARKER) if not is_repair(c)]
    assert len(reason_calls) == len(linked_sessions)
    s2_prompt = next(task_text(c) for c in reason_calls if "later session 2024-02-10" in task_text(c))
    assert all(f.text in s2_prompt for f in frags.values() if f.session_id in ("S1", "S2"))
    reasoning = nodes(store, "reasoning")
    assert reasoning and {r.session_id for r in reasoning.values()} == linked_sessions
    derived = [e for e in edges(store, "derived")]
    for r in reasoning.values():
        assert r.attrs["pattern"] in PATTERNS and r.attrs["builder"] == "llm"
        assert r.text == f"{r.attrs['key']}: {r.text.split(': ', 1)[1]}" and r.text.endswith(f"({r.attrs['time']})")
        old, new = r.attrs["clusters"]
        assert (new, old) in got and new.split(":")[1] == r.session_id
        sources = {e.dst for e in derived if e.src == r.id}
        assert sources == _members(store, old) | _members(store, new)  # fragments of both clusters
        assert set(r.turn_ids) == {t for f in sources for t in frags[f].turn_ids}
        assert {t.split(":")[0] for t in r.turn_ids} == {f"D{old.split(':')[1][1:]}", f"D{r.session_id[1:]}"}
        assert all(e.session_id == r.session_id for e in derived if e.src == r.id)
    assert {r.attrs["pattern"] for r in reasoning.values()} >= {"accumulation"}
    assert set(reasoning) <= set(store.vectors.all_ids())  # reasoning fragments are embedded

    usage = report.llm_usage
    assert usage["calls"] == len(model.calls) and usage["failures"] == 0
    assert len(calls_for(model, FRAGMENTS_MARKER)) == 4  # one per session


@pytest.mark.parametrize("kind", ["truncated", "wrong_types", "unknown_turn"])
def test_malformed_fragment_reply_is_repaired(settings, kind):
    conv = make_conversation(n_sessions=2)
    model = use_model(premem_responder(fragments=malformed_then_valid(realistic_fragment_responder(), kind)))
    report = ingest_conversation(conv, premem(settings, llm=SPEC))
    store = get_store(settings)
    assert premem_notes(report) == []
    frags = nodes(store, "fragment")
    assert frags and {f.attrs["builder"] for f in frags.values()} == {"llm"}
    assert all(t.startswith(("D1:", "D2:")) for f in frags.values() for t in f.turn_ids)
    first = [c for c in calls_for(model, FRAGMENTS_MARKER) if not is_repair(c)]
    repairs = [c for c in calls_for(model, FRAGMENTS_MARKER) if is_repair(c)]
    assert len(first) == len(repairs) == 2 and report.llm_usage["failures"] >= 2


@pytest.mark.slow
def test_unusable_fragment_replies_fall_back_to_offline_fragments(settings, tmp_path):
    conv = link_conversation()
    use_model(premem_responder(fragments=always_malformed(realistic_fragment_responder())))
    report = ingest_conversation(conv, premem(settings, llm=SPEC))
    store = get_store(settings)
    fallbacks = [n for n in report.notes if "premem fragments: LLM failed" in n and "offline fallback" in n]
    assert len(fallbacks) == len(conv.sessions)
    # Nothing lost: exactly the offline fragments, clustered and linked as offline.
    offline = premem(settings, data_dir=tmp_path / "offline")
    ingest_conversation(conv, offline)
    twin = get_store(offline)
    frags = nodes(store, "fragment")
    assert {i: f.text for i, f in frags.items()} == {i: f.text for i, f in nodes(twin, "fragment").items()}
    assert {f.attrs["builder"] for f in frags.values()} == {"offline"}
    assert links(store) == links(twin) != set()
    # The reasoning call is separate and still works on the offline fragments.
    assert nodes(store, "reasoning")


def test_reasoning_failure_keeps_fragments_clusters_and_links(settings):
    conv = link_conversation()
    use_model(premem_responder(reasoning=always_malformed(realistic_reasoning_responder())))
    report = ingest_conversation(conv, premem(settings, llm=SPEC))
    store = get_store(settings)
    notes = [n for n in report.notes if "premem reasoning: LLM failed" in n]
    assert notes and all("no reasoning fragments" in n for n in notes)
    assert not any("premem fragments" in n for n in report.notes)
    assert nodes(store, "reasoning") == {} and links(store)
    assert {f.attrs["builder"] for f in nodes(store, "fragment").values()} == {"llm"}


def test_insights_naming_unknown_pairs_get_a_repair_turn(settings):
    good = realistic_reasoning_responder()

    def wrong_pair_first(messages):
        if is_repair(messages):
            return good(messages)
        return json.dumps({"insights": [dict(i, pair=99) for i in json.loads(good(messages))["insights"]]})

    model = use_model(premem_responder(reasoning=wrong_pair_first))
    report = ingest_conversation(link_conversation(), premem(settings, llm=SPEC))
    assert premem_notes(report) == [] and nodes(get_store(settings), "reasoning")
    repairs = [c for c in calls_for(model, REASONING_MARKER) if is_repair(c)]
    assert repairs and "use the pair numbers 1.." in str(repairs[0][-1].content)  # the check's message


# --------------------------------------------------------------------------- deletion


def _owned(store, sid):
    c = store.db.conn
    return (
        c.execute("SELECT id FROM nodes WHERE session_id=?", (sid,)).fetchall(),
        c.execute("SELECT src, dst, kind FROM edges WHERE session_id=?", (sid,)).fetchall(),
    )


@pytest.mark.slow
def test_deleting_sessions_removes_their_fragments_clusters_links_and_reasoning(settings):
    use_model(premem_responder())
    ingest_conversation(link_conversation(), premem(settings, llm=SPEC))
    store = get_store(settings)
    reasoning = nodes(store, "reasoning")
    over_s1 = {r for r, n in reasoning.items() if n.attrs["clusters"][0] == "cluster:S1:1"}
    assert over_s1 and all(reasoning[r].session_id == "S2" for r in over_s1)
    kept_s3 = _owned(store, "S3")

    # The latest session: everything it produced goes, the others are untouched.
    store.delete_session("S4")
    ids = set(store.vectors.all_ids())
    for kind in ("fragment", "cluster", "reasoning"):
        assert not any(n.session_id == "S4" for n in nodes(store, kind).values())
        assert not any(i.startswith(f"{kind}:S4:") for i in ids)
    assert not any(e.src.startswith("cluster:S4") for e in edges(store, "link"))
    assert _owned(store, "S3") == kept_s3

    # An earlier session: its rows go, and so do later reasoning fragments derived from them.
    store.delete_session("S1")
    left = nodes(store, "reasoning")
    assert not (over_s1 & set(left)) and not (over_s1 & set(store.vectors.all_ids()))
    assert not any(n.session_id == "S1" for n in nodes(store, "fragment").values())
    assert links(store) == set()  # S2 -> S1 went with S1
    assert any(n.session_id == "S2" for n in nodes(store, "fragment").values())
    assert "cluster:S2:1" in nodes(store, "cluster")
    assert not any(e.dst.startswith(("fragment:S1", "cluster:S1")) for e in store.db.edges())
