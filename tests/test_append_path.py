"""A chat write's append path costs its new turn: the earlier turns, passed again as the same
objects, are not validated, digested or read back again, one build context serves every step,
and the steps run in one hand-off. It must store exactly what the reference path stores: the
same runner fed fresh copies of the transcript (every turn validated and digested again)."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from memgraph_agents.aio import NeedsLoopError, off_loop, run_off_loop
from memgraph_agents.config import Settings
from memgraph_agents.ingest import ingest_conversation
from memgraph_agents.loaders.errors import InputError
from memgraph_agents.model.conversation import Conversation, Session, Turn
from memgraph_agents.runtime import get_store
from tests.conftest import on_both_stores

TIMES = ("ingested_at",)


def stored(settings: Settings) -> dict:
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


pytestmark = pytest.mark.slow  # seconds per test: left out of the fast subset (-m "not slow")

# Turns that mark a change (the supersession step embeds them and the speaker's earlier ones).
_SAID = [
    ("Mira", "I work at the harbour office and walk there every morning."),
    ("Tomas", "The harbour office sounds busy. Do you like it?"),
    ("Mira", "I play the cello in a small quartet on Thursdays."),
    ("Tomas", "A quartet! What are you rehearsing?"),
    ("Mira", "I quit the harbour office and now work at the seed library."),
    ("Tomas", "The seed library must be quieter."),
    ("Mira", "I stopped the quartet; these days I play the cello alone."),
    ("Tomas", "Playing alone can be nice too."),
    ("Mira", "We moved to a flat by the canal last week."),
    ("Tomas", "A flat by the canal, lovely."),
]


def thread(cid: str = "chat") -> Conversation:
    start = datetime(2024, 5, 6, 19, 0)
    turns = [
        Turn(id=f"{cid}-s1:{i}", speaker=who, text=text, timestamp=start + timedelta(minutes=i))
        for i, (who, text) in enumerate(_SAID, start=1)
    ]
    session = Session(id=f"{cid}-s1", date=start, turns=turns)
    return Conversation(id=cid, sessions=[session], speakers=["Mira", "Tomas"])


def first_turns(conv: Conversation, n: int) -> Conversation:
    """The thread after ``n`` turns, holding the very turn objects of ``conv`` (as a chat
    writer's transcript does)."""
    s = conv.sessions[0]
    return conv.model_copy(update={"sessions": [s.model_copy(update={"turns": s.turns[:n]})]})


@on_both_stores
def test_turns_appended_as_the_same_objects_store_what_the_reference_path_stores(settings):
    conv = thread()
    fast = settings.override(namespace="fast")
    for n in range(1, len(_SAID) + 1):
        r = ingest_conversation(first_turns(conv, n), fast)
        assert (r.sessions_new, r.sessions_appended, r.turns) == (1, int(n > 1), 1)
    ref = settings.override(namespace="ref")
    for n in range(1, len(_SAID) + 1):
        copy = Conversation.model_validate(first_turns(conv, n).model_dump())  # new objects
        ingest_conversation(copy, ref)
    a, b = stored(fast), stored(ref)
    assert len(a["turns"]["chat-s1"]) == len(_SAID) and a["vectors"]
    assert any(e[2] == "supersedes" for e in a["edges"])  # the changing statements were linked
    assert a == b


def test_a_new_turn_is_still_checked_after_its_earlier_ones_were_remembered(tmp_path):
    s = Settings(data_dir=tmp_path / "m", namespace="t", embeddings="hash")
    conv = thread()
    for n in range(1, 4):
        ingest_conversation(first_turns(conv, n), s)
    session = conv.sessions[0]
    bad = Turn(id="chat-s1:4", speaker="Tomas", text="broken \ud800 text", timestamp=session.turns[3].timestamp)
    with pytest.raises(InputError, match="unpaired surrogate"):
        ingest_conversation(
            conv.model_copy(update={"sessions": [session.model_copy(update={"turns": [*session.turns[:3], bad]})]}), s
        )
    store = get_store(s, create=False)
    assert len(store.db.session_turns("chat-s1")) == 3  # nothing stored changed
    dirty = bad.model_copy(update={"text": "bell\x07 rings"})
    ingest_conversation(
        conv.model_copy(update={"sessions": [session.model_copy(update={"turns": [*session.turns[:3], dirty]})]}), s
    )
    assert [d["text"] for _, _, d in store.db.session_turns("chat-s1")][-1] == "bell rings"  # cleaned as always


def test_an_append_that_reopens_an_event_keeps_the_nodes_its_session_still_states(tmp_path):
    """A node two sessions state keeps its primary owner when that owner's later append drops
    (reopens) one of its events: only a node the session no longer states changes hands."""
    s = Settings(data_dir=tmp_path / "m", namespace="t", embeddings="hash")
    later, earlier = thread("b"), thread("a")  # "b" < "a" in no order: "a-s1" is the smaller id
    for n in range(1, 5):
        ingest_conversation(first_turns(later, n), s)
    ingest_conversation(earlier, s)  # states some of b's nodes again
    store = get_store(s, create=False)

    def primary() -> dict[str, str]:
        return {r[0]: r[3] for r in store.db.read_graph()[1]}

    before = primary()
    stated_by_a = {n for n, o in store.db.raw_owners() if o == "a-s1"}
    shared = sorted(n for n, o in before.items() if o == "b-s1" and n in stated_by_a)
    assert shared  # nodes both threads state, owned by the thread written first
    for n in range(5, len(_SAID) + 1):
        r = ingest_conversation(first_turns(later, n), s)
        assert r.sessions_appended == 1
    still = {n for n, o in store.db.raw_owners() if o == "b-s1"}
    after = primary()
    assert [after[n] for n in shared if n in still] == ["b-s1"] * len([n for n in shared if n in still])
    assert any(n in still for n in shared)


def test_run_off_loop_drives_steps_in_one_worker_thread_without_a_loop():
    import asyncio
    import threading

    def where() -> tuple[int, bool]:
        try:
            asyncio.get_running_loop()
            running = True
        except RuntimeError:
            running = False
        return threading.get_ident(), running

    async def steps() -> list[tuple[int, bool]]:
        return [await off_loop(where), await off_loop(where), where()]

    async def waits() -> None:
        await asyncio.sleep(0)

    async def main() -> tuple[list[tuple[int, bool]], int]:
        got = await run_off_loop(steps)
        with pytest.raises((NeedsLoopError, RuntimeError)):
            await run_off_loop(waits)
        return got, threading.get_ident()

    got, caller = asyncio.run(main())
    assert len({t for t, _ in got}) == 1 and got[0][0] != caller  # one worker thread, not the caller's
    assert not any(running for _, running in got)  # no event loop runs there (a blocking-call detector sees none)
