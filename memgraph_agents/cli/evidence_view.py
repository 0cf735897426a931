"""What a terminal shows of an evidence item: the sentences that best match the question.

An event can span many turns; cutting its text at a fixed width hides the answer as often
as not. Instead every provenance turn of an item is split into sentences, each sentence is
scored against the question (cosine of the embeddings plus the share of question terms it
contains), and the best few are shown with their turn id, in conversation order.

``answer_visible`` checks a printed text against an expected answer: every content word of the
answer (Porter stems, stopwords left out) and every number must be printed; the printed
session dates count, as a reader sees them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from memgraph_agents.construct.sentences import split_sentences
from memgraph_agents.model.evidence import Evidence
from memgraph_agents.retrieval.algorithms.porter import stem

_WORD = re.compile(r"[a-z0-9]+(?::[0-9]+)*")  # "1:58:41" stays one token
_STOP = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "but",
        "by",
        "did",
        "do",
        "does",
        "for",
        "from",
        "had",
        "has",
        "have",
        "he",
        "her",
        "his",
        "how",
        "i",
        "in",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "she",
        "so",
        "that",
        "the",
        "their",
        "them",
        "there",
        "they",
        "this",
        "to",
        "was",
        "were",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "will",
        "with",
        "you",
        "your",
        "did",
        "there",
        "after",
        "before",
        "about",
        "into",
        "over",
        "than",
        "then",
    ]
)
_SPEAKER = re.compile(r"^[A-Z][\w .'-]{0,40}: ")
MIN_WORDS = 3  # content words a sentence needs to be shown on its own
LEXICAL_WEIGHT = 0.5  # question-term share next to the cosine: names and numbers matter


@dataclass(frozen=True)
class Line:
    turn_id: str
    text: str


def words(text: str) -> list[str]:
    return [w for w in _WORD.findall(text.lower()) if w not in _STOP]


def _stem(w: str) -> str:
    # enough to match "interview"/"interviews", "finish"/"finished" without a dictionary
    for suffix in ("ing", "ed", "es", "s"):
        if len(w) > len(suffix) + 3 and w.endswith(suffix):
            return w[: -len(suffix)]
    return w


def lexical_share(question: str, sentence: str) -> float:
    """Share of the question's content words (stemmed) that the sentence contains."""
    q = {_stem(w) for w in words(question)}
    if not q:
        return 0.0
    return len(q & {_stem(w) for w in words(sentence)}) / len(q)


def _speaker(text: str) -> tuple[str, str]:
    """(``"Name: "``, rest) for a turn text written as ``Name: words``; ("", text) otherwise."""
    m = _SPEAKER.match(text)
    return (m.group(0), text[m.end() :]) if m else ("", text)


def _sentences(text: str) -> list[str]:
    """Sentences, a fragment too short to say anything ("Honestly?") joined to the next."""
    out: list[str] = []
    carry = ""
    for s in split_sentences(text):
        s = f"{carry} {s}".strip() if carry else s.strip()
        if len(words(s)) < MIN_WORDS:
            carry = s
            continue
        out.append(s)
        carry = ""
    if carry:
        out.append(carry) if not out else out.__setitem__(-1, f"{out[-1]} {carry}")
    return out


def item_lines(ev: Evidence, turn_text: dict[str, str]) -> list[Line]:
    """The item's sentences, tagged with their turn (its own text when no turn is known)."""
    out: list[Line] = []
    for t in ev.turn_ids:
        text = turn_text.get(t)
        if text:
            who, rest = _speaker(text)
            out.extend(Line(t, f"{who}{s}") for s in _sentences(rest))
    if not out:
        out = [Line(",".join(ev.turn_ids[:1]), s) for s in _sentences(ev.text)]
    return out


def best_lines(question: str, lines: Sequence[Line], cosines: Sequence[float], n: int) -> list[Line]:
    """The ``n`` best-scoring lines, shown in their original order (ties: earlier line)."""
    scores = [
        float(c) + LEXICAL_WEIGHT * lexical_share(question, _speaker(ln.text)[1]) for ln, c in zip(lines, cosines)
    ]
    order = sorted(range(len(lines)), key=lambda i: (-scores[i], i))[:n]
    return [lines[i] for i in sorted(order)]


def select(
    question: str, evidence: Sequence[Evidence], turn_text: dict[str, str], embedder, per_item: int = 2
) -> list[list[Line]]:
    """For every evidence item, its ``per_item`` sentences that best match ``question``."""
    per = [item_lines(ev, turn_text) for ev in evidence]
    flat = [_speaker(ln.text)[1] for lines in per for ln in lines]
    if not flat:
        return [[] for _ in per]
    vecs = np.asarray(embedder.embed([question, *flat]), dtype=np.float32)
    cos = vecs[1:] @ vecs[0]
    out, start = [], 0
    for lines in per:
        out.append(best_lines(question, lines, cos[start : start + len(lines)], per_item))
        start += len(lines)
    return out


def answer_visible(expected: str, shown: str) -> bool:
    """Whether ``shown`` (the printed text) holds ``expected``: all of its words (Porter stems,
    stopwords left out) and all of its numbers (a date, a time such as ``1:58:41``)."""
    have = {stem(w) for w in words(shown)}
    return {stem(w) for w in words(expected)} <= have
