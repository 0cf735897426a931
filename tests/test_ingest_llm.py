"""LLM-mode ingest end to end (graph: check -> ... -> commit) with scripted fake chat models.

Every test registers its own ``ScriptedChatModel`` as ``fake:ingest`` and ingests with hash
embeddings into a fresh data dir, then reads the committed SQLite rows back.
"""

from __future__ import annotations

import json
from collections import Counter
from functools import partial

import numpy as np
import pytest

import memgraph_agents.construct.fuse as fuse_mod
import memgraph_agents.llm.structured as structured
from memgraph_agents.config import Settings
from memgraph_agents.construct.relate import argument_key
from memgraph_agents.embeddings import HashEmbeddings
from memgraph_agents.ingest import ingest_conversation
from memgraph_agents.llm.usage import message_text
from memgraph_agents.retrieval.evidence import provenance
from memgraph_agents.runtime import get_store
from tests.conftest import make_conversation
from tests.fakes import (
    EVENTS_MARKER,
    FUSION_MARKER,
    MALFORMED_KINDS,
    RECOVERABLE_KINDS,
    RELATIONS_MARKER,
    UPDATES_MARKER,
    FakeBadRequestError,
    FakeRateLimitError,
    always_malformed,
    empty_reply,
    fusion_responder,
    ingest_responder,
    is_repair,
    malformed_then_valid,
    parse_event_lines,
    parse_turn_lines,
    parse_update_lines,
    raises,
    realistic_event_responder,
    route_responder,
    slow,
    task_text,
    update_responder,
)
from tests.helpers import calls_for, register_model

SPEC = "fake:ingest"


# --------------------------------------------------------------------------- helpers


def llm_settings(settings, **update):
    return settings.model_copy(update={"llm": SPEC, **update})


use_model = partial(register_model, SPEC)


def session_of_prompt(messages) -> str:
    """``S2`` for a prompt whose turn lines (or event lines) cite ``D2:*`` turns."""
    text = task_text(messages)
    ids = (
        [t["id"] for t in parse_turn_lines(text)]
        or [i for e in parse_event_lines(text) for i in e["turn_ids"]]
        or [u["turn"] for u in parse_update_lines(text)]
    )
    return "S" + ids[0].split(":")[0][1:] if ids else ""


def recording(responder, log: dict[str, list]):
    """Wrap an events responder: remember the (parsed) reply per session."""

    def respond(messages):
        out = responder(messages)
        if isinstance(out, str) and not is_repair(messages):
            log[session_of_prompt(messages)] = json.loads(out)["events"]
        return out

    return respond


def typed_relation_responder():
    """``causal`` from each event to the next, citing the first turn of one and the last of the other."""

    def respond(messages):
        events = parse_event_lines(task_text(messages))
        return json.dumps(
            {
                "relations": [
                    {
                        "source": a["index"],
                        "target": b["index"],
                        "type": "Causal",
                        "turn_ids": [a["turn_ids"][0], b["turn_ids"][-1]],
                        "description": f"{a['index']} led to {b['index']}",
                    }
                    for a, b in zip(events, events[1:])
                ]
            }
        )

    return respond


def scripted_events(by_session: dict[str, list[dict]]):
    """Fixed events per session (keyed ``S1``, ``S2``...), chosen from the prompt's turn ids."""

    def respond(messages):
        return json.dumps({"events": by_session[session_of_prompt(messages)]})

    return respond


def event(text, turn_ids, time, *args):
    return {
        "text": text,
        "turn_ids": turn_ids,
        "time": time,
        "participants": ["Ana", "Ben"],
        "arguments": [{"role": r, "value": v} for r, v in args],
    }


def rows(store, kind=None):
    snap_nodes = store.db.nodes("WHERE kind=?", (kind,)) if kind else store.db.nodes()
    return {n.id: n for n in snap_nodes}


def edges(store, kind=None, label=None):
    out = store.db.edges()
    return [e for e in out if (kind is None or e.kind.value == kind) and (label is None or e.label == label)]


def with_turn_text(conv, s: int, t: int, text: str):
    """A copy of ``conv`` whose ``t``-th turn of the ``s``-th session says ``text`` (models are frozen)."""
    sessions = list(conv.sessions)
    turns = list(sessions[s].turns)
    turns[t] = turns[t].model_copy(update={"text": text})
    sessions[s] = sessions[s].model_copy(update={"turns": turns})
    return conv.model_copy(update={"sessions": sessions})


