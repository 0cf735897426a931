"""``memgraph mcp`` through real MCP clients: the official SDK over stdio and streamable HTTP,
and langchain-mcp-adapters inside ``create_agent`` (the LLM is the only fake)."""

from __future__ import annotations

import asyncio
import json
import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from langchain.agents import create_agent
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from tests.fakes import ScriptedChatModel
from tests.helpers import stop_server

pytestmark = pytest.mark.slow  # seconds per test: left out of the fast subset (-m "not slow")

ROOT = Path(__file__).resolve().parents[1]
TOOLS = {"recall", "remember", "list", "get", "update_note", "history", "forget_note", "ask", "stats"}


def _env(data_dir: Path) -> dict[str, str]:
    return {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "ANONYMIZED_TELEMETRY": "False",
        "MEMGRAPH_LLM": "none",
        "MEMGRAPH_DATA_DIR": str(data_dir),
        "MEMGRAPH_EMBEDDINGS": "hash",
    }


def _stdio(data_dir: Path, namespace: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "memgraph_agents.cli.main", "mcp", "--namespace", namespace],
        env=_env(data_dir),
        cwd=str(ROOT),
    )


def _text(result) -> str:
    return "\n".join(c.text for c in result.content if getattr(c, "type", "") == "text")


@pytest.mark.timeout(180)
def test_stdio_client_lists_tools_remembers_recalls_and_survives_bad_arguments(tmp_path):
    async def go():
        async with stdio_client(_stdio(tmp_path / "mem", "alice")) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            tools = {t.name: t for t in (await s.list_tools()).tools}
            assert set(tools) == TOOLS
            for t in tools.values():  # whose memory is never a tool argument
                assert not {"namespace", "user_id", "user"} & set(t.inputSchema.get("properties", {}))
            r = await s.call_tool("remember", {"text": "Ana adopted the beagle puppy Pixel on 3 May 2024."})
            assert not r.isError, _text(r)
            note = _text(r).strip()
            assert note.startswith("note-")
            r = await s.call_tool("recall", {"query": "When did Ana adopt Pixel?", "k": 3})
            assert not r.isError and "Pixel" in _text(r) and note in _text(r)
            for bad in ({"query": ""}, {"query": "x", "k": "many"}, {"k": 3}, {"query": "x", "k": 0}):
                r = await s.call_tool("recall", bad)
                assert r.isError, bad
            r = await s.call_tool("forget_note", {"note_id": "note-doesnotexist"})
            assert r.isError and "note-doesnotexist" in _text(r)
            stats = await s.call_tool("stats", {})
            assert not stats.isError and json.loads(_text(stats))["sessions"] == 1  # still alive
            r = await s.call_tool("forget_note", {"note_id": note})
            assert not r.isError
            assert json.loads(_text(await s.call_tool("stats", {})))["sessions"] == 0

    asyncio.run(go())


@pytest.mark.timeout(180)
def test_user_id_serves_the_namespace_the_agent_tools_use_for_that_user(tmp_path, capsys):
    """``--user-id`` maps as every door does: a note remembered over MCP is what the agent
    tools recall for that user (the same namespace); a bad id, a second scope or an empty
    --namespace (never the default) is one line."""
    from memgraph_agents import Memory
    from memgraph_agents.config import Settings
    from memgraph_agents.integrations import AgentMemory

    params = _stdio(tmp_path / "mem", "unused")
    params.args = ["-m", "memgraph_agents.cli.main", "mcp", "--user-id", "Ana Lima"]

    async def go() -> str:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            r = await s.call_tool("remember", {"text": "Ana's bike lock code is 3312."})
            assert not r.isError, _text(r)
            return _text(r).strip()

    note = asyncio.run(go())
    settings = Settings(data_dir=tmp_path / "mem", llm="none", embeddings="hash")
    ns = Memory.namespace_for_user("Ana Lima")
    assert [i.id for i in Memory(settings=settings).list(ns).items] == [note]
    assert Memory(settings=settings).stats(ns)["user_id"] == "Ana Lima"  # the id kept with its namespace
    agent = AgentMemory(settings)
    assert agent.namespace_for(None, {"configurable": {"user_id": "Ana Lima"}}) == ns
    found = agent.recall("bike lock code", config={"configurable": {"user_id": "Ana Lima"}})
    assert "3312" in found.content()
    bad = (("--user-id", " Ana"), ("--user-id", ""), ("--user-id", "Ana", "--namespace", "ana"), ("--namespace", ""))
    for argv in bad:
        code, err = _mcp_cli(*argv, data_dir=tmp_path / "other", capsys=capsys)
        assert code == 2 and len(err) == 1 and err[0].startswith("error: "), (argv, err)
    assert not (tmp_path / "other").exists()  # refused before anything was opened


