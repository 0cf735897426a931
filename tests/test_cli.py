"""The ``memgraph`` CLI through ``main(argv)`` (hash embeddings, a temporary data dir)."""

from __future__ import annotations

import hashlib
import re
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest

from memgraph_agents.cli import output
from memgraph_agents.cli.main import main
from memgraph_agents.config import Settings
from memgraph_agents.runtime import get_store

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "conversation.json"
NS = "maya-jonas"  # the example's namespace: its conversation id

VALID = '{"id": "x", "sessions": [{"id": "S1", "date": "2024-01-01", "turns": [%s]}]}'
TURN = '{"id": "%s", "speaker": "A", "text": "%s"}'


def set_width(monkeypatch, columns: int) -> None:
    """Fix the CLI consoles' width. (They are module-level: COLUMNS is read once, at import.)"""
    for c in (output.console, output.err_console):
        monkeypatch.setattr(c, "_width", columns)


@pytest.fixture
def wide(monkeypatch):
    """A wide console, so tables and messages are not cut at 80 columns (see the xfails below)."""
    set_width(monkeypatch, 250)


def run(tmp_path, *argv: str) -> int:
    return main(["--embeddings", "hash", "--data-dir", str(tmp_path / "mem"), *argv])


def settings_for(tmp_path) -> Settings:
    return Settings(data_dir=tmp_path / "mem", embeddings="hash")


def fingerprint(tmp_path, namespace: str) -> str:
    """Hash of a namespace's graph rows (sessions, nodes, edges) and its Chroma ids."""
    db = tmp_path / "mem" / "namespaces" / namespace / "graph.sqlite"
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        parts = [
            con.execute(q).fetchall()
            for q in (
                "SELECT id, date, status, seq, participants, n_turns, content_hash, builder, info FROM sessions ORDER BY id",
                "SELECT * FROM nodes ORDER BY id",
                "SELECT * FROM edges ORDER BY src, dst, kind, label",
            )
        ]
    finally:
        con.close()
    ids = sorted(get_store(settings_for(tmp_path), namespace, create=False).vectors.all_ids())
    return hashlib.sha256(repr((parts, ids)).encode()).hexdigest()


def table_row(out: str, title: str, first_cell: str) -> list[str]:
    """Cells of the row starting with ``first_cell`` in the rich table titled ``title``."""
    section = out.split(title, 1)[1]
    header = next(line for line in section.splitlines() if "┃" in line)
    row = next(line for line in section.splitlines() if line.startswith(f"│ {first_cell}"))
    names = [c.strip() for c in header.strip("┃").split("┃")]
    cells = [c.strip() for c in row.strip("│").split("│")]
    return list(zip(names, cells))


def kind_counts(out: str, title: str, namespace: str) -> dict[str, str]:
    """``{kind: count}`` for one namespace from a kinds-as-rows table."""
    section = out.split(title, 1)[1].split("\n\n", 1)[0]
    header = next(line for line in section.splitlines() if "┃" in line)
    col = [c.strip() for c in header.strip("┃").split("┃")].index(namespace)
    counts = {}
    for line in section.splitlines():
        if line.startswith("│"):
            cells = [c.strip() for c in line.strip("│").split("│")]
            counts[cells[0]] = cells[col]
    return counts


def error_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.startswith("error:")]
    assert len(lines) == 1, err
    return lines[0]


# --------------------------------------------------------------------------- happy path


