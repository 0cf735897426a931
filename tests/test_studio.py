"""LangGraph Studio: langgraph.json exports, `memgraph draw`, and a real `langgraph dev` server."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from memgraph_agents.cli.main import main
from memgraph_agents.config import Settings
from memgraph_agents.debug.graphs import EXPORTED, load_graph
from memgraph_agents.runtime import get_store
from tests.helpers import stop_server

ROOT = Path(__file__).resolve().parents[1]
QUESTION = "When did Ana adopt the beagle puppy Pixel?"


def test_langgraph_json_exports_every_graph_without_checkpointer():
    config = json.loads((ROOT / "langgraph.json").read_text(encoding="utf-8"))
    graphs = {name: (v["path"] if isinstance(v, dict) else v) for name, v in config["graphs"].items()}
    assert graphs == EXPORTED
    assert set(graphs) == {"ingest", "navigator", "retrieval", "chatbot"}
    for name in graphs:
        g = load_graph(name)
        assert g.checkpointer is None, f"{name} brings its own checkpointer: langgraph dev refuses it"
        ctx = g.builder.context_schema
        assert dataclasses.is_dataclass(ctx), f"{name}: configuration goes through a context_schema dataclass"
        assert {"data_dir", "namespace", "embeddings", "llm"} <= {f.name for f in dataclasses.fields(ctx)}
    assert "retriever" in {f.name for f in dataclasses.fields(load_graph("retrieval").builder.context_schema)}


def test_langgraph_json_retrieval_description_names_every_retriever():
    """Studio shows the description: it lists the registry's retrievers, no more, no fewer."""
    import re

    from memgraph_agents.registry import RETRIEVERS

    config = json.loads((ROOT / "langgraph.json").read_text(encoding="utf-8"))
    text = config["graphs"]["retrieval"]["description"]
    listed = text[text.index("picks") : text.index(", or a preset")]
    assert set(re.findall(r"[a-z_0-9]+", listed)) - {"picks", "or"} == set(RETRIEVERS), listed


@pytest.mark.parametrize("name", list(EXPORTED))
def test_memgraph_draw_every_exported_graph(name, tmp_path, capsys):
    mmd, png = tmp_path / f"{name}.mmd", tmp_path / f"{name}.png"
    assert main(["draw", name, "--out", str(mmd)]) == 0
    assert main(["draw", name, "--out", str(png)]) == 0
    text = mmd.read_text(encoding="utf-8")
    assert text.lstrip().startswith("---") and "graph TD;" in text and "__start__" in text
    for node in {
        "ingest": ["validate", "ingest"],
        "navigator": ["planner", "explore", "respond"],
        "retrieval": ["ppr", "navigator"],
        "chatbot": ["model", "tools"],
    }[name]:
        assert node in text
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 5000


def test_memgraph_draw_rejects_unknown_format(tmp_path, capsys):
    assert main(["draw", "navigator", "--out", str(tmp_path / "x.gif")]) == 2
    assert "use one of .mmd, .png, .svg" in capsys.readouterr().err


# --------------------------------------------------------------------------- langgraph dev


def _have_langgraph_dev() -> bool:
    return all(
        importlib.util.find_spec(m) is not None for m in ("langgraph_cli", "langgraph_api", "langgraph_runtime_inmem")
    )


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _request(url: str, body: dict | None = None, timeout: float = 60, method: str = "") -> object:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(
        url,
        data=data,
        method=method or ("POST" if body is not None else "GET"),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(req, timeout=timeout) as r:
        raw = r.read().decode()
        return json.loads(raw) if raw.strip() else None


def _stream(url: str, body: dict, timeout: float = 60) -> list[tuple[str, object]]:
    """A server-sent-event stream as (event, data) pairs."""
    req = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        method="POST",
        headers={"Content-Type": "application/json", "Accept": "text/event-stream"},
    )
    events, event = [], ""
    with urllib.request.urlopen(req, timeout=timeout) as r:
        for raw in r:
            line = raw.decode().rstrip("\r\n")
            if line.startswith("event:"):
                event = line[6:].strip()
            elif line.startswith("data:") and event:
                events.append((event, json.loads(line[5:].strip() or "null")))
    return events


