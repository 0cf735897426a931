"""The everyday verbs on the command line: ``list``, ``show``, ``note add | update | history |
forget``, ``--metadata``, and ``ask``'s filters and several namespaces (hash embeddings,
``main(argv)``)."""

from __future__ import annotations

import json

import pytest

from memgraph_agents.cli.filter_args import filter_value, metadata_filter
from memgraph_agents.errors import InputError
from tests.test_cli import fingerprint, run


def out_json(capsys) -> dict:
    return json.loads(capsys.readouterr().out)


def add_note(tmp_path, capsys, text: str, *extra: str, ns: str = "ana") -> str:
    assert run(tmp_path, "note", "add", text, "--namespace", ns, "--json", *extra) == 0
    return out_json(capsys)["note_id"]


def test_filter_values():
    assert filter_value("2024") == 2024 and filter_value("true") is True
    assert filter_value("trip") == "trip"
    assert filter_value("a,b") == {"$in": ["a", "b"]}
    assert filter_value('"a,b"') == "a,b"  # JSON text: the comma is part of the value
    assert filter_value('{"$in": [1, 2]}') == {"$in": [1, 2]}
    assert metadata_filter(["project=trip", 'year={"$gte": 2024}']) == {"project": "trip", "year": {"$gte": 2024}}
    assert metadata_filter(None) is None
    for bad in (["project"], ["=x"], ["a=1", "a=2"], ["tag=a,,b"]):
        with pytest.raises(InputError):
            metadata_filter(bad)


@pytest.mark.slow
def test_note_verbs_list_filters_and_scopes(tmp_path, capsys):
    trip = add_note(
        tmp_path, capsys, "Lena booked the train to Vienna", "--metadata", '{"project": "trip", "tag": "rail"}'
    )
    tea = add_note(tmp_path, capsys, "Omar likes green tea", "--metadata", '{"project": "home"}', "--speaker", "omar")
    shared = add_note(tmp_path, capsys, "The office in Vienna closes on Fridays", ns="team")

    assert run(tmp_path, "list", "--namespace", "ana", "--json") == 0
    page = out_json(capsys)
    assert [i["id"] for i in page["items"]] == [tea, trip]  # newest first
    assert page["items"][1]["metadata"] == {"project": "trip", "tag": "rail"}
    assert run(tmp_path, "list", "--namespace", "ana", "--filter", "project=trip", "--json") == 0
    assert [i["id"] for i in out_json(capsys)["items"]] == [trip]
    assert run(tmp_path, "list", "--namespace", "ana", "--filter", "project=trip,home", "--limit", "1", "--json") == 0
    first = out_json(capsys)
    assert [i["id"] for i in first["items"]] == [tea] and first["cursor"]
    nxt = ("list", "--namespace", "ana", "--filter", "project=trip,home", "--limit", "1", "--cursor", first["cursor"])
    assert run(tmp_path, *nxt, "--json") == 0
    assert [i["id"] for i in out_json(capsys)["items"]] == [trip]
    # a cursor pages the listing it came from: without its filter it is refused, not reused
    assert run(tmp_path, "list", "--namespace", "ana", "--limit", "1", "--cursor", first["cursor"], "--json") == 2
    assert "cursor" in capsys.readouterr().err
    assert run(tmp_path, "list", "--namespace", "ana", "--speaker", "Omar", "--json") == 0
    assert [i["id"] for i in out_json(capsys)["items"]] == [tea]

    # ask: filters restrict what is searched; several namespaces rank together, each line says where
    assert run(tmp_path, "ask", "Vienna", "--namespace", "ana", "--retriever", "bm25", "--filter", "tag=rail") == 0
    assert f"{trip}:1" in capsys.readouterr().out
    assert run(tmp_path, "ask", "Vienna tea", "--namespace", "ana", "--retriever", "bm25", "--speaker", "omar") == 0
    text = capsys.readouterr().out
    assert f"{tea}:1" in text and trip not in text
    assert run(tmp_path, "ask", "Vienna", "--namespace", "ana", "--filter", "project=none", "--retriever", "bm25") == 1
    assert "matches the filter" in capsys.readouterr().err
    assert run(tmp_path, "ask", "Vienna", "--namespace", "ana", "--namespace", "team", "--retriever", "bm25") == 0
    lines = [line.strip() for line in capsys.readouterr().out.splitlines() if line.strip()[:2] in ("1.", "2.")]
    assert {line.split(":")[0].split(". ")[1] for line in lines} == {"ana", "team"}
    assert any(shared in line for line in lines)

    # update keeps the id; history shows both versions; show prints the metadata
    assert run(tmp_path, "note", "update", trip, "Lena booked the night train to Vienna", "--namespace", "ana") == 0
    capsys.readouterr()
    assert run(tmp_path, "note", "history", trip, "--namespace", "ana", "--json") == 0
    hist = out_json(capsys)
    assert [v["text"] for v in hist["versions"]] == [
        "Lena booked the train to Vienna",
        "Lena booked the night train to Vienna",
    ]
    assert hist["versions"][1]["metadata"] == {"project": "trip", "tag": "rail"}
    assert run(tmp_path, "show", trip, "--namespace", "ana") == 0
    shown = capsys.readouterr().out
    assert "night train" in shown and '"tag": "rail"' in shown

    assert run(tmp_path, "note", "forget", trip, "--namespace", "ana") == 0
    capsys.readouterr()
    assert run(tmp_path, "list", "--namespace", "ana", "--json") == 0
    assert [i["id"] for i in out_json(capsys)["items"]] == [tea]
    assert run(tmp_path, "note", "history", trip, "--namespace", "ana") == 2
    assert "no note" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv, message",
    [
        (["note", "add", "x", "--metadata", "[1]"], "--metadata must be a JSON object"),
        (["note", "add", "x", "--metadata", "{bad"], "--metadata is not JSON"),
        (["note", "add", "x", "--metadata", '{"$k": 1}'], "invalid key"),
        (["note", "update", "NOTE", "new text", "--metadata", "3"], "--metadata must be a JSON object"),
        (["note", "update", "note-0-missing", "new text"], "no note"),
        (["note", "update", "NOTE", "   "], "empty"),
        (["note", "forget", "S1"], "not a note id"),
        (["list", "--filter", "project"], "--filter takes KEY=VALUE"),
        (["list", "--filter", 'a={"$foo": 1}'], "unknown operator"),
        (["list", "--since", "someday"], "since"),
        (["list", "--limit", "0"], "limit"),
        (["ask", "q", "--until", "someday"], "until"),
        (["ask", "q", "--namespace", "ana", "--namespace", "missing"], "does not exist"),
    ],
)
def test_bad_input_is_one_line_and_changes_nothing(tmp_path, capsys, argv, message):
    note = add_note(tmp_path, capsys, "Lena booked the train to Vienna", "--metadata", '{"project": "trip"}')
    before = fingerprint(tmp_path, "ana")
    argv = [note if a == "NOTE" else a for a in argv]
    if "--namespace" not in argv:
        argv += ["--namespace", "ana"]
    assert run(tmp_path, *argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and message in err and "\n" not in err
    assert fingerprint(tmp_path, "ana") == before
    assert run(tmp_path, "note", "history", note, "--namespace", "ana", "--json") == 0
    assert len(out_json(capsys)["versions"]) == 1
