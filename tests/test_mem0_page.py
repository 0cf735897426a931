"""docs/coming-from-mem0.md runs: every row of its side-by-side table (each call returns the
type the row names), then its command-line block; the rows cover the mem0 calls a first hour
uses. ``.ci/wheel_check`` runs the same page from the installed wheel (``tests/mem0_page.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memgraph_agents import Memory
from memgraph_agents.cli.main import main
from tests.mem0_page import rows, run_page

PAGE = Path(__file__).resolve().parents[1] / "docs" / "coming-from-mem0.md"
pytestmark = pytest.mark.slow  # a dozen verbs and four CLI runs: seconds

MEM0_CALLS = ("m.add(", "m.search(", "m.get_all(", "m.get(", "m.update(", "m.history(", "m.delete(", "m.delete_all(")


def test_every_row_of_the_mem0_page_runs_and_returns_what_it_says(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    data_dir = tmp_path / "mem"

    def cli(argv: list[str]) -> str:
        assert main(["--embeddings", "hash", "--data-dir", str(tmp_path / "cli-mem"), *argv]) == 0, argv
        return capsys.readouterr().out

    done = run_page(PAGE, data_dir, cli, memory_args='embeddings="hash"')
    table = rows(PAGE.read_text(encoding="utf-8"))
    assert len(done) == len(table) + 4 and len(table) >= 12
    assert all(any(r[0].startswith(call) for r in table) for call in MEM0_CALLS)
    # what the rows did: alice's memory was written, read, updated, then deleted whole
    found = dict(done)
    assert found['mem.get_all(user_id="alice")'].startswith("ItemPage(namespace='u.")
    assert Memory(data_dir, embeddings="hash").namespaces() == []  # reset: every namespace forgotten
    # the command-line block: a note for alice, listed, exported, forgotten
    listed, exported, forgot = (out for cmd, out in done[-3:])
    assert "Alice likes green tea" in listed
    assert (tmp_path / "alice.json").exists() and "green tea" in (tmp_path / "alice.json").read_text()
    assert "forgot namespace u." in forgot
