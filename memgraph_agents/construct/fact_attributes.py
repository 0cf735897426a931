"""Attributes of a person that change over time, as prototype sentences for the offline
supersession detector (``construct.supersede``).

A statement is typed by zero-shot similarity to these prototypes (the embedding of the
statement against the embedding of each prototype; Yin et al. 2019, "Benchmarking zero-shot
text classification", the label-as-sentence formulation). The attribute set follows the
relation types of persona facts in dialogue (Welleck et al. 2019, "Dialogue Natural Language
Inference": lives in, has profession, employed by, school status, marital status, has pet,
has vehicle, diet…), limited to those whose value changes during a life and written as
generic first-person sentences and questions.

``functional``: the attribute holds one value at a time (one home, one employer, one phone
number), so a new value replaces the old one. Other attributes accumulate (a second hobby
does not end the first): a new value replaces an old one only when the statement says so
("quit", "instead", "no longer").
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class FactAttribute:
    name: str
    functional: bool
    prototypes: tuple[str, ...]


ATTRIBUTES: tuple[FactAttribute, ...] = (
    FactAttribute(
        "residence",
        True,
        ("Where do you live?", "I live in this city.", "We moved to another town.", "My home is a flat in the city."),
    ),
    FactAttribute("address", True, ("What is your home address?", "My address is the street and house number.")),
    FactAttribute(
        "occupation",
        True,
        (
            "What do you do for a living?",
            "I work as a professional in my job.",
            "Where do you work?",
            "I took a job at another company.",
        ),
    ),
    FactAttribute(
        "studies",
        True,
        (
            "What are you studying?",
            "I study a subject at university.",
            "I changed my course this term.",
            "Which school does your child go to?",
        ),
    ),
    FactAttribute(
        "partner",
        True,
        (
            "Who is your partner?",
            "My boyfriend or girlfriend.",
            "Are you single, dating, engaged or married?",
            "We broke up.",
        ),
    ),
    FactAttribute(
        "contact",
        True,
        ("What is your phone number?", "My mobile number is this.", "What is your email address?"),
    ),
    FactAttribute("income", True, ("How much do you earn?", "My salary is this much a month.")),
    FactAttribute("care", True, ("Who is your doctor?", "My dentist.", "Which doctor do you see?")),
    FactAttribute("vehicle", True, ("What car do you drive?", "My car.", "I ride a motorbike.")),
    FactAttribute("diet", True, ("What do you eat?", "I am vegetarian.", "My diet.")),
    FactAttribute("commute", True, ("How do you get to work?", "I commute by train, bike or car.")),
    FactAttribute("schedule", True, ("What hours do you work?", "I work night shifts.")),
    FactAttribute("pet", False, ("Do you have a pet?", "Our dog, our cat.", "We adopted an animal.")),
    FactAttribute(
        "pastime",
        False,
        ("What do you do when you are not working?", "My hobby.", "I spend my evenings on my favourite pastime."),
    ),
    FactAttribute("sport", False, ("Which sport do you play?", "I train at the club.")),
    FactAttribute("music", False, ("Which instrument do you play?", "I play in a band.", "I take music lessons.")),
    FactAttribute("language", False, ("Which language are you learning?", "I take language classes.")),
)
