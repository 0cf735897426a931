"""The LLM policy's benchmark is one command against any OpenAI-compatible server: here the
scripted server of ``tests/llm_server.py`` over real HTTP, with the answer model and the judge
named apart, and both named with the tokens in what the command writes."""

from __future__ import annotations

import json

import pytest

from memgraph_agents.cli.main import main
from tests.test_bench import locomo_fixture


@pytest.mark.slow
def test_navigator_qa_bench_runs_against_an_openai_compatible_server(tmp_path, llm_server, capsys):
    data = tmp_path / "locomo_tiny.json"
    data.write_text(json.dumps(locomo_fixture()), encoding="utf-8")
    out = tmp_path / "out"
    argv = ["--data-dir", str(tmp_path / "mem"), "--embeddings", "hash", "bench", "locomo", "--data", str(data)]
    argv += ["--conversations", "conv-t1", "--retrievers", "navigator", "--qa", "--out", str(out)]
    argv += ["--llm", "openai:answer-model-a", "--judge-llm", "openai:judge-model-b"]
    assert main(argv) == 0
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    qa = results["retrievers"]["navigator"]["qa"]
    assert results["llm"] == "openai:answer-model-a" and qa["judge"]["llm"] == "openai:judge-model-b"
    assert qa["answered_by"] == "navigator responder" and qa["llm_failures"] == 0
    assert qa["llm"]["input_tokens"] > 0 and qa["llm"]["output_tokens"] > 0
    # The requests went where the command said: navigator roles to the answer model, judgements to the judge.
    by_model = {r.model for r in llm_server.records if r.task.startswith("TASK: JUDGE ANSWER")}
    assert by_model == {"judge-model-b"}
    assert {r.model for r in llm_server.records if not r.task.startswith("TASK: JUDGE ANSWER")} == {"answer-model-a"}
    md = (out / "results.md").read_text(encoding="utf-8")
    assert "openai:answer-model-a" in md and "openai:judge-model-b" in md and "input tokens" in md
    assert "judge" in capsys.readouterr().out.lower()
