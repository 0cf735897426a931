"""Fail closed, round two (issue 30, items 2-7): each attack is refused with one clear error and
the stored memory is unchanged (``tests/test_hostile_inputs.py``'s fingerprint), or, where the
issue found a silent loss, the loss no longer happens."""

from __future__ import annotations

import asyncio
import math

import pytest

from memgraph_agents.api import Memory
from memgraph_agents.errors import InputError
from memgraph_agents.ingest import ingest_conversation
from memgraph_agents.integrations import MemgraphStore
from memgraph_agents.model.metadata import MAX_INT, MIN_INT, matches
from tests.test_hostile_inputs import USER, assert_unchanged, cli, error_line, fingerprint, settings_of
from tests.workloads import conversation

HUGE = 10**400


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    root = tmp_path_factory.mktemp("round2")
    s = settings_of(root)
    ingest_conversation(conversation("base", 2, tag="b"), s, namespace="base")
    ingest_conversation(conversation("alice", 1, tag="a"), s, namespace=USER)
    Memory(settings=s).add("The pier opens at six.", namespace="base", metadata={"n": 5, "big": MAX_INT})
    return root


# --------------------------------------------------------------------------- 2. huge numbers


@pytest.mark.parametrize("operand", [HUGE, -HUGE, MAX_INT + 1, MIN_INT - 1, math.inf, math.nan])
def test_a_filter_number_out_of_range_is_one_input_error_at_every_read(root, operand):
    mem = Memory(settings=settings_of(root))
    where = {"n": {"$gt": operand}}
    calls = {
        "search": lambda: mem.search("pier", namespace="base", filter=where),
        "asearch": lambda: asyncio.run(mem.asearch("pier", namespace="base", filter=where)),
        "ask": lambda: mem.ask("pier", namespace="base", filter=where),
        "list": lambda: mem.list("base", filter=where),
        "alist": lambda: asyncio.run(mem.alist("base", filter=where)),
        "list $in": lambda: mem.list("base", filter={"n": {"$in": [1, operand]}}),
        "list equality": lambda: mem.list("base", filter={"n": operand}),
    }
    for name, call in calls.items():
        with pytest.raises(InputError, match=r"filter\.n") as err:
            call()
        assert "Overflow" not in str(err.value), name


def test_the_cli_refuses_a_huge_filter_number_in_one_line(root, capsys, quiet):
    for verb in (["list"], ["ask", "pier"]):
        for value in (str(HUGE), "1e400", "9" * 5000, '{"$gt": ' + str(HUGE) + "}"):
            assert cli(root, *verb, "--namespace", "base", "--filter", f"n={value}") == 2, (verb, value[:20])
            line = error_line(capsys.readouterr().err)
            assert "n" in line and ("range" in line or "not a JSON number" in line), line


def test_huge_metadata_is_refused_and_nothing_is_stored(root, capsys, quiet):
    mem = Memory(settings=settings_of(root))
    before = fingerprint(root)
    for meta in ({"n": HUGE}, {"n": MAX_INT + 1}, {"deep": {"list": [1, MIN_INT - 1]}}, {"f": math.inf}):
        with pytest.raises(InputError, match=r"metadata\.(n|deep|f)"):
            mem.add("A new note.", namespace="base", metadata=meta)
    turn = {"id": "S1:1", "speaker": "Ana", "text": "The boat leaves at nine."}
    conv = {"id": "other", "sessions": [{"id": "S1", "date": "2024-01-01", "turns": [turn], "metadata": {"n": HUGE}}]}
    with pytest.raises(InputError, match="range"):
        mem.add(conv, namespace="base")
    note = mem.list("base", kind="note").items[0].id
    with pytest.raises(InputError, match=r"metadata\.n"):
        mem.update(note, "The pier opens at seven.", namespace="base", metadata={"n": HUGE})
    for value in (str(HUGE), "9" * 5000):
        assert cli(root, "note", "add", "x y", "--namespace", "base", "--metadata", '{"n": ' + value + "}") == 2
        assert "range" in error_line(capsys.readouterr().err)
    assert_unchanged(root, before)


