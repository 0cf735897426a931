"""What kind of value a question asks for, and whether a turn carries one.

A question says what its answer looks like: "when" wants a date, "how many" a number,
"where" a place, "who" a person. A turn that carries a value of that kind can answer it; a
turn that only shares the question's words (its names, its topic) cannot. The kinds::

    asked_kind(q) ∈ {date, number, place, person, None}
    carries(t, kind) = 1 when the turn's own words hold a value of that kind (below), else 0

What counts, read from the turn's text by the offline argument extractor
(``construct.arguments.extract_arguments``, the one the event graph's argument nodes come
from) and from the dates ingest resolved (``attrs["dates"]``):

* **date** — a resolved date, a date or year mention, or a relative time ("last week",
  "yesterday", "two years ago");
* **number** — a number mention (a quantity with its unit, an amount), a digit or a number
  word;
* **place** — a proper name after a preposition of place ("in Lisbon", "at the Tate", "to
  Spain"), or a place noun ("beach", "museum", "park" …);
* **person** — a one-word proper name (the extractor's persons are the speakers themselves),
  or a kinship / social noun ("my sister", "a coworker").

Pure functions of the question and the turn; the ranking weighs them (``retrieval.oneshot``:
the answer-kind term). Kinds are read off English wh-words and nouns only: no rule knows a
benchmark's phrasings.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any, Literal

from memgraph_agents.construct.arguments import extract_arguments
from memgraph_agents.retrieval.priors import asks_for

Kind = Literal["date", "number", "place", "person"]

_ASKS_NUMBER = re.compile(
    r"^\s*how\s+(?:many|much|old|often|far|long(?!\s+ago))\b|\bwhat\s+(?:number|amount|age)\b", re.I
)
_PLACE_NOUNS = (
    r"place|city|town|country|state|region|area|neighbou?rhood|location|restaurant|cafe|café|bar|shop|store"
    r"|park|beach|museum|venue|school|university|college|hospital|street|island|lake|mountain|destination"
)
_ASKS_PLACE = re.compile(rf"^\s*where\b|\b(?:what|which|in\s+what|in\s+which)\s+(?:{_PLACE_NOUNS})\b", re.I)
_PEOPLE_NOUNS = (
    r"person|people|friend|friends|family\s+member|relative|colleague|coworker|partner|artist|author|band|singer"
)
_ASKS_PERSON = re.compile(rf"^\s*(?:who|whom|whose)\b|\bwith\s+whom\b|\b(?:what|which)\s+(?:{_PEOPLE_NOUNS})\b", re.I)

_RELATIVE_TIME = re.compile(
    r"\b(?:yesterday|tonight|today|tomorrow|last\s+(?:night|week|weekend|month|year|summer|winter|spring|fall)"
    r"|(?:this|next)\s+(?:week|weekend|month|year|summer|winter|spring|fall)"
    r"|\w+\s+(?:days?|weeks?|months?|years?)\s+ago"
    r"|(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?)\b",
    re.I,
)
_DIGIT_OR_NUMBER_WORD = re.compile(
    r"\b(?:\d+|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|hundred"
    r"|thousand|dozen|once|twice|couple)\b",
    re.I,
)
_PLACE_AFTER = re.compile(r"\b(?:in|at|to|from|near|visited|visiting|around)\s+(?:the\s+)?[A-Z][\w'’-]+")
_PLACE_WORD = re.compile(rf"\b(?:{_PLACE_NOUNS}|home|trip|camp|camping)\b", re.I)
_KIN = re.compile(
    r"\b(?:mom|mother|mum|dad|father|parents?|sister|brother|siblings?|wife|husband|son|daughter|kids?|children"
    r"|grand(?:ma|pa|mother|father|parents?)|aunt|uncle|cousin|friends?|buddy|boss|colleague|coworkers?|partner"
    r"|boyfriend|girlfriend|fiancée?|neighbou?r|teacher|mentor|team(?:mates?)?)\b",
    re.I,
)


def asked_kind(question: str) -> Kind | None:
    """The kind of value ``question`` asks for (a date first: "how long ago" is a date), or ``None``."""
    if asks_for(question) == "date":
        return "date"
    if _ASKS_NUMBER.search(question):
        return "number"
    if _ASKS_PLACE.search(question):
        return "place"
    if _ASKS_PERSON.search(question):
        return "person"
    return None


def body(text: str, speaker: str | None) -> str:
    """A turn's text without its ``"speaker: "`` prefix."""
    return text[len(speaker) + 1 :].lstrip() if speaker and text.startswith(f"{speaker}:") else text


def carries(text: str, attrs: Mapping[str, Any], kind: Kind | None, speakers: Sequence[str] = ()) -> bool:
    """Whether a turn (its text and attributes) carries a value of ``kind`` (see the module doc)."""
    if kind is None:
        return False
    speaker = attrs.get("speaker")
    words = body(text, speaker)
    if kind == "date":
        if attrs.get("dates") or _RELATIVE_TIME.search(words):
            return True
        return any(k == "date" for k, _ in _mentions(words, tuple(speakers)))
    if kind == "number":
        return bool(_DIGIT_OR_NUMBER_WORD.search(words)) or any(
            k == "number" for k, _ in _mentions(words, tuple(speakers))
        )
    if kind == "place":
        return bool(_PLACE_AFTER.search(words) or _PLACE_WORD.search(words))
    # The extractor types only the conversation's speakers as persons; anyone else named is a
    # one-word proper name ("Jonas"), which is what a "who" answer names.
    named = [name for k, name in _mentions(words, tuple(speakers)) if k == "proper" and " " not in name]
    return bool(_KIN.search(words) or named)


@lru_cache(maxsize=8192)
def _mentions(words: str, speakers: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """``(kind, name)`` of the offline argument mentions of a turn's words: a pure function of
    the text, asked again for the same candidate turns by every question (once per process)."""
    return tuple((m.kind, m.name) for m in extract_arguments(words, speakers))
