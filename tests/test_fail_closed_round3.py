"""Fail closed, round three: the smaller items. Each is one clear error (or the documented
behaviour) with nothing stored changed."""

from __future__ import annotations

import json
import re

import pytest

from memgraph_agents import Memory
from memgraph_agents.cli.main import main

# --------------------------------------------------------------------------- memgraph ui start-up


def _tokens(tmp_path, mode: int):
    path = tmp_path / "tokens.json"
    path.write_text(json.dumps({"tok-ana-4f1c9e27a3b8": "ana"}))
    path.chmod(mode)
    return path


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o606])
def test_ui_refuses_a_token_file_other_users_can_read(tmp_path, capsys, mode):
    Memory(tmp_path / "mem", embeddings="hash").add("Ana's note.", namespace="ana")
    path = _tokens(tmp_path, mode)
    code = main(
        ["--embeddings", "hash", "--data-dir", str(tmp_path / "mem"), "ui", "--port", "1", "--tokens", str(path)]
    )
    err = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert code == 2 and len(err) == 1 and f"mode {mode:04o}" in err[0] and "chmod 600" in err[0], err
    assert "tok-ana" not in err[0]  # a token is a secret: never in a message


def test_ui_refuses_a_namespace_that_does_not_exist(tmp_path, capsys):
    Memory(tmp_path / "mem", embeddings="hash").add("Ana's note.", namespace="ana")
    code = main(
        ["--embeddings", "hash", "--data-dir", str(tmp_path / "mem"), "ui", "--port", "1", "--namespace", "anna"]
    )
    err = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert code == 2 and len(err) == 1 and "'anna' does not exist" in err[0] and "ana" in err[0], err
    assert Memory(tmp_path / "mem", embeddings="hash").namespaces() == ["ana"]  # nothing created


# --------------------------------------------------------------------------- the Studio chatbot


def test_the_chatbot_runs_without_a_user_id(tmp_path):
    """Studio's form sends the empty user id box as "": the context's namespace, not an error."""
    from langchain_core.messages import HumanMessage

    from memgraph_agents.graphs.chatbot import ChatbotContext, build_chatbot_graph

    Memory(tmp_path / "mem", embeddings="hash").add("The spare key is under the blue pot.", namespace="demo")
    graph = build_chatbot_graph()
    for user_id in ("", "  ", None):
        ctx = ChatbotContext(
            user_id=user_id, data_dir=str(tmp_path / "mem"), namespace="demo", embeddings="hash", llm="none"
        )
        assert ctx.user_id is None
        out = graph.invoke({"messages": [HumanMessage("Where is the spare key?")]}, context=ctx)
        assert "blue pot" in out["messages"][-1].content


# --------------------------------------------------------------------------- the UI's pages and writes

BASE = "http://127.0.0.1:8750"


def _ui(mem: Memory, **access):
    from starlette.testclient import TestClient

    from memgraph_agents.ui.app import build_app
    from memgraph_agents.ui.security import Access

    return TestClient(build_app(mem, Access(**access)), base_url=BASE, follow_redirects=False)


def test_ui_error_pages_show_no_server_path_or_process(tmp_path):
    from memgraph_agents.storage.identity import memory_dir
    from memgraph_agents.ui.problems import scrub

    data_dir = tmp_path / "mem"
    with Memory(data_dir, embeddings="hash") as mem:
        mem.add("Ana's note.", namespace="ana")
    (memory_dir(data_dir, "ana") / "graph.sqlite").write_bytes(b"not a database " * 100)  # damaged
    page = _ui(Memory(data_dir, embeddings="hash")).get("/ns/ana")
    assert page.status_code == 503 and "NamespaceUnusableError" in page.text
    assert str(tmp_path) not in page.text and "graph.sqlite" not in page.text and "Traceback" not in page.text
    said = scrub(f"{data_dir} is in use by another process (pid 4242): see /var/lib/x/y.lock", [str(data_dir)])
    assert "4242" not in said and "/var/lib" not in said and str(tmp_path) not in said and "pid …" in said


def _form(mem: Memory, c) -> tuple[str, dict]:
    note = mem.list("ana", kind="note").items[0].id
    token = re.search(r'name="csrf" value="([0-9a-f]+)"', c.get(f"/ns/ana/item/{note}").text).group(1)
    return f"/ns/ana/item/{note}", {"csrf": token, "action": "forget", "confirm": "yes"}


def test_ui_writes_honour_the_referer_when_there_is_no_origin(tmp_path):
    mem = Memory(tmp_path / "mem", embeddings="hash")
    mem.add("Ana's locker code is 4711.", namespace="ana")
    c = _ui(mem)
    url, form = _form(mem, c)
    for referer in ("http://evil.example/page", "http://127.0.0.1:9999/ns/ana", "https://127.0.0.1:8750/"):
        refused = c.post(url, data=form, headers={"Referer": referer})
        assert refused.status_code == 403, referer
    assert len(mem.list("ana").items) == 1  # nothing changed
    ok = c.post(url, data=form, headers={"Referer": f"{BASE}/ns/ana/item/x"})
    assert ok.status_code == 303 and mem.list("ana").items == []


