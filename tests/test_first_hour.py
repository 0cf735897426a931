"""A first hour like mem0's: ``Memory.add`` takes ``{"role", "content"}`` messages, ``user_id=`` on
add / search / list (the namespace ``Memory.user(id)`` binds), ``--user-id`` on the CLI verbs, a
quiet MCP stdio server, and every MCP tool and argument documented."""

from __future__ import annotations

import asyncio
import json
import re
import sys
from pathlib import Path

import pytest

from memgraph_agents import InputError, Memory
from memgraph_agents.cli.main import main

ROOT = Path(__file__).resolve().parents[1]
CHAT = [
    {"role": "system", "content": "The user is planning meals for the week."},
    {"role": "user", "content": "I'm vegetarian and allergic to peanuts."},
    {"role": "assistant", "content": "Noted: vegetarian dishes without peanuts."},
    {"role": "tool", "content": "{'recipes': 12}"},
]


@pytest.fixture
def mem(tmp_path) -> Memory:
    return Memory(tmp_path / "mem", embeddings="hash", llm="none")


def test_role_messages_with_user_id_are_stored_in_the_users_namespace(mem):
    report = mem.add(CHAT, user_id="alice")
    assert report.namespace == Memory.namespace_for_user("alice") == mem.user("alice").settings.namespace
    assert report.sessions_added == 1 and report.turns == 3  # the tool result is not conversation
    page = mem.list(user_id="alice")
    assert [i.kind for i in page.items] == ["session"]
    turns = mem.get(page.items[0].id, namespace=report.namespace).turns
    assert [(t.speaker, t.text) for t in turns] == [(m["role"], m["content"]) for m in CHAT[:3]]
    hits = mem.search("peanut allergy", user_id="alice", k=2)
    assert hits and "peanuts" in hits[0].text and hits[0].namespace == report.namespace
    assert hits[0].cite() == mem.user("alice").search("peanut allergy", k=2)[0].cite()
    # Another user, another memory; the default namespace holds nothing.
    assert mem.search("peanut allergy", user_id="bob") == []
    assert report.namespace not in ("default", "alice") and "default" not in mem.namespaces()


def test_each_add_of_messages_is_its_own_exchange_and_names_and_timestamps_are_kept(mem):
    first = mem.add([{"role": "user", "content": "My bike is a blue Brompton."}], user_id="alice")
    second = mem.add(
        [
            {"role": "user", "content": "I sold the Brompton.", "name": "Alice", "timestamp": "2024-05-02T10:00:00"},
            {"role": "assistant", "content": "Noted: no Brompton any more."},
        ],
        user_id="alice",
    )
    assert (first.sessions_added, second.sessions_added) == (1, 1)  # never a conflict with the first
    items = mem.list(user_id="alice").items
    assert len(items) == 2
    later = next(i for i in items if "sold" in i.text)
    assert later.date.startswith("2024-05-02") and "Alice" in later.participants
    # A named thread of dated messages is idempotent (untimed ones are dated now: another date).
    dated = [{"role": "user", "content": "My bike is a blue Brompton.", "timestamp": "2024-04-01T09:00:00"}]
    same = mem.add(dated, user_id="alice", conversation_id="bike")
    again = mem.add(dated, user_id="alice", conversation_id="bike")
    assert (same.sessions_added, again.sessions_unchanged) == (1, 1)


BAD_MESSAGES = {
    "no content": ([{"role": "user"}], "'content' must be a string"),
    "content not text": ([{"role": "user", "content": 42}], "'content' must be a string"),
    "unknown role": ([{"role": "narrator", "content": "x"}], "role 'narrator' is not one of"),
    "role not a string": ([{"role": 1, "content": "x"}], "role 1 is not one of"),
    "mixed with a conversation": (
        [{"role": "user", "content": "hi"}, {"id": "c", "sessions": []}],
        "messages[1]: no 'role'",
    ),
    "unknown key": ([{"role": "user", "content": "x", "user": "alice"}], "unknown key(s) ['user']"),
    "only tool output": ([{"role": "tool", "content": "x"}], "no user, assistant or system message"),
    "empty name": ([{"role": "user", "content": "x", "name": " "}], "'name' must be a non-empty string"),
}


@pytest.mark.parametrize("case", sorted(BAD_MESSAGES))
def test_a_bad_message_list_is_one_clear_error_and_stores_nothing(mem, case):
    messages, message = BAD_MESSAGES[case]
    with pytest.raises(InputError) as err:
        mem.add(messages, user_id="alice")
    assert message in str(err.value), str(err.value)
    assert mem.namespaces() == []


def test_user_id_with_namespace_is_an_error_never_one_of_them(mem):
    mem.add("Alice likes tea", user_id="alice")
    for call in (
        lambda: mem.add("x", user_id="alice", namespace="shared"),
        lambda: mem.search("tea", user_id="alice", namespace="shared"),
        lambda: mem.search("tea", user_id="alice", namespaces=["a", "b"]),
        lambda: mem.list("shared", user_id="alice"),
        lambda: mem.ask("tea?", user_id="alice", namespace="shared"),
    ):
        with pytest.raises(InputError, match="not both"):
            call()
    for bad in ("", " alice", "al\nice"):
        with pytest.raises(InputError):
            mem.search("tea", user_id=bad)
    assert mem.namespaces() == [Memory.namespace_for_user("alice")]


