"""``memgraph bench query``: a default query against an ``InMemoryStore`` search, one command."""

from __future__ import annotations

import json

import pytest

from memgraph_agents.cli.main import main
from tests.test_bench import locomo_fixture

pytestmark = pytest.mark.slow  # ingests, then times every question on both sides


def test_bench_query_times_both_sides_alternately_and_scores_each(tmp_path, capsys):
    data, out = tmp_path / "tiny.json", tmp_path / "out"
    data.write_text(json.dumps(locomo_fixture()), encoding="utf-8")
    argv = ["--data-dir", str(tmp_path / "mem"), "--embeddings", "hash", "bench", "query"]
    assert main([*argv, "--data", str(data), "--out", str(out), "--k", "5"]) == 0
    doc = json.loads((out / "query.json").read_text())
    asked = sum(1 for s in locomo_fixture() for q in s["qa"] if q["category"] in (1, 2, 3, 4))
    assert doc["questions"] == asked > 0 and doc["k"] == 5 and doc["retriever"] == "navigator"
    assert doc["memgraph_cpu_ms"] > 0 and doc["plain_cpu_ms"] > 0
    assert doc["cpu_ratio"] == pytest.approx(
        doc["memgraph_cpu_ms"] / doc["plain_cpu_ms"], rel=0.05
    )  # of unrounded medians
    assert 0 <= doc["plain_recall_at_k"] <= 1 and 0 <= doc["memgraph_recall_at_k"] <= 1
    assert 0 < doc["bare_graph_cpu_ms"] < doc["memgraph_cpu_ms"]  # the runtime's floor, below a real query
    assert doc["bare_graph_to_plain_cpu"] == pytest.approx(doc["bare_graph_cpu_ms"] / doc["plain_cpu_ms"], rel=0.05)
    assert (tmp_path / "mem" / "namespaces").is_dir()  # the memory was ingested first
    printed = capsys.readouterr().out
    assert "InMemoryStore" in printed and "CPU x" in printed
    # stored already: a second run rebuilds nothing and asks the same questions
    assert main([*argv, "--data", str(data), "--out", str(out), "--max-questions", "1"]) == 0
    assert json.loads((out / "query.json").read_text())["questions"] == len(locomo_fixture())


def test_bench_query_refuses_missing_arguments_and_unknown_conversations(tmp_path, capsys):
    data = tmp_path / "tiny.json"
    data.write_text(json.dumps(locomo_fixture()), encoding="utf-8")
    assert main(["bench", "query", "--out", str(tmp_path / "o")]) == 2
    code = main(["--embeddings", "hash", "bench", "query", "--data", str(data), "--conversations", "nope"])
    assert code == 2
    code = main(
        ["--data-dir", str(tmp_path / "m"), "--embeddings", "hash", "bench", "query", "--data", str(data)]
        + ["--conversations", "nope", "--out", str(tmp_path / "o")]
    )
    assert code != 0
    assert "usage: memgraph bench query" in capsys.readouterr().err
