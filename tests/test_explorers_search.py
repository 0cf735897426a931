"""Explorers on a memory built to need a search (default settings, no forced search): a
two-part question whose second part only one turn answers, and that turn outside the seed's
top 10 because a dozen turns match the first part better. The offline Explorers keep its event
for the open subgoal, and the turn that answers it joins the ranking after the seed's first 5."""

from __future__ import annotations

from datetime import datetime

import pytest

from memgraph_agents.config import Settings
from memgraph_agents.ingest import ingest_conversation
from memgraph_agents.model import Conversation, Session, Turn
from memgraph_agents.model.evidence import flatten_turns
from memgraph_agents.navigator import NavigatorContext, navigate
from memgraph_agents.registry import retrieve
from memgraph_agents.runtime import get_store

GARDEN = [
    "The vegetables in my garden are growing well, tomatoes and beans everywhere.",
    "Your garden vegetables sound great, what do you grow most?",
    "I grow tomatoes, beans and courgettes in the garden beds.",
    "Growing vegetables in a garden takes patience.",
    "My garden vegetables need water every evening.",
    "Do the garden vegetables get enough sun?",
    "The garden gets sun all afternoon, the vegetables love it.",
    "I should grow vegetables in a garden too.",
    "Growing your own vegetables in the garden is rewarding.",
    "What vegetables would you grow first in a new garden?",
    "Tomatoes first, they grow fast in any garden.",
    "Garden vegetables taste better than shop ones.",
]
LATER = [
    ("Ben", "My sister is a nurse at the harbour clinic now."),
    ("Ana", "Wow, congratulations!"),
    ("Ben", "She starts on the night shift next month."),
]
QUESTION = "What vegetables does Ana grow in her garden, and where does Ben's sister work?"
ANSWER = "D2:1"


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    sessions = [
        Session(
            id="S1",
            date=datetime(2024, 3, 1, 10),
            turns=[Turn(id=f"D1:{i}", speaker="Ana", text=t) for i, t in enumerate(GARDEN, 1)],
        ),
        Session(
            id="S2",
            date=datetime(2024, 4, 1, 10),
            turns=[Turn(id=f"D2:{i}", speaker=s, text=t) for i, (s, t) in enumerate(LATER, 1)],
        ),
    ]
    settings = Settings(data_dir=tmp_path_factory.mktemp("explore") / "mem", embeddings="hash", namespace="ns")
    ingest_conversation(Conversation(id="c", sessions=sessions, speakers=["Ana", "Ben"]), settings, namespace="ns")
    return get_store(settings, "ns", create=False)


def test_the_seed_misses_the_second_part(store):
    assert ANSWER not in flatten_turns(retrieve("oneshot", QUESTION, store, k=10))


def test_offline_explorers_search_and_bring_the_answer_in(store):
    r = navigate(QUESTION, store, context=NavigatorContext(policy="offline"), k=10)
    types = [e["type"] for e in r.trace]
    assert "decision" in types  # the seed did not meet every subgoal: Explorers ran, unforced
    localize = next(e for e in r.trace if e["type"] == "localize")
    assert localize["source"] != "seed"
    kept = [e for e in r.trace if e["type"] == "decision" and e["action"] != "SKIP"]
    assert any(2 in e["supports"] for e in kept)  # kept for the open subgoal (the question's second part)
    ranked = flatten_turns(r.ranking)
    seed = flatten_turns(retrieve("oneshot", QUESTION, store, k=10))
    assert ranked[:5] == seed[:5]  # the seed's first 5 are never displaced
    assert ranked.index(ANSWER) == 5  # the explored turn joins right after them
    assert ANSWER in flatten_turns(r.kept_ranking)
