"""Whose words retire a fact: the offline tests of ``construct.voice`` and the self-correction
rule (no model needed; ``tests/test_knowledge_voice.py`` runs the invented sets end to end)."""

from __future__ import annotations

import pytest

from memgraph_agents.construct.fact_attributes import ATTRIBUTES
from memgraph_agents.construct.speech import gives_another_value, other_person
from memgraph_agents.construct.supersede import Candidate, Match, Statement, change_cue, decide, is_statement
from memgraph_agents.construct.voice import (
    attributed_clauses,
    disowned,
    named_subject,
    same_named_subject,
)

NOT_A_CHANGE = [
    "Mallory told me: 'I quit.' She sounded so relieved.",
    "Mallory told me: I quit the bakery, no notice, nothing.",  # the report covers what follows the colon
    "Mallory told me she quit and moved to Berlin.",  # a clause with no subject continues the report
    "People say I quit the bakery, which is not true.",
    "Rumour has it I moved to Leeds. Nonsense, I love it here.",
    "Everyone assumes we sold the farmhouse after the divorce, but we didn't.",
    "My aunt thinks I'm vegan now. I'm not.",
    "I'm quitting the bank to become a pirate! Just kidding.",
    "Sold the Fiat and bought a spaceship. Kidding, obviously.",
    "In my dreams I've quit the tax office and moved to Lisbon.",
    "My friend Tilda swears I sold the Skoda, but it's parked right outside.",
    "Got a text from Mallory: new job, new city.",
    "Wow, so you moved to Leeds!",
]
A_CHANGE = [
    "The new doctor says it was never gluten, so I eat bread again.",  # the speaker's own clause after "so"
    "Mallory told me about the job, and I quit the bakery the next day.",  # "I" again after the report
    "Sold the scooter. Got a tram pass.",
    "I quit the choir and sing in a trio instead.",
    "Big news: I quit nursing. I'm a paramedic now!",
    "I traded the guitar for a keyboard.",
    "I got transferred to the Leeds office in June.",
]


@pytest.mark.parametrize("text", NOT_A_CHANGE)
def test_someone_elses_words_a_joke_or_a_denial_mark_no_change(text):
    assert change_cue(text) is None


@pytest.mark.parametrize("text", A_CHANGE)
def test_the_speakers_own_change_still_marks_one(text):
    assert change_cue(text) in {"replace", "new"}


def test_a_joke_or_denial_anywhere_in_the_turn_disowns_it():
    assert disowned("I quit the bakery! Just kidding.")
    assert disowned("People say I quit, which isn't true.")
    assert disowned("They think I moved. We didn't.")
    assert not disowned("I quit the bakery, best decision ever.")
    assert not disowned("I'm not a baker any more, I drive a tram now.")  # "not" inside a change


def test_a_report_covers_what_follows_it_until_the_speaker_speaks_again():
    got = attributed_clauses("The doctor says it was never gluten, so I eat bread again")
    assert [own for _, own in got] == [False, True]
    got = attributed_clauses("Mallory told me: I quit the bakery, no notice")
    assert [own for _, own in got] == [False, False, False]


def test_sentences_about_someone_else_are_no_statements_of_the_speaker():
    assert not is_statement("Wow, so you moved to Leeds!")
    assert not is_statement("Congrats, the new flat sounds lovely.")
    assert is_statement("Wow, I finally moved!")
    assert named_subject("Mallory quit the bakery and moved to Berlin.") == "Mallory"
    assert named_subject("Jorunn has switched to Coral Credit Union now.") == "Jorunn"
    assert named_subject("Sunday evenings are for my pottery class now.") is None  # a day, and "my"
    assert named_subject("Sold the Fiat.") is None
    assert not same_named_subject("I bake at the Rosebud bakery.", "Mallory quit the bakery.")
    # a name the earlier statement gives is the speaker's own (a pet, a partner)
    assert same_named_subject("We have a dog called Biscuit.", "Biscuit died in the winter.")
    assert other_person("The new manager at the bakery started on Monday.") == "manager"
    assert other_person("The new doctor says it was never gluten, so I eat bread again.") is None


def test_another_value_is_a_name_or_number_the_earlier_statement_lacks():
    assert gives_another_value("My mobile number is 0151 220 3344.", "my mobile number is 0151 220 3434.")
    assert gives_another_value("The party is at my place on Friday.", "the party is at Liv's place now")
    assert not gives_another_value("My sister moved to Leeds in the spring.", "my sister lives in Leeds.")
    assert not gives_another_value(
        "My sister moved to Leeds.", "I'm sure my sister lives in Leeds."
    )  # "I'm" is no name


def _correction(old_session: str, *, cosine: float, shared: bool, another: bool) -> Candidate:
    new = Statement("turn:S3:4", "S3:4", "Ines", "2024-05-01", "Sorry, I meant 0161 496 7001.", 4, "S3")
    old = Statement("turn:X", "X", "Ines", "2024-01-10", "My number is 0161 496 7000.", 2, old_session)
    a = [x.name for x in ATTRIBUTES].index("residence")
    return Candidate(new, "correct", [Match(old, cosine, a, 0.2, shared, another_value=another)], 0.2)


def test_a_correction_opening_a_session_must_name_what_it_corrects_and_give_another_value():
    # in its own session: what the speaker said before in it, when alike
    assert decide(_correction("S3", cosine=0.39, shared=False, another=False)) is not None
    # in an earlier session: only when it shares a content word and gives another value
    assert decide(_correction("S1", cosine=0.39, shared=False, another=True)) is None
    assert decide(_correction("S1", cosine=0.39, shared=True, another=False)) is None
    assert decide(_correction("S1", cosine=0.39, shared=True, another=True)) is not None
