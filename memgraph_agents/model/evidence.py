"""``Evidence``: what every retriever returns, and its one-line citation (docs/architecture.md, "Data model")."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from datetime import date
from typing import Any

from pydantic import BaseModel, Field


def iso_date(day: str) -> str:
    return day[:10]


def human_date(day: str) -> str:
    """``2027-03-14`` -> ``14 March 2027``; unparsable text is kept."""
    try:
        d = date.fromisoformat(day[:10])
    except ValueError:
        return day
    return f"{d.day} {d:%B %Y}"


def superseded_note(on: str | None, by: Sequence[str], fmt: Callable[[str], str] = iso_date) -> str:
    """``(superseded on 2024-05-12 by S3:2)`` for a statement a later one replaced, else ``""``."""
    if not by:
        return ""
    when = f" on {fmt(on)}" if on else ""
    return f"(superseded{when} by {', '.join(by[:3])}{', …' if len(by) > 3 else ''})"


CONTEXT_CHARS = 160  # a question longer than this is cut in the note
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=\S)")


class TurnContext(BaseModel):
    """The turn an evidence turn answers: the question right before a reply that needs it."""

    turn_id: str
    text: str = Field(description="the asking turn as stored ('Speaker: text')")


class Evidence(BaseModel):
    node_id: str
    kind: str
    text: str
    score: float = Field(
        description="the retriever's ranking score: orders one ranking, not comparable across questions"
    )
    turn_ids: list[str] = Field(default_factory=list, description="provenance turns, best first")
    session_ids: list[str] = Field(default_factory=list)
    session_dates: list[str] = Field(default_factory=list, description="ISO dates of those sessions")
    path: list[str] = Field(default_factory=list, description="node ids by which it was reached")
    retriever: str = ""
    relevance: float | None = Field(
        None,
        description="cosine of the question and the item's best-matching sentence (or whole text), "
        "clipped to [0, 1]: comparable across questions and retrievers (None: not computed)",
    )
    current: bool = Field(True, description="False when a later statement replaced this one")
    superseded_by: list[str] = Field(default_factory=list, description="turn ids of the statements that replaced it")
    superseded_on: str | None = Field(None, description="ISO date of the first statement that replaced it")
    supersedes: list[str] = Field(default_factory=list, description="turn ids of earlier statements it replaced")
    metadata: dict[str, Any] = Field(
        default_factory=dict, description="the user's metadata of its first session (session_ids[0])"
    )
    namespace: str = Field("", description="the namespace it came from (set by Memory.search)")
    context: TurnContext | None = Field(
        None,
        description="the question this turn answers (the turn right before it, by another speaker), "
        "shown with it; not an item of its own",
    )

    def mark(self, *, human: bool = False) -> str:
        """``(superseded on 2023-09-02 by D7:4)`` when a later statement replaced this one, else
        ``""``: the one wording of the mark, for every door (``cite``, the CLI, the trace page)."""
        return superseded_note(self.superseded_on, self.superseded_by, human_date if human else iso_date)

    def context_note(self, *, max_chars: int = CONTEXT_CHARS) -> str:
        """``(in reply to S2:2 Maya: "When do you start?")`` for a reply shown with the question it
        answers, else ``""``."""
        if self.context is None:
            return ""
        who, sep, said = " ".join(self.context.text.split()).partition(": ")
        if not sep:
            who, said = "", who
        # the question itself: the asking turn's last sentence ("YES!! When do you start?")
        said = _SENTENCE_END.split(said.strip())[-1]
        if len(said) > max_chars:
            said = said[: max_chars - 1] + "…"
        return f'(in reply to {self.context.turn_id} {who + ": " if who else ""}"{said}")'

    def cite(self, *, human: bool = False, max_turns: int = 6, max_chars: int | None = None) -> str:
        """One line for a prompt, a tool result or a terminal:
        ``[2023-05-08 | D1:3] (in reply to D1:2 …) text (superseded on 2023-09-02 by D7:4)``.

        ``human``: dates as ``8 May 2023`` (what an answering model reads); ``max_chars`` cuts
        a long text (a session-sized item). Every door formats evidence with this method.
        """
        fmt = human_date if human else iso_date
        dates = ", " if human else ","
        day_list = dates.join(fmt(d) for d in sorted(set(self.session_dates)) if d) or ("date unknown" if human else "")
        turns = ",".join(self.turn_ids[:max_turns]) + ("…" if len(self.turn_ids) > max_turns else "")
        text = " ".join(self.text.split()) if human else self.text
        if max_chars is not None and len(text) > max_chars:
            text = text[: max_chars - 1] + "…"
        if not turns and human:
            turns = self.node_id  # an answering model cites something
        context = self.context_note()
        mark = self.mark(human=human)
        return f"[{day_list} | {turns}] {context + ' ' if context else ''}{text}{' ' + mark if mark else ''}"


def flatten_turns(evidence: list[Evidence], k: int | None = None) -> list[str]:
    """Ranked evidence -> ranked provenance turn ids, first occurrence wins, first ``k`` kept."""
    seen: set[str] = set()
    out: list[str] = []
    for ev in evidence:
        for t in ev.turn_ids:
            if t not in seen:
                seen.add(t)
                out.append(t)
                if k is not None and len(out) >= k:
                    return out
    return out