def test_the_bounds_themselves_are_stored_and_compared_exactly(root):
    mem = Memory(settings=settings_of(root))
    assert [i.metadata["big"] for i in mem.list("base", filter={"big": {"$gte": MAX_INT}}).items] == [MAX_INT]
    assert mem.list("base", filter={"big": {"$gt": MAX_INT - 1}}).items  # a float would round these together
    assert not mem.list("base", filter={"big": {"$gt": 1e300}}).items


@pytest.mark.parametrize(
    "stored",
    [HUGE, -HUGE, "1" * 5000, "1e999", "nan", float("nan"), [HUGE], {"x": HUGE}, True, None, "text", 2**70],
)
def test_every_comparison_is_total(stored):
    """Data stored by an earlier version (or another writer) cannot make a filter raise."""
    for op in ("$gt", "$gte", "$lt", "$lte", "$eq", "$ne"):
        for operand in (5, 1.5, -(2**63), 2**63 - 1):
            assert isinstance(matches({"n": stored}, {"n": {op: operand}}), bool)
    assert matches({"n": HUGE}, {"n": {"$gt": MAX_INT}}) and not matches({"n": -HUGE}, {"n": {"$gt": MIN_INT}})


def test_memgraph_store_filters_refuse_huge_numbers_and_compare_without_raising(tmp_path):
    store = MemgraphStore(settings=settings_of(tmp_path))
    store.put(("t",), "a", {"content": "kiwis on the balcony", "n": 2**62})
    for bad in ({"n": {"$gt": HUGE}}, {"n": {"$lt": math.inf}}, {"n": HUGE}):
        with pytest.raises(InputError, match=r"filter\.n"):
            store.search(("t",), filter=bad)
        with pytest.raises(InputError, match=r"filter\.n"):
            asyncio.run(store.asearch(("t",), filter=bad))
    assert [i.key for i in store.search(("t",), filter={"n": {"$gt": 1e18}})] == ["a"]
    assert store.search(("t",), filter={"n": {"$gt": 2**62}}) == []


# --------------------------------------------------------------------------- 3. metadata under concurrency


def test_a_text_only_update_keeps_metadata_written_after_it_read_the_note(tmp_path, monkeypatch):
    """The race made certain: the text-only update reads the note, then another update commits
    new metadata before the first takes the write lock. The first must keep the new metadata."""
    import threading

    from memgraph_agents.api import item_verbs

    mem = Memory(tmp_path / "mem", embeddings="hash")
    note = mem.add("The ferry leaves at eight.", namespace="n", metadata={"v": 0}).note_ids[0]
    read, committed = threading.Event(), threading.Event()
    real = item_verbs.updated_note

    def slow_read(settings, ns, note_id, text, metadata):
        conv = real(settings, ns, note_id, text, metadata)
        if metadata is None:  # the text-only update: it has read {"v": 0}
            read.set()
            assert committed.wait(30)
        return conv

    monkeypatch.setattr(item_verbs, "updated_note", slow_read)
    text_only = threading.Thread(target=lambda: mem.update(note, "The ferry leaves at nine.", namespace="n"))
    text_only.start()
    assert read.wait(30)
    mem.update(note, "The ferry leaves at ten.", namespace="n", metadata={"v": 1})
    committed.set()
    text_only.join(60)
    item = mem.get(note, namespace="n")
    assert item.text == "The ferry leaves at nine." and item.metadata == {"v": 1}


