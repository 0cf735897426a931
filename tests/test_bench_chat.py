"""``memgraph bench chat``: the chat-write benchmark runs end to end and reports what it measured."""

from __future__ import annotations

import json

import pytest

from memgraph_agents.cli.main import main

pytestmark = pytest.mark.slow  # seconds per test: left out of the fast subset (-m "not slow")


def test_bench_chat_reports_both_ways_with_medians_and_model_calls(tmp_path, capsys):
    out = tmp_path / "out"
    code = main(
        ["--data-dir", str(tmp_path / "mem"), "--embeddings", "hash", "bench", "chat", "--turns", "8"]
        + ["--repeat", "2", "--out", str(out)]
    )
    assert code == 0
    doc = json.loads((out / "chat.json").read_text())
    assert doc["turns"] == 8 and doc["repeat"] == 2 and len(doc["runs"]) == 2
    for key in ("seconds_at_once", "seconds_turn_by_turn", "cpu_seconds_at_once", "cpu_seconds_turn_by_turn"):
        assert doc[key] > 0, key
    # The ratio is of the unrounded times: within what rounding each to 0.1 ms allows.
    once, by_turn, half = doc["seconds_at_once"], doc["seconds_turn_by_turn"], 0.00005
    assert (by_turn - half) / (once + half) - 0.0005 <= doc["ratio"] <= (by_turn + half) / (once - half) + 0.0005
    # One model call per write, and a second one for a write whose turn marks a change ("now",
    # "moved"…): the supersession step embeds that statement to find the speaker's earlier ones
    # and then their plain text; each text once.
    assert 1 <= doc["model_calls_turn_by_turn"] <= 2 * 8
    assert doc["texts_embedded_turn_by_turn"] <= 1.5 * doc["texts_embedded_at_once"]
    printed = capsys.readouterr().out
    assert "run 2/2 done" in printed and "median of 2" in printed and "model calls" in printed


def test_bench_chat_refuses_bad_counts(tmp_path, capsys):
    for extra in (["--turns", "1"], ["--repeat", "0"], ["--turns", "10000001"]):
        code = main(["--data-dir", str(tmp_path), "bench", "chat", "--out", str(tmp_path / "o"), *extra])
        assert code == 2
    err = capsys.readouterr().err
    assert "--turns must be between 2 and 10000, got 1" in err and "--repeat must be at least 1" in err
    assert "got 10000001" in err and not (tmp_path / "o").exists()  # refused before anything is written
