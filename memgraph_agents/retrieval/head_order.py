"""The order of the ranking's head: which of its first turns answers, not only which match.

The one-pass ranking (``retrieval.oneshot``) chooses its first ``head`` turns for recall: the
turns that belong near the question. Which of them comes first is a different question —
whether a turn *answers* — and the top 20 of that ranking already hold most gold turns, so the
order of the head is where Hit@1 is won. The head is re-sorted by::

    v(t) = score(t) + match · rel(t) + kind · carries(t) + words · lex(t) − asks · ask(t)

* ``rel``     the question's relevance of the turn (``retrieval.relevance``: best sentence cosine);
* ``carries`` 1 when the turn carries the kind of value the question asks for
              (``retrieval.answer_kind``: a date for "when", a number for "how many" …);
* ``lex``     the turn's BM25 score for the question (its speakers left out) over the head's
              best (``answer_aware.lexical_terms``): the question's own specific words;
* ``ask``     1 when the turn asks something (a question mark in what it says): a turn that
              asks what the question asks matches it and does not answer it.

Only the order changes: the head keeps its turns (so turn recall at ``head`` is the ranking's)
and its scores (the sorted scores are handed out again in the new order, so they still
decrease). Ties keep the ranking's order. Weights chosen on three LoCoMo development
conversations (conv-26, conv-30, conv-41) and checked on the others (BENCHMARKS.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class HeadTurn:
    """What the head order reads of one ranked turn."""

    score: float
    rel: float
    carries: bool
    lex: float  # in [0, 1]
    asks: bool


@dataclass(frozen=True)
class HeadWeights:
    match: float = 0.0
    kind: float = 0.0
    words: float = 0.0
    asks: float = 0.0

    @property
    def off(self) -> bool:
        return not (self.match or self.kind or self.words or self.asks)


def head_order(turns: Sequence[HeadTurn], w: HeadWeights) -> list[int]:
    """The permutation of ``turns`` (indices into it) by ``v`` (module doc), ties by position."""
    if w.off:
        return list(range(len(turns)))

    def value(t: HeadTurn) -> float:
        return t.score + w.match * t.rel + w.kind * t.carries + w.words * t.lex - w.asks * t.asks

    vals = [round(value(t), 6) for t in turns]  # 6 decimals: float noise never breaks a tie
    return sorted(range(len(turns)), key=lambda i: (-vals[i], i))
