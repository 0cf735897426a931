"""Statements answer, questions ask: the ranked turns that are not evidence for a question.

Memory in the loop: an agent writes each exchange with its user (the user's message, its own
reply) and asks memory about the past, so what memory holds next to the user's statements is
the user's questions to the agent and the agent's replies, which share the words of every
later question on their topic. A turn is **not evidence** for a question ``q`` when

* the agent said it (``role == "assistant"``, recorded at write time by ``loaders.messages``):
  its replies echo and paraphrase the user, whose own statement is the evidence;
* the user asked it in a chat with the agent (``role == "user"`` and it asks with at most
  ``CHAT_ASIDE`` words besides its questions, ``priors.asks_only``): a question to the agent
  states nothing;
* it is ``q`` itself (its words, speaker and resolved dates left out, equal ``q``'s): the
  exchange being answered, stored before the recall.

A transcript between people (no role) keeps its questions as turns like any other: there a
question is part of the exchange its answer replies to (the rankings weigh it themselves:
``oneshot``'s ``asking`` factor). Turns that are not evidence stay stored, listed and
forgettable; a ranking puts them after the statements of its window (``statements_first``)
and the relevance gate does not count them (``retrieval.gate``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from memgraph_agents.model.evidence import Evidence
from memgraph_agents.retrieval.priors import asks_only

# Words besides its questions a user's chat message may say and still only ask ("Thanks! And
# what was the name of it?"): fewer than a transcript's ``ASIDE_WORDS``, since a user's message
# to an agent often states a fact before it asks ("I moved to Porto last week. Any gym tips?").
CHAT_ASIDE = 3

_PAREN = re.compile(r"\([^()]*\)")  # the dates ingest writes into a turn ("yesterday (3 May 2027)")
_WORDS = re.compile(r"\w+")


def text_key(text: str) -> str:
    """``text`` compared as words: lower case, parentheses (resolved dates) and punctuation left out."""
    return " ".join(_WORDS.findall(_PAREN.sub(" ", text).lower()))


@lru_cache(maxsize=16384)
def turn_key(text: str, speaker: str | None) -> str:
    """A stored turn's ``text_key``, its ``"speaker: "`` prefix left out (once per text and process:
    every question compares its candidates' keys)."""
    if speaker and text.startswith(f"{speaker}:"):
        text = text[len(speaker) + 1 :]
    return text_key(text)


def not_evidence(text: str, attrs: Mapping[str, Any], question_key: str) -> bool:
    """Whether a turn (its stored ``text`` and ``attrs``) is not evidence for the question whose
    ``text_key`` is ``question_key`` (see the module docstring)."""
    role = attrs.get("role")
    if role == "assistant":
        return True
    speaker = attrs.get("speaker")
    if role == "user" and asks_only(text, speaker, aside=CHAT_ASIDE):
        return True
    return bool(question_key) and turn_key(text, speaker) == question_key


def statements_first(snap, query: str, evidence: list[Evidence], window: int) -> list[Evidence]:
    """``evidence`` with the turns of its first ``window`` items that are not evidence for
    ``query`` moved after that window's other items (both keep their order); the items past the
    window follow unchanged. An item is judged by its first turn; items of other kinds stay."""
    head, rest = evidence[:window], evidence[window:]
    key = text_key(query)
    first: list[Evidence] = []
    after: list[Evidence] = []
    for ev in head:
        i = snap.index.get(f"turn:{ev.turn_ids[0]}") if ev.kind == "turn" and ev.turn_ids else None
        (after if i is not None and not_evidence(snap.text[i], snap.attrs[i], key) else first).append(ev)
    return evidence if not after else first + after + rest


def evidence_only(snap, query: str, turn_ids: list[str]) -> list[str]:
    """``turn_ids`` without the turns that are not evidence for ``query``: a seed ranking fused
    by rank (``oneshot``) then ranks the statements as if the agent's own turns were not stored."""
    key = text_key(query)
    out = []
    for t in turn_ids:
        i = snap.index.get(f"turn:{t}")
        if i is None or not not_evidence(snap.text[i], snap.attrs[i], key):
            out.append(t)
    return out
