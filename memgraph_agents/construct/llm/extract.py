"""LLM construction calls (docs/architecture.md, "The ingest pipeline"): events per session, relations between them, fusion.

Each function makes one structured call (plus at most ``retries`` repair turns) and raises an
``LLMError`` when the model cannot deliver; the ingest builder catches it and builds that
session offline, so a session is never lost to a misbehaving model. Their keyword options
(``usage``, ``timeout``, ``semaphore``, ``retries``, ``backoff_base``: ``LLMCallOptions``) go
straight to ``ainvoke_json``.

Provenance is enforced here, not trusted: turn ids the model cites are mapped back to the
session's real ids, unknown ones are dropped, and an event left without any is dropped.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Unpack

from langchain_core.language_models import BaseChatModel

from memgraph_agents.construct.llm.schemas import (
    ExtractedEvent,
    ExtractedRelation,
    FusionVerdict,
    SessionEvents,
    SessionRelations,
    StatementUpdates,
    UpdateCandidate,
)
from memgraph_agents.construct.llm.turn_ids import TurnIds
from memgraph_agents.llm.structured import LLMCallOptions, ainvoke_json
from memgraph_agents.model import Session, Turn
from memgraph_agents.prompts import render_prompt


def format_session_date(date: datetime) -> str:
    """``2023-05-08 (Monday)``, with the clock time when the session has one: the weekday
    lets the model resolve "last Friday"."""
    text = f"{date:%Y-%m-%d} ({date:%A})"
    if (date.hour, date.minute) != (0, 0):
        text += f", {date:%H:%M}"
    return text


def format_turns(session: Session, turn_ids: Sequence[str] | None = None) -> str:
    """One line per turn (every turn, or those of ``turn_ids``):
    ``S1:3 | 2024-03-02 | Maya: text [image: caption]``."""
    keep = set(turn_ids) if turn_ids is not None else None
    lines = []
    for turn in session.turns:
        if keep is None or turn.id in keep:
            day = (turn.timestamp or session.date).date().isoformat()
            lines.append(f"{turn.id} | {day} | " + " ".join(turn.content.split()))
    return "\n".join(lines)


def _with_context(session: Session, context: Sequence[Turn]) -> str:
    if not context:
        return format_turns(session)
    earlier = Session(id=session.id, date=session.date, turns=list(context), participants=session.participants)
    return (
        "(earlier turns, already in memory: context only, make no events from them)\n"
        f"{format_turns(earlier)}\n(new turns: make events from these)\n{format_turns(session)}"
    )


def format_events(events: Sequence[ExtractedEvent]) -> str:
    """One line per event: ``[0] (2023-05-08; D1:1, D1:2) text``."""
    return "\n".join(
        f"[{i}] ({ev.time or 'time unknown'}; {', '.join(ev.turn_ids)}) {' '.join(ev.text.split())}"
        for i, ev in enumerate(events)
    )


async def extract_events(
    model: BaseChatModel,
    session: Session,
    context: Sequence[Turn] = (),
    **call: Unpack[LLMCallOptions],
) -> list[ExtractedEvent]:
    """Events of one session, each citing at least one real turn id of it.

    ``context``: earlier turns of the session, already stored (a chat append): shown before
    the new turns so references resolve, but events may cite only the new turns.

    Raises ``LLMOutputError`` when no valid event comes back even after the repair turn
    (including "every cited turn id is unknown"), ``LLMTimeoutError`` / ``LLMCallError`` on
    transport failures. Turns cited by no event are not an error: the turn layer keeps them.
    """
    prompt = render_prompt(
        "extract_events",
        session_date=format_session_date(session.date),
        speakers=", ".join(session.participants),
        turns=_with_context(session, context),
    )
    ids = TurnIds.of(session)

    def keep_cited(result: SessionEvents) -> SessionEvents:
        kept = []
        for event in result.events:
            resolved = ids.resolve(event.turn_ids)
            if resolved:
                kept.append(event.model_copy(update={"turn_ids": resolved}))
        if kept:
            return SessionEvents.model_construct(events=kept)
        # a ValueError here buys one repair turn that names the problem
        if not result.events:
            raise ValueError("the events list is empty, but the session has content: list its events")
        raise ValueError(
            "no event cites a turn id of this session; copy turn ids exactly from the turn list "
            f"(valid ids: {ids.hint()})"
        )

    result = await ainvoke_json(
        model, prompt, SessionEvents, check=keep_cited, run_name=f"extract_events:{session.id}", **call
    )
    return list(result.events)


def format_updates(updates: Sequence[UpdateCandidate]) -> str:
    """``[N1] (S3:2) statement`` lines, each followed by its earlier statements
    ``[P1] (12 January 2024; S1:4) statement``."""
    lines = []
    for n, u in enumerate(updates, start=1):
        lines.append(f"[N{n}] ({u.turn_id}) {u.speaker}: {' '.join(u.text.split())}")
        for p, old in enumerate(u.earlier, start=1):
            lines.append(f"    [P{p}] ({old.date}; {old.turn_id}) {u.speaker}: {' '.join(old.text.split())}")
    return "\n".join(lines)


async def extract_relations(
    model: BaseChatModel,
    session: Session,
    events: Sequence[ExtractedEvent],
    **call: Unpack[LLMCallOptions],
) -> list[ExtractedRelation]:
    """Typed relations between ``events`` (indices into that list, as passed).

    Out-of-range indices, self-loops and duplicates are dropped; turn ids are restricted to
    the session's, and a relation citing none gets the union of its two events' turns (the
    provenance rule: every edge records the turns it came from). Fewer than two events: no
    call, ``[]``.
    """
    if len(events) < 2:
        return []
    prompt = render_prompt(
        "extract_relations",
        session_date=format_session_date(session.date),
        speakers=", ".join(session.participants),
        events=format_events(events),
    )
    result = await ainvoke_json(model, prompt, SessionRelations, run_name=f"extract_relations:{session.id}", **call)
    ids = TurnIds.of(session)
    n = len(events)
    out: list[ExtractedRelation] = []
    seen: set[tuple[int, int, str]] = set()
    for rel in result.relations:
        key = (rel.source, rel.target, rel.type)
        if not (0 <= rel.source < n and 0 <= rel.target < n) or rel.source == rel.target or key in seen:
            continue
        seen.add(key)
        turn_ids = ids.resolve(rel.turn_ids) or ids.resolve(
            [*events[rel.source].turn_ids, *events[rel.target].turn_ids]
        )
        out.append(rel.model_copy(update={"turn_ids": turn_ids}))
    return out


async def label_updates(
    model: BaseChatModel,
    session: Session,
    updates: Sequence[UpdateCandidate],
    **call: Unpack[LLMCallOptions],
) -> list[tuple[int, int, str]]:
    """Which candidate updates really replace an earlier statement: ``(update index, earlier
    index, attribute)``, 0-based (out-of-range and repeated pairs dropped). No candidate: no
    call, ``[]``."""
    if not updates:
        return []
    prompt = render_prompt(
        "label_updates",
        session_date=format_session_date(session.date),
        speakers=", ".join(session.participants),
        updates=format_updates(updates),
    )
    result = await ainvoke_json(model, prompt, StatementUpdates, run_name=f"label_updates:{session.id}", **call)
    labels: dict[tuple[int, int], str] = {}
    for lab in result.supersedes:
        u, o = lab.new - 1, lab.old - 1
        if 0 <= u < len(updates) and 0 <= o < len(updates[u].earlier):
            labels.setdefault((u, o), lab.attribute)
    return [(u, o, a) for (u, o), a in labels.items()]


async def judge_fusion(
    model: BaseChatModel,
    new_text: str,
    old_text: str,
    **call: Unpack[LLMCallOptions],
) -> FusionVerdict:
    """Same event / overlap / relation (read ``OLD --relation_type--> NEW``) between a new
    event and its most similar stored one. Put the dates into the texts (``"2023-05-08: ..."``):
    "same occurrence" depends on them."""
    prompt = render_prompt("fusion_judge", new_event=" ".join(new_text.split()), old_event=" ".join(old_text.split()))
    return await ainvoke_json(model, prompt, FusionVerdict, run_name="judge_fusion", **call)
