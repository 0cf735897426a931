"""Small fail-closed cases, one command each: every one is refused with one clear error and
the stored memory is unchanged (the fingerprint of ``tests/test_hostile_inputs.py``: rows,
vectors, files and answers of a module-wide data dir)."""

from __future__ import annotations

import json
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from memgraph_agents.api import Memory
from memgraph_agents.config import InputLimits
from memgraph_agents.errors import InputError, LimitExceededError
from memgraph_agents.ingest import ingest_conversation
from memgraph_agents.integrations import AgentMemory, MemgraphStore
from tests.test_hostile_inputs import USER, assert_unchanged, cli, error_line, fingerprint, settings_of
from tests.workloads import conversation

MEGABYTE_QUERY = "where " * 180_000  # ~1 MB


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("failclosed")
    ingest_conversation(conversation("base", 2, tag="b"), settings_of(root), namespace="base")
    ingest_conversation(conversation("alice", 1, tag="a"), settings_of(root), namespace=USER)
    return root


def _file(tmp_path: Path, date: str = "2024-01-01", speaker: str = "Ana") -> Path:
    path = tmp_path / "conv.json"
    turn = {"id": "S1:1", "speaker": speaker, "text": "The boat leaves at nine."}
    path.write_text(json.dumps({"id": "fresh", "sessions": [{"id": "S1", "date": date, "turns": [turn]}]}))
    return path


def test_a_date_that_leaves_the_calendar_in_utc_is_one_error(root, tmp_path, capsys, quiet):
    before = fingerprint(root)
    assert cli(root, "ingest", str(_file(tmp_path, "9999-12-31T23:00:00-14:00")), "--namespace", "fresh") == 2
    assert "falls outside years 1-9999 in UTC" in error_line(capsys.readouterr().err)
    late = datetime(9999, 12, 31, 23, tzinfo=timezone(timedelta(hours=-14)))
    with pytest.raises(InputError, match="falls outside years 1-9999 in UTC"):
        Memory(settings=settings_of(root)).add("The boat leaves at nine.", namespace="fresh", when=late)
    assert_unchanged(root, before)


def test_an_empty_data_dir_is_refused_not_the_current_directory(root, tmp_path, capsys, quiet, monkeypatch):
    from memgraph_agents.cli.main import main

    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exit_:
        main(["--embeddings", "hash", "--data-dir", "", "ingest", str(_file(tmp_path))])
    assert exit_.value.code == 2 and "argument --data-dir: empty" in capsys.readouterr().err
    monkeypatch.setenv("MEMGRAPH_DATA_DIR", "")
    assert main(["--embeddings", "hash", "ingest", str(_file(tmp_path))]) == 2
    assert "the data dir is empty" in error_line(capsys.readouterr().err)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["conv.json"]  # nothing written here


def test_forget_without_a_namespace_deletes_nothing(root):
    before = fingerprint(root)
    mem = Memory(settings=settings_of(root).override(namespace="base"))
    with pytest.raises(InputError, match="only when named"):
        mem.forget()
    assert_unchanged(root, before)


def test_a_long_speaker_name_is_over_a_limit(root, tmp_path, capsys, quiet):
    before = fingerprint(root)
    assert cli(root, "ingest", str(_file(tmp_path, speaker="A" * 5000)), "--namespace", "fresh") == 2
    assert "speaker name length 5000 over the limit of 200 characters" in error_line(capsys.readouterr().err)
    with pytest.raises(LimitExceededError, match="max_speaker_chars"):
        Memory(settings=settings_of(root)).add("The boat leaves at nine.", namespace="fresh", speaker="B" * 201)
    assert_unchanged(root, before)


def test_a_megabyte_query_is_refused_at_once_everywhere(root, capsys, quiet):
    s = settings_of(root)
    items = MemgraphStore(settings=s)  # its item table is created now, not by the query
    calls = {
        "Memory.search": lambda: Memory(settings=s).search(MEGABYTE_QUERY, namespace="base"),
        "Memory.ask": lambda: Memory(settings=s).ask(MEGABYTE_QUERY, namespace="base"),
        "AgentMemory.recall": lambda: AgentMemory(s).recall(MEGABYTE_QUERY, namespace="base"),
        "MemgraphStore.search": lambda: items.search(("base",), query=MEGABYTE_QUERY),
    }
    before = fingerprint(root)
    for name, call in calls.items():
        t0 = time.perf_counter()
        with pytest.raises(LimitExceededError, match="query length 1080000 over the limit of 10000"):
            call()
        assert time.perf_counter() - t0 < 2.0, name
    t0 = time.perf_counter()
    assert cli(root, "ask", MEGABYTE_QUERY, "--namespace", "base") == 2
    assert "max_query_chars" in error_line(capsys.readouterr().err) and time.perf_counter() - t0 < 2.0
    lifted = s.override(limits=InputLimits(max_query_chars=2_000_000).model_dump())
    assert isinstance(Memory(settings=lifted).search(MEGABYTE_QUERY[:20_000], namespace="base", k=1), list)
    assert_unchanged(root, before)
