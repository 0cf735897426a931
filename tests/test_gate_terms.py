"""The relevance gate rises for a question that asks the assistant for a task, or names what memory never saw.

One cosine (the namespace's best statement, ``retrieval.gate``) cannot tell "memory talks about
this" from "memory answers this": a request or small talk finds some turn that says something
close. ``retrieval.gate_terms`` raises that question's gate; the decision stays once per
question, on the question and the namespace, whatever k. Invented messages and chats only.
"""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage, HumanMessage

from memgraph_agents.api import Memory, ops
from memgraph_agents.config import MINILM_GATE_NAME_RAISE, MINILM_GATE_TASK_RAISE, Settings
from memgraph_agents.ingest import ingest_conversation
from memgraph_agents.integrations import AgentMemory
from memgraph_agents.model.outcome import EmptyReason
from memgraph_agents.retrieval.gate import gate_in_force, question_relevance
from memgraph_agents.retrieval.gate_terms import assistant_task, content_words, unknown_names
from tests.conftest import make_conversation

STAMP = {"timestamp": "2024-12-01T10:00:00"}

TASKS = [
    "Write a limerick about a sleepy owl.",
    "please compose a birthday message for my aunt",
    "Can you recommend a thriller for a long flight?",
    "Could you plan three days in Vienna for me?",
    "I need you to translate 'see you soon' into Dutch.",
    "tell me a joke",
    "Give me five ideas for a rainy afternoon.",
    "What should I cook tonight?",
    "I'm bored, any ideas?",
    "What's a good name for a hamster?",
    "thank you!",  # small talk: no content word at all
    "what can you do?",
]
QUESTIONS = [
    "When did Ben finish the half marathon?",
    "what did the vet say about the dog",
    "Who wrote the note Ana left on the fridge?",  # "wrote" asks who did, not to write
    "Tell me about the trip to the coast.",  # asks memory to tell what it holds
    "Which book did Ana recommend to Ben?",  # "recommend" inside a question about the past
    "Do you remember where we parked?",
    "Remind me when the dentist appointment is.",
]


@pytest.mark.parametrize("message", TASKS)
def test_a_task_or_small_talk_asks_the_assistant(message):
    assert assistant_task(message)


@pytest.mark.parametrize("message", QUESTIONS)
def test_a_question_about_the_past_is_no_task(message):
    assert not assistant_task(message) and content_words(message)


@pytest.fixture
def chat(settings):
    ingest_conversation(make_conversation(), settings, namespace="test")
    return ops.open_store(settings, "test")


def test_names_memory_never_saw(chat):
    snap = chat.snapshot()
    assert unknown_names("What did Gerald say about Pixel?", snap) == ["Gerald"]
    assert unknown_names("Did Ana tell Ben about the Riverside Library?", snap) == []  # speakers, known names
    assert unknown_names("Gerald? No idea.", snap) == []  # a capital opening the message is no name
    assert unknown_names("When did Ben run in Lisbon, and did Oskar come?", snap) == ["Oskar"]


def test_a_name_the_agent_stored_with_the_question_is_still_unknown(settings, chat):
    """An agent stores the user's message (and its own reply) before it recalls: those turns are
    not evidence, so the name they carry stays unknown; a statement that says it is evidence."""
    question = "Who painted The Starry Night?"
    agent = AgentMemory(settings, default_namespace="test")
    agent.write_messages(
        [
            HumanMessage(question, additional_kwargs=STAMP),
            AIMessage(f"You asked: {question} Let me check.", additional_kwargs=STAMP),
        ],
        config={"configurable": {"thread_id": "u"}},
    )
    agent.flush()
    snap = ops.open_store(settings, "test").snapshot()
    assert any("Starry" in t for t in snap.text)  # stored, twice
    assert unknown_names(question, snap) == ["Starry", "Night"]  # "The": a stopword, nothing to look up
    agent.write_messages(
        [HumanMessage("I saw the Starry Night poster at the museum shop today.", additional_kwargs=STAMP)],
        config={"configurable": {"thread_id": "u"}},
    )
    agent.flush()
    assert unknown_names(question, ops.open_store(settings, "test").snapshot()) == []


def test_the_gate_rises_for_this_question_only(chat):
    namespace_gate = gate_in_force(0.19, 0.02, chat)
    raises = (0.1, 0.05)
    assert namespace_gate > 0.19  # rises with ln(turns)
    cases = {
        "When did Ben finish the Lisbon half marathon?": 0.0,
        "Write a poem about the river.": 0.1,
        "What did Gerald say about the library?": 0.05,
        "Write a poem for Gerald.": 0.15,
    }
    for question, up in cases.items():
        assert gate_in_force(0.19, 0.02, chat, question, raises) == pytest.approx(namespace_gate + up, abs=1e-4)
        assert gate_in_force(0.19, 0.02, chat, question) == namespace_gate  # without raises: the namespace's
    assert gate_in_force(0.0, 0.02, chat, "Write a poem about the river.", raises) == 0.0  # no gate: none raised


def test_only_the_models_own_gate_rises(tmp_path):
    own = Settings(data_dir=tmp_path, embeddings="minilm")
    assert own.gate_raises == (MINILM_GATE_TASK_RAISE, MINILM_GATE_NAME_RAISE)
    assert MINILM_GATE_TASK_RAISE > 0 and MINILM_GATE_NAME_RAISE > 0
    for settings in (own.override(relevance_gate=0.3), own.override(min_score=0.2), own.override(embeddings="hash")):
        assert settings.gate_raises == (0.0, 0.0)


@pytest.mark.slow
@pytest.mark.integration
def test_a_loose_request_is_refused_at_every_k_and_a_request_about_memory_is_not(tmp_path):
    mem = Memory(tmp_path / "mem", llm="none")  # MiniLM, offline
    ingest_conversation(make_conversation(), mem.settings, namespace="test")
    store = ops.open_store(mem.settings, "test")
    namespace_gate = gate_in_force(mem.settings.gate, mem.settings.gate_per_ln_turns, store)
    loose = "Write a short story about a dog."  # a puppy's chat: some turn says something close
    signal = question_relevance(loose, store)
    # the namespace's gate alone would answer it: its raise decides
    assert signal is not None and namespace_gate < signal < namespace_gate + MINILM_GATE_TASK_RAISE
    outcomes = set()
    for k in (3, 10, 50):
        out = mem.ask(loose, namespace="test", k=k)
        outcomes.add((out.outcome, out.reason, out.gate, out.question_relevance))
    assert outcomes == {
        ("nothing_relevant", EmptyReason.BELOW_GATE, round(namespace_gate + MINILM_GATE_TASK_RAISE, 4), signal)
    }
    why = mem.search(loose, namespace="test", k=3).why
    assert f"relevance gate {round(namespace_gate + MINILM_GATE_TASK_RAISE, 4):g}" in why
    about_memory = mem.ask("Write a congratulations card for Ben's half marathon time.", namespace="test", k=3)
    assert about_memory.outcome == "found" and about_memory.gate > namespace_gate  # raised, and still passed
    assert "D2:1" in [t for ev in about_memory.evidence for t in ev.turn_ids]
