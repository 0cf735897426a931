"""``memgraph export``: a namespace (or what the filters admit) as a conversation file that
``memgraph ingest`` reads back to the same sessions, turns and metadata; a user's memory goes
and comes back by its user id, which the namespace keeps; an existing file is never replaced."""

from __future__ import annotations

import json

import pytest

from memgraph_agents import Memory
from memgraph_agents.cli.main import main
from tests.conftest import make_conversation


def _cli(capsys, data_dir, *argv: str) -> tuple[int, str, str]:
    code = main(["--embeddings", "hash", "--data-dir", str(data_dir), *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.slow  # two data dirs, four CLI runs
def test_export_and_ingest_round_trip_by_user_id(tmp_path, capsys):
    src, dst, out = tmp_path / "src", tmp_path / "dst", tmp_path / "ana.json"
    mem = Memory(src, embeddings="hash", llm="none")
    mem.add(make_conversation("ana-ben"), user_id="ana", metadata={"project": "garden"})
    assert _cli(capsys, src, "note", "add", "Ana's shed key is under the pot", "--user-id", "ana")[0] == 0
    code, _, err = _cli(capsys, src, "export", "--user-id", "ana", "--out", str(out))
    exported = json.loads(out.read_text(encoding="utf-8"))
    assert code == 0 and "exported 4 session(s) and note(s)" in err
    assert exported == mem.export(user_id="ana") and exported["sessions"][0]["metadata"] == {"project": "garden"}
    assert _cli(capsys, dst, "ingest", str(out), "--user-id", "ana")[0] == 0
    again = Memory(dst, embeddings="hash", llm="none")
    assert again.export(user_id="ana")["sessions"] == exported["sessions"]
    assert again.stats(user_id="ana")["user_id"] == "ana"
    # the filters are list's; stdout without --out
    code, text, _ = _cli(capsys, src, "export", "--user-id", "ana", "--kind", "note")
    assert code == 0 and [s["id"][:5] for s in json.loads(text)["sessions"]] == ["note-"]


def test_export_refuses_to_replace_a_file_or_read_a_missing_namespace(tmp_path, capsys):
    mem = Memory(tmp_path / "mem", embeddings="hash", llm="none")
    mem.add("Bo rows on Sundays", namespace="bo")
    kept = tmp_path / "kept.json"
    kept.write_text("mine")
    code, _, err = _cli(capsys, tmp_path / "mem", "export", "--namespace", "bo", "--out", str(kept))
    assert code == 2 and "File exists" in err and kept.read_text() == "mine"
    code, _, err = _cli(capsys, tmp_path / "mem", "export", "--namespace", "nobody")
    assert code == 2 and err.startswith("error: namespace 'nobody' does not exist") and len(err.splitlines()) == 1
