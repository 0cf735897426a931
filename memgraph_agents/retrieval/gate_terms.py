"""What raises the relevance gate for one question: a task for the assistant, a name memory never uses.

The gate's signal (``retrieval.gate``) is one cosine: how well the namespace's best statement
matches the question. It cannot tell "memory talks about this" from "memory answers this": a
request ("write a poem about the sea") or small talk ("good night!") finds some turn that says
something close, and so does a question about a person the chat never mentions. Two facts
about the question and the namespace say more, and each raises the gate the question must
pass (``gate_in_force``)::

    gate(q, N) = base + per_ln_turns · ln(N) + task_raise · task(q) + name_raise · unknown_name(q, N)

* ``task(q)`` — the message asks the assistant to do something rather than to recall: it opens
  (after "please", "can you", "I need you to" …) on a verb of making or advising ("write",
  "compose", "recommend", "plan", "translate", "tell me a …"), asks for advice ("should I",
  "any ideas"), or holds no content word at all (greetings, thanks, "what can you do?"). Such a
  message can still be about memory ("write a note to Ana about what we decided") and then
  matches closely; the raise only asks for that closer match.
* ``unknown_name(q, N)`` — the question names someone or something (a capitalised word that
  does not open a sentence, speakers aside) that no turn of the namespace contains, by the
  turn index's own tokens (``retrieval.bm25_rank``), the turns that are not evidence aside (as
  the gate's signal leaves them out: an agent stores the question before it recalls): memory
  cannot hold facts about a name it never saw.

Pure functions of the question's text and the snapshot's vocabulary, read off English
function words and capitalisation: no rule knows a benchmark's phrasings. Both raises were
chosen on the gate's calibration side (``docs/bench-gate/calibrate.py``).
"""

from __future__ import annotations

import re

import numpy as np

from memgraph_agents.construct.arguments import INTERJECTIONS, STOPWORDS
from memgraph_agents.retrieval.asking import not_evidence, text_key
from memgraph_agents.retrieval.bm25_rank import turn_bm25
from memgraph_agents.retrieval.seeds import neutral_question

_OPENER = r"^\W*(?:(?:ok|okay|hey|hi|so|now|please|pls|kindly)\W+)*"
_ASKING_YOU = r"(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?|i\s+(?:need|want|would\s+like)\s+(?:you\s+to\s+)?|help\s+me\s+(?:to\s+)?|let'?s\s+)?"
_MAKING = (
    r"(?:write|rewrite|compose|draft|create|generate|make|design|recommend|suggest|propose|plan|translate"
    r"|convert|calculate|compute|solve|book|order|brainstorm|invent|proofread|outline)\b"
)
_GIVING = r"(?:tell|give|show)\s+me\s+(?:a|an|some|something|\d+|one|two|three|four|five|ten)\b"
_TASK = re.compile(_OPENER + _ASKING_YOU + f"(?:{_MAKING}|{_GIVING})", re.I)
_ADVICE = re.compile(
    r"\b(?:should|shall)\s+i\b|\bany\s+(?:ideas|tips|suggestions|recommendations)\b|\bwhat'?s\s+a\s+good\b", re.I
)
_WORD = re.compile(r"\b\w\w+\b")
_NOT_CONTENT = STOPWORDS | INTERJECTIONS
# a capitalised word that does not open the message or a sentence of it
_NAME = re.compile(r"(?<![.?!:]\s)(?<![.?!:])\b([A-Z][a-z]+)\b")


def content_words(question: str) -> list[str]:
    """The question's words that say what it is about (function words, interjections and numbers out)."""
    return [w for w in _WORD.findall(question.lower()) if w not in _NOT_CONTENT and not w.isdigit()]


def assistant_task(question: str) -> bool:
    """``task(q)`` above: a request to make or advise, or a message without a content word."""
    return bool(_TASK.search(question) or _ADVICE.search(question) or not content_words(question))


def unknown_names(question: str, snap) -> list[str]:
    """``unknown_name(q, N)`` above: the question's names (speakers left out) that no turn of
    ``snap`` uses, the turns that are not evidence for it aside (``retrieval.asking``: the
    question itself stored before the recall, the agent's own words would always know them)."""
    text = neutral_question(question, snap).strip()
    first = _WORD.search(text)
    start = first.start() if first else 0
    names = [m.group(1) for m in _NAME.finditer(text) if m.start() != start]
    if not names:
        return []
    idx, index = turn_bm25(snap)
    key = text_key(question)

    def said(word: str) -> bool:
        if not index.knows(word):
            return False
        hits = np.flatnonzero(index.scores(word) > 0)
        if not len(hits):  # a stopword: nothing to look up
            return True
        return any(not not_evidence(snap.text[int(idx[r])], snap.attrs[int(idx[r])], key) for r in hits)

    return [w for w in names if not said(w)]


def gate_raise(question: str, snap, task_raise: float, name_raise: float) -> float:
    """How much higher than the namespace's gate this question's gate is (formula above)."""
    up = 0.0
    if task_raise > 0 and assistant_task(question):
        up += task_raise
    if name_raise > 0 and unknown_names(question, snap):
        up += name_raise
    return up
