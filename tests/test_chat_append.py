"""Chat writes cost only the new turns and a resumed thread appends.

A 100-turn thread written turn by turn: every text is computed by the embedding model once,
every turn and sentence node is written once (never rebuilt by a later write), only the
reopened last event is rewritten (a bounded window), and the result is a whole graph. In LLM
mode each write makes one extraction call over its new turns, with a short context window.
"""

from __future__ import annotations

from collections import Counter

import pytest
from langchain_core.messages import AIMessage, HumanMessage

from memgraph_agents.construct.append import LLM_CONTEXT_TURNS
from memgraph_agents.errors import SessionConflictError
from memgraph_agents.ingest import ingest_conversation
from memgraph_agents.runtime import forget_store, get_store
from memgraph_agents.storage import sqlite_writer
from tests.fakes import EVENTS_MARKER, parse_turn_lines, realistic_event_responder, route_responder, task_text
from tests.helpers import calls_for, edges, nodes, register_model
from tests.workloads import chat_thread

pytestmark = pytest.mark.slow  # seconds per test: left out of the fast subset (-m "not slow")

N = 100


class Counting:
    """Counts the texts the embedding model computes (below the cache) and node writes."""

    def __init__(self, monkeypatch, store) -> None:
        self.embedded: Counter[str] = Counter()
        self.written: Counter[str] = Counter()
        self.calls = 0  # model calls (each has a fixed cost: a chat write should make one)
        inner = store.embedder.inner
        real = inner.embed_documents

        def embed_documents(texts):
            self.embedded.update(texts)
            self.calls += 1
            return real(texts)

        monkeypatch.setattr(inner, "embed_documents", embed_documents)
        insert = sqlite_writer.insert_nodes

        def insert_nodes(c, rows, replace=False):
            rows = list(rows)
            if not replace:
                self.written.update(n.id for n in rows)
            return insert(c, rows, replace)

        monkeypatch.setattr(sqlite_writer, "insert_nodes", insert_nodes)


def test_a_thread_written_turn_by_turn_builds_each_turn_once(settings, monkeypatch):
    ingest_conversation(chat_thread(1), settings)
    store = get_store(settings)
    count = Counting(monkeypatch, store)
    for n in range(2, N + 1):
        report = ingest_conversation(chat_thread(n), settings)
        assert (report.sessions_appended, report.sessions_replaced, report.turns) == (1, 0, 1)

    # Each text computed by the model at most once, in one model call per write (segmenting a
    # lone turn needs no vector; every other text of the write is embedded together).
    assert max(count.embedded.values()) == 1
    assert count.calls <= N - 1, count.calls
    turns = nodes(store, "turn")
    assert len(turns) == N
    for i, t in enumerate(chat_thread(N).sessions[0].turns[1:], start=2):
        assert count.written[f"turn:{t.id}"] == 1, t.id
        assert turns[f"turn:{t.id}"].attrs["index"] == i - 1
    sentence_writes = [v for k, v in count.written.items() if k.startswith("sentence:")]
    assert sentence_writes and max(sentence_writes) == 1
    # Only the reopened last event is rewritten, a bounded number of times.
    event_writes = [v for k, v in count.written.items() if k.startswith("event:")]
    assert max(event_writes) <= settings.ingest.segment_max_turns
    assert sum(count.written.values()) < 12 * N  # linear in the thread, not quadratic

    # A whole graph: every turn in exactly one event, one `next` chain, consecutive follow-ups.
    events = nodes(store, "event")
    cited = Counter(t for e in events.values() for t in e.turn_ids)
    assert sorted(cited) == sorted(t.attrs["turn_id"] for t in turns.values()) and set(cited.values()) == {1}
    assert all(len(e.turn_ids) <= settings.ingest.segment_max_turns for e in events.values())
    nxt = {(e.src, e.dst) for e in edges(store, "next")}
    ids = [f"turn:{t.id}" for t in chat_thread(N).sessions[0].turns]
    assert nxt == set(zip(ids, ids[1:]))
    follow = {(e.src, e.dst) for e in edges(store, "relation") if e.label == "follow_up"}
    order = sorted(events, key=lambda i: int(i.rsplit(":", 1)[1]))
    assert follow == set(zip(order, order[1:]))
    # Chroma holds exactly the committed embedded nodes (no vectors of rewritten rows left).
    embedded = {n.id for n in store.db.nodes() if n.embed}
    assert set(store.vectors.all_ids()) == embedded


def test_an_edited_thread_is_a_conflict_and_a_shorter_one_too(settings):
    ingest_conversation(chat_thread(6), settings)
    store = get_store(settings)
    edited = chat_thread(8)
    session = edited.sessions[0]
    turns = list(session.turns)
    turns[2] = turns[2].model_copy(update={"text": "Something else entirely."})
    edited = edited.model_copy(update={"sessions": [session.model_copy(update={"turns": turns})]})
    with pytest.raises(SessionConflictError, match="thread-s1.*replace=True"):
        ingest_conversation(edited, settings)
    with pytest.raises(SessionConflictError):
        ingest_conversation(chat_thread(4), settings)  # fewer turns: not an append
    assert len(nodes(store, "turn")) == 6


