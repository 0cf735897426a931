"""The public API: ``from memgraph_agents import Memory`` (hash embeddings, real SQLite + Chroma)."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
import time
from contextlib import redirect_stdout
from datetime import datetime
from io import StringIO
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage, HumanMessage

from memgraph_agents import ConfigError, InputError, Memory, NamespaceNotFoundError
from memgraph_agents.config import Settings
from memgraph_agents.runtime import MemoryContext, get_store
from tests.conftest import make_conversation
from tests.fakes import task_text
from tests.helpers import register_model

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "conversation.json"
CITE = re.compile(r"^\[(\d{4}-\d\d-\d\d)[^|]* \| ([^\]]+)\] \S")


@pytest.fixture
def mem(tmp_path) -> Memory:
    return Memory(tmp_path / "mem", embeddings="hash", namespace="alice")


@pytest.fixture
def filled(mem) -> Memory:
    mem.add(make_conversation())
    return mem


@pytest.fixture(scope="module")
def shared(tmp_path_factory) -> Memory:
    """Like ``filled``, built once for the tests that only read."""
    mem = Memory(tmp_path_factory.mktemp("api") / "mem", embeddings="hash", namespace="alice")
    mem.add(make_conversation())
    return mem


def graph_state(mem: Memory, namespace: str | None = None) -> tuple[set, set, set]:
    """Node ids, edges and vector ids of a namespace (topic rows aside: the topic layer is
    namespace-level, re-centred as sessions come and go)."""
    store = get_store(mem.settings, namespace or mem.settings.namespace, create=False)
    nodes = {n.id for n in store.db.nodes() if n.kind.value != "topic"}
    edges = {(e.src, e.dst, e.kind.value, e.label) for e in store.db.edges() if e.kind.value != "member"}
    return nodes, edges, set(store.vectors.all_ids())


# --------------------------------------------------------------------------- the README snippet


def readme_snippet() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index("## Python quickstart") :]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


@pytest.mark.slow
def test_readme_python_snippet_runs_and_prints_ranked_evidence(tmp_path, monkeypatch):
    code = readme_snippet()
    assert "from memgraph_agents import Memory" in code and code.count("\n") <= 7
    assert '"/tmp/mem"' in code
    monkeypatch.chdir(tmp_path)  # the snippet needs no checkout: the sample ships in the package
    monkeypatch.setenv("MEMGRAPH_EMBEDDINGS", "hash")
    out = StringIO()
    with redirect_stdout(out):
        exec(compile(code.replace('"/tmp/mem"', repr(str(tmp_path / "mem"))), "README.md", "exec"), {})
    lines = out.getvalue().splitlines()
    k = int(re.search(r"search\(.*\bk=(\d+)\)", code).group(1))
    assert len(lines) == k and all(CITE.match(line) for line in lines), lines
    # The snippet stored the example: five sessions, and its evidence is the example's turns.
    mem = Memory(tmp_path / "mem", embeddings="hash")
    assert mem.stats()["sessions"] == 5
    assert all(re.match(r"\[2024-\d\d-\d\d \| S\d:\d+", line) for line in lines)
    assert any("handed in my notice" in line for line in lines)  # hashed words: near the top


@pytest.mark.integration
@pytest.mark.slow
def test_readme_python_snippet_prints_the_answering_turn_first(tmp_path, monkeypatch):
    """With the real model and the default retriever, the snippet's first line is the turn its
    comment shows: the one that answers the question."""
    code = readme_snippet()
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("MEMGRAPH_EMBEDDINGS", raising=False)
    monkeypatch.delenv("MEMGRAPH_RETRIEVER", raising=False)
    out = StringIO()
    with redirect_stdout(out):
        exec(compile(code.replace('"/tmp/mem"', repr(str(tmp_path / "mem"))), "README.md", "exec"), {})
    first = out.getvalue().splitlines()[0]
    shown = re.search(r"print\(ev\.cite\(\)\)\s*#\s*(\[[^\]]+\])", code).group(1)
    assert first.startswith(shown) and "handed in my notice" in first, first


# --------------------------------------------------------------------------- add / search / ask


@pytest.mark.slow
def test_add_file_conversation_and_messages_then_search(mem):
    r = mem.add(EXAMPLE)
    assert (r.namespace, r.conversations, r.sessions_added, r.turns) == ("alice", ["maya-jonas"], 5, 60)
    again = mem.add(EXAMPLE)  # unchanged sessions are skipped
    assert (again.sessions_added, again.sessions_unchanged, again.turns) == (0, 5, 0)

    r = mem.add(make_conversation("ana-ben"), namespace="bob")
    assert (r.namespace, r.sessions_added) == ("bob", 3)
    msgs = [
        HumanMessage("I booked a pottery class for next Tuesday.", id="m1"),
        AIMessage("Nice, which studio?", id="m2"),
        HumanMessage("Clayworks on Elm Street.", id="m3"),
    ]
    r = mem.add(msgs, namespace="bob", conversation_id="thread-7", when=datetime(2024, 5, 1, 9, 0))
    assert (r.conversations, r.sessions_added, r.turns) == (["thread-7"], 1, 3)

    assert mem.namespaces() == ["alice", "bob"]
    hits = mem.search("Which studio is the pottery class at?", namespace="bob", k=4, retriever="dense")
    assert len(hits) == 4 and hits[0].turn_ids[0].startswith("thread-7-s1:")
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    # namespace defaults to settings.namespace: alice holds no pottery class
    assert all(not t.startswith("thread-7") for h in mem.search("pottery class", k=5) for t in h.turn_ids)
    assert mem.search("anything", namespace="nobody-yet") == []


def test_search_defaults_k_and_retriever_from_settings(tmp_path):
    mem = Memory(tmp_path / "mem", embeddings="hash", top_k=2, retriever="bm25")
    mem.add(make_conversation())
    hits = mem.search("Lisbon half marathon")
    assert len(hits) == 2 and {h.retriever for h in hits} == {"bm25"}
    preset = Memory(settings=mem.settings, preset="emem")  # the preset's retriever: dense over events
    assert {h.kind for h in preset.search("Lisbon half marathon")} == {"event"}


def test_ask_offline_gives_evidence_and_trace_but_no_answer(shared):
    out = shared.ask("When did Ben run the Lisbon half marathon?", k=3, retriever="ppr")
    assert out.answer is None and out.namespace == "alice" and out.retriever == "ppr"
    assert len(out.evidence) == 3 and len(out.trace) == 3
    default = shared.ask("When did Ben run the Lisbon half marathon?", k=3)  # the default: the navigator graph
    assert default.retriever == "navigator" and default.answer is None and len(default.evidence) == 3
    nav = shared.ask("When did Ben run the Lisbon half marathon?", k=3, retriever="navigator")
    assert nav.retriever == "navigator" and nav.answer is None and len(nav.evidence) == 3
    assert any("localize" in line for line in nav.trace)


def test_ask_with_an_llm_answers_with_dates_and_cited_turns(shared):
    def responder(messages):
        prompt = task_text(messages)
        assert "Question: When did Ben run the Lisbon half marathon?" in prompt
        turn = re.search(r"\| (D\d:\d+)", prompt).group(1)
        return json.dumps({"answer": "Ben ran it the weekend before 10 June 2024.", "turn_ids": [turn]})

    model = register_model("fake:api-answer", responder)
    llm_mem = Memory(settings=shared.settings, llm="fake:api-answer")
    out = llm_mem.ask("When did Ben run the Lisbon half marathon?", k=3, retriever="bm25")
    assert out.answer == "Ben ran it the weekend before 10 June 2024."
    assert out.cited_turns and out.cited_turns[0] in {t for ev in out.evidence for t in ev.turn_ids}
    assert len(model.calls) == 1 and len(out.evidence) == 3


# --------------------------------------------------------------------------- notes and forget


def test_note_add_and_forget_is_exact(filled):
    before = graph_state(filled)
    r = filled.add("My dentist appointment moved to Thursday 14 March at 9:30.", when=datetime(2024, 3, 11, 8))
    assert len(r.note_ids) == 1 and r.sessions_added == 1
    note = r.note_ids[0]
    assert note.startswith("note-20240311T080000")
    during = graph_state(filled)
    assert during[0] > before[0] and during[2] > before[2]
    hits = filled.search("When is the dentist appointment?", k=1, retriever="bm25")
    assert hits[0].turn_ids == [f"{note}:1"] and hits[0].session_dates == ["2024-03-11"]

    out = filled.forget(note=note)
    assert out.sessions == [note] and out.nodes_removed > 0 and not out.namespace_deleted
    assert graph_state(filled) == before  # only that note's nodes, edges and vectors went
    assert filled.stats()["sessions"] == 3


def test_forget_session_namespace_and_errors(filled):
    filled.forget(session="S3")
    assert [s["id"] for s in get_store(filled.settings, "alice", create=False).sessions()] == ["S1", "S2"]
    with pytest.raises(InputError, match="no session 'S3'"):
        filled.forget(session="S3")
    with pytest.raises(InputError, match="not a note id"):
        filled.forget(note="S1")
    with pytest.raises(InputError, match="not both"):
        filled.forget(session="S1", note="note-x")
    with pytest.raises(InputError, match="only when named"):
        filled.forget()  # a whole namespace is never deleted by omission
    assert filled.stats()["sessions"] == 2
    out = filled.forget(namespace="alice")
    assert out.namespace_deleted and out.sessions == ["S1", "S2"]
    assert filled.namespaces() == []
    with pytest.raises(NamespaceNotFoundError, match="does not exist"):
        filled.forget(namespace="alice")
    with pytest.raises(NamespaceNotFoundError):
        filled.stats()


def test_stats(shared):
    s = shared.stats()
    assert s["namespace"] == "alice" and s["sessions"] == 3 and s["presets"] == ["base"]
    assert s["nodes"]["turn"] == 16 and s["vectors"] > 16


def test_bad_sources_change_nothing(filled, tmp_path):
    before = graph_state(filled)
    with pytest.raises(InputError, match="file not found"):
        filled.add(tmp_path / "missing.json")
    with pytest.raises(InputError, match="empty"):
        filled.add("   ")
    with pytest.raises(InputError, match="cannot add a int"):
        filled.add(42)
    assert graph_state(filled) == before


# --------------------------------------------------------------------------- validation


@pytest.mark.parametrize(
    "kwargs, field",
    [
        ({"top_k": -5}, "top_k"),
        ({"top_k": 0}, "top_k"),
        ({"preset": "nonexistent"}, "preset"),
        ({"retriever": "nope"}, "retriever"),
        ({"embeddings": "word2vec"}, "embeddings"),
        ({"llm": "gpt4"}, "llm"),
        ({"chroma_port": 70000}, "chroma_port"),
        ({"topk": 3}, "topk"),
        ({"ingest": {"sentence_knn": 99}}, "ingest.sentence_knn"),
    ],
)
def test_bad_settings_are_one_config_error_naming_the_field(tmp_path, kwargs, field):
    with pytest.raises(ConfigError) as exc:
        Memory(tmp_path / "mem", **{"embeddings": "hash", **kwargs})
    msg = str(exc.value)
    assert field in msg and "\n" not in msg and "pydantic" not in msg and "validation error" not in msg
    assert not (tmp_path / "mem").exists()


@pytest.mark.parametrize(
    "kwargs, words",
    [
        ({"k": 0}, "invalid k=0"),
        ({"k": -5}, "invalid k=-5"),
        ({"k": "3"}, "invalid k='3'"),
        ({"retriever": "nope"}, "unknown retriever 'nope'"),
        ({"namespace": "../etc"}, "invalid namespace"),
    ],
)
def test_bad_per_call_options(shared, kwargs, words):
    with pytest.raises((ConfigError, InputError), match=re.escape(words)):
        shared.search("Lisbon", **kwargs)
    with pytest.raises((ConfigError, InputError), match=re.escape(words)):
        shared.ask("Lisbon", **kwargs)


def test_run_contexts_are_validated_too(settings):
    with pytest.raises(ConfigError, match="top_k=-5"):
        MemoryContext(top_k=-5).settings(settings)
    with pytest.raises(ConfigError, match="preset='nonexistent'"):
        MemoryContext(preset="nonexistent").settings(settings)
    with pytest.raises(ConfigError, match="top_k=-5"):
        settings.override(top_k=-5)
    s = settings.override(top_k=3, ingest={"sentence_knn": 5}, llm_timeout=7)
    assert (s.top_k, s.ingest.sentence_knn, s.ingest.similar_max, s.llm_timeout) == (3, 5, 3, 7)
    assert MemoryContext.from_settings(s).settings(Settings(data_dir="/elsewhere")) == s  # one path, both ways


@pytest.mark.slow
def test_import_is_light():
    code = (
        "import sys, memgraph_agents as m; assert m.__version__ and 'Memory' in m.__all__; "
        "assert 'torch' not in sys.modules and 'langgraph' not in sys.modules, 'heavy import'; "
        "from memgraph_agents import Memory, MemgraphError, ConfigError; "
        "assert issubclass(ConfigError, MemgraphError) and 'torch' not in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)
    import memgraph_agents

    assert sorted(memgraph_agents.__all__) == sorted(["__version__", *memgraph_agents._LAZY])
    assert all(getattr(memgraph_agents, name) is not None for name in memgraph_agents.__all__)


# --------------------------------------------------------------------------- async twins


@pytest.mark.slow
def test_async_twins_run_concurrently_without_blocking_the_loop(mem):
    async def main() -> tuple[list[float], list]:
        ticks: list[float] = []
        stop = asyncio.Event()

        async def ticker() -> None:
            while not stop.is_set():
                ticks.append(time.perf_counter())
                await asyncio.sleep(0.01)

        t = asyncio.create_task(ticker())
        await asyncio.sleep(0.05)
        start = time.perf_counter()
        added = await asyncio.gather(
            mem.aadd(make_conversation("a")), mem.aadd(make_conversation("b", 2), namespace="bob")
        )
        results = await asyncio.gather(
            mem.asearch("Lisbon half marathon", k=3),
            mem.asearch("Riverside Library", k=3, retriever="navigator"),
            mem.aask("Who adopted a beagle?", namespace="bob", k=2),
            mem.astats("bob"),
        )
        note = await mem.aadd("Buy oat milk on the way home.")
        gone = await mem.aforget(note=note.note_ids[0])
        elapsed.append(time.perf_counter() - start)
        stop.set()
        await t
        return [x for x in ticks if x >= start], [*added, *results, gone]

    elapsed: list[float] = []
    ticks, (a, b, hits, nav, asked, stats, gone) = asyncio.run(main())
    assert (a.sessions_added, b.sessions_added) == (3, 2)
    assert len(hits) == 3 and nav and asked.evidence and stats["sessions"] == 2 and gone.sessions
    gaps = [y - x for x, y in zip(ticks, ticks[1:])]
    # The ticker kept ticking through every call: no step held the loop (a blocked loop shows
    # as one long gap; ingest and search here take seconds in all).
    assert max(gaps) < 1.0, max(gaps)
    assert len(ticks) >= elapsed[0] / 0.1, (len(ticks), elapsed)  # ticked all along, not only between calls


def test_cited_turns_are_read_from_the_answer_text():
    from memgraph_agents.api.ops import cited_in
    from memgraph_agents.model.evidence import Evidence

    ev = [
        Evidence(node_id="turn:S1:1", kind="turn", text="x", score=1.0, turn_ids=["S1:1"]),
        Evidence(node_id="event:S2:1", kind="event", text="y", score=0.5, turn_ids=["S2:1", "S2:11"]),
    ]
    answer = "Ben ran it on 3 March 2024 (S2:11), after signing up in February (S1:1)."
    assert cited_in(answer, ev) == ["S1:1", "S2:11"]  # S2:1 is not cited: S2:11 is another turn
    assert cited_in("The memory holds nothing about it.", ev) == []