def assert_nothing_lost(store, conversation):
    """Every session committed, every turn stored, every turn evidence of exactly one event of
    its own session (a fused older event may cite it too)."""
    assert {s["id"] for s in store.sessions()} == {s.id for s in conversation.sessions}
    assert all(s["status"] == "committed" for s in store.sessions())
    turns = rows(store, "turn")
    assert set(turns) == {f"turn:{t.id}" for s in conversation.sessions for t in s.turns}
    covered = Counter(
        e.dst
        for e in edges(store, "evidence")
        if e.session_id == turns[e.dst].session_id and rows(store, "event")[e.src].session_id == e.session_id
    )
    assert set(covered) == set(turns) and set(covered.values()) == {1}


# --------------------------------------------------------------------------- (a) realistic output


def test_llm_ingest_builds_events_roles_and_typed_relations_from_the_model(settings):
    conv = make_conversation()
    replies: dict[str, list] = {}
    model = use_model(
        route_responder(
            {
                EVENTS_MARKER: recording(realistic_event_responder(), replies),
                RELATIONS_MARKER: typed_relation_responder(),
                FUSION_MARKER: fusion_responder(same=False, overlap=False),
                UPDATES_MARKER: update_responder(),
            }
        )
    )
    report = ingest_conversation(conv, llm_settings(settings))
    store = get_store(settings)

    assert report.sessions_new == 3 and report.notes == []
    assert set(replies) == {"S1", "S2", "S3"}
    events = rows(store, "event")
    args = rows(store, "argument")
    role_edges = {(e.src, e.dst, e.label): e for e in edges(store, "role")}
    for s in conv.sessions:
        for k, ev in enumerate(replies[s.id], start=1):
            node = events[f"event:{s.id}:{k}"]
            assert node.text == ev["text"]  # the LLM's own statement, not the turns
            assert node.turn_ids == ev["turn_ids"] and node.session_id == s.id
            assert node.attrs["time"] == ev["time"] and node.attrs["dates"] == [ev["time"]]
            assert node.attrs["builder"] == "llm"
            assert node.attrs["arguments"] == [[a["role"], a["value"]] for a in ev["arguments"]]
            evidence = {e.dst for e in edges(store, "evidence") if e.src == node.id}
            assert evidence == {f"turn:{t}" for t in ev["turn_ids"]}
            for a in ev["arguments"]:  # one role edge per role-argument pair
                aid = f"arg:{argument_key(a['value'])}"
                assert aid in args
                edge = role_edges[(node.id, aid, a["role"])]
                assert edge.turn_ids == ev["turn_ids"] and edge.session_id == s.id
        assert len([e for e in events.values() if e.session_id == s.id]) == len(replies[s.id])

    # Typed relations exactly as the model gave them (label normalised), with their evidence turns.
    relations = edges(store, "relation")
    assert relations and {e.label for e in relations} == {"causal"}  # no offline follow_up
    for e in relations:
        a, b = events[e.src], events[e.dst]
        assert a.session_id == b.session_id == e.session_id
        assert int(b.id.rsplit(":", 1)[1]) == int(a.id.rsplit(":", 1)[1]) + 1
        assert e.turn_ids == [a.turn_ids[0], b.turn_ids[-1]]
        assert e.attrs["description"]

    # Usage: every request counted, tokens as the fake reported them (words, not len/4).
    usage = report.llm_usage
    assert usage["calls"] == len(model.calls) >= 6
    assert usage["failures"] == 0 and usage["retries"] == 0
    sent = sum(len(message_text(m).split()) for call in model.calls for m in call)
    assert usage["input_tokens"] == sent
    assert usage["output_tokens"] > 0 and usage["total_tokens"] == usage["input_tokens"] + usage["output_tokens"]

    records = {s["id"]: s for s in store.sessions()}
    assert {r["builder"] for r in records.values()} == {"llm"}
    assert sum(r["info"]["usage"]["calls"] for r in records.values()) == usage["calls"]
    assert all(r["info"]["notes"] == [] for r in records.values())
    assert_nothing_lost(store, conv)