def test_llm_mode_makes_one_extraction_call_per_write_over_the_new_turns(settings):
    llm = settings.model_copy(update={"llm": "fake:append"})
    model = register_model("fake:append", route_responder({EVENTS_MARKER: realistic_event_responder()}))
    ingest_conversation(chat_thread(4), llm)
    for n in range(6, 21, 2):
        before = len(calls_for(model, EVENTS_MARKER))
        report = ingest_conversation(chat_thread(n), llm)
        assert report.sessions_appended == 1
        calls = calls_for(model, EVENTS_MARKER)
        assert len(calls) == before + 1  # one extraction call per write
        prompt = task_text(calls[-1])
        new_part = prompt.split("(new turns: make events from these)")[1]
        assert [t["id"] for t in parse_turn_lines(new_part)] == [f"thread-s1:{n - 1}", f"thread-s1:{n}"]
        context = prompt.split("(new turns")[0]
        assert [t["id"] for t in parse_turn_lines(context)] == [
            f"thread-s1:{i}" for i in range(n - 1 - LLM_CONTEXT_TURNS, n - 1)
        ]
    store = get_store(llm)
    events = nodes(store, "event")
    assert all(e.attrs["builder"] == "llm" for e in events.values())
    cited = {t for e in events.values() for t in e.turn_ids}
    assert cited == {t.id for t in chat_thread(20).sessions[0].turns}  # context turns are never re-cited


def _chat(text: str, i: int, ai: bool = False, stamp: str | None = None):
    kwargs = {"timestamp": stamp} if stamp else {}
    cls = AIMessage if ai else HumanMessage
    return cls(content=text, id=f"m{i}", additional_kwargs=kwargs)


@pytest.mark.parametrize("replay", [False, True], ids=["no-checkpointer", "checkpointer-replays-history"])
def test_a_thread_resumed_after_a_restart_appends_and_keeps_its_dates(settings, replay):
    from memgraph_agents.integrations.agent_memory import AgentMemory

    first = [
        _chat(f"Message {i} about kayaking in Oslo.", i, ai=bool(i % 2), stamp=f"2024-03-01T09:0{i}:00")
        for i in range(6)
    ]
    mem = AgentMemory(settings)
    mem.write_messages(first, thread_id="t1")
    mem.flush(60)
    store = get_store(settings)
    date = store.session("t1-s1")["date"]
    assert store.session("t1-s1")["n_turns"] == 6

    # "Restart": a new AgentMemory (nothing in process memory); the thread goes on an hour later
    # (within the session gap; a longer gap would start session t1-s2 and leave t1-s1 as it is).
    forget_store(settings, settings.namespace)
    later = [
        _chat("Back again: the kayak trip is booked.", 10, stamp="2024-03-01T10:00:00"),
        _chat("Great, enjoy Oslo!", 11, ai=True, stamp="2024-03-01T10:01:00"),
    ]
    mem2 = AgentMemory(settings)
    replayed = [m.model_copy(update={"additional_kwargs": {}}) for m in first] if replay else []
    mem2.write_messages(replayed + later, thread_id="t1")
    reports = mem2.flush(60)
    assert [(r.sessions_appended, r.sessions_replaced) for r in reports] == [(1, 0)]
    store = get_store(settings)
    record = store.session("t1-s1")
    assert record["n_turns"] == 8 and record["date"] == date  # appended, original date kept
    texts = [n.text for n in sorted(nodes(store, "turn").values(), key=lambda n: n.attrs["index"])]
    assert texts[0].endswith("Message 0 about kayaking in Oslo.") and texts[-1].endswith("enjoy Oslo!")
    stamps = [n.attrs["timestamp"] for n in sorted(nodes(store, "turn").values(), key=lambda n: n.attrs["index"])]
    assert stamps[:6] == [f"2024-03-01T09:0{i}:00" for i in range(6)]


def test_thread_ids_that_clean_alike_and_repeated_messages_stay_distinct(settings):
    """``chat 1`` and ``chat-1`` are two threads; a message said twice without ids is stored
    twice; the whole id-less history passed again adds only what follows it."""
    from langchain_core.messages import AIMessage, HumanMessage

    from memgraph_agents.integrations.agent_memory import AgentMemory

    mem = AgentMemory(settings)
    mem.write_messages([HumanMessage("I parked on level three.")], thread_id="chat 1")
    mem.write_messages([HumanMessage("I parked on level five.")], thread_id="chat-1")
    # (not bare acknowledgements: the turn writer skips those, by its TurnRule)
    mem.write_messages([HumanMessage("Ring me at noon.")], thread_id="t2")
    mem.write_messages([HumanMessage("Ring me at noon.")], thread_id="t2")  # said again
    history = [HumanMessage("Where is the map?"), AIMessage("In the glovebox.")]
    mem.write_messages(history, thread_id="t3")
    mem.write_messages([*history, HumanMessage("And the spare key?")], thread_id="t3")  # the history passed again
    mem.flush(60)
    store = get_store(settings)
    sessions = {s["id"]: s["n_turns"] for s in store.sessions()}
    threads = [sid for sid in sessions if sid.startswith("chat")]
    assert len(threads) == 2 and "chat-1-s1" in threads, sessions  # one kept as it was, one hashed
    texts = {
        sid: [d["text"] for _, _, d in store.db.session_turns(sid)] for sid in sessions if not sid.startswith("chat")
    }
    assert texts["t2-s1"] == ["Ring me at noon.", "Ring me at noon."]
    assert texts["t3-s1"] == ["Where is the map?", "In the glovebox.", "And the spare key?"]
