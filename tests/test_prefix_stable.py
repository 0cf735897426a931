"""A ranking does not depend on how much is asked: the first 10 items of a request for 10 are
the first 10 of a request for 50, for every retriever (an agent or a page that shows
more never reshuffles what it showed). ``registry.retrieve`` ranks every retriever at least
``FINISH_HEAD`` deep and ``retrieval.finish`` re-orders only that head. The navigator (the
default) judges whether its seed meets the Planner's subgoals at that same fixed depth, so
whether its Explorers search does not depend on k either."""

from __future__ import annotations

import json

import pytest

from memgraph_agents import Memory
from memgraph_agents.registry import RETRIEVERS
from tests.knowledge_updates import CASES, conversation
from tests.paths import REPO

EXAMPLES = REPO / "examples"

DEMO = [("demo", q["question"]) for q in json.loads((EXAMPLES / "questions.json").read_text())]
UPDATES = [(f"u{i}", q) for i, case in enumerate(CASES[:8]) for q in (case.now, case.before)]  # linked turns
RANKERS = list(RETRIEVERS)


@pytest.fixture(scope="module")
def memory(tmp_path_factory):
    mem = Memory(tmp_path_factory.mktemp("prefix") / "mem", embeddings="hash", llm="none")
    mem.add(EXAMPLES / "conversation.json", namespace="demo")
    for i in range(8):
        mem.add(conversation(i), namespace=f"u{i}")
    return mem


@pytest.mark.parametrize("name", RANKERS)
def test_the_first_ten_of_fifty_are_the_ten(memory, name):
    for ns, q in DEMO + UPDATES:
        ten = [ev.node_id for ev in memory.search(q, namespace=ns, k=10, retriever=name, min_score=0)]
        fifty = memory.search(q, namespace=ns, k=50, retriever=name, min_score=0)
        assert len(ten) == min(10, len(fifty)) and len(ten) >= 3, (name, q)  # bm25: only turns sharing a word
        assert [ev.node_id for ev in fifty[:10]] == ten, (name, q)
        three = [ev.node_id for ev in memory.search(q, namespace=ns, k=3, retriever=name, min_score=0)]
        assert three == ten[:3], (name, q)
