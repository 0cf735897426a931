"""EMem's optional LLM retrieval steps (Zhou & Han 2025, §3.3): query mention detection and a
recall-oriented relevance filter over candidate events and arguments.

* ``detect_mentions`` — the entities, noun phrases, values and concepts a question mentions
  (``M(q)`` in the paper); each is later embedded and matched to argument nodes. Unlike the
  offline extractor it catches lone names at the start of a question ("Pixel's class…") and
  reduces generic references to their noun ("my pet" -> "pet").
* ``recall_filter`` — one call over the candidate events ``C_edu(q)`` and arguments
  ``C_arg(q)``, shown with short ids (E1…, A1…); the model returns the ids to keep, i.e. the
  binary indicators ``f_EDU(q, e)`` and ``f_ARG(q, a)``. The prompt biases toward recall
  (unlike HippoRAG 2's precision filter): later steps down-weight what it wrongly keeps,
  while nothing recovers what it drops.

Both steps never cost recall to a bad reply: on any ``LLMError`` (unusable output after the
repair turn, timeout, a failing model) ``detect_mentions`` falls back to the offline mention
extractor and ``recall_filter`` to the unfiltered candidates; a filter reply that keeps no
candidate of a kind also keeps that kind unfiltered. Each fallback appends a note to
``notes`` when given. Calls and tokens are counted in ``usage``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from memgraph_agents.construct.arguments import extract_arguments
from memgraph_agents.errors import LLMError
from memgraph_agents.llm.coerce import LINE_SEPARATORS, as_str_list
from memgraph_agents.llm.usage import LLMUsage
from memgraph_agents.prompts import render_prompt

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

MAX_MENTIONS = 10
MAX_MENTION_CHARS = 80
MAX_CANDIDATE_CHARS = 400  # an offline event spans several turns: cap what one costs in the prompt
DEFAULT_TIMEOUT = 60.0

_ID_RE = re.compile(r"\b([EA])\s*-?\s*(\d+)\b", re.IGNORECASE)
_POSSESSIVE_RE = re.compile(r"(?:'s|’s|s'|s’)$", re.IGNORECASE)
_PREFIX = {"event": "E", "argument": "A"}


# --------------------------------------------------------------------------- schemas


class QueryMentions(BaseModel):
    """What a question mentions that could be looked up in memory."""

    model_config = ConfigDict(extra="forbid")  # another JSON shape must not pass as "no mentions"

    mentions: list[str] = Field(
        description="entities, noun phrases, values and concepts the question mentions, most specific first",
    )

    @field_validator("mentions", mode="before")
    @classmethod
    def _mentions(cls, value: Any) -> Any:
        return as_str_list(value, LINE_SEPARATORS)

    @field_validator("mentions")
    @classmethod
    def _clean(cls, values: list[str]) -> list[str]:
        out: list[str] = []
        seen: set[str] = set()
        for v in values:
            v = " ".join(v.split()).strip(" \"'`“”‘’.,;:!?")
            if v and len(v) <= MAX_MENTION_CHARS and v.casefold() not in seen:
                seen.add(v.casefold())
                out.append(v)
        return out[:MAX_MENTIONS]  # a long list is trimmed, not worth a repair call


class RecallSelection(BaseModel):
    """The candidate ids to keep."""

    model_config = ConfigDict(extra="forbid")  # another JSON shape must not pass as "keep nothing"

    keep: list[str] = Field(description='ids of the items to keep, e.g. "E3", "A12"')

    @field_validator("keep", mode="before")
    @classmethod
    def _keep(cls, value: Any) -> Any:
        return as_str_list(value, LINE_SEPARATORS)

    @field_validator("keep")
    @classmethod
    def _normalise(cls, values: list[str]) -> list[str]:
        """``"e3"``, ``"[E3]"``, ``"E-3: text"`` -> ``"E3"``; strings without an id are dropped."""
        out: list[str] = []
        for v in values:
            m = _ID_RE.search(v)
            if m and (label := f"{m.group(1).upper()}{int(m.group(2))}") not in out:
                out.append(label)
        return out


# --------------------------------------------------------------------------- mentions


def mention_key(mention: str) -> str:
    """Lower-case mention without a possessive ending: ``"Ben's"`` -> ``"ben"``."""
    return _POSSESSIVE_RE.sub("", " ".join(mention.split()).casefold())


def offline_mentions(query: str) -> list[str]:
    """The offline extractor's mentions (names, dates, numbers, keyphrases): the fallback."""
    return [m.name for m in extract_arguments(query, [])]


