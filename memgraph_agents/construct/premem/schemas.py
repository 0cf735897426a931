"""Pydantic schemas of the PREMem LLM calls: fragment extraction and cross-session reasoning.

As in ``construct/llm/schemas.py``: forgiving about form (``"Factual_Information"`` for
``factual``, ``"Extension/Generalization"`` for ``extension``, ``"Pair 2"`` for ``2``, a
string where a list of turn ids was asked), strict about substance (a fragment needs a key,
content and at least one turn id; a reasoning fragment needs a known pattern and its pair).
The time stays a free string here; ``temporal.parse_time`` reads it against the session date.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, Field, field_validator

from memgraph_agents.construct.llm.schemas import _as_str_list, _unique_stripped

Category = Literal["factual", "experiential", "subjective"]
Pattern = Literal["extension", "accumulation", "specification", "transformation", "connection"]
CATEGORIES: tuple[str, ...] = Category.__args__  # type: ignore[attr-defined]
PATTERNS: tuple[str, ...] = Pattern.__args__  # type: ignore[attr-defined]

# Words models use for the categories / patterns besides their names (PREMem's own labels
# "Extension/Generalization", "Specification/Refinement", "Connection/Implication" included).
_CATEGORY_SYNONYMS = {
    "fact": "factual", "state": "factual", "attribute": "factual", "possession": "factual",
    "relationship": "factual", "experience": "experiential", "event": "experiential",
    "activity": "experiential", "action": "experiential", "opinion": "subjective",
    "preference": "subjective", "feeling": "subjective", "emotion": "subjective", "belief": "subjective",
    "plan": "subjective", "goal": "subjective", "habit": "subjective",
}
_PATTERN_SYNONYMS = {
    "generalization": "extension", "generalisation": "extension", "elaboration": "extension",
    "repetition": "accumulation", "reinforcement": "accumulation", "refinement": "specification",
    "change": "transformation", "shift": "transformation", "implication": "connection",
    "causality": "connection", "integration": "connection",
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


def _clean(value: Any) -> Any:
    return " ".join(value.split()) if isinstance(value, str) else value


class ExtractedFragment(BaseModel):
    """One memory fragment: a single piece of personal information with its provenance."""

    category: Category = Field(description="factual (what someone is / has / knows), experiential (what "
                               "someone did or went through) or subjective (likes, opinions, feelings, plans, habits)")
    key: str = Field(min_length=1, description="2-5 word topic key, e.g. 'puppy adoption'")
    content: str = Field(min_length=1, description="the information as one short self-contained phrase, "
                         "naming the person, present tense, absolute dates")
    turn_ids: list[str] = Field(min_length=1, description="ids of the turns it comes from, copied exactly")
    time: str | None = Field(None, description="'YYYY-MM-DD' when it happened or holds, 'Before YYYY-MM-DD' "
                             "for an undated past event, 'After YYYY-MM-DD' for a plan")

    @field_validator("category", mode="before")
    @classmethod
    def _category(cls, v: Any) -> Any:
        return _label(v, CATEGORIES, _CATEGORY_SYNONYMS)

    @field_validator("key", "content", mode="before")
    @classmethod
    def _text(cls, v: Any) -> Any:
        return _clean(v)

    @field_validator("turn_ids", mode="before")
    @classmethod
    def _turn_ids(cls, v: Any) -> Any:
        v = _as_str_list(v)
        return _unique_stripped(v) if isinstance(v, list) and all(isinstance(x, str) for x in v) else v

    @field_validator("time", mode="before")
    @classmethod
    def _time(cls, v: Any) -> Any:
        return str(v) if isinstance(v, int) else v


class SessionFragments(BaseModel):
    fragments: list[ExtractedFragment] = Field(description="every piece of personal information in the session")


class ReasoningFragment(BaseModel):
    """An insight drawn from one linked pair of clusters (earlier vs later fragments)."""

    pair: int = Field(ge=1, description="number of the linked pair it is about")
    pattern: Pattern = Field(description="how the later information relates to the earlier")
    key: str = Field(min_length=1, description="2-5 word topic key of the insight")
    content: str = Field(min_length=1, description="the insight in at most 20 words, naming the person")
    time: str | None = Field(None, description="date or range it covers, e.g. '2023-03-05 to 2023-06-22'")

    @field_validator("pair", mode="before")
    @classmethod
    def _pair(cls, v: Any) -> Any:
        if isinstance(v, str):  # "Pair 2", "#2", "2"
            m = re.search(r"\d+", v)
            return int(m.group()) if m else v
        return v

    @field_validator("pattern", mode="before")
    @classmethod
    def _pattern(cls, v: Any) -> Any:
        return _label(v, PATTERNS, _PATTERN_SYNONYMS)

    @field_validator("key", "content", mode="before")
    @classmethod
    def _text(cls, v: Any) -> Any:
        return _clean(v)

    @field_validator("time", mode="before")
    @classmethod
    def _time(cls, v: Any) -> Any:
        return str(v) if isinstance(v, int) else v


class SessionReasoning(BaseModel):
    insights: list[ReasoningFragment] = Field(description="substantive insights; an empty list is fine")
