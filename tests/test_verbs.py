"""The everyday verbs of ``Memory``: get, list, update, history, metadata, filters, several
namespaces, a user's namespace (hash embeddings, real SQLite + Chroma).

The first test is the acceptance script: it uses only ``from memgraph_agents import Memory``.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, date, datetime

import pytest

from memgraph_agents import InputError, LimitExceededError, Memory, NamespaceNotFoundError, SessionConflictError

CHAT = {
    "id": "ana-chat",
    "metadata": {"channel": "web"},
    "sessions": [
        {
            "id": "S1",
            "date": "2024-03-01T18:30:00",
            "metadata": {"topic": "pets"},
            "turns": [
                {"speaker": "Ana", "text": "I adopted a beagle puppy called Pixel yesterday."},
                {"speaker": "Ben", "text": "Congratulations! Beagles love long walks."},
            ],
        },
        {
            "id": "S2",
            "date": "2024-06-10T09:00:00",
            "turns": [
                {"speaker": "Ben", "text": "I ran the river half marathon in 1 hour 52 minutes."},
                {"speaker": "Ana", "text": "Pixel ran with me by the river this morning."},
            ],
        },
    ],
}


@pytest.fixture
def mem(tmp_path) -> Memory:
    return Memory(tmp_path / "mem", embeddings="hash", namespace="ana")


def turns_of(evidence) -> set[str]:
    return {t for ev in evidence for t in ev.turn_ids}


def test_acceptance_add_list_get_update_history_filter_scopes_delete(tmp_path):
    mem = Memory(tmp_path / "mem", embeddings="hash", namespace="ana")
    added = mem.add(CHAT)  # a dict in the documented conversation format
    assert added.sessions_added == 2
    tea = mem.add(
        "Ana drinks green tea every afternoon", when=datetime(2024, 4, 2), speaker="Ana", metadata={"kind": "habit"}
    )
    cello = mem.add(
        "Ben plays the cello on Sundays", when=datetime(2024, 7, 1), speaker="Ben", metadata={"kind": "hobby"}
    )
    tea_id, cello_id = tea.note_ids[0], cello.note_ids[0]

    page = mem.list()  # newest first: both notes and both sessions
    assert [i.id for i in page.items] == [cello_id, "S2", tea_id, "S1"] and page.cursor is None
    assert [i.kind for i in page.items] == ["note", "session", "note", "session"]
    assert page.items[0].metadata == {"kind": "hobby"} and page.items[0].text == "Ben plays the cello on Sundays"
    assert page.items[3].metadata == {"channel": "web", "topic": "pets"}  # the conversation's keys too
    assert [i.id for i in mem.list(kind="note").items] == [cello_id, tea_id]

    item = mem.get(tea_id)
    assert (item.kind, item.text, item.speaker, item.date) == (
        "note",
        "Ana drinks green tea every afternoon",
        "Ana",
        "2024-04-02T00:00:00",
    )
    assert item.metadata == {"kind": "habit"} and item.turn_ids == [f"{tea_id}:1"]
    assert {n.kind for n in item.neighbours} >= {"session", "event"}

    updated = mem.update(tea_id, "Ana drinks jasmine tea every afternoon")
    assert updated.text == "Ana drinks jasmine tea every afternoon" and updated.metadata == {"kind": "habit"}
    history = mem.history(tea_id)
    assert [v.text for v in history.versions] == [
        "Ana drinks green tea every afternoon",
        "Ana drinks jasmine tea every afternoon",
    ]
    assert [v.version for v in history.versions] == [1, 2] and history.versions[0].at <= history.versions[1].at
    assert "jasmine" in mem.search("What tea does Ana drink?", k=1, retriever="bm25")[0].text

    # Filters: by date, by speaker, by metadata; every result passes them.
    june = mem.search("Who ran by the river?", retriever="dense", since=date(2024, 6, 1), until="2024-07-01")
    assert turns_of(june) == {"S2:1", "S2:2"}
    by_ben = mem.search("river walks cello", retriever="bm25", k=10, speaker="Ben")
    assert turns_of(by_ben) == {"S1:2", "S2:1", f"{cello_id}:1"}  # not Ana's walk by the river
    assert all(mem.get(t).speaker == "Ben" for t in turns_of(by_ben))
    pets = mem.search("Pixel", retriever="dense", k=10, filter={"topic": "pets"})
    assert turns_of(pets) <= {"S1:1", "S1:2"} and all(ev.metadata["topic"] == "pets" for ev in pets)

    # Two namespaces at once: each item says where it came from.
    other = mem.user("ben")
    other.add("Ben's cello teacher is called Mirela", when=datetime(2024, 8, 1), speaker="Ben")
    both = mem.search("cello", namespaces=["ana", other.settings.namespace], k=4, retriever="bm25")
    assert {ev.namespace for ev in both} == {"ana", other.settings.namespace}

    deleted = mem.forget(note=cello_id)
    assert deleted.sessions == [cello_id]
    assert [i.id for i in mem.list().items] == ["S2", tea_id, "S1"]
    with pytest.raises(InputError, match="no note, session, turn or node"):
        mem.get(cello_id)


# --------------------------------------------------------------------------- metadata


def test_metadata_is_checked_before_anything_is_stored(mem):
    mem.add("a first note", when=datetime(2024, 1, 1))
    before = [i.id for i in mem.list().items]
    for bad, match in [
        ({"$kind": 1}, "invalid key"),
        ({"": 1}, "invalid key"),
        ({"k": float("nan")}, "not a JSON number"),
        ({"k": {1, 2}}, "not a JSON value"),
        ({"k": datetime(2024, 1, 1)}, "not a JSON value"),
        ("kind=habit", "must be an object"),
    ]:
        with pytest.raises(InputError, match=match):
            mem.add("a second note", metadata=bad)
    with pytest.raises(LimitExceededError, match="max_metadata_bytes"):
        mem.add("a second note", metadata={"blob": "x" * 20_000})
    bad_session = {**CHAT, "sessions": [{**CHAT["sessions"][0], "metadata": {"k": [[[[[[[[[1]]]]]]]]]}}]}
    with pytest.raises(InputError, match="nested"):
        mem.add(bad_session)
    assert [i.id for i in mem.list().items] == before


def test_metadata_is_content_a_change_needs_replace(mem):
    mem.add(CHAT)
    changed = {**CHAT, "metadata": {"channel": "app"}}
    with pytest.raises(SessionConflictError):
        mem.add(changed)
    assert mem.get("S1").metadata == {"channel": "web", "topic": "pets"}
    assert mem.add(CHAT).sessions_unchanged == 2  # the same metadata again: nothing to do
    mem.add(changed, replace=True)
    assert mem.get("S1").metadata == {"channel": "app", "topic": "pets"}
    assert mem.get("S2:1").metadata == {"channel": "app"}


def test_add_metadata_argument_and_lists_of_dicts(mem):
    second = {
        "id": "team",
        "sessions": [{"id": "T1", "date": "2024-02-02", "turns": [{"speaker": "Cy", "text": "Standup moved."}]}],
    }
    report = mem.add([CHAT, second], metadata={"source": "import", "channel": "import"})
    assert report.sessions_added == 3
    assert mem.get("S1").metadata == {"source": "import", "channel": "web", "topic": "pets"}  # own keys win
    assert mem.get("T1").metadata == {"source": "import", "channel": "import"}
    with pytest.raises(InputError, match="conversation 'x': missing 'sessions'"):
        mem.add([CHAT, {"id": "x"}])


# --------------------------------------------------------------------------- list


def test_list_pages_are_stable_while_others_write(mem):
    ids = [mem.add(f"note number {i}", when=datetime(2024, 1, 1 + i)).note_ids[0] for i in range(5)]
    first = mem.list(limit=2)
    assert [i.id for i in first.items] == [ids[4], ids[3]]
    mem.add("a newer note", when=datetime(2025, 1, 1))  # lands before the cursor: not on later pages
    mem.forget(note=ids[4])  # already listed
    second = mem.list(limit=2, cursor=first.cursor)
    assert [i.id for i in second.items] == [ids[2], ids[1]]
    third = mem.list(limit=2, cursor=second.cursor)
    assert [i.id for i in third.items] == [ids[0]] and third.cursor is None


def test_list_same_date_pages_by_id(mem):
    when = datetime(2024, 5, 5)
    ids = sorted({mem.add(f"same instant {i}", when=when).note_ids[0] for i in range(4)})
    seen, cursor = [], None
    while True:
        page = mem.list(limit=1, cursor=cursor)
        seen += [i.id for i in page.items]
        if page.cursor is None:
            break
        cursor = page.cursor
    assert seen == ids[::-1]


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"limit": 0}, "invalid limit"),
        ({"limit": True}, "invalid limit"),
        ({"kind": "turn"}, "invalid kind"),
        ({"cursor": "not-a-cursor"}, "invalid cursor"),
        ({"since": "2024-05-01", "until": "2024-04-01"}, "must be before until"),
        ({"since": "yesterday-ish"}, "since"),
        ({"filter": {"n": {"$regex": "x"}}}, "unknown operator"),
        ({"filter": {"n": {"$gt": "3"}}}, "takes a number"),
        ({"filter": {"n": {"$in": 3}}}, "takes a list"),
        ({"speaker": ""}, "speaker"),
    ],
)
def test_bad_list_and_filter_arguments_are_one_clear_error(mem, kwargs, match):
    mem.add("a note", when=datetime(2024, 1, 1))
    with pytest.raises(InputError, match=match):
        mem.list(**kwargs)


def test_missing_namespace_and_unknown_ids_are_errors(mem):
    with pytest.raises(NamespaceNotFoundError):
        mem.list()
    with pytest.raises(NamespaceNotFoundError):
        mem.get("S1")
    mem.add(CHAT)
    with pytest.raises(InputError, match="no note, session, turn or node 'S9'"):
        mem.get("S9")
    with pytest.raises(InputError, match="empty"):
        mem.get(" ")


# --------------------------------------------------------------------------- get


def test_get_a_session_a_turn_and_a_node(mem):
    mem.add(CHAT)
    session = mem.get("S1")
    assert session.kind == "session" and [t.id for t in session.turns] == ["S1:1", "S1:2"]
    assert session.text.splitlines()[0] == "Ana: I adopted a beagle puppy called Pixel yesterday."
    assert session.participants == ["Ana", "Ben"] and session.node_id == "session:S1"
    assert any(n.edge == "contains" and n.node_id == "turn:S1:1" for n in session.neighbours)
    turn = mem.get("S2:1")
    assert (turn.kind, turn.speaker, turn.session_id, turn.date) == ("turn", "Ben", "S2", "2024-06-10T09:00:00")
    assert turn.text == "I ran the river half marathon in 1 hour 52 minutes."
    event_id = next(n.node_id for n in turn.neighbours if n.kind == "event")
    event = mem.get(event_id)
    assert event.kind == "node" and event.node_kind == "event" and "S2:1" in event.turn_ids
    assert event.n_neighbours >= len(event.neighbours) > 0


# --------------------------------------------------------------------------- update / history


def test_update_keeps_id_date_speaker_and_metadata_unless_given(mem):
    nid = mem.add("Ana lives in Porto", when=datetime(2024, 2, 2), speaker="Ana", metadata={"kind": "fact"}).note_ids[0]
    same = mem.update(nid, "  Ana   lives in Porto ")  # the same text once normalised: no new version
    assert len(mem.history(nid).versions) == 1 and same.text == "Ana lives in Porto"
    moved = mem.update(nid, "Ana lives in Braga", metadata={"kind": "fact", "checked": True})
    assert (moved.id, moved.date, moved.speaker) == (nid, "2024-02-02T00:00:00", "Ana")
    assert moved.metadata == {"kind": "fact", "checked": True}
    versions = mem.history(nid).versions
    assert [(v.text, v.metadata) for v in versions] == [
        ("Ana lives in Porto", {"kind": "fact"}),
        ("Ana lives in Braga", {"kind": "fact", "checked": True}),
    ]
    assert mem.search("Where does Ana live?", k=1, retriever="bm25")[0].text.endswith("Braga")
    mem.forget(note=nid)  # the history goes with the note
    with pytest.raises(InputError, match=f"no note {nid!r}"):
        mem.history(nid)
    again = mem.add("Ana lives in Porto", when=datetime(2024, 2, 2), speaker="Ana").note_ids[0]
    assert again == nid and [v.text for v in mem.history(nid).versions] == ["Ana lives in Porto"]  # a new start


def test_update_refuses_what_is_not_a_stored_note_and_changes_nothing(mem):
    mem.add(CHAT)
    nid = mem.add("Ana likes figs", when=datetime(2024, 1, 1)).note_ids[0]
    for args, match in [
        (("S1", "text"), "is not a note id"),
        (("note-20990101T000000000000-00000000", "text"), "no note"),
        ((nid, "   "), "empty"),
        ((nid, 42), "must be a string"),
    ]:
        with pytest.raises(InputError, match=match):
            mem.update(*args)
    with pytest.raises(InputError, match="invalid key"):
        mem.update(nid, "Ana likes dates", metadata={"$x": 1})
    assert [i.id for i in mem.list().items] == ["S2", "S1", nid]
    assert mem.get(nid).text == "Ana likes figs" and len(mem.history(nid).versions) == 1


def test_an_update_never_recreates_a_note_forgotten_meanwhile(mem):
    from memgraph_agents.api.notes import updated_note
    from memgraph_agents.ingest import ingest_conversation

    nid = mem.add("Ana likes figs", when=datetime(2024, 1, 1)).note_ids[0]
    conv = updated_note(mem.settings, "ana", nid, "Ana likes dates", None)  # read before the forget
    mem.forget(note=nid)
    with pytest.raises(InputError, match="deleted"):
        ingest_conversation(conv, mem.settings, namespace="ana", replace=True, existing=True)
    assert mem.list().items == []


# --------------------------------------------------------------------------- scopes and users


def test_search_over_namespaces_merges_by_rank_deterministically(mem):
    mem.add(CHAT)
    team = Memory(settings=mem.settings, namespace="team")
    team.add("The team walks Pixel the office beagle at noon", when=datetime(2024, 5, 1))
    first = mem.search("beagle walks", namespaces=["ana", "team"], k=3, retriever="bm25")
    assert first == mem.search("beagle walks", namespaces=["ana", "team"], k=3, retriever="bm25")
    assert [ev.namespace for ev in first][:2] in (["ana", "team"], ["team", "ana"])  # both rank-1 items lead
    alone = {ns: mem.search("beagle walks", namespace=ns, k=3, retriever="bm25") for ns in ("ana", "team")}
    assert first[0].node_id == max((alone["ana"][0], alone["team"][0]), key=lambda ev: ev.score).node_id
    with pytest.raises(InputError, match="not both"):
        mem.search("x", namespace="ana", namespaces=["team"])
    with pytest.raises(InputError, match="twice"):
        mem.search("x", namespaces=["ana", "ana"])
    with pytest.raises(InputError, match="non-empty list"):
        mem.search("x", namespaces="ana")
    assert mem.search("beagle", namespaces=["ana", "nobody-yet"], k=2, retriever="bm25")  # a new user: no error


def test_user_namespace_is_the_agent_tools_mapping(mem):
    from memgraph_agents.integrations import AgentMemory

    agent = AgentMemory(settings=mem.settings)
    config = {"configurable": {"user_id": "Ana Lima"}}
    assert Memory.namespace_for_user("Ana Lima") == agent.namespace_for(None, config)
    assert mem.user("Ana Lima").settings.namespace == agent.namespace_for(None, config)
    prefixed = AgentMemory(settings=mem.settings, namespace_prefix="acme")
    assert Memory.namespace_for_user("Ana Lima", prefix="acme") == prefixed.namespace_for(None, config)


@pytest.mark.slow
def test_async_twins(mem):
    async def run():
        await mem.aadd(CHAT, metadata={"via": "async"})
        nid = (await mem.aadd("Ana's bike is blue", when=datetime(2024, 9, 9))).note_ids[0]
        await mem.aupdate(nid, "Ana's bike is red")
        found = await mem.asearch("bike", k=5, retriever="bm25", since=datetime(2024, 9, 1, tzinfo=UTC))
        asked = await mem.aask("bike colour", k=2, retriever="dense", filter={"via": {"$ne": "async"}})
        return (
            await mem.aget(nid),
            await mem.alist(kind="session"),
            await mem.ahistory(nid),
            found,
            asked,
        )

    item, page, history, found, asked = asyncio.run(run())
    assert item.text == "Ana's bike is red" and [i.id for i in page.items] == ["S2", "S1"]
    assert len(history.versions) == 2 and turns_of(found) == {item.turn_ids[0]}
    assert turns_of(asked.evidence) == {item.turn_ids[0]}  # the note has no "via": only it passes $ne


@pytest.mark.slow
def test_the_everyday_example_runs_from_the_package(tmp_path, monkeypatch, capsys):
    from memgraph_agents.examples import everyday

    monkeypatch.delenv("MEMGRAPH_EMBEDDINGS", raising=False)  # the default model, as a user runs it
    monkeypatch.delenv("MEMGRAPH_MIN_SCORE", raising=False)
    out = everyday.main(str(tmp_path / "mem"))
    printed = capsys.readouterr().out
    assert out["versions"] == 2 and len(out["notes"]) == 1
    found = out["found"]  # the filtered search: Jonas, in April, the chat sessions, past the relevance gate
    assert len(found) == 3 and all(ev.session_dates[0].startswith("2024-04") for ev in found)
    assert "The van broke down" in found[0].text and found[0].cite().split()[0] in printed
    assert {ev.namespace for ev in out["both"]} == {"maya", Memory.namespace_for_user("jonas")}
    assert "[jonas] Jonas: Jonas wants to show Maya the Voltwerk workshop" in printed
    assert "history: 'Maya is saving for a cargo bike' -> 'Maya bought a cargo bike in June'" in printed
