"""Writers share a data dir: the data dir's process lock is held per write, not for the life of
a process, so an agent, ``memgraph ui``, the CLI and an MCP server run side by side on one
embedded data dir and every write lands. (An open embedded Chroma index still holds the data
dir: tests/test_concurrency.py::test_embedded_chroma_is_one_process_per_data_dir.)"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

from memgraph_agents import Memory
from memgraph_agents.config import Settings
from tests.helpers import stop_server

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

CLI = [sys.executable, "-m", "memgraph_agents.cli.main"]


def _env(data_dir: Path) -> dict[str, str]:
    return {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "ANONYMIZED_TELEMETRY": "False",
        "MEMGRAPH_LLM": "none",
        "MEMGRAPH_EMBEDDINGS": "hash",
        "MEMGRAPH_DATA_DIR": str(data_dir),
        "MEMGRAPH_CHROMA_INDEX_NODES": "100000",  # the default: small namespaces have no Chroma index
    }


def _notes(data_dir: Path, namespace: str) -> list[str]:
    with Memory(data_dir, embeddings="hash", chroma_index_nodes=100_000) as mem:
        return sorted(i.text for i in mem.list(namespace, kind="note", limit=100).items)


def test_a_process_that_wrote_once_does_not_stop_another_writer(tmp_path):
    data_dir = tmp_path / "mem"
    env = _env(data_dir)
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; from memgraph_agents import Memory; m = Memory(); "
            "m.add('The ferry leaves at ten.', namespace='a'); print('holding', flush=True); "
            "sys.stdin.readline(); m.add('The ferry is blue.', namespace='a'); print('wrote', flush=True); "
            "sys.stdin.read()",
        ],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdin is not None
        assert holder.stdout.readline().strip() == "holding"
        # the holder keeps its Memory (and its open stores) while another process writes
        added = subprocess.run(
            [*CLI, "note", "add", "The night bus leaves at nine.", "--namespace", "a"],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert added.returncode == 0, added.stderr
        holder.stdin.write("go\n")
        holder.stdin.flush()
        assert holder.stdout.readline().strip() == "wrote"  # and the holder writes again after it
    finally:
        holder.communicate("", timeout=60)
    assert holder.returncode == 0
    assert _notes(data_dir, "a") == ["The ferry is blue.", "The ferry leaves at ten.", "The night bus leaves at nine."]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start_ui(data_dir: Path) -> tuple[subprocess.Popen, str]:
    port = _free_port()
    server = subprocess.Popen(
        [*CLI, "ui", "--port", str(port)],
        env=_env(data_dir),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while True:
        try:
            if httpx.get(base + "/", timeout=5).status_code == 200:
                return server, base
        except httpx.HTTPError:
            pass
        if server.poll() is not None or time.monotonic() > deadline:
            stop_server(server)
            pytest.fail(f"memgraph ui did not start: {server.stdout.read().decode() if server.stdout else ''}")
        time.sleep(0.2)


def test_the_ui_forgets_while_the_agent_remembers_and_both_land(tmp_path):
    from memgraph_agents.integrations import create_memory_tools

    data_dir = tmp_path / "mem"
    settings = Settings(data_dir=data_dir, embeddings="hash", llm="none", chroma_index_nodes=100_000)
    tools = create_memory_tools(settings)
    user = {"configurable": {"user_id": "lena"}}
    ns = Memory.namespace_for_user("lena")
    first = tools.remember.invoke({"text": "Lena's locker code is 4711."}, config=user)
    assert first == "Saved to long-term memory."
    [old] = [i.id for i in Memory(settings=settings).list(ns, kind="note").items]
    server, base = _start_ui(data_dir)  # `memgraph ui` on the same data dir, after the agent wrote
    try:
        with httpx.Client(base_url=base, headers={"Origin": base}, timeout=60) as ui:
            page = ui.get(f"/ns/{ns}/item/{old}")
            assert page.status_code == 200, page.text
            token = re.search(r'name="csrf" value="([0-9a-f]+)"', page.text).group(1)
            form = {"csrf": token, "action": "forget", "confirm": "yes"}
            said: dict[str, object] = {}

            def agent() -> None:
                said["remember"] = tools.remember.invoke({"text": "Lena's bike is green."}, config=user)

            writer = threading.Thread(target=agent)
            writer.start()  # the agent remembers while the UI forgets
            gone = ui.post(f"/ns/{ns}/item/{old}", data=form)
            writer.join(120)
            assert gone.status_code == 303, gone.text
            # The UI, still open, sees the agent's note; the agent's tool said what happened.
            assert said["remember"] == "Saved to long-term memory."
            listed = ui.get(f"/ns/{ns}")
            assert listed.status_code == 200 and "bike is green" in listed.text and "4711" not in listed.text
    finally:
        stop_server(server)
    assert _notes(data_dir, ns) == ["Lena's bike is green."]  # both writes landed
    tools.flush(timeout=60)  # nothing failed in the background (flush raises if one did)
    tools.memory.close()


def test_a_held_lock_is_waited_for_then_said_plainly(tmp_path):
    """A writer waits for another process's write (bounded by the lock timeout), then writes; a
    write that outlasts the timeout is one clear error naming the holder, nothing changed."""
    data_dir = tmp_path / "mem"
    env = {**_env(data_dir), "MEMGRAPH_DATA_DIR_LOCK_TIMEOUT": "1"}
    subprocess.run([*CLI, "note", "add", "First note.", "--namespace", "a"], env=env, check=True, timeout=120)
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, pathlib; from memgraph_agents.storage.locks import process_lock; "
            f"cm = process_lock(pathlib.Path({str(data_dir / 'chroma')!r})); cm.__enter__(); "
            "print('locked', flush=True); sys.stdin.readline(); cm.__exit__(None, None, None); "
            "print('free', flush=True); sys.stdin.read()",
        ],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdin is not None
        assert holder.stdout.readline().strip() == "locked"
        refused = subprocess.run(
            [*CLI, "note", "add", "Second note.", "--namespace", "a"], env=env, capture_output=True, text=True
        )
        lines = [x for x in refused.stderr.splitlines() if x.startswith("error:")]
        assert refused.returncode == 2 and len(lines) == 1, refused.stderr
        assert f"pid {holder.pid}" in lines[0] and "write" in lines[0] and "Traceback" not in refused.stderr
        assert _notes(data_dir, "a") == ["First note."]  # nothing changed
        # released within the wait: the next writer waits for it and then writes
        waiting = subprocess.Popen(
            [*CLI, "note", "add", "Second note.", "--namespace", "a"],
            env={**env, "MEMGRAPH_DATA_DIR_LOCK_TIMEOUT": "60"},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        time.sleep(1.0)
        holder.stdin.write("go\n")
        holder.stdin.flush()
        assert holder.stdout.readline().strip() == "free"
        _, err = waiting.communicate(timeout=120)
        assert waiting.returncode == 0, err
    finally:
        holder.communicate("", timeout=60)
    assert _notes(data_dir, "a") == ["First note.", "Second note."]
