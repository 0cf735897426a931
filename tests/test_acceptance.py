"""The everyday verbs as a new user meets them, from an installed wheel (not the checkout): a
script using only ``from memgraph_agents import Memory``, the same flow through the CLI and
through the official MCP client over stdio, and the chatbot example run offline.

Each flow adds a conversation and two notes with metadata, lists them, gets one, updates it
(history: two versions), filters a search by date, speaker and metadata, and deletes one note;
the Python and CLI flows also search two namespaces at once (an MCP server serves one)."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

ROOT = Path(__file__).resolve().parents[1]
CONVERSATION = {
    "id": "garden-chat",
    "metadata": {"project": "garden"},
    "sessions": [
        {
            "id": "S1",
            "date": "2024-01-10",
            "turns": [
                {"speaker": "Ana", "text": "I planted tulips along the fence today."},
                {"speaker": "Ben", "text": "Tulips in January? Bold choice."},
            ],
        },
        {
            "id": "S2",
            "date": "2024-06-02",
            "turns": [
                {"speaker": "Ana", "text": "The tulips are gone, I planted sunflowers instead."},
                {"speaker": "Ben", "text": "I planted sunflowers near the shed as well."},
            ],
        },
    ],
}


pytestmark = pytest.mark.slow  # builds a wheel, runs the CLI, the MCP client and the chatbot from it


@pytest.fixture(scope="module")
def wheel_env(tmp_path_factory) -> dict[str, str]:
    """An environment whose ``memgraph_agents`` is the wheel built from this tree."""
    root = tmp_path_factory.mktemp("wheel")
    src = root / "src"
    shutil.copytree(
        ROOT, src, ignore=shutil.ignore_patterns(".venv*", ".git", "build", "dist", "*.egg-info", "__pycache__")
    )
    pip = [sys.executable, "-m", "pip", "-q"]
    subprocess.run([*pip, "wheel", "--no-deps", "--no-build-isolation", "-w", str(root), str(src)], check=True)
    [wheel] = root.glob("memgraph_agents-*.whl")
    subprocess.run([*pip, "install", "--no-deps", "--target", str(root / "site"), str(wheel)], check=True)
    return {
        **os.environ,
        "PYTHONPATH": str(root / "site"),
        "HF_HUB_OFFLINE": "1",
        "ANONYMIZED_TELEMETRY": "False",
        "MEMGRAPH_LLM": "none",
        "MEMGRAPH_EMBEDDINGS": "hash",
        "MEMGRAPH_RETRIEVER": "bm25",
    }


def py(env: dict, cwd: Path, *args: str) -> str:
    out = subprocess.run([sys.executable, *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_python_api_from_the_wheel(wheel_env, tmp_path):
    script = tmp_path / "everyday.py"
    script.write_text(
        textwrap.dedent(
            """
            import json, sys
            from memgraph_agents import Memory

            import memgraph_agents
            assert memgraph_agents.__file__.startswith(sys.argv[2]), memgraph_agents.__file__
            mem = Memory(sys.argv[1])
            mem.add(json.loads(sys.argv[3]), namespace="ana")
            n1 = mem.add("Eva's bike is red", namespace="ana", metadata={"topic": "bike"}).note_ids[0]
            n2 = mem.add("Eva keeps bees", namespace="ana", metadata={"topic": "bees"}).note_ids[0]
            page = mem.list("ana")
            assert [i.id for i in page.items][:2] == [n2, n1] and len(page.items) == 4, page
            assert mem.get(n1, namespace="ana").metadata == {"topic": "bike"}
            mem.update(n1, "Eva's bike is blue now", namespace="ana")
            assert [v.text for v in mem.history(n1, namespace="ana").versions] == ["Eva's bike is red", "Eva's bike is blue now"]
            later = mem.search("planted", namespace="ana", since="2024-05-01", until="2024-07-01")
            assert later and all(t.startswith("S2:") for e in later for t in e.turn_ids), later
            ben = mem.search("planted", namespace="ana", speaker="Ben")
            assert ben and all("Ben" in e.text for e in ben), ben
            bikes = mem.search("Eva", namespace="ana", filter={"topic": {"$in": ["bike"]}})
            assert [e.turn_ids for e in bikes] == [[n1 + ":1"]], bikes
            mem.add("Team rule: the shed key is under the pot", namespace="team")
            both = mem.search("shed", namespaces=["ana", "team"])
            assert {e.namespace for e in both} == {"ana", "team"}, both
            mem.forget(namespace="ana", note=n2)
            assert n2 not in [i.id for i in mem.list("ana").items]
            print("everyday verbs: ok")
            """
        )
    )
    site = wheel_env["PYTHONPATH"]
    out = py(wheel_env, tmp_path, str(script), str(tmp_path / "mem"), site, json.dumps(CONVERSATION))
    assert "everyday verbs: ok" in out


def test_cli_from_the_wheel(wheel_env, tmp_path):
    conv = tmp_path / "garden.json"
    conv.write_text(json.dumps(CONVERSATION))

    def cli(*args: str) -> str:
        return py(wheel_env, tmp_path, "-m", "memgraph_agents.cli.main", "--data-dir", str(tmp_path / "mem"), *args)

    cli("ingest", str(conv), "--namespace", "ana", "--metadata", '{"source": "chat"}')
    n1 = json.loads(
        cli("note", "add", "Eva's bike is red", "--namespace", "ana", "--metadata", '{"topic": "bike"}', "--json")
    )["note_id"]
    n2 = json.loads(
        cli("note", "add", "Eva keeps bees", "--namespace", "ana", "--metadata", '{"topic": "bees"}', "--json")
    )["note_id"]
    page = json.loads(cli("list", "--namespace", "ana", "--json"))
    assert [i["id"] for i in page["items"]][:2] == [n2, n1]
    assert [i["metadata"] for i in page["items"]][2:] == [{"project": "garden", "source": "chat"}] * 2
    assert '"topic": "bike"' in cli("show", n1, "--namespace", "ana")
    cli("note", "update", n1, "Eva's bike is blue now", "--namespace", "ana")
    assert len(json.loads(cli("note", "history", n1, "--namespace", "ana", "--json"))["versions"]) == 2
    later = cli("ask", "planted", "--namespace", "ana", "--since", "2024-05-01", "--speaker", "Ben")
    assert "S2:2" in later and "S1:" not in later and "S2:1" not in later
    assert f"{n1}:1" in cli("ask", "Eva", "--namespace", "ana", "--filter", "topic=bike,car")
    cli("note", "add", "Team rule: the shed key is under the pot", "--namespace", "team")
    both = cli("ask", "shed", "--namespace", "ana", "--namespace", "team")
    assert "1. ana: " in both or "1. team: " in both
    assert " ana: " in both and " team: " in both
    cli("note", "forget", n2, "--namespace", "ana")
    assert n2 not in cli("list", "--namespace", "ana", "--json")


def _text(result) -> str:
    return "\n".join(c.text for c in result.content if getattr(c, "type", "") == "text")


@pytest.mark.timeout(240)
def test_mcp_client_from_the_wheel(wheel_env, tmp_path):
    env = {**wheel_env, "MEMGRAPH_DATA_DIR": str(tmp_path / "mem")}
    py(env, tmp_path, "-c", f"from memgraph_agents import Memory; Memory().add({CONVERSATION!r}, namespace='ana')")
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "memgraph_agents.cli.main", "mcp", "--namespace", "ana"],
        env=env,
        cwd=str(tmp_path),
    )

    async def go() -> None:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
            await s.initialize()

            async def call(tool: str, **args):
                r = await s.call_tool(tool, args)
                assert not r.isError, (tool, _text(r))
                sc = r.structuredContent
                if not sc:  # an object result comes as its JSON text
                    text = _text(r)
                    return json.loads(text) if text.startswith("{") else text
                return sc["result"] if set(sc) == {"result"} else sc

            n1 = (await call("remember", text="Eva's bike is red", metadata={"topic": "bike"})).strip()
            n2 = (await call("remember", text="Eva keeps bees", metadata={"topic": "bees"})).strip()
            page = await call("list")
            assert [i["id"] for i in page["items"]][:2] == [n2, n1]
            assert (await call("get", item_id=n1))["metadata"] == {"topic": "bike"}
            await call("update_note", note_id=n1, text="Eva's bike is blue now")
            assert len((await call("history", note_id=n1))["versions"]) == 2
            later = await call("recall", query="planted", since="2024-05-01", speaker="Ben")
            assert "S2:2" in later and "S1:" not in later and "S2:1" not in later
            assert f"{n1}:1" in await call("recall", query="Eva", filter={"topic": {"$in": ["bike"]}})
            await call("forget_note", note_id=n2)
            assert n2 not in json.dumps(await call("list", kind="note"))
            bad = await s.call_tool("list", {"filter": {"topic": {"$nope": 1}}})
            assert bad.isError and "unknown operator" in _text(bad)

    asyncio.run(go())


def test_chatbot_example_runs_offline_from_the_wheel(wheel_env, tmp_path):
    args = ["-m", "memgraph_agents.examples.chatbot", "--user", "ana", "--data-dir", str(tmp_path / "mem")]
    py(wheel_env, tmp_path, *args, "--message", "My bike is a red road bike")
    out = py(wheel_env, tmp_path, *args, "--message", "What colour is my bike?")
    assert "offline" in out and "red road bike" in out