def test_llm_ingest_does_not_call_the_model_again_for_an_unchanged_session(settings):
    conv = make_conversation(n_sessions=2)
    model = use_model(ingest_responder())
    ingest_conversation(conv, llm_settings(settings))
    n = len(model.calls)
    report = ingest_conversation(conv, llm_settings(settings))
    assert report.sessions_unchanged == 2 and report.llm_usage == {} and len(model.calls) == n


# --------------------------------------------------------------------------- (b) repaired output


@pytest.mark.parametrize("kind", MALFORMED_KINDS)
@pytest.mark.slow
def test_malformed_then_valid_reply_is_repaired_and_stays_llm(settings, kind):
    conv = make_conversation(n_sessions=2)
    model = use_model(malformed_then_valid(ingest_responder(), kind))
    report = ingest_conversation(conv, llm_settings(settings))
    store = get_store(settings)

    assert report.notes == []  # no fallback
    events = rows(store, "event")
    assert events and {e.attrs["builder"] for e in events.values()} == {"llm"}
    assert all(e.text.startswith("On ") for e in events.values())  # the fake's statements
    assert {s["builder"] for s in store.sessions()} == {"llm"}
    repairs = [c for c in model.calls if is_repair(c)]
    if kind in RECOVERABLE_KINDS:  # the tolerant parser reads them on the first reply
        assert repairs == [] and report.llm_usage["failures"] == 0
    else:
        first = [c for c in model.calls if not is_repair(c)]
        if kind == "unknown_turn":
            # Only events must cite real turns; a relation citing none gets its events' turns.
            first = [c for c in first if EVENTS_MARKER in task_text(c)]
            for e in edges(store, "relation"):
                assert e.turn_ids and all(t.startswith(("D1:", "D2:")) for t in e.turn_ids)
        assert len(repairs) == len(first) >= 2 and report.llm_usage["failures"] == len(first)
        assert report.llm_usage["retries"] == len(repairs)
    assert report.llm_usage["calls"] == len(model.calls)
    assert_nothing_lost(store, conv)


# --------------------------------------------------------------------------- (c) fallbacks


@pytest.fixture(scope="module")
def offline_events(tmp_path_factory):
    """Events of ``make_conversation()`` built offline (what every fallback must reproduce)."""
    s = Settings(data_dir=tmp_path_factory.mktemp("offline") / "mem", embeddings="hash", namespace="twin")
    ingest_conversation(make_conversation(), s)
    return {i: (n.text, n.turn_ids) for i, n in rows(get_store(s), "event").items()}


FAILURES = {
    "always_malformed": (lambda: always_malformed(), "LLMOutputError"),
    "empty_reply": (lambda: empty_reply(), "LLMOutputError"),
    "rate_limited": (lambda: raises(FakeRateLimitError()), "LLMCallError"),
    "too_slow": (lambda: slow(ingest_responder(), 5.0), "LLMTimeoutError"),
}


@pytest.mark.parametrize("mode", list(FAILURES))
@pytest.mark.slow
def test_failing_llm_falls_back_to_offline_per_session_and_loses_nothing(settings, monkeypatch, offline_events, mode):
    monkeypatch.setattr(structured, "DEFAULT_BACKOFF_BASE", 0.001)  # 429s: retried, but quickly
    make, error = FAILURES[mode]
    conv = make_conversation()
    model = use_model(make())
    # 0.1 s only where the timeout is what is tested: on a loaded machine a scripted reply can
    # take longer, and the failure must then still be the mode's own.
    report = ingest_conversation(conv, llm_settings(settings, llm_timeout=0.1 if mode == "too_slow" else 10))
    store = get_store(settings)

    assert report.sessions_new == 3 and report.turns == 16
    for s in conv.sessions:
        notes = [n for n in report.notes if n.startswith(f"{s.id}: events:")]
        assert len(notes) == 1 and error in notes[0] and "offline fallback" in notes[0]
    records = {r["id"]: r for r in store.sessions()}
    assert {r["builder"] for r in records.values()} == {"offline"}  # built offline, and says why
    assert all(any("offline fallback" in n for n in r["info"]["notes"]) for r in records.values())
    assert_nothing_lost(store, conv)
    # Exactly the events the offline builder makes.
    got = {i: (n.text, n.turn_ids) for i, n in rows(store, "event").items()}
    assert {n.attrs["builder"] for n in rows(store, "event").values()} == {"offline"}
    assert got == offline_events
    assert not [e for e in edges(store, "relation") if e.label != "follow_up"]
    assert report.llm_usage["failures"] >= 3 and report.llm_usage["calls"] == len(model.calls)
    if mode == "rate_limited":  # transient: retried up to 3 attempts per request
        assert len(calls_for(model, EVENTS_MARKER)) == 3 * 3