def _agent_model():
    """Remember the user's statement, then recall it, then answer from the recalled text."""

    def respond(messages):
        last = messages[-1]
        tools_done = [m for m in messages if isinstance(m, ToolMessage)]
        if isinstance(last, HumanMessage):
            return AIMessage(
                content="",
                tool_calls=[
                    {
                        "name": "remember",
                        "id": "c1",
                        "type": "tool_call",
                        "args": {"text": "Maya finished the half marathon in 1:58:41."},
                    }
                ],
            )
        if len(tools_done) == 1:
            return AIMessage(
                content="",
                tool_calls=[
                    {
                        "name": "recall",
                        "id": "c2",
                        "type": "tool_call",
                        "args": {"query": "Maya half marathon finish time"},
                    }
                ],
            )
        return f"From memory: {tools_done[-1].content}"

    return ScriptedChatModel(responder=respond)


@pytest.mark.timeout(180)
def test_langchain_mcp_adapters_load_the_tools_into_create_agent(tmp_path):
    from langchain_mcp_adapters.client import MultiServerMCPClient

    p = _stdio(tmp_path / "mem", "maya")
    client = MultiServerMCPClient(
        {"memory": {"transport": "stdio", "command": p.command, "args": p.args, "env": p.env, "cwd": p.cwd}}
    )

    async def go():
        tools = await client.get_tools()
        assert {t.name for t in tools} == TOOLS
        agent = create_agent(_agent_model(), tools=tools)
        return await agent.ainvoke({"messages": [HumanMessage("Maya ran her half marathon in 1:58:41.")]})

    out = asyncio.run(go())
    assert "1:58:41" in out["messages"][-1].content