@pytest.mark.slow
def test_many_concurrent_updates_lose_no_metadata(tmp_path):
    """Threads updating one note, half of them text only: the metadata never goes back to an
    older version (each metadata update writes a larger ``v``)."""
    import threading

    mem = Memory(tmp_path / "mem", embeddings="hash")
    note = mem.add("Count: start.", namespace="n", metadata={"v": 0}).note_ids[0]
    errors: list[BaseException] = []

    def meta_writer() -> None:
        try:
            for v in range(1, 9):
                mem.update(note, f"Count: {v}.", namespace="n", metadata={"v": v})
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    def text_writer(i: int) -> None:
        try:
            for j in range(6):
                mem.update(note, f"Text {i}.{j}.", namespace="n")
        except BaseException as e:  # noqa: BLE001
            errors.append(e)

    threads = [
        threading.Thread(target=meta_writer),
        *(threading.Thread(target=text_writer, args=(i,)) for i in range(3)),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not errors, errors
    seen = [v.metadata.get("v") for v in mem.history(note, namespace="n").versions]
    assert seen == sorted(seen) and seen[-1] == 8, seen  # never back to an older metadata
    assert mem.get(note, namespace="n").metadata == {"v": 8}


# --------------------------------------------------------------------------- 4. the note prefix


def _note_shaped(turns: int) -> dict:
    said = [{"id": f"S1:{i}", "speaker": "Ana", "text": f"Line {i} of the plan."} for i in range(1, turns + 1)]
    return {"id": "plans", "sessions": [{"id": "note-plan", "date": "2024-01-01", "turns": said}]}


def test_a_multi_turn_session_cannot_take_a_note_id(root, tmp_path, capsys, quiet):
    import json

    mem = Memory(settings=settings_of(root))
    before = fingerprint(root)
    with pytest.raises(InputError, match="reserved for notes, which hold exactly one turn"):
        mem.add(_note_shaped(3), namespace="base")
    path = tmp_path / "plans.json"
    path.write_text(json.dumps(_note_shaped(2)))
    with pytest.raises(InputError, match="reserved for notes"):
        mem.add(path, namespace="base")
    assert cli(root, "ingest", str(path), "--namespace", "base") == 2
    assert "'note-plan'" in error_line(capsys.readouterr().err)
    assert_unchanged(root, before)


def test_a_one_turn_note_from_a_file_updates_without_loss(tmp_path):
    mem = Memory(tmp_path / "mem", embeddings="hash")
    mem.add(_note_shaped(1), namespace="n")
    item = mem.update("note-plan", "Line 1, corrected.", namespace="n")
    assert item.text == "Line 1, corrected." and item.n_turns == 1


# --------------------------------------------------------------------------- 5. cursors


def _b64(raw) -> str:
    import base64
    import json

    return base64.urlsafe_b64encode(json.dumps(raw).encode()).decode().rstrip("=")


def _bad_cursors(mem: Memory, ns: str = "base", other: str = USER) -> dict[str, object]:
    from memgraph_agents.api.cursors import binding
    from memgraph_agents.model.filters import MemoryFilter

    bound = binding(ns, None, MemoryFilter().key())
    return {
        "integer": 12345,
        "list": ["2024-01-01", "S1"],
        "garbage": "%%%not-a-cursor%%%",
        "empty": "",
        "huge": "A" * 100_000,
        "old format with a time zone": _b64(["2024-01-01T00:00:00+02:00", "S1"]),
        "time zone": _b64(["v1", "2024-01-01T00:00:00+02:00", "S1", bound]),
        "bad date": _b64(["v1", "yesterday", "S1", bound]),
        "another namespace": mem.list(other, limit=1).cursor or _b64(["v1", "2024-01-01T00:00:00", "S1", "x"]),
        "another kind": mem.list(ns, limit=1, kind="note").cursor or mem.list(ns, limit=1, kind="session").cursor,
    }


def test_a_bad_or_foreign_cursor_is_one_input_error(root):
    mem = Memory(settings=settings_of(root))
    page = mem.list("base", limit=1)
    assert page.cursor and mem.list("base", limit=1, cursor=page.cursor).items  # a good cursor still pages
    before = fingerprint(root)
    for name, cursor in _bad_cursors(mem).items():
        assert cursor is not None, name
        with pytest.raises(InputError, match="cursor") as err:
            mem.list("base", limit=1, cursor=cursor)  # type: ignore[arg-type]
        assert "Traceback" not in str(err.value) and len(str(err.value)) < 300, name
        with pytest.raises(InputError, match="cursor"):
            asyncio.run(mem.alist("base", limit=1, cursor=cursor))  # type: ignore[arg-type]
    assert_unchanged(root, before)


def test_a_cursor_pages_only_its_own_listing(root):
    mem = Memory(settings=settings_of(root))
    sessions = mem.list("base", kind="session", limit=1)
    assert sessions.cursor is not None
    with pytest.raises(InputError, match="another listing"):
        mem.list("base", kind="note", limit=1, cursor=sessions.cursor)
    with pytest.raises(InputError, match="another listing"):
        mem.list(USER, kind="session", limit=1, cursor=sessions.cursor)
    with pytest.raises(InputError, match="another listing"):
        mem.list("base", kind="session", limit=1, cursor=sessions.cursor, filter={"n": 5})
    nxt = mem.list("base", kind="session", limit=1, cursor=sessions.cursor)
    assert nxt.items and nxt.items[0].id != sessions.items[0].id


def test_the_cli_refuses_bad_cursors_in_one_line(root, capsys, quiet):
    mem = Memory(settings=settings_of(root))
    for name, cursor in _bad_cursors(mem).items():
        if not isinstance(cursor, str) or not cursor:
            continue
        assert cli(root, "list", "--namespace", "base", "--limit", "1", "--cursor", cursor) == 2, name
        assert "cursor" in error_line(capsys.readouterr().err), name


def _mcp_params(data_dir, namespace: str):
    import os
    import sys

    from mcp import StdioServerParameters

    env = {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "ANONYMIZED_TELEMETRY": "False",
        "MEMGRAPH_LLM": "none",
        "MEMGRAPH_DATA_DIR": str(data_dir),
        "MEMGRAPH_EMBEDDINGS": "hash",
    }
    return StdioServerParameters(
        command=sys.executable, args=["-m", "memgraph_agents.cli.main", "mcp", "--namespace", namespace], env=env
    )


def _mcp_text(result) -> str:
    return "\n".join(c.text for c in result.content if getattr(c, "type", "") == "text")


@pytest.mark.slow
@pytest.mark.timeout(240)
def test_mcp_refuses_bad_cursors_and_bad_text_as_tool_errors(tmp_path):
    """Over the official MCP client: each bad call is a tool error naming the problem (no
    traceback), the server lives on, and nothing stored changes. The memory is written and
    read by other processes (the CLI): the MCP server owns the data dir."""
    import json
    import subprocess
    import sys

    from mcp import ClientSession
    from mcp.client.stdio import stdio_client

    from memgraph_agents.api.cursors import binding
    from memgraph_agents.model.filters import MemoryFilter

    env = _mcp_params(tmp_path / "mem", "tenant").env
    base = [sys.executable, "-m", "memgraph_agents.cli.main"]

    def run(*argv: str) -> str:
        return subprocess.run([*base, *argv], env=env, check=True, capture_output=True, text=True, timeout=120).stdout

    for ns in ("tenant", "other"):
        for i in range(3):
            run("note", "add", f"A {ns} note, {i}.", "--namespace", ns)
    foreign = json.loads(run("list", "--namespace", "other", "--limit", "1", "--json"))["cursor"]
    bound = binding("tenant", None, MemoryFilter().key())
    bad_cursors = {
        "foreign": foreign,
        "garbage": "%%%not-a-cursor%%%",
        "old format with a time zone": _b64(["2024-01-01T00:00:00+02:00", "S1"]),
        "time zone": _b64(["v1", "2024-01-01T00:00:00+02:00", "S1", bound]),
    }
    problems: list[str] = []

    async def go() -> None:
        params = _mcp_params(tmp_path / "mem", "tenant")
        async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            listing = {"limit": 50}
            before = _mcp_text(await s.call_tool("list", listing))
            first = json.loads(_mcp_text(await s.call_tool("list", {"limit": 1})))
            r = await s.call_tool("list", {"limit": 1, "cursor": first["cursor"]})
            assert not r.isError, _mcp_text(r)
            for name, cursor in bad_cursors.items():
                r = await s.call_tool("list", {"limit": 1, "cursor": cursor})
                body = _mcp_text(r)
                if not (r.isError and "cursor" in body and "Traceback" not in body and "TypeError" not in body):
                    problems.append(f"{name}: {body[:200]}")
            r = await s.call_tool("list", {"limit": 1, "cursor": 7})
            assert r.isError and "Traceback" not in _mcp_text(r)
            for name, (tool, args, says) in MCP_BAD_CALLS.items():
                r = await s.call_tool(tool, args)
                body = _mcp_text(r)
                if not (r.isError and says in body and "Traceback" not in body):
                    problems.append(f"{name}: {body[:200]}")
            assert not (await s.call_tool("stats", {})).isError  # alive
            assert _mcp_text(await s.call_tool("list", listing)) == before

    asyncio.run(go())
    assert not problems, problems


MCP_BAD_CALLS: dict[str, tuple[str, dict, str]] = {  # name: (tool, arguments, what the error says)
    "a huge filter number": ("list", {"filter": {"n": {"$gt": HUGE}}}, "range"),
    "a huge recall filter number": ("recall", {"query": "note", "filter": {"n": HUGE}}, "range"),
    "huge metadata": ("remember", {"text": "A note.", "metadata": {"n": -HUGE}}, "range"),
    # (a lone surrogate cannot be sent: the official client refuses to serialise it)
    "a multi-turn note update": ("update_note", {"note_id": "note-absent", "text": "x"}, "note-absent"),
}


# --------------------------------------------------------------------------- 6. truthful tools


def test_the_remember_tool_refuses_what_the_write_would_refuse(tmp_path):
    from memgraph_agents.config import InputLimits, Settings
    from memgraph_agents.integrations import create_memory_tools

    s = Settings(data_dir=tmp_path / "mem", embeddings="hash", limits=InputLimits(max_turn_chars=40).model_dump())
    tools = create_memory_tools(s)
    remember = next(t for t in tools if t.name == "remember")
    said = remember.invoke({"text": "This fact is much longer than forty characters, so it is over."})
    assert "Saved" not in said and "max_turn_chars" in said, said
    assert tools.flush() == []  # nothing was queued
    assert remember.invoke({"text": "Short fact."}) == "Saved to long-term memory."
    assert len(tools.flush()) == 1


def test_a_failed_background_write_is_told_on_the_next_tool_call(tmp_path):
    from memgraph_agents.config import Settings
    from memgraph_agents.integrations import MemoryWriteError, create_memory_tools

    Memory(tmp_path / "mem", embeddings="hash-32").add("Made by another model.", namespace="default")
    tools = create_memory_tools(Settings(data_dir=tmp_path / "mem", embeddings="hash"))
    remember = next(t for t in tools if t.name == "remember")
    recall = next(t for t in tools if t.name == "recall")
    # the write fails (another model's namespace) within remember's wait: said at once, never "saved"
    said = remember.invoke({"text": "The locker code is 2210."})
    assert said.startswith("Not saved to long-term memory:") and "Saved to" not in said, said
    tools.memory.remember_wait = 0  # from now on remember says "queued": the next call tells the outcome
    queued = remember.invoke({"text": "The locker code is 2211."})
    assert queued.startswith("Not saved yet: the note is queued"), queued
    tools.memory.writer.wait(timeout=60)  # the write fails in the background
    told = recall.invoke({"query": "locker code"})  # recall fails too (the model), and tells the lost write
    assert "note-" in told and "failed" in told and "not saved" in told, told
    assert "not saved" not in recall.invoke({"query": "locker code"})  # told once
    with pytest.raises(MemoryWriteError):  # and flush still raises for it
        tools.flush()
    remember.invoke({"text": "Another fact."})
    tools.memory.writer.wait(timeout=60)
    said = remember.invoke({"text": "A third fact."})
    assert said.startswith("Not saved yet") and "Warning:" in said and "not saved" in said.split("Warning:")[1], said


@pytest.mark.slow
def test_a_reembed_that_committed_says_so_when_the_index_rebuild_fails(tmp_path, capsys, quiet, monkeypatch):
    from memgraph_agents.cli.main import main
    from memgraph_agents.errors import StorageError
    from memgraph_agents.runtime import forget_store
    from memgraph_agents.storage import chroma_index
    from tests.test_reembed import NS, mark, settings, vectors

    monkeypatch.setenv("MEMGRAPH_CHROMA_INDEX_NODES", "0")  # the namespace has a Chroma index
    ingest_conversation(conversation("c", 2), settings(tmp_path, "hash-64", chroma_index_nodes=0))
    forget_store(settings(tmp_path, "hash-64"), NS)
    real = chroma_index.build_index

    def server_gone(*args, **kwargs):
        raise StorageError("cannot reach the Chroma server at 127.0.0.1:9")

    monkeypatch.setattr(chroma_index, "build_index", server_gone)
    argv = ["--data-dir", str(tmp_path), "--embeddings", "hash-32", "reembed", "--namespace", NS]
    assert main(argv) == 0
    out = capsys.readouterr()
    text = " ".join((out.out + out.err).split())
    assert "hash-64 -> hash-32" in text and "warning:" in text and "committed" in text, text
    assert "abandon" not in text and "error:" not in text
    assert mark(tmp_path) == "hash-32" and {v.shape for v in vectors(tmp_path).values()} == {(32,)}
    monkeypatch.setattr(chroma_index, "build_index", real)
    assert main(argv) == 0  # run again: the index is built
    assert "Chroma index rebuilt" in " ".join(capsys.readouterr().err.split())


class _NoEmbeddingsHere:
    """A LangChain-style embeddings object that fails if anything is embedded."""

    def embed_documents(self, texts):
        raise AssertionError("deleting embedded something")

    def embed_query(self, text):
        raise AssertionError("deleting embedded something")


def test_deleting_needs_no_embedding_model(tmp_path):
    from langchain_core.embeddings import Embeddings

    made = Memory(tmp_path / "mem", embeddings="hash-32")
    note = made.add("The gate code is 1234.", namespace="n").note_ids[0]
    ingest_conversation(conversation("c", 2), made.settings, namespace="n")
    made.add("Another namespace.", namespace="gone")
    sessions = [i.id for i in made.list("n", kind="session").items]

    class Exploding(_NoEmbeddingsHere, Embeddings):
        pass

    for other in (Memory(tmp_path / "mem", embeddings="hash"), Memory(tmp_path / "mem", embeddings=Exploding())):
        with pytest.raises(Exception, match="vectors of two models never mix|embedded something"):
            other.search("gate code", namespace="n")  # reading does need the namespace's model
    other = Memory(tmp_path / "mem", embeddings=Exploding())
    assert other.forget(namespace="n", note=note).sessions == [note]
    assert Memory(tmp_path / "mem", embeddings="hash").forget(namespace="n", session=sessions[0]).nodes_removed > 0
    assert other.forget(namespace="gone").namespace_deleted
    assert [i.id for i in made.list("n").items] == sessions[1:]
    assert made.search("gate code", namespace="n", k=3) is not None  # the namespace still reads
    assert made.namespaces() == ["n"]


# --------------------------------------------------------------------------- 7. odds

LONE = "the gate \ud800 code"


def test_a_lone_surrogate_is_an_input_error_everywhere(root, capsys, quiet):
    mem = Memory(settings=settings_of(root))
    note = mem.list("base", kind="note").items[0].id
    items = MemgraphStore(settings=settings_of(root))  # its item table is created now, not by the query
    calls = {
        "add text": lambda: mem.add(LONE, namespace="base"),
        "add speaker": lambda: mem.add("fine text", namespace="base", speaker=LONE),
        "add metadata value": lambda: mem.add("fine text", namespace="base", metadata={"k": LONE}),
        "add metadata key": lambda: mem.add("fine text", namespace="base", metadata={"k": {LONE: 1}}),
        "update": lambda: mem.update(note, LONE, namespace="base"),
        "search": lambda: mem.search(LONE, namespace="base"),
        "ask": lambda: mem.ask(LONE, namespace="base"),
        "list filter": lambda: mem.list("base", filter={"k": LONE}),
        "list speaker": lambda: mem.list("base", speaker=LONE),
        "store search": lambda: items.search(("t",), query=LONE),
        "store filter": lambda: items.search(("t",), filter={"k": LONE}),
    }
    before = fingerprint(root)
    for name, call in calls.items():
        with pytest.raises(InputError, match="unpaired surrogate"):
            call()
            pytest.fail(f"{name} took a lone surrogate")
    assert cli(root, "note", "add", LONE, "--namespace", "base") == 2
    assert "unpaired surrogate" in error_line(capsys.readouterr().err)
    assert_unchanged(root, before)


def test_flags_must_be_bools_and_namespace_lists_name_each_namespace(root):
    mem = Memory(settings=settings_of(root))
    before = fingerprint(root)
    for flag, value in (("replace", "yes"), ("replace", 1), ("rebuild", 2), ("rebuild", "no"), ("replace", None)):
        with pytest.raises(InputError, match=f"{flag} must be True or False"):
            mem.add("A new note.", namespace="base", **{flag: value})
    for names in (["base", None], ["base", 3], [None]):
        with pytest.raises(InputError, match="every entry must be a namespace name"):
            mem.search("pier", namespaces=names)
    assert_unchanged(root, before)


def test_memory_user_and_the_tools_follow_one_user_id_rule(tmp_path):
    from memgraph_agents.errors import NamespaceError
    from memgraph_agents.integrations.run_scopes import run_namespace

    def tools_ns(uid):
        return run_namespace({"user_id": uid}, None, user_key="user_id", prefix="", default=None)

    mem = Memory(tmp_path / "mem", embeddings="hash")
    for uid in (0, 42, "0", "alice@example.com", -7):
        assert mem.user(uid).settings.namespace == tools_ns(uid) == Memory.namespace_for_user(uid)
    assert Memory.namespace_for_user(0) == Memory.namespace_for_user("0")
    for bad in (True, False, "", " x", 1.5, ["a"]):
        with pytest.raises(NamespaceError):
            mem.user(bad)
        with pytest.raises(NamespaceError):
            tools_ns(bad)


@pytest.mark.parametrize(
    "content, says",
    [
        ('{"abc": "ana"}', "tokens need at least 16"),
        ('{"0123456789abcde": "ana"}', "tokens need at least 16"),
        ('{"tok-0123456789abcdef": "ana", "tok-0123456789abcdef": "ben"}', "names a token twice"),
        ('{" tok-0123456789abcdef": "ana"}', "whitespace"),
    ],
)
def test_a_token_file_with_a_weak_or_repeated_token_refuses_to_start(tmp_path, capsys, content, says):
    from memgraph_agents.cli.main import main
    from memgraph_agents.errors import ConfigError
    from memgraph_agents.integrations.mcp_tokens import load_tokens

    tokens = tmp_path / "tokens.json"
    tokens.write_text(content)
    with pytest.raises(ConfigError, match=says) as err:
        load_tokens(tokens)
    assert "tok-0123456789abcdef" not in str(err.value)  # a token is a secret: never in a message
    argv = ["--embeddings", "hash", "--data-dir", str(tmp_path / "mem"), "mcp", "--transport", "http"]
    assert main([*argv, "--port", "1", "--tokens", str(tokens)]) == 2
    err_lines = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert len(err_lines) == 1 and says in err_lines[0] and not (tmp_path / "mem").exists()
    tokens.write_text('{"tok-0123456789abcdef": "ana"}')
    tokens.chmod(0o600)
    assert load_tokens(tokens) == {"tok-0123456789abcdef": "ana"}


@pytest.mark.slow
@pytest.mark.timeout(180)
def test_reads_work_while_another_process_holds_the_data_dir(tmp_path):
    """``ask``, ``list``, ``stats`` and a Python search read a namespace with no Chroma index
    while another process that wrote keeps its Memory open; and a write lands too."""
    import os
    import subprocess
    import sys

    env = {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "ANONYMIZED_TELEMETRY": "False",
        "MEMGRAPH_LLM": "none",
        "MEMGRAPH_EMBEDDINGS": "hash",
        "MEMGRAPH_DATA_DIR": str(tmp_path / "mem"),
        "MEMGRAPH_CHROMA_INDEX_NODES": "100000",  # the default: small namespaces have no index
        "MEMGRAPH_DATA_DIR_LOCK_TIMEOUT": "1",
    }
    cli_ = [sys.executable, "-m", "memgraph_agents.cli.main"]
    subprocess.run([*cli_, "note", "add", "The night bus leaves at nine.", "--namespace", "a"], env=env, check=True)
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; from memgraph_agents import Memory; m = Memory(); "
            "m.add('The ferry leaves at ten.', namespace='a'); print('holding', flush=True); sys.stdin.read()",
        ],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "holding"

        def run(*argv: str) -> subprocess.CompletedProcess:
            return subprocess.run([*cli_, *argv], env=env, capture_output=True, text=True, timeout=120)

        asked = run("ask", "When does the ferry leave?", "--namespace", "a")
        assert asked.returncode == 0 and "ferry leaves at ten" in asked.stdout, asked.stderr
        listed = run("list", "--namespace", "a", "--json")
        assert listed.returncode == 0 and "ferry" in listed.stdout, listed.stderr
        assert run("stats", "--namespace", "a").returncode == 0
        searched = subprocess.run(
            [
                sys.executable,
                "-c",
                "from memgraph_agents import Memory; print(Memory().search('bus', namespace='a')[0].text)",
            ],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert searched.returncode == 0 and "night bus" in searched.stdout, searched.stderr
        # the holder holds the data dir for its writes only: a third process writes too
        wrote = run("note", "add", "A write from a third process.", "--namespace", "a")
        assert wrote.returncode == 0, wrote.stderr
    finally:
        holder.communicate("", timeout=60)