@pytest.mark.timeout(180)
@pytest.mark.skipif(
    not _have_langgraph_dev(), reason='langgraph dev is not installed: pip install "langgraph-cli[inmem]"'
)
@pytest.mark.slow
def test_langgraph_dev_runs_the_navigator_over_the_api(tmp_path):
    settings = Settings(data_dir=tmp_path / "mem", embeddings="hash", namespace="demo")
    # Embedded Chroma allows one process per data dir: prepare the memory in another process,
    # so that this one opens it only after the server has stopped.
    prepare = (
        "import sys; from tests.conftest import make_conversation; from memgraph_agents.config import Settings; "
        "from memgraph_agents.ingest import ingest_conversation; "
        "ingest_conversation(make_conversation(), Settings(data_dir=sys.argv[1], embeddings='hash'), namespace='demo')"
    )
    subprocess.run(
        [sys.executable, "-c", prepare, str(settings.data_dir)],
        cwd=ROOT,
        check=True,
        timeout=120,
        env={**os.environ, "HF_HUB_OFFLINE": "1", "ANONYMIZED_TELEMETRY": "False"},
    )

    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    env = {
        **os.environ,
        "LANGGRAPH_CLI_NO_ANALYTICS": "1",
        "LANGGRAPH_NO_VERSION_CHECK": "1",
        "HF_HUB_OFFLINE": "1",
        "ANONYMIZED_TELEMETRY": "False",
        "MEMGRAPH_LLM": "none",
        # the server's store (MemgraphStore) lives here too
        "MEMGRAPH_DATA_DIR": str(settings.data_dir),
        "MEMGRAPH_EMBEDDINGS": "hash",
    }
    log = (tmp_path / "langgraph-dev.log").open("w")
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "langgraph_cli",
            "dev",
            "--config",
            str(ROOT / "langgraph.json"),
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--no-browser",
            "--no-reload",
        ],  # no --allow-blocking: nodes keep the loop free
        cwd=tmp_path,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 90
        while True:
            assert server.poll() is None, (
                f"langgraph dev exited: {(tmp_path / 'langgraph-dev.log').read_text()[-3000:]}"
            )
            try:
                if _request(f"{base}/ok", timeout=2).get("ok"):
                    break
            except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
                pass
            assert time.monotonic() < deadline, "langgraph dev did not answer /ok in 90 s"
            time.sleep(0.5)
        assistants = _request(f"{base}/assistants/search", {"limit": 20})
        assert {a["graph_id"] for a in assistants} == set(EXPORTED)
        for a in assistants:  # Studio's forms: every schema present, every context field described
            schemas = _request(f"{base}/assistants/{a['assistant_id']}/schemas")
            for kind in ("input_schema", "output_schema", "context_schema"):
                assert schemas[kind], f"{a['graph_id']}: {kind} is null"
            props = schemas["context_schema"]["properties"]
            assert props and all(v.get("description") for v in props.values()), (a["graph_id"], props)

        ctx = {"data_dir": str(settings.data_dir), "namespace": "demo", "embeddings": "hash", "policy": "offline"}
        out = _request(
            f"{base}/runs/wait",
            # seed_meets > 1: the explorers always search, so the run keeps events to check
            {
                "assistant_id": "navigator",
                "input": {"question": QUESTION, "k": 5},
                "context": {**ctx, "seed_meets": 2.0},
            },
        )
        assert "__error__" not in out, out
        out_nav = out
        got = [ev["node_id"] for ev in out["evidence"]]
        assert got and all(n.startswith("event:") for n in got)
        assert all(ev["session_dates"] and ev["turn_ids"] for ev in out["evidence"])
        decisions = [e for e in out["trace"] if e["type"] == "decision"]
        assert decisions and {e["action"] for e in decisions} <= {"SKIP", "EXPAND", "ANSWER"}
        assert out["subgoals"] and len(out["satisfied"]) == len(out["subgoals"])

        # a streamed navigator run: node updates arrive as they happen
        events = _stream(
            f"{base}/runs/stream",
            {
                "assistant_id": "navigator",
                "stream_mode": ["updates"],
                "input": {"question": QUESTION, "k": 3},
                "context": {**ctx, "seed_meets": 2.0},
            },
        )
        streamed = [name for ev, data in events if ev == "updates" for name in data]
        assert not [data for ev, data in events if ev == "error"], events
        assert streamed[0] == "planner" and "explore" in streamed and streamed[-1] == "respond", streamed

        # the chatbot (offline: recalls evidence and shows it)
        out = _request(
            f"{base}/runs/wait",
            {
                "assistant_id": "chatbot",
                "input": {"messages": [{"role": "user", "content": QUESTION}]},
                "context": {**ctx, "user_id": "demo"},
            },
        )
        assert "__error__" not in out, out
        assert "Pixel" in out["messages"][-1]["content"]
        # Studio's form with the user id box left empty: the context's namespace, not an error
        for no_user in ({**ctx, "user_id": ""}, ctx):
            out = _request(
                f"{base}/runs/wait",
                {
                    "assistant_id": "chatbot",
                    "input": {"messages": [{"role": "user", "content": QUESTION}]},
                    "context": no_user,
                },
            )
            assert "__error__" not in out, out
            assert "Pixel" in out["messages"][-1]["content"]

        # the retrieval graph: the retriever is chosen by the context
        out = _request(
            f"{base}/runs/wait",
            {
                "assistant_id": "retrieval",
                "input": {"query": "puppy Pixel", "k": 3},
                "context": {**ctx, "retriever": "bm25"},
            },
        )
        assert out["evidence"] and all(ev["retriever"] == "bm25" for ev in out["evidence"])

        # the server's store is MemgraphStore: put, then a ranked search
        _request(
            f"{base}/store/items",
            {"namespace": ["users", "ana"], "key": "pet", "value": {"content": "Ana adopted the beagle puppy Pixel."}},
            method="PUT",
        )
        found = _request(f"{base}/store/items/search", {"namespace_prefix": ["users"], "query": "beagle puppy"})
        assert [(i["key"], i["value"]) for i in found["items"]] == [
            ("pet", {"content": "Ana adopted the beagle puppy Pixel."})
        ]
        assert found["items"][0]["score"] is not None

        # the ingest graph takes a plain JSON session
        session = {
            "id": "X1",
            "date": "2024-12-01T10:00:00",
            "turns": [{"id": "X1:1", "speaker": "Ana", "text": "Pixel turned one today, we had a party."}],
        }
        out = _request(
            f"{base}/runs/wait",
            {"assistant_id": "ingest", "input": {"session": session}, "context": {**ctx, "namespace": "studio"}},
        )
        assert out.get("report", {}).get("sessions_added") == 1, out
        # and refuses what Memory.add refuses, writing nothing (the input limits, here a turn)
        too_long = {**session, "id": "X2", "turns": [{"id": "X2:1", "speaker": "Ana", "text": "x" * 300_000}]}
        out = _request(
            f"{base}/runs/wait",
            {"assistant_id": "ingest", "input": {"session": too_long}, "context": {**ctx, "namespace": "studio"}},
        )
        assert "over the limit" in str(out.get("__error__", out)), out
    finally:
        stop_server(server)
        log.close()
    # The server is gone: check its answer against the store it read.
    snap = get_store(settings).snapshot()
    for ev in out_nav["evidence"]:
        i = snap.index[ev["node_id"]]
        assert snap.kind_of(i) == "event" and snap.session_date(snap.owner[i]) in ev["session_dates"]
    assert all(e["node"] in snap.index for e in decisions)
    assert [s["id"] for s in get_store(settings, "studio").sessions()] == ["X1"]
