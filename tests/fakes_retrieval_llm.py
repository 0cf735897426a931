"""Scripted replies for EMem's LLM retrieval steps (``memgraph_agents.retrieval.llm_steps``).

Replies are computed from the prompt actually sent, like a careful model would answer:

* mentions: the capitalised names and the quoted phrases of the question (question words and
  other sentence-initial function words excluded, possessives dropped);
* recall filter: every candidate (event or argument) sharing a content word with the
  question, compared by a 4-letter prefix so "runs" meets "running".
"""

from __future__ import annotations

import json
import re

from langchain_core.messages import BaseMessage

from memgraph_agents.construct.arguments import STOPWORDS
from tests.fakes import Responder, route_responder, task_text

MENTIONS_MARKER = "TASK: QUERY MENTIONS"
FILTER_MARKER = "TASK: RECALL FILTER"

_QUESTION_RE = re.compile(r"^Question: (?P<q>.*)$", re.M)
_CANDIDATE_RE = re.compile(r"^(?P<id>[EA]\d+) \| (?:(?P<date>[^|\n]*) \| )?(?P<text>.*)$", re.M)
_NAME_RE = re.compile(r"\b[A-Z][A-Za-z]+(?:[ \t]+[A-Z][A-Za-z]+)*")
_QUOTED_RE = re.compile(r"[\"“]([^\"”]+)[\"”]")
_WORD_RE = re.compile(r"[a-z0-9]+")
_FUNCTION_WORDS = set(
    "What When Where Why How Who Whom Which Whose Did Does Do Is Are Was Were Has Have Had Can Could "
    "Would Will Should The A An In On At Of For To And Or But If I".split()
)


def question_of(prompt: str) -> str:
    m = _QUESTION_RE.search(prompt)
    assert m, f"no 'Question:' line in prompt: {prompt[:200]!r}"
    return m.group("q")


def parse_candidates(prompt: str) -> dict[str, str]:
    """``{"E1": text, "A1": text, …}`` from the filter prompt's candidate lines."""
    return {m.group("id"): m.group("text") for m in _CANDIDATE_RE.finditer(prompt)}


def question_mentions(question: str) -> list[str]:
    out: list[str] = []
    for quoted in _QUOTED_RE.findall(question):
        out.append(quoted.strip())
    for m in _NAME_RE.finditer(question):
        words = m.group(0).split()
        while words and words[0] in _FUNCTION_WORDS:  # "What Pixel" -> "Pixel"
            words.pop(0)
        name = " ".join(words)
        if name and all(name.lower() not in o.lower() for o in out):
            out.append(name)
    return out


def content_stems(text: str) -> set[str]:
    return {w[:4] for w in _WORD_RE.findall(text.lower()) if len(w) >= 3 and w not in STOPWORDS}


def mentions_responder() -> Responder:
    def respond(messages: list[BaseMessage]) -> str:
        return json.dumps({"mentions": question_mentions(question_of(task_text(messages)))})

    return respond


def filter_responder(extra_ids: tuple[str, ...] = ()) -> Responder:
    """Keeps the candidates sharing a content word with the question (plus ``extra_ids``, e.g.
    ids that do not exist, to check they are ignored)."""

    def respond(messages: list[BaseMessage]) -> str:
        prompt = task_text(messages)
        words = content_stems(question_of(prompt))
        keep = [cid for cid, text in parse_candidates(prompt).items() if content_stems(text) & words]
        return json.dumps({"keep": keep + list(extra_ids)})

    return respond


def retrieval_responder(**filter_kwargs) -> Responder:
    """Both steps, dispatched on the prompt's first line."""
    return route_responder({MENTIONS_MARKER: mentions_responder(), FILTER_MARKER: filter_responder(**filter_kwargs)})