@pytest.mark.timeout(180)
def test_one_client_session_is_one_server_process_for_every_tool_call(tmp_path):
    """The README's snippet: ``client.session`` + ``load_mcp_tools`` keeps one server (and one
    loaded model) for the agent's life; ``get_tools()`` would start a server per tool call."""
    from langchain_mcp_adapters.client import MultiServerMCPClient
    from langchain_mcp_adapters.tools import load_mcp_tools

    starts = tmp_path / "starts.log"
    wrapper = (
        f"import sys; open({str(starts)!r}, 'a').write('start\\n'); "
        "from memgraph_agents.cli.main import main; sys.exit(main(['mcp', '--namespace', 'maya']))"
    )
    p = _stdio(tmp_path / "mem", "maya")
    client = MultiServerMCPClient(
        {"memory": {"transport": "stdio", "command": sys.executable, "args": ["-c", wrapper], "env": p.env}}
    )

    async def go():
        async with client.session("memory") as session:
            tools = await load_mcp_tools(session)
            assert {t.name for t in tools} == TOOLS
            agent = create_agent(_agent_model(), tools=tools)
            first = await agent.ainvoke({"messages": [HumanMessage("Maya ran her half marathon in 1:58:41.")]})
            second = await agent.ainvoke({"messages": [HumanMessage("Maya ran her half marathon in 1:58:41.")]})
            return first, second

    first, second = asyncio.run(go())
    assert "1:58:41" in first["messages"][-1].content and "1:58:41" in second["messages"][-1].content
    assert starts.read_text().splitlines() == ["start"]  # four tool calls, one server process


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.timeout(180)
def test_http_tokens_cannot_read_each_other(tmp_path):
    tokens = tmp_path / "tokens.json"
    tokens.write_text(json.dumps({"tok-ana-4f1c9e27a3b8": "ana", "tok-ben-8d2e6b1f0c47": "ben"}))
    tokens.chmod(0o600)  # secrets: a file others can read is refused
    port = _free_port()
    log = (tmp_path / "mcp.log").open("w")
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "memgraph_agents.cli.main",
            "mcp",
            "--transport",
            "http",
            "--port",
            str(port),
            "--tokens",
            str(tokens),
        ],
        cwd=ROOT,
        env=_env(tmp_path / "mem"),
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        deadline = time.monotonic() + 60
        while True:
            assert server.poll() is None, (tmp_path / "mcp.log").read_text()[-2000:]
            try:
                httpx.get(url, timeout=2)
                break
            except httpx.HTTPError:
                assert time.monotonic() < deadline, "the MCP server did not start"
                time.sleep(0.3)
        assert httpx.post(url, json={}, timeout=5).status_code == 401  # no token, no memory
        assert httpx.post(url, json={}, headers={"Authorization": "Bearer nope"}, timeout=5).status_code == 401

        async def call(token: str, tool: str, args: dict, *, error: bool = False) -> str:
            async with (
                httpx.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60) as http,
                streamable_http_client(url, http_client=http) as (read, write, _),
                ClientSession(read, write) as s,
            ):
                await s.initialize()
                r = await s.call_tool(tool, args)
                assert r.isError == error, _text(r)
                return _text(r)

        async def go():
            note = await call("tok-ana-4f1c9e27a3b8", "remember", {"text": "Ana's locker code is 4471."})
            ana = await call("tok-ana-4f1c9e27a3b8", "recall", {"query": "locker code"})
            ben = await call("tok-ben-8d2e6b1f0c47", "recall", {"query": "locker code"})
            ben_stats = json.loads(await call("tok-ben-8d2e6b1f0c47", "stats", {}))
            # Ben names Ana's note to every item tool: refused, in words that show nothing of
            # Ana or the server (before Ben stored anything, and after).
            by_note = (
                ("forget_note", {"note_id": note}),
                ("get", {"item_id": note}),
                ("history", {"note_id": note}),
                ("update_note", {"note_id": note, "text": "The locker code is 0000."}),
            )
            empty = [await call("tok-ben-8d2e6b1f0c47", tool, args, error=True) for tool, args in by_note]
            await call("tok-ben-8d2e6b1f0c47", "remember", {"text": "Ben parks on level two."})
            denied = [await call("tok-ben-8d2e6b1f0c47", tool, args, error=True) for tool, args in by_note]
            ben_list = json.loads(await call("tok-ben-8d2e6b1f0c47", "list", {"kind": "note"}))
            after = await call("tok-ana-4f1c9e27a3b8", "recall", {"query": "locker code"})
            ana_history = json.loads(await call("tok-ana-4f1c9e27a3b8", "history", {"note_id": note}))
            return note, ana, ben, ben_stats, empty, denied, ben_list, after, ana_history

        note, ana, ben, ben_stats, empty, denied, ben_list, after, ana_history = asyncio.run(go())
        assert "4471" in ana and "4471" in after  # Ana's note survived Ben's attempts
        assert [v["text"] for v in ana_history["versions"]] == ["Ana's locker code is 4471."]
        assert "4471" not in ben and ben_stats["sessions"] == 0
        assert ben_list["namespace"] == "ben" and [i["text"] for i in ben_list["items"]] == ["Ben parks on level two."]
        assert re.search(r"note-[0-9a-f]+", ana)
        data_dir = tmp_path / "mem"
        for text in empty + denied:
            assert "ana" not in text.lower(), text
            assert str(data_dir) not in text and str(data_dir.resolve()) not in text and "/" not in text, text
        assert all("nothing is stored in this memory yet" in text for text in empty), empty
        assert all(note in text for text in denied), denied  # its own input may be named back
    finally:
        stop_server(server)
        log.close()
    # stderr at WARNING (docs/mcp.md): no library's DEBUG line, no traceback per client disconnect
    logged = (tmp_path / "mcp.log").read_text()
    assert "DEBUG" not in logged and "INFO" not in logged, logged[-3000:]
    assert "ClosedResourceError" not in logged and "Traceback" not in logged, logged[-3000:]
    assert "WARNING" in logged  # a refused tool call still shows