def detect_mentions(
    query: str,
    llm: BaseChatModel,
    *,
    usage: LLMUsage | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    notes: list[str] | None = None,
) -> list[str]:
    """The question's mentions by the LLM; the offline extractor's on any ``LLMError``."""
    prompt = render_prompt("query_mentions", question=" ".join(query.split()))
    try:
        reply = _invoke_json()(llm, prompt, QueryMentions, usage=usage, timeout=timeout, run_name="retrieval:mentions")
    except LLMError as e:
        _note(notes, f"query mentions: offline extractor used ({type(e).__name__}: {e})")
        return offline_mentions(query)
    return reply.mentions


# --------------------------------------------------------------------------- filter


@dataclass(frozen=True)
class Candidate:
    """One candidate for the filter: a node id, its kind, its text and an optional date."""

    node_id: str
    kind: Literal["event", "argument"]
    text: str
    date: str = ""


def label_candidates(candidates: Sequence[Candidate]) -> dict[str, Candidate]:
    """Short ids in order per kind: ``{"E1": first event, …, "A1": first argument, …}``."""
    count = {"event": 0, "argument": 0}
    out: dict[str, Candidate] = {}
    for c in candidates:
        count[c.kind] += 1
        out[f"{_PREFIX[c.kind]}{count[c.kind]}"] = c
    return out


def _line(label: str, c: Candidate) -> str:
    text = " ".join(c.text.split())
    if len(text) > MAX_CANDIDATE_CHARS:
        text = text[: MAX_CANDIDATE_CHARS - 1].rstrip() + "…"
    return f"{label} | {c.date or 'date unknown'} | {text}" if c.kind == "event" else f"{label} | {text}"


def render_filter_prompt(query: str, labelled: dict[str, Candidate]) -> str:
    events = [_line(lab, c) for lab, c in labelled.items() if c.kind == "event"]
    args = [_line(lab, c) for lab, c in labelled.items() if c.kind == "argument"]
    return render_prompt(
        "recall_filter",
        question=" ".join(query.split()),
        events="\n".join(events) or "(none)",
        arguments="\n".join(args) or "(none)",
    )


def recall_filter(
    query: str,
    candidates: Sequence[Candidate],
    llm: BaseChatModel,
    *,
    usage: LLMUsage | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    notes: list[str] | None = None,
) -> list[str]:
    """Node ids of the candidates worth keeping for ``query``, in candidate order.

    Unknown ids in the reply are ignored. A kind of which the reply keeps nothing, or every
    candidate when the call fails, is kept unfiltered (see the module docstring).
    """
    if not candidates:
        return []
    labelled = label_candidates(candidates)
    try:
        reply = _invoke_json()(
            llm,
            render_filter_prompt(query, labelled),
            RecallSelection,
            usage=usage,
            timeout=timeout,
            run_name="retrieval:recall_filter",
        )
    except LLMError as e:
        _note(notes, f"recall filter: candidates kept unfiltered ({type(e).__name__}: {e})")
        return [c.node_id for c in candidates]
    chosen = {labelled[lab].node_id for lab in reply.keep if lab in labelled}
    kept_kinds = {c.kind for c in candidates if c.node_id in chosen}
    for kind in sorted({c.kind for c in candidates} - kept_kinds):
        _note(notes, f"recall filter kept no {kind}: its candidates kept unfiltered")
    return [c.node_id for c in candidates if c.node_id in chosen or c.kind not in kept_kinds]


def _invoke_json() -> Any:
    """``llm.structured.invoke_json``, imported when a step runs: it brings LangChain's chat-model
    stack, which the retrievers' offline path (no chat model) never needs."""
    # lazy: the LLM stack (tenacity, LangChain's chat models): only with a chat model
    from memgraph_agents.llm.structured import invoke_json

    return invoke_json


def _note(notes: list[str] | None, text: str) -> None:
    if notes is not None:
        notes.append(text)