@pytest.mark.slow
def test_one_failing_session_does_not_affect_the_others(settings, monkeypatch):
    monkeypatch.setattr(structured, "DEFAULT_BACKOFF_BASE", 0.001)
    conv = make_conversation()
    replies: dict[str, list] = {}
    good = route_responder(
        {
            EVENTS_MARKER: recording(realistic_event_responder(), replies),
            RELATIONS_MARKER: typed_relation_responder(),
            FUSION_MARKER: fusion_responder(same=False, overlap=False),
            UPDATES_MARKER: update_responder(),
        }
    )

    def respond(messages):
        return FakeBadRequestError() if session_of_prompt(messages) == "S2" else good(messages)

    use_model(respond)
    report = ingest_conversation(conv, llm_settings(settings))
    store = get_store(settings)

    assert report.notes and all(n.startswith("S2: ") for n in report.notes)
    assert any("events: LLM failed (LLMCallError" in n for n in report.notes)
    builders = {r["id"]: r["builder"] for r in store.sessions()}
    assert builders == {"S1": "llm", "S2": "offline", "S3": "llm"}
    events = rows(store, "event")
    for sid in ("S1", "S3"):
        mine = sorted((e for e in events.values() if e.session_id == sid), key=lambda e: e.id)
        assert [e.text for e in mine] == [r["text"] for r in replies[sid]]
        assert {e.attrs["builder"] for e in mine} == {"llm"}
    s2 = [e for e in events.values() if e.session_id == "S2"]
    assert s2 and {e.attrs["builder"] for e in s2} == {"offline"}
    assert all(e.text.startswith(("Ben: ", "Ana: ")) for e in s2)  # offline events are the turns
    labels = {(e.session_id, e.label) for e in edges(store, "relation")}
    assert ("S2", "causal") not in labels and ("S1", "causal") in labels and ("S3", "causal") in labels
    assert_nothing_lost(store, conv)


# --------------------------------------------------------------------------- (e) fusion judge


OLD_PIXEL = "On 10 March 2024, Ana adopted a beagle puppy called Pixel from the animal shelter in Porto."
LISBON = event(
    "On 10 March 2024, Ben signed up for the Lisbon half marathon in April and trains four times a week.",
    ["D1:4", "D1:5", "D1:6"],
    "2024-03-10",
    ("agent", "Ben"),
    ("topic", "Lisbon half marathon"),
)
FINISH = event(
    "Ben finished the race last weekend in 1 hour 52 minutes; his legs still hurt from the hilly course.",
    ["D2:1", "D2:2", "D2:3"],
    "2024-06-08",
    ("agent", "Ben"),
    ("topic", "hilly course"),
)


def _near_miss_text() -> tuple[str, float]:
    """A rewrite of OLD_PIXEL whose hash-embedding cosine with it lies inside [0.8, 0.9)."""
    emb = HashEmbeddings(64)
    old = np.array(emb.embed_query(OLD_PIXEL))
    base = OLD_PIXEL.replace("10 March", "12 June").rstrip(".")
    extra = "and she bought him a red collar with a small silver bell".split()
    for i in range(len(extra) + 1):
        text = base + (" " + " ".join(extra[:i]) if i else "") + "."
        sim = float(old @ np.array(emb.embed_query(text)))
        if 0.82 <= sim < 0.88:  # well inside the judge band, away from both edges
            return text, sim
    raise AssertionError("no near-miss text found")


