"""Every door shows what replaced a statement, "(superseded on DATE by TURN)", and the question a
short reply answers, "(in reply to TURN Speaker: "…?")", in the one wording ``Evidence`` gives
(``mark``, ``context_note``): ``Memory.search``, ``memgraph ask`` / ``show`` (the CLI as a
subprocess), the MCP recall text (the official client over stdio), the agent tools' text, the
retrieval graph's output and the trace page. Hash embeddings: the link comes from a
self-correction ("Scratch that: …"), which needs no model to be recognised."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import pytest

from memgraph_agents.api import Memory
from memgraph_agents.config import Settings
from memgraph_agents.model.conversation import Conversation, Session, Turn
from memgraph_agents.model.evidence import Evidence, TurnContext

ROOT = Path(__file__).resolve().parents[1]
NS = "marks"
MARK = "(superseded on 2024-03-01 by S2:2)"
CONTEXT = '(in reply to S2:3 Tove: "When do you start the new job?")'
BANK_Q = "Which bank does Ansgar use?"
START_Q = "When does Ansgar start the new job?"


def chat() -> Conversation:
    a, t = "Ansgar", "Tove"
    s1 = [(a, "My bank is Northbridge Savings, they have the best app."), (t, "Nice, mine is terrible.")]
    s2 = [
        (t, "Did you sort out the account?"),
        (a, "Scratch that: my bank is now Coral Credit Union."),
        (t, "When do you start the new job?"),
        (a, "April 2. The office is by the river."),
    ]
    sessions = [
        Session(
            id=sid,
            date=day,
            turns=[Turn(id=f"{sid}:{i}", speaker=w, text=x) for i, (w, x) in enumerate(lines, start=1)],
            participants=[a, t],
        )
        for sid, day, lines in (("S1", datetime(2024, 1, 10, 9), s1), ("S2", datetime(2024, 3, 1, 9), s2))
    ]
    return Conversation(id="marks", sessions=sessions, speakers=[a, t])


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory) -> Path:
    """The chat ingested in-process (the in-process doors read it here)."""
    d = tmp_path_factory.mktemp("marks") / "mem"
    Memory(settings=_settings(d)).add(chat(), namespace=NS)
    return d


@pytest.fixture(scope="module")
def cli_dir(tmp_path_factory) -> Path:
    """The chat ingested by another process: embedded Chroma allows one process per directory,
    so the subprocess doors (CLI, MCP server) read a directory this process never opened."""
    d = tmp_path_factory.mktemp("marks-cli") / "mem"
    code = (
        "from tests.test_marks import chat, _settings, NS; from memgraph_agents.api import Memory; "
        f"from pathlib import Path; Memory(settings=_settings(Path({str(d)!r}))).add(chat(), namespace=NS)"
    )
    subprocess.run([sys.executable, "-c", code], env=_env(d), cwd=str(ROOT), check=True, timeout=120)
    return d


def _settings(d: Path) -> Settings:
    return Settings(data_dir=d, embeddings="hash", llm="none", relevance_floor=0.0)


def _env(d: Path) -> dict[str, str]:
    return {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "ANONYMIZED_TELEMETRY": "False",
        "MEMGRAPH_LLM": "none",
        "MEMGRAPH_DATA_DIR": str(d),
        "MEMGRAPH_EMBEDDINGS": "hash",
        "MEMGRAPH_MIN_SCORE": "0",
    }


def _cli(d: Path, *argv: str) -> str:
    out = subprocess.run(
        [sys.executable, "-m", "memgraph_agents.cli.main", *argv],
        env=_env(d),
        cwd=str(ROOT),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_the_mark_and_the_context_have_one_wording():
    ev = Evidence(
        node_id="turn:S2:4",
        kind="turn",
        text="Ansgar: April 2.",
        score=1.0,
        turn_ids=["S2:4"],
        session_dates=["2024-03-01"],
        context=TurnContext(turn_id="S2:3", text="Tove: Great! When do you start the new job?"),
        current=False,
        superseded_by=["S3:1"],
        superseded_on="2024-05-02",
    )
    assert ev.mark() == "(superseded on 2024-05-02 by S3:1)"
    assert ev.mark(human=True) == "(superseded on 2 May 2024 by S3:1)"
    assert ev.context_note() == CONTEXT  # the question only, not "Great!"
    assert ev.cite() == f"[2024-03-01 | S2:4] {CONTEXT} Ansgar: April 2. (superseded on 2024-05-02 by S3:1)"
    assert ev.model_copy(update={"context": None, "superseded_by": []}).cite() == "[2024-03-01 | S2:4] Ansgar: April 2."


def test_search_marks_the_replaced_statement_and_gives_a_reply_its_question(data_dir):
    mem = Memory(settings=_settings(data_dir))
    ev = {e.turn_ids[0]: e for e in mem.search(BANK_Q, namespace=NS, k=6)}
    assert not ev["S1:1"].current and ev["S1:1"].superseded_by == ["S2:2"]
    assert ev["S1:1"].cite().endswith(MARK)
    assert ev["S2:2"].current and ev["S2:2"].supersedes == ["S1:1"]
    got = mem.search(START_Q, namespace=NS, k=6)
    reply = next(e for e in got if e.turn_ids == ["S2:4"])
    assert reply.context == TurnContext(turn_id="S2:3", text="Tove: When do you start the new job?")
    assert len(got) == len({e.node_id for e in got})  # the question is context, not another item
    # a turn after a statement, or by the same speaker, has none
    assert all(e.context is None for e in got if e.turn_ids[0] in {"S1:1", "S1:2", "S2:1", "S2:3"})


@pytest.mark.slow  # CLI processes, and the fixture's
def test_cli_ask_and_show_print_the_marks(cli_dir):
    out = _cli(cli_dir, "ask", BANK_Q, "--namespace", NS, "-k", "6")
    line = next(ln for ln in out.splitlines() if "| S1:1]" in ln)
    assert line.rstrip().endswith(MARK)
    out = _cli(cli_dir, "ask", START_Q, "--namespace", NS, "-k", "6")
    line = next(ln for ln in out.splitlines() if "| S2:4]" in ln)
    assert CONTEXT in line
    out = _cli(cli_dir, "show", "S1:1", "--namespace", NS)
    assert any(ln.rstrip().endswith(MARK) for ln in out.splitlines() if "| S1:1]" in ln)
    out = _cli(cli_dir, "show", "S2:4", "--namespace", NS)
    assert "[2024-03-01 | S2:4] Ansgar: April 2." in out and CONTEXT in out


def test_agent_tools_text_and_retrieval_graph_output_carry_the_marks(data_dir):
    from graphs.retrieval import build_retrieval_graph
    from memgraph_agents.integrations import create_memory_tools
    from memgraph_agents.runtime import MemoryContext

    tools = create_memory_tools(_settings(data_dir), default_namespace=NS, k=6)
    recall = next(t for t in tools if t.name == "recall")
    text = recall.invoke({"query": BANK_Q})
    text = text if isinstance(text, str) else text[0]
    assert MARK in text
    graph = build_retrieval_graph()
    ctx = MemoryContext(data_dir=str(data_dir), namespace=NS, embeddings="hash", retriever="oneshot")
    out = graph.invoke({"query": BANK_Q, "k": 6}, context=ctx)
    assert any(c.endswith(MARK) for c in out["citations"])
    assert any(e["superseded_by"] == ["S2:2"] for e in out["evidence"])


@pytest.mark.slow  # CLI processes, and the fixture's
def test_trace_page_shows_the_mark(cli_dir, tmp_path):
    page = tmp_path / "trace.html"
    _cli(cli_dir, "trace", BANK_Q, "--namespace", NS, "-k", "6", "--out", str(page))
    assert MARK in page.read_text(encoding="utf-8")


@pytest.mark.slow
@pytest.mark.timeout(180)
def test_mcp_recall_text_through_the_official_client(cli_dir):
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "memgraph_agents.cli.main", "mcp", "--namespace", NS],
        env=_env(cli_dir),
        cwd=str(ROOT),
    )

    async def go() -> tuple[str, str]:
        # errlog named at call time: stdio_client's default is the sys.stderr of its first import,
        # which may be another test's capture buffer (no fileno)
        async with stdio_client(params, errlog=sys.stderr) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            texts = []
            for q in (BANK_Q, START_Q):
                r = await s.call_tool("recall", {"query": q, "k": 6})
                texts.append("\n".join(c.text for c in r.content if getattr(c, "type", "") == "text"))
            return texts[0], texts[1]

    bank, start = asyncio.run(go())
    assert any(ln.endswith(MARK) for ln in bank.splitlines())
    assert CONTEXT in start
