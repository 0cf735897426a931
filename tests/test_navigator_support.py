"""Shared helpers of the navigator tests: a small ingested memory and scripted runs."""

from __future__ import annotations

import json
import re
from typing import Any

from memgraph_agents.config import Settings
from memgraph_agents.ingest import ingest_conversation
from memgraph_agents.navigator import NavigatorContext, navigate
from memgraph_agents.runtime import get_store
from tests.conftest import make_conversation
from tests.fakes import NAV_STEP_MARKER, ScriptedChatModel, parse_nav_step, task_text

NS = "navtest"
# The seed ranking meets no subgoal (``seed_meets`` > 1): the explorers always search, so the
# tests of the search itself (waves, budgets, refinement, repair) see one on every question.
SEARCH: dict[str, Any] = {"seed_meets": 2.0}


def build_memory(root) -> Any:
    """The three-session Ana/Ben chat, ingested offline with hash embeddings."""
    settings = Settings(data_dir=root, embeddings="hash", namespace=NS)
    ingest_conversation(make_conversation(), settings, namespace=NS)
    return get_store(settings, NS, create=False)


def run_llm(store, responder, question: str, **params: Any):
    model = ScriptedChatModel(responder=responder)
    result = navigate(question, store, context=NavigatorContext(policy="llm", **{**SEARCH, **params}), llm=model)
    return result, model


def step_prompts(model: ScriptedChatModel) -> list[str]:
    return [task_text(m) for m in model.calls if NAV_STEP_MARKER in task_text(m)]


def scripted_step(decide) -> Any:
    """An explorer responder from ``decide(node, parsed_prompt) -> decision dict``."""

    def respond(messages):
        p = parse_nav_step(task_text(messages))
        return json.dumps({"decisions": [{"node_id": n["id"], **decide(n, p)} for n in p["nodes"]]})

    return respond


def of_type(result, kind: str) -> list[dict]:
    return [e for e in result.trace if e["type"] == kind]


def decisions(result) -> list[dict]:
    return of_type(result, "decision")


def strip_timing(trace: list[dict]) -> str:
    return re.sub(r'"(wall_ms|started)": [0-9.e+-]+', "", json.dumps(trace, sort_keys=True))
