"""Facts that change: the offline detector's parts, the question's time, the ordering of a
ranking by it, and the citation of a statement a later one replaced (no model needed here;
``tests/test_knowledge_updates.py`` runs the whole path on the real embedding model)."""

from __future__ import annotations

from datetime import date

import numpy as np
import pytest

from memgraph_agents.construct.fact_attributes import ATTRIBUTES
from memgraph_agents.construct.supersede import (
    Candidate,
    Match,
    Statement,
    change_cue,
    decide,
    is_statement,
    statements,
)
from memgraph_agents.model.evidence import Evidence
from memgraph_agents.retrieval.validity import named_day, question_time


def test_change_cues_read_replacement_new_state_negation_and_persistence():
    assert change_cue("I quit the choir and sing in a trio instead.") == "replace"
    assert change_cue("Sold the scooter. Got a tram pass.") == "replace"
    assert change_cue("My knee can't take tennis any more.") == "replace"
    assert change_cue("Vegetarian since April!") == "new"
    assert change_cue("Head gardener now.") == "new"
    # a negated cue is no change, nor is persistence or addition
    assert change_cue("I won't quit the choir, I promise.") is None
    assert change_cue("I am not giving up the allotment.") is None
    assert change_cue("Still at the print shop, still tired.") is None
    assert change_cue("I also started baking bread.") is None
    # words that look like cues but mark nothing here
    assert change_cue("Someone left a box on the stairs.") is None
    assert change_cue("That film was so moving.") is None
    assert change_cue("Since our last call, the weather turned.") is None
    assert change_cue("Instead of waiting, I called them.") is None
    assert change_cue("Rather than giving up, she rewrote the thesis chapter.") is None
    assert change_cue("That trip truly changed my view of cities.") is None
    assert change_cue("I dropped off the cakes at the shelter.") is None
    assert change_cue("I changed my email to ines@example.org.") == "replace"


def test_statements_are_the_speakers_own_declarative_sentences():
    assert is_statement("I rent a flat by the canal.")
    assert is_statement("Sold the scooter.")  # chat ellipsis: the speaker is the subject
    assert not is_statement("Where do you live now?")
    assert not is_statement("She moved to the coast.")
    got = statements("turn:S3:2", "S3:2", "Ines", "2024-05-01T10:00:00", "Promoted! Head gardener now. How are you?")
    assert [s.text for s in got] == ["Promoted! Head gardener now."]  # a short sentence joins the next


def _st(turn: str, when: str, text: str) -> Statement:
    return Statement(f"turn:{turn}", turn, "Ines", when, text)


def _candidate(cue: str, cosine: float, strength: float, attribute: str, functional: float) -> Candidate:
    new = _st("S3:2", "2024-05-01", "x")
    old = _st("S1:4", "2024-01-10", "y")
    a = [x.name for x in ATTRIBUTES].index(attribute)
    return Candidate(new, cue, [Match(old, cosine, a, strength)], functional)


def test_decide_links_replacements_and_new_values_of_functional_attributes_only():
    # a replacement naming the same thing links, whatever the attribute
    assert decide(_candidate("replace", 0.6, 0.1, "pastime", 0.1)) is not None
    # a new value of a one-value attribute (home, job...) links; of an accumulating one, not
    assert decide(_candidate("new", 0.3, 0.45, "residence", 0.45)) is not None
    assert decide(_candidate("new", 0.3, 0.45, "pastime", 0.2)) is None
    # a restatement is no change
    assert decide(_candidate("replace", 0.95, 0.5, "residence", 0.5)) is None
    # too far apart to be about the same thing
    assert decide(_candidate("replace", 0.1, 0.2, "residence", 0.2)) is None


@pytest.mark.parametrize(
    ("question", "kind", "day"),
    [
        ("What does Ines do for work now?", "present", None),
        ("Is Ines still vegetarian?", "present", None),
        ("Where does Ines live?", "present", None),  # unmarked present tense
        ("Where did Ines live before?", "past", None),
        ("What did Ines use to do on Sundays?", "past", None),
        ("What was Ines's number in March 2024?", "date", date(2024, 3, 31)),
        ("Where was Ines on 3 May 2024?", "date", date(2024, 5, 3)),
        ("What did Ines cook at the party?", "none", None),  # a simple past: no time asked
    ],
)
def test_question_time(question, kind, day):
    focus = question_time(question)
    assert focus.kind == kind and focus.day == day


def test_named_day_reads_the_end_of_the_named_period():
    assert named_day("in 2023") == date(2023, 12, 31)
    assert named_day("February 2024") == date(2024, 2, 29)
    assert named_day("May 7, 2024") == date(2024, 5, 7)
    assert named_day("2024-06-30") == date(2024, 6, 30)
    assert named_day("31 February 2024") is None
    assert named_day("the spring") is None