@pytest.mark.slow
def test_ingest_stats_show_ask_forget(tmp_path, capsys, wide):
    assert run(tmp_path, "ingest", str(EXAMPLE)) == 0
    out = capsys.readouterr().out
    assert "ingested 1 conversation(s), 60 new turn(s)" in out

    assert run(tmp_path, "ingest", str(EXAMPLE)) == 0  # idempotent
    assert "0 new turn(s)" in capsys.readouterr().out

    store = get_store(settings_for(tmp_path), NS, create=False)
    nodes, edges = store.db.counts()
    assert run(tmp_path, "stats") == 0
    out = capsys.readouterr().out
    summary = dict(table_row(out, "Namespaces", NS))
    assert summary["sessions"] == "5" and summary["nodes"] == str(sum(nodes.values()))
    assert summary["edges"] == str(sum(edges.values())) and summary["vectors"] == str(store.vectors.count())
    node_cells = kind_counts(out, "Nodes by kind", NS)
    for kind in ("session", "turn", "sentence", "event", "argument", "topic"):
        assert node_cells[kind] == str(nodes[kind]) and nodes[kind] > 0
    assert node_cells["turn"] == "60"
    edge_cells = kind_counts(out, "Edges by kind", NS)
    for kind in ("contains", "next", "evidence", "relation", "role", "member", "similar"):
        assert edge_cells[kind] == str(edges[kind]) and edges[kind] > 0

    assert run(tmp_path, "show", "S1:2", "--namespace", NS) == 0  # a bare turn id
    out = capsys.readouterr().out
    assert "turn:S1:2 (turn, owner session S1)" in out
    assert "'2024-03-08']" in out and "provenance turns (1):" in out  # "next Friday", resolved in the attrs
    assert "[2024-03-02 | S1:2] Jonas:" in out

    assert run(tmp_path, "show", "event:S1:1", "--namespace", NS) == 0
    out = capsys.readouterr().out
    assert "event:S1:1 (event, owner session S1)" in out and "evidence" in out and "turn:S1:1" in out
    assert "[2024-03-02 | S1:1] Maya: Jonas! It's been ages." in out

    assert (
        run(
            tmp_path,
            "ask",
            "When did Jonas hand in his notice at the freight company?",
            "--namespace",
            NS,
            "--retriever",
            "dense",
            "-k",
            "3",
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "(dense," in out
    hits = re.findall(r"^  (\d)\. \[(\d{4}-\d\d-\d\d) \| ([^\]]+)\] \((\w+), (-?[\d.]+)\)", out, re.M)
    assert [h[0] for h in hits] == ["1", "2", "3"]
    assert all(h[3] in {"turn", "sentence", "event", "session", "argument", "topic"} for h in hits)
    scores = [float(h[4]) for h in hits]
    assert scores == sorted(scores, reverse=True)

    assert run(tmp_path, "forget", "--namespace", NS, "--session", "S5") == 0
    assert "forgot session S5 of maya-jonas" in capsys.readouterr().out
    assert run(tmp_path, "stats") == 0
    out = capsys.readouterr().out
    assert dict(table_row(out, "Namespaces", NS))["sessions"] == "4"
    assert kind_counts(out, "Nodes by kind", NS)["turn"] == "51"  # S5 had 9 turns
    assert run(tmp_path, "show", "S5:1", "--namespace", NS) == 2
    assert "no note, session, turn or node 'S5:1'" in capsys.readouterr().err

    assert run(tmp_path, "forget", "--namespace", NS) == 0
    assert "forgot namespace maya-jonas" in capsys.readouterr().out
    assert not (tmp_path / "mem" / "namespaces" / NS).exists()
    assert run(tmp_path, "stats") == 0
    assert "no memory in" in capsys.readouterr().out
    assert run(tmp_path, "forget", "--namespace", NS) == 2
    assert "does not exist" in error_line(capsys.readouterr().err)


# --------------------------------------------------------------------------- bad inputs


BAD_FILES = {
    "missing": (None, "file not found"),
    "malformed": (b'{"id": "x", "sessions": [', "JSON"),
    "empty_session": ((VALID % "").encode(), "session has no turns"),
    "duplicate_turn_ids": (
        (VALID % (TURN % ("a", "hi") + ", " + TURN % ("a", "yo"))).encode(),
        "duplicate turn id 'a'",
    ),
    "non_utf8": ((VALID % TURN % ("a", "caf")).encode().replace(b"caf", b"caf\xe9\xff"), "not valid UTF-8"),
    "bad_date": (
        (VALID % TURN % ("a", "hi")).replace("2024-01-01", "the 32nd of Smarch").encode(),
        "unrecognised date 'the 32nd of Smarch'",
    ),
    "control_chars": ((VALID % TURN % ("a", "\\u0001\\u0002\\u0007\\u001b\\u007f")).encode(), "empty 'text'"),
}


@pytest.fixture(scope="module")
def memory(tmp_path_factory):
    """A data dir holding the example in namespace ``good``, shared by the bad-input tests
    (none of which may change it): (root, fingerprint)."""
    root = tmp_path_factory.mktemp("cli")
    assert run(root, "ingest", str(EXAMPLE), "--namespace", "good") == 0
    return root, fingerprint(root, "good")


@pytest.fixture
def ingested(memory, capsys, wide):
    root, fp = memory
    capsys.readouterr()
    yield fp
    assert fingerprint(root, "good") == fp
    assert sorted(p.name for p in (root / "mem" / "namespaces").iterdir()) == ["good"]


@pytest.mark.parametrize("case", list(BAD_FILES))
@pytest.mark.slow
def test_bad_input_file_exits_2_with_one_line_and_changes_nothing(memory, tmp_path, capsys, ingested, case):
    root, _ = memory
    content, expected = BAD_FILES[case]
    path = tmp_path / f"{case}.json"
    if content is not None:
        path.write_bytes(content)
    assert run(root, "ingest", str(path), "--namespace", "good") == 2
    captured = capsys.readouterr()
    line = error_line(captured.err)
    assert expected in line and f"{case}.json" in line  # names the file and the problem
    assert "Traceback" not in captured.err
    assert fingerprint(root, "good") == ingested


@pytest.mark.slow
def test_bad_namespace_exits_2_and_creates_nothing(memory, capsys, ingested):
    root, _ = memory
    assert run(root, "ingest", str(EXAMPLE), "--namespace", "../../etc") == 2
    line = error_line(capsys.readouterr().err)
    assert "invalid namespace '../../etc'" in line
    assert not (root / "etc").exists() and not (root / "mem" / "etc").exists()
    for argv in (
        ["stats", "--namespace", "../../etc"],
        ["forget", "--namespace", "../../etc"],
        ["show", "S1:1", "--namespace", "../x"],
        ["ask", "hi", "--namespace", "a/b"],
    ):
        assert run(root, *argv) == 2, argv
        assert "invalid namespace" in error_line(capsys.readouterr().err)
    assert fingerprint(root, "good") == ingested


def test_unknown_format_is_an_argparse_error(memory, capsys, ingested):
    root, _ = memory
    with pytest.raises(SystemExit) as exc:
        run(root, "ingest", str(EXAMPLE), "--namespace", "good", "--format", "xml")
    assert exc.value.code == 2
    assert "invalid choice: 'xml'" in capsys.readouterr().err


def test_unknown_namespace_and_session(memory, capsys, ingested):
    root, _ = memory
    assert run(root, "show", "S1:1", "--namespace", "nope") == 2
    assert "does not exist" in error_line(capsys.readouterr().err)
    assert run(root, "forget", "--namespace", "good", "--session", "S9") == 2
    assert "no session 'S9'" in error_line(capsys.readouterr().err)
    assert not (root / "mem" / "namespaces" / "nope").exists()


# --------------------------------------------------------------------------- console output at the default width


def test_long_error_is_one_line_at_the_default_width(tmp_path, capsys, monkeypatch):
    set_width(monkeypatch, 80)  # what rich uses when stdout/stderr is a pipe or a file
    path = tmp_path / "bad_date.json"
    path.write_bytes(BAD_FILES["bad_date"][0])
    assert run(tmp_path, "ingest", str(path)) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "unrecognised date" in err


def test_stats_names_every_kind_at_the_default_width(memory, capsys, monkeypatch):
    set_width(monkeypatch, 80)  # what rich uses when stdout/stderr is a pipe or a file
    root, _ = memory
    assert run(root, "stats") == 0
    out = capsys.readouterr().out
    for kind in ("namespace", "sentence", "argument", "topic", "contains", "evidence", "relation", "similar"):
        assert kind in out


# --------------------------------------------------------------------------- the console script


@pytest.mark.slow
def test_console_script_help():
    exe = shutil.which("memgraph")
    assert exe, "the memgraph console script is not installed (pip install -e .)"
    done = subprocess.run([exe, "--help"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    for command in ("ingest", "stats", "show", "forget", "ask", "demo"):
        assert command in done.stdout
