"""The examples: the README's 10-line snippet, the terminal chatbot (offline, across runs), replay."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from memgraph_agents.examples import chatbot, replay, ten_lines
from tests.fakes import ScriptedChatModel

ROOT = Path(__file__).resolve().parents[1]


def snippet() -> str:
    """The marked block of examples/ten_lines.py, dedented (what the README shows)."""
    text = (ROOT / "examples" / "ten_lines.py").read_text(encoding="utf-8")
    body = re.search(r"# --8<-- \[start:ten-lines\]\n(.*?)\n\s*# --8<-- \[end:ten-lines\]", text, re.S).group(1)
    return textwrap.dedent(body)


def test_ten_lines_snippet_is_in_the_readme_and_about_ten_lines():
    code = snippet()
    lines = [ln for ln in code.splitlines() if ln.strip()]
    assert len(lines) <= 12
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert code.strip() in readme, "README's 'Memory for your agent' snippet drifted from examples/ten_lines.py"


@pytest.fixture
def env_memory(tmp_path, monkeypatch):
    monkeypatch.setenv("MEMGRAPH_DATA_DIR", str(tmp_path / "mem"))
    monkeypatch.setenv("MEMGRAPH_EMBEDDINGS", "hash")
    monkeypatch.setenv("MEMGRAPH_LLM", "none")
    return tmp_path / "mem"


def test_ten_lines_runs_with_a_chat_model(env_memory, capsys):
    def respond(messages):
        last = messages[-1]
        if isinstance(last, HumanMessage) and "?" in last.content:
            return AIMessage(
                content="",
                tool_calls=[
                    {"name": "recall", "args": {"query": "dog beagle called"}, "id": "c1", "type": "tool_call"}
                ],
            )
        if isinstance(last, ToolMessage):
            name = re.search(r"beagle called (\w+)", last.content)
            return f"Your dog is called {name.group(1)}." if name else "I don't know."
        return "Congratulations!"

    reply = ten_lines.main(ScriptedChatModel(responder=respond))
    assert reply == "Your dog is called Pixel."
    assert "Your dog is called Pixel." in capsys.readouterr().out


def test_ten_lines_runs_offline(env_memory, capsys):
    reply = ten_lines.main()  # no MEMGRAPH_LLM: the offline stand-in shows the recalled evidence
    assert "beagle called Pixel" in reply and "offline mode" in reply


@pytest.mark.slow
def test_terminal_chatbot_offline_remembers_across_runs(tmp_path):
    data_dir = tmp_path / "mem"
    args = ["--data-dir", str(data_dir), "--embeddings", "hash", "--user", "alice"]
    env = {k: v for k, v in os.environ.items() if k not in ("MEMGRAPH_LLM", "OPENAI_API_KEY", "OPENAI_BASE_URL")}
    env.update(HF_HUB_OFFLINE="1", ANONYMIZED_TELEMETRY="False")
    # run 1, its own process (embedded Chroma: one process per data dir at a time)
    first = subprocess.run(
        [
            sys.executable,
            str(ROOT / "examples" / "chatbot.py"),
            *args,
            "-m",
            "I adopted a beagle called Pixel last week.",
            "-m",
            "My sister Eva lives in Porto.",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=tmp_path,
    )
    assert first.returncode == 0, first.stderr[-3000:]
    assert "offline" in first.stdout and "saving memory" in first.stdout
    # run 2, a new session: it recalls what run 1 said
    out = io.StringIO()
    assert chatbot.main([*args, "-m", "What is my dog called?"], out=out) == 0
    text = out.getvalue()
    assert "bot> Memory evidence" in text and "alice: I adopted a beagle called Pixel" in text
    assert "offline mode" in text
    # another user does not see it
    out = io.StringIO()
    chatbot.main([*args[:-1], "bob", "-m", "What is my dog called?"], out=out)
    assert "Pixel" not in out.getvalue() and "Nothing in memory" in out.getvalue()


@pytest.mark.slow
def test_replay_compares_every_retriever(tmp_path):
    out = io.StringIO()
    result = replay.main(["--data-dir", str(tmp_path / "mem"), "--embeddings", "hash", "-k", "5"], out=out)
    from memgraph_agents.registry import RETRIEVERS

    assert list(result) == list(RETRIEVERS)
    assert all(0.0 <= r["recall"] <= 1.0 for r in result.values())
    assert max(r["recall"] for r in result.values()) > 0
    text = out.getvalue()
    assert "q1 When was Jonas's second interview" in text and "summary over 8 questions" in text
    assert "✓" in text  # gold evidence turns are marked