BAD_TOKEN_FILES = {
    "maps no token": "{}",
    "empty": "",
    "not an object": '["tok-ana-4f1c9e27a3b8"]',
    "not JSON": "{tok-ana-4f1c9e27a3b8: ana",
    "a namespace that is not a string": '{"tok-ana-4f1c9e27a3b8": 5}',
    "an empty token": '{"": "ana"}',
    "an invalid namespace": '{"tok-ana-4f1c9e27a3b8": "../ana"}',
}


def _mcp_cli(*argv: str, data_dir: Path, capsys) -> tuple[int, list[str]]:
    from memgraph_agents.cli.main import main

    code = main(["--embeddings", "hash", "--data-dir", str(data_dir), "mcp", *argv])
    return code, [line for line in capsys.readouterr().err.splitlines() if line.strip()]


@pytest.mark.timeout(60)  # the server must refuse before it listens, never serve
@pytest.mark.parametrize("problem", sorted(BAD_TOKEN_FILES))
def test_a_token_file_that_maps_no_token_refuses_to_start(tmp_path, capsys, problem):
    tokens = tmp_path / "tokens.json"
    tokens.write_text(BAD_TOKEN_FILES[problem])
    argv = ("--transport", "http", "--port", str(_free_port()), "--tokens", str(tokens))
    code, err = _mcp_cli(*argv, data_dir=tmp_path / "mem", capsys=capsys)
    assert code == 2 and len(err) == 1 and err[0].startswith("error: token file"), err
    assert not (tmp_path / "mem").exists()  # refused before anything was opened


@pytest.mark.timeout(60)
def test_an_unreadable_or_missing_token_file_refuses_to_start(tmp_path, capsys):
    for path in (tmp_path, tmp_path / "missing.json"):  # a folder, a missing file
        code, err = _mcp_cli("--transport", "http", "--tokens", str(path), data_dir=tmp_path / "mem", capsys=capsys)
        assert code == 2 and len(err) == 1 and "cannot be read" in err[0], err


@pytest.mark.timeout(60)
def test_http_beyond_loopback_needs_tokens_and_a_bad_port_is_one_line(tmp_path, capsys):
    port = str(_free_port())
    code, err = _mcp_cli("--transport", "http", "--host", "0.0.0.0", "--port", port, data_dir=tmp_path, capsys=capsys)
    assert code == 2 and len(err) == 1 and "without --tokens" in err[0], err
    for bad in ("99999", "0", "http"):
        with pytest.raises(SystemExit) as exit_:
            _mcp_cli("--transport", "http", "--port", bad, data_dir=tmp_path, capsys=capsys)
        assert exit_.value.code == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert "argument --port" in err[-1] and "Traceback" not in "\n".join(err), err


@pytest.mark.timeout(120)
def test_an_empty_token_file_never_serves_a_client(tmp_path):
    """The process exits with one error and the port never answers: no client without a token
    (or with one) reaches the memory."""
    tokens = tmp_path / "tokens.json"
    tokens.write_text("{}")
    port = _free_port()
    argv = [sys.executable, "-m", "memgraph_agents.cli.main", "mcp", "--transport", "http"]
    done = subprocess.run(
        [*argv, "--port", str(port), "--tokens", str(tokens)],
        cwd=ROOT,
        env=_env(tmp_path / "mem"),
        capture_output=True,
        text=True,
        timeout=90,
    )
    assert done.returncode == 2, done.stderr[-2000:]
    assert done.stderr.strip().splitlines() == [f"error: token file {tokens} maps no token to a namespace"]
    with pytest.raises(httpx.HTTPError):
        httpx.post(f"http://127.0.0.1:{port}/mcp", json={}, timeout=2)