def _fusion_script() -> tuple[dict[str, list[dict]], float]:
    near, sim = _near_miss_text()
    emb = HashEmbeddings(64)
    vec = {t: np.array(emb.embed_query(t)) for t in (OLD_PIXEL, LISBON["text"], FINISH["text"], near)}
    # Only the Pixel pair is a near miss: the other cross-session pairs stay below the floor.
    for a in (LISBON["text"], OLD_PIXEL):
        assert float(vec[a] @ vec[FINISH["text"]]) < 0.75
    assert float(vec[LISBON["text"]] @ vec[near]) < 0.75
    script = {
        "S1": [
            event(OLD_PIXEL, ["D1:1", "D1:2", "D1:3"], "2024-03-09", ("agent", "Ana"), ("patient", "Pixel")),
            LISBON,
        ],
        "S2": [
            event(
                near,
                ["D2:4", "D2:5"],
                "2024-06-08",
                ("agent", "Ana"),
                ("patient", "Pixel"),
                ("topic", "puppy training class"),
            ),
            FINISH,
        ],
    }
    return script, sim


def _fusion_model(script, verdict):
    return use_model(
        route_responder(
            {
                EVENTS_MARKER: scripted_events(script),
                RELATIONS_MARKER: typed_relation_responder(),
                FUSION_MARKER: verdict,
            }
        )
    )


def test_judge_same_event_merges_the_new_event_into_the_old_one(settings):
    script, sim = _fusion_script()
    conv = make_conversation(n_sessions=2)
    model = _fusion_model(script, fusion_responder(same=True))
    report = ingest_conversation(conv, llm_settings(settings))
    store = get_store(settings)

    judge_calls = calls_for(model, FUSION_MARKER)
    assert len(judge_calls) == 1  # only the near miss is judged
    assert script["S2"][0]["text"].split(",")[0] in task_text(judge_calls[0])
    assert "S2: fusion: event:S2:1 merged into event:S1:1" in report.notes
    events = rows(store, "event")
    # The new event stays as a non-embedded same_event link (so forgetting S1 keeps S2's event).
    assert "event:S2:1" in events and not events["event:S2:1"].embed and "event:S2:2" in events
    assert events["event:S2:1"].attrs["merged_into"] == "event:S1:1"
    assert "event:S2:1" not in set(store.vectors.all_ids())
    old = events["event:S1:1"]
    assert old.text == OLD_PIXEL and old.session_id == "S1"  # the old row is not rewritten
    # The old event gained the new turns as provenance, owned by the new session.
    new_evidence = {e.dst: e for e in edges(store, "evidence") if e.src == "event:S1:1" and e.session_id == "S2"}
    assert set(new_evidence) == {"turn:D2:4", "turn:D2:5"}
    snap = store.snapshot()
    assert provenance(snap, snap.index["event:S1:1"]) == ["D1:1", "D1:2", "D1:3", "D2:4", "D2:5"]
    # The merged event keeps its role edges and links to the old one.
    s2_roles = {(e.dst, e.label) for e in edges(store, "role") if e.src == "event:S2:1"}
    assert ("arg:puppy training class", "topic") in s2_roles
    assert ("event:S1:1", "same_event") in [(e.dst, e.label) for e in edges(store, "relation") if e.src == "event:S2:1"]
    members = Counter(e.dst for e in edges(store, "member"))
    assert set(members) == set(events) and set(members.values()) == {1}
    assert_nothing_lost(store, conv)
    assert fuse_mod.JUDGE_FLOOR <= sim < settings.ingest.fusion_threshold


def test_judge_relation_adds_a_typed_old_to_new_edge(settings):
    script, sim = _fusion_script()
    conv = make_conversation(n_sessions=2)
    model = _fusion_model(script, fusion_responder(same=False, overlap=True, relation_type="Follow Up"))
    report = ingest_conversation(conv, llm_settings(settings))
    store = get_store(settings)

    assert len(calls_for(model, FUSION_MARKER)) == 1
    assert not [n for n in report.notes if "fusion" in n]
    events = rows(store, "event")
    assert {"event:S1:1", "event:S2:1", "event:S2:2"} <= set(events)  # both kept
    (edge,) = [e for e in edges(store, "relation") if e.src == "event:S1:1" and e.dst.startswith("event:S2")]
    assert edge.dst == "event:S2:1" and edge.label == "follow_up" and edge.session_id == "S2"
    assert edge.turn_ids == ["D2:4", "D2:5"]
    assert edge.weight == pytest.approx(sim, abs=1e-3)  # document vectors are float16: cosines move by < 1e-3
    assert fuse_mod.JUDGE_FLOOR <= edge.weight < settings.ingest.fusion_threshold


