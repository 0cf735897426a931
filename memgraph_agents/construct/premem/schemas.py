"""Pydantic schemas of the PREMem LLM calls: fragment extraction and cross-session reasoning.

As in ``construct/llm/schemas.py``: forgiving about form (``"Factual_Information"`` for
``factual``, ``"Extension/Generalization"`` for ``extension``, ``"Pair 2"`` for ``2``, a
string where a list of turn ids was asked), strict about substance (a fragment needs a key,
content and at least one turn id; a reasoning fragment needs a known pattern and its pair).
The time stays a free string here; ``temporal.parse_time`` reads it against the session date.
"""

from __future__ import annotations

import re
from functools import partial
from typing import Annotated, Any, Literal, get_args

from pydantic import BaseModel, BeforeValidator, Field, field_validator

from memgraph_agents.llm.coerce import collapse_spaces, first_int, str_list

Category = Literal["factual", "experiential", "subjective"]
Pattern = Literal["extension", "accumulation", "specification", "transformation", "connection"]
CATEGORIES: tuple[str, ...] = get_args(Category)
PATTERNS: tuple[str, ...] = get_args(Pattern)

# Words models use for the categories / patterns besides their names (PREMem's own labels
# "Extension/Generalization", "Specification/Refinement", "Connection/Implication" included).
_CATEGORY_SYNONYMS = {
    "fact": "factual",
    "state": "factual",
    "attribute": "factual",
    "possession": "factual",
    "relationship": "factual",
    "experience": "experiential",
    "event": "experiential",
    "activity": "experiential",
    "action": "experiential",
    "opinion": "subjective",
    "preference": "subjective",
    "feeling": "subjective",
    "emotion": "subjective",
    "belief": "subjective",
    "plan": "subjective",
    "goal": "subjective",
    "habit": "subjective",
}
_PATTERN_SYNONYMS = {
    "generalization": "extension",
    "generalisation": "extension",
    "elaboration": "extension",
    "repetition": "accumulation",
    "reinforcement": "accumulation",
    "refinement": "specification",
    "change": "transformation",
    "shift": "transformation",
    "implication": "connection",
    "causality": "connection",
    "integration": "connection",
}
_WORD_RE = re.compile(r"[a-z]+")


def _label(value: Any, names: tuple[str, ...], synonyms: dict[str, str]) -> Any:
    """The first word of ``value`` that names (or is a synonym of) one of ``names``."""
    if not isinstance(value, str):
        return value
    for word in _WORD_RE.findall(value.lower()):
        for name in names:
            if word == name or (len(word) >= 4 and name.startswith(word)):
                return name
        if word in synonyms:
            return synonyms[word]
    return value.strip().lower()  # fails the Literal with a message naming the choices


def _year_as_str(value: Any) -> Any:
    return str(value) if isinstance(value, int) else value


Text = Annotated[str, BeforeValidator(collapse_spaces)]
IdList = Annotated[list[str], BeforeValidator(str_list)]
Time = Annotated[str | None, BeforeValidator(_year_as_str)]  # free text, read later by ``parse_time``
CategoryLabel = Annotated[Category, BeforeValidator(partial(_label, names=CATEGORIES, synonyms=_CATEGORY_SYNONYMS))]
PatternLabel = Annotated[Pattern, BeforeValidator(partial(_label, names=PATTERNS, synonyms=_PATTERN_SYNONYMS))]


class ExtractedFragment(BaseModel):
    """One memory fragment: a single piece of personal information with its provenance."""

    category: CategoryLabel = Field(
        description="factual (what someone is / has / knows), experiential (what "
        "someone did or went through) or subjective (likes, opinions, feelings, plans, habits)"
    )
    key: Text = Field(min_length=1, description="2-5 word topic key, e.g. 'puppy adoption'")
    content: Text = Field(
        min_length=1,
        description="the information as one short self-contained phrase, "
        "naming the person, present tense, absolute dates",
    )
    turn_ids: IdList = Field(min_length=1, description="ids of the turns it comes from, copied exactly")
    time: Time = Field(
        None,
        description="'YYYY-MM-DD' when it happened or holds, 'Before YYYY-MM-DD' "
        "for an undated past event, 'After YYYY-MM-DD' for a plan",
    )


class SessionFragments(BaseModel):
    fragments: list[ExtractedFragment] = Field(description="every piece of personal information in the session")


class ReasoningFragment(BaseModel):
    """An insight drawn from one linked pair of clusters (earlier vs later fragments)."""

    pair: int = Field(ge=1, description="number of the linked pair it is about")
    pattern: PatternLabel = Field(description="how the later information relates to the earlier")
    key: Text = Field(min_length=1, description="2-5 word topic key of the insight")
    content: Text = Field(min_length=1, description="the insight in at most 20 words, naming the person")
    time: Time = Field(None, description="date or range it covers, e.g. '2023-03-05 to 2023-06-22'")

    @field_validator("pair", mode="before")
    @classmethod
    def _pair(cls, v: Any) -> Any:
        return first_int(v)  # "Pair 2", "#2", "2"


class SessionReasoning(BaseModel):
    insights: list[ReasoningFragment] = Field(description="substantive insights; an empty list is fine")
