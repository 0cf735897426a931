"""Query-independent and answer-type priors on the navigator's turn ranking.

Two things similarity alone does not see, both measured on the LoCoMo development split
(turn R@10, offline; docs/benchmarks-history.md, "The navigator against its seed"):

- **Informativeness.** Chat is full of short acknowledgements ("Go for it!", "How was it?")
  that share the question's names and topic, so dense and lexical seeds rank them high, while
  the turn that carries the fact is longer. A turn earns ``informative · min(1, words / L)``
  (L = ``informative_words``), so a one-liner is not ruled out but a substantive turn wins a
  near-tie. Questions that need several facts (multi-hop) gain most.
- **Answer type.** A subgoal is only answered by evidence that carries what it asks: a "when"
  question needs a date. Ingest resolves dates in turns ("last Friday" → an absolute date,
  ``attrs["dates"]``); for a question asking for a date, a turn carrying one earns
  ``answer_type`` more.

``asks_only`` marks a third kind of turn, one that mostly asks ("Wait, she is getting married?
When?"): it matches questions of its own shape and states little (``retrieval.oneshot``
scales its score down).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

_WORD = re.compile(r"[A-Za-z0-9']+")
# A question asking for a point in time. "How long" (a duration) is not one.
_ASKS_DATE = re.compile(
    r"^\s*(?:when|how long ago)\b|\b(?:what|which)\s+(?:date|day|year|month|week|weekend|time of year)\b"
    r"|\bsince when\b|\bin what (?:year|month)\b",
    re.I,
)


def asks_for(question: str) -> str | None:
    """The kind of value the question asks for: ``"date"`` or ``None`` (no type we check)."""
    return "date" if _ASKS_DATE.search(question) else None


def _body(text: str, speaker: str | None) -> str:
    """A turn's text without its ``"speaker: "`` prefix (the name says nothing new)."""
    return text[len(speaker) + 1 :] if speaker and text.startswith(f"{speaker}:") else text


# A turn's text is the same at every query: its counts are computed once per process, not per
# candidate per query (bounded: the texts of the namespaces being searched).
_TEXTS_CACHED = 1 << 16


@lru_cache(maxsize=_TEXTS_CACHED)
def word_count(text: str, speaker: str | None = None) -> int:
    """Words in a turn's text, without its ``"speaker: "`` prefix."""
    return len(_WORD.findall(_body(text, speaker)))


_SENTENCE = re.compile(r"[^.!?]+[.!?]*")


ASIDE_WORDS = 12  # words besides its questions a turn may have and still be mostly a question


@lru_cache(maxsize=_TEXTS_CACHED)
def asks_only(text: str, speaker: str | None = None, *, aside: int = ASIDE_WORDS) -> bool:
    """Whether a turn is mostly a question: it asks something and says at most ``aside`` words
    besides its questions ("Wait, she is getting married? When?", "Incredible. What did the
    sign say?", "Will do. What are you reading? I need something for the train.").

    Such a turn shares the words of a question about its topic — often more of them than the
    turn that answers it — yet states little: what it asks is answered, if at all, by a reply.
    ``aside`` was chosen on three LoCoMo development conversations (BENCHMARKS.md: 0, 2, 3, 4,
    5, 6, 8, 12 and unbounded tried; 12 kept the most gold turns in the top 10)."""
    parts = [p.strip() for p in _SENTENCE.findall(_body(text, speaker)) if p.strip()]
    if not any(p.endswith("?") for p in parts):
        return False
    return sum(len(_WORD.findall(p)) for p in parts if not p.endswith("?")) <= aside


def informativeness(words: int, full: int) -> float:
    """``min(1, words / full)`` in [0, 1]; ``full <= 0`` counts every turn as full."""
    return 1.0 if full <= 0 else min(1.0, max(words, 0) / full)


def carries(attrs: Mapping[str, Any], kind: str | None) -> bool:
    """Whether a turn carries a value of ``kind`` (a resolved date for ``"date"``)."""
    return kind == "date" and bool(attrs.get("dates"))


def prior(
    text: str, attrs: Mapping[str, Any], kind: str | None, *, informative: float, full: int, typed: float
) -> float:
    """The score a turn adds to its ranking score: informativeness plus the answer-type bonus."""
    words = word_count(text, attrs.get("speaker"))
    return informative * informativeness(words, full) + (typed if carries(attrs, kind) else 0.0)
