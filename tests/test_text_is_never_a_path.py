"""A ``str`` is text, never a path: no door (``Memory.add``, ``memgraph note add``, the MCP
``remember`` tool, the agent tools) opens a server-side file named by a caller. Files come as
``pathlib.Path`` objects or through ``memgraph ingest``.

Each test plants a readable conversation export on the "server" and names it as text; before
the fix every door ingested the file and ``recall`` returned its secret."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from memgraph_agents import Memory
from memgraph_agents.integrations import AgentMemory

ROOT = Path(__file__).resolve().parents[1]
SECRET = "The vault code is 4471 and the spare key hides under the blue pot."


def _export(tmp_path: Path) -> Path:
    """Another application's conversation export, readable by the server process."""
    path = tmp_path / "other-app" / "export.json"
    path.parent.mkdir()
    turn = {"id": "S1:1", "speaker": "Ops", "text": SECRET}
    path.write_text(json.dumps({"id": "other", "sessions": [{"id": "S1", "date": "2024-01-01", "turns": [turn]}]}))
    return path


def _stored_texts(mem: Memory, namespace: str) -> list[str]:
    page = mem.list(namespace)
    return [item.text for item in page.items]


def test_memory_add_reads_a_file_only_from_a_path_object(tmp_path):
    export = _export(tmp_path)
    mem = Memory(tmp_path / "mem", embeddings="hash")
    for text in (str(export), "export.json", f"  {export}  "):
        report = mem.add(text, namespace="tenant")
        assert report.note_ids and report.conversations[0].startswith("note-"), text
    texts = _stored_texts(mem, "tenant")
    assert len(texts) == 3 and not any("vault" in t for t in texts), texts
    assert all("vault" not in ev.text for ev in mem.search("vault code", namespace="tenant"))
    # The same file as a Path is the explicit way to ingest it.
    report = mem.add(export, namespace="owner")
    assert report.conversations == ["other"] and not report.note_ids
    assert any("vault" in ev.text for ev in mem.search("vault code", namespace="owner"))


def test_cli_note_add_stores_the_text_it_is_given(tmp_path):
    export = _export(tmp_path)
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "MEMGRAPH_LLM": "none"}
    base = [
        sys.executable,
        "-m",
        "memgraph_agents.cli.main",
        "--embeddings",
        "hash",
        "--data-dir",
        str(tmp_path / "mem"),
    ]
    out = subprocess.run(
        [*base, "note", "add", str(export), "--namespace", "tenant", "--json"],
        capture_output=True,
        text=True,
        env=env,
        cwd=str(tmp_path),
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["note_id"].startswith("note-")
    listing = subprocess.run(
        [*base, "list", "--namespace", "tenant", "--json"], capture_output=True, text=True, env=env, timeout=120
    )
    items = json.loads(listing.stdout)["items"]
    assert listing.returncode == 0 and [i["text"] for i in items] == [str(export)], listing.stdout


@pytest.mark.slow
@pytest.mark.timeout(180)
def test_mcp_remember_never_opens_a_server_file(tmp_path):
    export = _export(tmp_path)
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "memgraph_agents.cli.main", "mcp", "--namespace", "tenant"],
        env={
            **os.environ,
            "HF_HUB_OFFLINE": "1",
            "MEMGRAPH_LLM": "none",
            "MEMGRAPH_DATA_DIR": str(tmp_path / "mem"),
            "MEMGRAPH_EMBEDDINGS": "hash",
        },
        cwd=str(export.parent),  # even a bare file name in the server's working directory
    )

    async def go() -> None:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            for text in (str(export), "export.json", str(tmp_path / "absent.json")):
                r = await s.call_tool("remember", {"text": text})
                body = "\n".join(c.text for c in r.content if getattr(c, "type", "") == "text")
                assert not r.isError and body.strip().startswith("note-"), body  # no probe of existence either
            r = await s.call_tool("recall", {"query": "vault code spare key", "k": 10})
            body = "\n".join(c.text for c in r.content if getattr(c, "type", "") == "text")
            assert "4471" not in body and "blue pot" not in body, body

    asyncio.run(go())


def test_agent_remember_tool_stores_the_text(tmp_path):
    export = _export(tmp_path)
    mem = AgentMemory(Memory(tmp_path / "mem", embeddings="hash").settings)
    mem.remember(str(export), namespace="tenant")
    mem.flush()
    texts = _stored_texts(Memory(tmp_path / "mem", embeddings="hash"), "tenant")
    assert texts == [str(export)]