def test_judge_overlap_without_type_and_judge_failure(settings):
    script, _ = _fusion_script()
    conv = make_conversation(n_sessions=2)
    _fusion_model(script, fusion_responder(same=False, overlap=True, relation_type="none"))
    ingest_conversation(conv, llm_settings(settings))
    store = get_store(settings)
    fused = [
        (e.src, e.dst, e.label)
        for e in edges(store, "relation")
        if e.dst.startswith("event:S2") and e.src.startswith("event:S1")
    ]
    assert fused == [("event:S1:1", "event:S2:1", "overlap")]

    other = settings.model_copy(update={"namespace": "judge-fails"})
    _fusion_model(script, lambda messages: FakeBadRequestError())
    report = ingest_conversation(conv, llm_settings(other))
    store = get_store(other)
    assert "S2: fusion judge: LLM failed (LLMCallError); events kept unfused" in report.notes
    assert {"event:S1:1", "event:S2:1"} <= set(rows(store, "event"))
    assert not [e for e in edges(store, "relation") if e.src == "event:S1:1" and e.dst.startswith("event:S2")]
    assert {r["builder"] for r in store.sessions()} == {"llm"}  # a failed judge is no fallback


def test_judge_calls_are_capped_per_session(settings, monkeypatch):
    monkeypatch.setattr(fuse_mod, "JUDGE_FLOOR", -1.0)  # every unmerged new event is a near miss
    monkeypatch.setattr(fuse_mod, "MAX_JUDGE_CALLS", 2)
    conv = make_conversation()
    model = use_model(
        route_responder(
            {
                EVENTS_MARKER: realistic_event_responder(),
                RELATIONS_MARKER: typed_relation_responder(),
                FUSION_MARKER: fusion_responder(same=False, overlap=False),
                UPDATES_MARKER: update_responder(),
            }
        )
    )
    report = ingest_conversation(conv, llm_settings(settings))
    store = get_store(settings)
    per_session = {r["id"]: r["info"]["usage"]["calls"] for r in store.sessions()}
    # S1: nothing stored yet -> no judge; S2 and S3 have 2 events each -> capped at 2 judge calls.
    events = Counter(e.session_id for e in rows(store, "event").values())
    assert events["S2"] >= 2 and events["S3"] >= 2
    assert len(calls_for(model, FUSION_MARKER)) == 2 + 2
    # + one call labelling candidate updates in a session whose statements mark a change
    updates = Counter(session_of_prompt(c) for c in calls_for(model, UPDATES_MARKER))
    assert per_session["S1"] == 2 and per_session["S2"] == 2 + 2 + updates["S2"]
    assert per_session["S3"] == 2 + 2 + updates["S3"]
    assert report.notes == []


# --------------------------------------------------------------------------- replacement


def test_changed_session_is_replaced_in_llm_mode(settings):
    conv = make_conversation()
    use_model(ingest_responder())
    ingest_conversation(conv, llm_settings(settings))
    changed = with_turn_text(make_conversation(), 1, 2, "Flat and fast along the river, a personal best.")
    report = ingest_conversation(changed, llm_settings(settings), replace=True)
    store = get_store(settings)
    assert (report.sessions_new, report.sessions_replaced, report.sessions_unchanged) == (1, 1, 2)
    assert [s["id"] for s in store.sessions()] == ["S1", "S2", "S3"]  # replaced in its place
    texts = " ".join(n.text for n in store.db.nodes())
    assert "castle" not in texts and "personal best" in texts
    assert_nothing_lost(store, changed)


def test_replacing_a_session_keeps_later_sessions_fused_evidence(settings):
    script, _ = _fusion_script()
    conv = make_conversation(n_sessions=2)
    _fusion_model(script, fusion_responder(same=True))
    ingest_conversation(conv, llm_settings(settings))
    changed = with_turn_text(make_conversation(n_sessions=2), 0, 5, "Four times a week, long runs along the Douro.")
    script["S1"][1] = {**script["S1"][1], "text": script["S1"][1]["text"] + " He runs along the Douro."}
    ingest_conversation(changed, llm_settings(settings), replace=True)
    store = get_store(settings)
    covered = {e.dst for e in edges(store, "evidence")}
    assert {"turn:D2:4", "turn:D2:5"} <= covered
