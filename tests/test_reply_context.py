"""Reply context judged by what a reply needs, not by its length: the rule on invented replies
both ways, and on the demo chat (every door reads ``Evidence.context``: tests/test_marks.py)."""

from __future__ import annotations

import json

import pytest

from memgraph_agents import Memory
from memgraph_agents.api.ops import open_store
from memgraph_agents.config import Settings
from memgraph_agents.examples import sample_conversation
from memgraph_agents.retrieval.finish import finished_turns
from memgraph_agents.retrieval.reply_context import turn_asks
from memgraph_agents.retrieval.reply_needs import needs_question

LEANS = [
    "April 2.",  # a date alone
    "Yep, booked it yesterday.",  # an answer word
    "Nope.",
    "Honestly? Draining.",  # an interjection, then a fragment
    "Supply chain lead for a bike startup in the harbour district.",  # a fragment of ten words
    "September 14, at a vineyard near the lake with eighty guests.",
    "It's 07700 900 321 now.",  # an anaphor
    "That one, the blue one with the stripes.",
    "They were lovely, thanks for asking.",
    "'Run like the wind', in huge letters on a bedsheet.",  # the words asked about
    "Mostly fine, the van broke down once on the way.",
    "About four months, maybe five.",
    "Exhausting but great. The team is tiny and I already love it.",
    "Perfect timing, the office has an open day that Saturday.",
    "Both, if I'm honest.",
    "Not yet, maybe next week.",
    "Ha!",
]
STANDS_ALONE = [
    "I'm halfway through a thick mystery novel about a lighthouse.",  # a clause of its own
    "My sister joins me for the Sunday long runs.",
    "The physio says it's only irritation.",
    "We moved to Cork last month and love it.",
    "Honestly, I think the new office is great.",  # an interjection, then a clause
    "Her party is now a weekend trip to the coast.",
    "The van broke down on the motorway.",
    "I ran 16 km with my sister last week!",
]


@pytest.mark.parametrize("reply", LEANS)
def test_a_reply_that_is_not_self_contained_needs_its_question(reply):
    assert needs_question(reply)


@pytest.mark.parametrize("reply", STANDS_ALONE)
def test_a_reply_opening_on_a_clause_of_its_own_stands_alone(reply):
    assert not needs_question(reply)


def test_length_is_not_the_rule():
    # seven words or seventy: a fragment leans, a clause does not
    assert needs_question("Supply chain lead for their cargo bikes.")
    assert needs_question("Supply chain lead for their cargo bikes, " + "and more " * 30 + ".")
    assert not needs_question("I'm in.")


# the demo's replies right after a question: fragments, answer words, a quotation, an anaphor…
DEMO_LEANS = {
    "S1:2",
    "S1:4",
    "S1:7",
    "S1:11",
    "S2:3",
    "S2:5",
    "S3:2",
    "S3:4",
    "S3:7",
    "S3:12",
    "S4:2",  # after "How are the legs? I followed your dot …": a question that does not end its turn
    "S4:4",
    "S4:6",
    "S4:9",
    "S5:9",
}
# … and the ones opening on a clause of their own ("I'm halfway through…", "The physio says…")
DEMO_ALONE = {"S1:9", "S1:14", "S2:8", "S2:10", "S3:10", "S5:5"}


@pytest.mark.slow  # an ingest of the demo chat (about 2 s)
def test_the_demo_replies_get_their_question_as_they_need_it(tmp_path):
    """The demo chat (examples/conversation.json): every reply right after another speaker's
    question (at its end or not: "How are the legs? I followed …"), with its question exactly when it needs it; among them the two fragments of seven
    words (a role; a date and a place) that a six-word limit left without."""
    conv = json.loads(sample_conversation().read_text(encoding="utf-8"))
    mem = Memory(settings=Settings(data_dir=tmp_path / "mem", embeddings="hash", llm="none"))
    mem.add(sample_conversation(), namespace="demo")
    store = open_store(mem.settings, "demo")
    replies = {}
    for s in conv["sessions"]:
        turns = s["turns"]
        for before, t in zip(turns, turns[1:]):
            if before["speaker"] != t["speaker"] and turn_asks(before["text"]):
                replies[t["id"]] = (before["id"], t["text"])
    got = {ev.turn_ids[0]: ev.context for ev in finished_turns(store, sorted(replies))}
    assert set(replies) == DEMO_LEANS | DEMO_ALONE
    for tid, (asked, _) in replies.items():
        ctx = got[tid]
        assert (ctx is not None and ctx.turn_id == asked) if tid in DEMO_LEANS else ctx is None, tid
    fragments = [t for t, (_, x) in replies.items() if x.startswith(("Supply chain lead", "September 14,"))]
    assert len(fragments) == 2 and all(got[t] is not None for t in fragments)
    # and none for a turn that follows a statement
    others = finished_turns(store, ["S1:1", "S1:3"])
    assert all(ev.context is None for ev in others)


@pytest.mark.parametrize(
    ("text", "asks"),
    [
        ("When do you start?", True),
        ("How are the legs? I followed your dot the whole way.", True),  # the question opens the turn
        ("Great news. Did you sign? Tell me everything.", True),
        ("Really?", True),
        ("Honestly? Draining. But the interview went well.", False),  # a one-word tag, not a question
        ("I start in April.", False),
        ("The form is at https://example.org/?id=3 now.", False),  # a URL's question mark
    ],
)
def test_a_turn_asks_when_a_sentence_of_it_is_a_question(text, asks):
    assert turn_asks(text) is asks