@pytest.mark.parametrize(
    "host",
    [
        "127.0.0.1:abc",
        "127.0.0.1:80:90",
        "127.0.0.1:0",
        "127.0.0.1:99999",
        "localhost evil",
        "a@127.0.0.1",
        "[::1",
        "",
        "127.0.0.1/x",
    ],
)
@pytest.mark.parametrize("tokens", [None, {"tok-ana-4f1c9e27a3b8": "ana"}])
def test_ui_refuses_a_malformed_host(tmp_path, host, tokens):
    mem = Memory(tmp_path / "mem", embeddings="hash")
    mem.add("Ana's note.", namespace="ana")
    c = _ui(mem, tokens=tokens)
    headers = {"Host": host} | ({"Authorization": "Bearer tok-ana-4f1c9e27a3b8"} if tokens else {})
    r = c.get("/ns/ana", headers=headers)
    assert r.status_code == 400 and "Host header is malformed" in r.text, (host, r.status_code)
    ok = c.get("/ns/ana", headers={**headers, "Host": "127.0.0.1:8750"})
    assert ok.status_code == 200


# --------------------------------------------------------------------------- MCP: JSON numbers only


@pytest.mark.slow
@pytest.mark.timeout(180)
def test_mcp_remember_refuses_non_finite_metadata_sent_as_raw_json(tmp_path):
    """A client's raw JSON with ``Infinity`` / ``NaN`` / ``1e999`` (Python's json writes the first
    two): one clear error each, nothing stored (the SDK would have stored them as null)."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "HF_HUB_OFFLINE": "1", "MEMGRAPH_EMBEDDINGS": "hash", "MEMGRAPH_LLM": "none"}
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "memgraph_agents.cli.main",
            "--data-dir",
            str(tmp_path / "mem"),
            "mcp",
            "--namespace",
            "n",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert server.stdin is not None and server.stdout is not None

    def ask(line: str) -> dict:
        server.stdin.write(line + "\n")
        server.stdin.flush()
        return json.loads(server.stdout.readline())

    try:
        hello = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}
        assert "result" in ask(json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello}))
        server.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
        call = '{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"remember","arguments":{"text":"%s","metadata":%s}}}'
        for i, meta in enumerate(
            ['{"n": Infinity}', '{"n": NaN}', '{"n": -Infinity}', '{"n": [1, 1e999]}', '{"a": {"b": 1E400}}']
        ):
            out = ask(call % (i + 1, f"Bad note {i}.", meta))
            assert out["error"]["code"] == -32602 and "is not a JSON number" in out["error"]["message"], out
        ok = ask(call % (9, "The ferry leaves at ten.", '{"n": 1.5}'))
        assert ok["result"]["isError"] is False
    finally:
        server.stdin.close()
        server.wait(60)
    with Memory(tmp_path / "mem", embeddings="hash") as mem:
        items = mem.list("n").items
    assert [(i.text, i.metadata) for i in items] == [("The ferry leaves at ten.", {"n": 1.5})]


def test_a_memorys_settings_pickle_without_its_live_objects(tmp_path):
    """Settings sent to another process carry no connection or lock of this one: a built-in
    model is made again there, an object's spec fails closed."""
    import pickle

    from memgraph_agents.embeddings.hashing import HashEmbeddings
    from memgraph_agents.errors import ConfigError
    from memgraph_agents.runtime import get_embedding_model

    plain = Memory(tmp_path / "a", embeddings="hash")
    plain.add("A note.")
    copy = pickle.loads(pickle.dumps(plain.settings))
    assert copy._resources is None and copy.embeddings == "hash"
    own = Memory(tmp_path / "b", embeddings=HashEmbeddings(8))
    with pytest.raises(ConfigError, match="no object registered"):
        get_embedding_model(pickle.loads(pickle.dumps(own.settings)))


def test_a_servers_copy_of_the_context_is_not_read_as_a_second_user_id():
    """``langgraph dev`` copies a run's context into ``configurable`` (marked
    ``__context_provided__``): an empty user id box there is the context's "no user" again."""
    from memgraph_agents.graphs.chatbot import ChatbotContext
    from memgraph_agents.integrations import AgentMemory
    from memgraph_agents.storage.namespaces import NamespaceError

    mem = AgentMemory(default_namespace="fallback")
    ctx = ChatbotContext(user_id="", namespace="demo")
    mirrored = {"configurable": {"user_id": "", "namespace": "demo", "__context_provided__": True}}
    assert mem.namespace_for(ctx, mirrored) == "demo"
    with pytest.raises(NamespaceError, match="empty user id"):  # not a mirror: an empty id is refused
        mem.namespace_for(None, {"configurable": {"user_id": ""}})


def test_the_chatbots_memory_takes_an_empty_user_id_as_none_in_a_dict_context():
    """A server passes Studio's context as a dict (and copies it into ``configurable``)."""
    from memgraph_agents.graphs.chatbot import ChatbotMemory

    mem = ChatbotMemory(default_namespace="fallback")
    ctx = {"user_id": "", "namespace": "demo"}
    assert mem.namespace_for(ctx, {"configurable": dict(ctx)}) == "demo"
    assert mem.namespace_for({"user_id": "ana"}, None) == mem.user_scope("ana")