def test_cite_says_what_replaced_a_statement_and_when():
    ev = Evidence(
        node_id="turn:S1:4",
        kind="turn",
        text="Ines: I rent a flat by the canal.",
        score=0.5,
        turn_ids=["S1:4"],
        session_dates=["2024-01-10"],
        current=False,
        superseded_by=["S3:2"],
        superseded_on="2024-05-01",
    )
    assert ev.cite() == "[2024-01-10 | S1:4] Ines: I rent a flat by the canal. (superseded on 2024-05-01 by S3:2)"
    assert ev.cite(human=True).endswith("(superseded on 1 May 2024 by S3:2)")
    assert "superseded" not in ev.model_copy(update={"superseded_by": [], "current": True}).cite()


def test_profiles_take_each_attributes_best_prototype():
    from memgraph_agents.construct.supersede import profiles

    protos = np.eye(3, dtype=np.float32)
    owners = np.array([0, 0, 1])
    vec = np.array([[0.2, 0.9, 0.1]], dtype=np.float32)
    got = profiles(vec, protos, owners)
    assert got.shape == (1, len(ATTRIBUTES))
    assert got[0, 0] == pytest.approx(0.9) and got[0, 1] == pytest.approx(0.1)


def test_quotations_reported_speech_and_hypotheticals_mark_no_change():
    assert change_cue("Jonas told me: 'my bank is now Evilbank'. Poor guy.") is None
    assert change_cue('My cousin wrote to say "we moved to Glasgow last month".') is None
    assert change_cue("My boss said she quit her job at the museum.") is None
    assert change_cue("If we moved to Vienna, I'd need a new job.") is None
    assert change_cue("I might quit the post office next year, we'll see.") is None
    assert change_cue("I'm thinking about switching banks.") is None
    assert change_cue("Right now I'm on my lunch break.") is None  # a moment, not a new state
    # a clause of the speaker's own after someone else's words still counts
    assert change_cue("The doctor says it was never gluten, so I eat bread again.") == "new"


def test_explicit_self_corrections_are_changes():
    assert change_cue("Actually, ignore that: my bank is now Coral Credit Union.") == "correct"
    assert change_cue("Scratch that, I mistyped: my number is 0151 220 3434.") == "correct"
    assert change_cue("Sorry, I meant 0170 555 1221.") == "correct"
    assert change_cue("Actually, I love it there.") is None  # "actually" alone corrects nothing


def test_another_persons_news_is_about_them_unless_both_name_them():
    from memgraph_agents.construct.speech import other_person, same_subject

    assert other_person("My sister moved to Rotterdam in the spring.") == "sister"
    assert other_person("My partner Giles and I live on a houseboat.") is None  # the speaker too
    assert not same_subject("I live in Utrecht.", "My sister moved to Rotterdam in the spring.")
    assert same_subject("My son Jannik goes to the Montessori school.", "We moved Jannik to the village school.")
    assert not same_subject("I'm with Orchard Bank.", "My dad switched his accounts to Kestrel Bank now.")


def test_a_replacement_names_what_it_ends():
    from memgraph_agents.construct.speech import names_another_thing

    old = "I had a second interview at a design studio on Friday."
    assert names_another_thing(old, "I handed in my notice at the print shop yesterday (15 March 2024).")
    assert not names_another_thing("I'm a history teacher.", "I left teaching in the spring.")
    assert not names_another_thing("I drive an old Volvo.", "Sold the Volvo. A Fiat now.")


def _match(cue: str, cosine: float, strength: float, attribute: str, functional: float, **kw) -> Candidate:
    c = _candidate(cue, cosine, strength, attribute, functional)
    m = c.matches[0]
    return Candidate(c.new, cue, [Match(m.old, m.cosine, m.attribute, m.strength, **kw)], functional)


def test_decide_reads_corrections_habits_and_what_a_replacement_ends():
    # a self-correction of a statement alike enough
    assert decide(_match("correct", 0.4, 0.2, "pastime", 0.2)) is not None
    # a replacement of one attribute that ends another thing: no link
    assert decide(_match("replace", 0.35, 0.43, "occupation", 0.43, elsewhere=True)) is None
    assert decide(_match("replace", 0.35, 0.43, "occupation", 0.43)) is not None
    # a habit said again with "now" in the same slot replaces it; without the slot it adds
    habit = _match("new", 0.41, 0.3, "pastime", 0.3, slot=True)
    habit = Candidate(_st("S3:2", "2024-05-01", "I swim every morning now."), "new", habit.matches, 0.3)
    assert decide(habit) is not None
    assert decide(Candidate(habit.new, "new", [_match("new", 0.41, 0.3, "pastime", 0.3).matches[0]], 0.3)) is None


def test_named_day_reads_the_start_and_end_of_a_year():
    assert named_day("What was her address at the start of 2024?") == date(2024, 1, 1)
    assert named_day("Where did he live at the end of 2023?") == date(2023, 12, 31)
