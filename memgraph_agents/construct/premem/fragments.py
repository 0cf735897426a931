"""PREMem step 1, episodic memory extraction: a session -> categorised memory fragments.

A fragment is PREMem's ``m = (id, key, content, time)`` (Kim et al., 2025, §3.1) plus its
category (factual | experiential | subjective) and source turns. With an LLM: one structured
call per session (``prompts/premem_fragments.txt``); the turn ids the model cites are mapped
to the session's real ids and a fragment citing none is dropped (all dropped -> one repair
turn). On any ``LLMError`` the session gets the offline fragments (``offline.py``) instead
and a note says so: a misbehaving model never loses a session.
"""

from __future__ import annotations

from collections.abc import Sequence

from memgraph_agents.construct.build import fallback_note
from memgraph_agents.construct.context import BuildContext
from memgraph_agents.construct.llm.extract import format_session_date, format_turns
from memgraph_agents.construct.llm.turn_ids import TurnIds
from memgraph_agents.construct.premem.model import Fragment
from memgraph_agents.construct.premem.offline import offline_fragments
from memgraph_agents.construct.premem.schemas import SessionFragments
from memgraph_agents.construct.premem.temporal import parse_time
from memgraph_agents.errors import LLMError
from memgraph_agents.llm.structured import ainvoke_json
from memgraph_agents.model.conversation import Session
from memgraph_agents.prompts import render_prompt


async def llm_fragments(session: Session, ctx: BuildContext, *, retries: int = 1) -> list[Fragment]:
    """Fragments of ``session`` from ``ctx.llm``; raises ``LLMError`` when it cannot deliver."""
    prompt = render_prompt(
        "premem_fragments",
        session_date=format_session_date(session.date),
        speakers=", ".join(session.participants),
        turns=format_turns(session),
    )
    ids = TurnIds.of(session)

    def keep_cited(result: SessionFragments) -> SessionFragments:
        kept = [f.model_copy(update={"turn_ids": ids.resolve(f.turn_ids)}) for f in result.fragments]
        kept = [f for f in kept if f.turn_ids]
        if kept or not result.fragments:  # an empty list is an answer: a session of small talk
            return SessionFragments.model_construct(fragments=kept)
        raise ValueError(
            "no fragment cites a turn id of this session; copy turn ids exactly from the turn list "
            f"(valid ids: {ids.hint()})"
        )

    result = await ainvoke_json(
        ctx.llm,
        prompt,
        SessionFragments,
        usage=ctx.usage,
        retries=retries,
        timeout=ctx.llm_timeout,
        semaphore=ctx.semaphore,
        check=keep_cited,
        run_name=f"premem_fragments:{session.id}",
    )
    turn_dates = {t.id: (t.timestamp or session.date) for t in session.turns}
    return [
        Fragment(
            category=f.category,
            key=f.key,
            content=f.content,
            turn_ids=list(f.turn_ids),
            time=parse_time(f.time, turn_dates[f.turn_ids[0]]),
            builder="llm",
        )
        for f in result.fragments
    ]


async def session_fragments(
    session: Session, ctx: BuildContext, speakers: Sequence[str] = ()
) -> tuple[list[Fragment], list[str]]:
    """(fragments, notes): from the LLM when there is one, offline otherwise or on failure."""
    if ctx.llm is None:
        return offline_fragments(session, speakers), []
    try:
        return await llm_fragments(session, ctx), []
    except LLMError as exc:
        note = fallback_note("premem fragments", exc)
        return offline_fragments(session, speakers), [note]
