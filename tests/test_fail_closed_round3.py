"""Fail closed, round three: the smaller items. Each is one clear error (or the documented
behaviour) with nothing stored changed."""

from __future__ import annotations

import json

import pytest

from memgraph_agents import Memory
from memgraph_agents.cli.main import main

# --------------------------------------------------------------------------- memgraph ui start-up


def _tokens(tmp_path, mode: int):
    path = tmp_path / "tokens.json"
    path.write_text(json.dumps({"tok-ana-4f1c9e27a3b8": "ana"}))
    path.chmod(mode)
    return path


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o606])
def test_ui_refuses_a_token_file_other_users_can_read(tmp_path, capsys, mode):
    Memory(tmp_path / "mem", embeddings="hash").add("Ana's note.", namespace="ana")
    path = _tokens(tmp_path, mode)
    code = main(
        ["--embeddings", "hash", "--data-dir", str(tmp_path / "mem"), "ui", "--port", "1", "--tokens", str(path)]
    )
    err = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert code == 2 and len(err) == 1 and f"mode {mode:04o}" in err[0] and "chmod 600" in err[0], err
    assert "tok-ana" not in err[0]  # a token is a secret: never in a message


def test_ui_refuses_a_namespace_that_does_not_exist(tmp_path, capsys):
    Memory(tmp_path / "mem", embeddings="hash").add("Ana's note.", namespace="ana")
    code = main(
        ["--embeddings", "hash", "--data-dir", str(tmp_path / "mem"), "ui", "--port", "1", "--namespace", "anna"]
    )
    err = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert code == 2 and len(err) == 1 and "'anna' does not exist" in err[0] and "ana" in err[0], err
    assert Memory(tmp_path / "mem", embeddings="hash").namespaces() == ["ana"]  # nothing created


# --------------------------------------------------------------------------- the Studio chatbot


def test_the_chatbot_runs_without_a_user_id(tmp_path):
    """Studio's form sends the empty user id box as "": the context's namespace, not an error."""
    from langchain_core.messages import HumanMessage

    from memgraph_agents.graphs.chatbot import ChatbotContext, build_chatbot_graph

    Memory(tmp_path / "mem", embeddings="hash").add("The spare key is under the blue pot.", namespace="demo")
    graph = build_chatbot_graph()
    for user_id in ("", "  ", None):
        ctx = ChatbotContext(
            user_id=user_id, data_dir=str(tmp_path / "mem"), namespace="demo", embeddings="hash", llm="none"
        )
        assert ctx.user_id is None
        out = graph.invoke({"messages": [HumanMessage("Where is the spare key?")]}, context=ctx)
        assert "blue pot" in out["messages"][-1].content