async def test_async_twins_take_user_id(mem):
    await mem.aadd([{"role": "user", "content": "I moved to Porto."}], user_id="ana")
    assert [e.namespace for e in await mem.asearch("where do I live", user_id="ana")] == [
        Memory.namespace_for_user("ana")
    ]
    assert len((await mem.alist(user_id="ana")).items) == 1


def test_readme_mem0_shaped_snippet_runs(tmp_path, capsys):
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index("## Python quickstart") : text.index("\n## ", text.index("## Python quickstart") + 5)]
    code = re.findall(r"```python\n(.*?)```", section, re.S)[1]
    assert 'user_id="alice"' in code and '"role": "user"' in code
    mem = Memory(tmp_path / "mem", embeddings="hash")
    exec(compile(code, "README.md", "exec"), {"mem": mem})
    lines = capsys.readouterr().out.splitlines()
    assert lines and all(
        re.match(r"^\[\d{4}-\d\d-\d\d[^|]* \| chat-\S+-s1:[12]\] (user|assistant): ", ln) for ln in lines
    )
    assert mem.namespaces() == [Memory.namespace_for_user("alice")]


# --------------------------------------------------------------------------- the CLI's --user-id


def _cli(tmp_path, capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["--embeddings", "hash", "--data-dir", str(tmp_path / "mem"), *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_user_id_on_note_list_show_and_ask(tmp_path, capsys):
    code, out, _ = _cli(tmp_path, capsys, "note", "add", "Alice's locker is number 42", "--user-id", "alice", "--json")
    assert code == 0
    ns = Memory.namespace_for_user("alice")
    note = json.loads(out)["note_id"]
    assert json.loads(out)["namespace"] == ns
    code, out, _ = _cli(tmp_path, capsys, "list", "--user-id", "alice", "--json")
    assert code == 0 and [i["id"] for i in json.loads(out)["items"]] == [note] and json.loads(out)["namespace"] == ns
    code, out, _ = _cli(tmp_path, capsys, "show", note, "--user-id", "alice")
    assert code == 0 and "locker is number 42" in out
    code, out, _ = _cli(tmp_path, capsys, "ask", "Which locker?", "--user-id", "alice", "-k", "1")
    assert code == 0 and note in out
    code, out, _ = _cli(tmp_path, capsys, "note", "history", note, "--user-id", "alice", "--json")
    assert code == 0 and len(json.loads(out)["versions"]) == 1
    code, out, _ = _cli(tmp_path, capsys, "list", "--user-id", "bob")
    assert code == 2  # bob has no memory: the namespace is not stored
    for argv in (("list", "--user-id", "alice", "--namespace", ns), ("list", "--user-id", " alice")):
        code, out, err = _cli(tmp_path, capsys, *argv)
        assert code == 2 and err.strip().startswith("error: ") and len(err.strip().splitlines()) == 1, err


# --------------------------------------------------------------------------- MCP


@pytest.mark.slow
@pytest.mark.timeout(180)
@pytest.mark.parametrize("level", [None, "INFO"])
def test_mcp_stdio_logs_nothing_per_request_unless_asked(tmp_path, level):
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    args = ["-m", "memgraph_agents.cli.main", "mcp", "--namespace", "alice"] + (["--log-level", level] if level else [])
    env = {"HF_HUB_OFFLINE": "1", "MEMGRAPH_DATA_DIR": str(tmp_path / "mem"), "MEMGRAPH_EMBEDDINGS": "hash"}
    params = StdioServerParameters(command=sys.executable, args=args, env=env, cwd=str(ROOT))
    log = tmp_path / "stderr.txt"

    async def go():
        with log.open("w") as errlog:
            async with stdio_client(params, errlog=errlog) as (r, w), ClientSession(r, w) as s:
                await s.initialize()
                await s.call_tool("remember", {"text": "Alice plays the cello."})
                await s.call_tool("recall", {"query": "cello"})

    asyncio.run(go())
    text = log.read_text()
    if level is None:
        assert "Processing request" not in text and "INFO" not in text, text
    else:  # the lines the default hides are there when asked for: the check above can fail
        assert "Processing request of type" in text, text


def test_docs_mcp_documents_every_tool_and_argument_of_the_real_server(tmp_path):
    from memgraph_agents.config import Settings
    from memgraph_agents.integrations.mcp_server import build_server

    settings = Settings(data_dir=tmp_path / "mem", embeddings="hash", llm="none")
    tools = asyncio.run(build_server(settings, namespace="alice").list_tools())
    text = (ROOT / "docs" / "mcp.md").read_text(encoding="utf-8")
    section = text[text.index("## Tools and arguments") :]
    rows = dict(re.findall(r"^\| `(\w+)` \| (.*?) \|", section, re.M))
    assert set(rows) == {t.name for t in tools}, "docs/mcp.md's tool table differs from the server's tools"
    for t in tools:
        props = t.inputSchema.get("properties", {})
        documented = dict(re.findall(r"`(\w+)` \((required|optional)", rows[t.name]))
        assert set(documented) == set(props), (t.name, documented, props)
        required = {k for k, v in documented.items() if v == "required"}
        assert required == set(t.inputSchema.get("required", [])), t.name
        if not props:
            assert rows[t.name].strip() == "none"
