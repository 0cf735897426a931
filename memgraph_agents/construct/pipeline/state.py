"""The ingest pipeline's state: plain JSON data, so a checkpointer stores and restores it as is.

A session travels as ``Session.model_dump(mode="json")`` and the build as
``SessionBuild.model_dump(mode="json")``; each step reads them back into objects (``session_of``,
``build_of``), works, and writes its result as data again (``dump``). Counters and notes from
steps merge through ``REDUCERS``; every other key a step returns replaces the old value.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import fields
from typing import Any

from typing_extensions import TypedDict

from memgraph_agents.construct.append import AppendPlan
from memgraph_agents.construct.build import SessionBuild
from memgraph_agents.llm.usage import add_counts
from memgraph_agents.model.conversation import Session, Turn


class PipelineState(TypedDict, total=False):
    session: dict[str, Any]  # input: the session (``Session`` as JSON)
    speakers: list[str]  # input: the conversation's participants
    replace: bool  # input: replace a stored version that differs (else SessionConflictError)
    rebuild: bool  # input: rebuild an unchanged session stored with another builder or preset
    existing: bool  # input: the session must be stored already (an update never re-creates a deleted one)
    keep_metadata: bool  # input: the session keeps its stored metadata, read by ``check`` under the lock
    build: dict[str, Any]  # the session's graph so far (``SessionBuild`` as JSON)
    status: str  # new | replace | append | unchanged, then committed
    replaced: bool  # the commit replaced a stored version of this session
    append: dict[str, Any]  # an append's plan (``AppendPlan`` as JSON)
    builder: str  # how the committed session was built: "llm" or "offline"
    notes: list[str]  # merged: REDUCERS
    usage: dict[str, float]  # merged: REDUCERS


# How a step's update of these keys merges with the state (the other keys are replaced).
REDUCERS: dict[str, Callable[[Any, Any], Any]] = {"notes": operator.add, "usage": add_counts}


# The last session read back, with the data it was read from: every step reads the session,
# and validating a long chat's transcript again at each of them cost more than building its
# new turn. Keyed by the data's identity (held here, so the identity is not reused); steps
# never change the state's data in place, and a ``Session`` is frozen.
_LAST_SESSION: tuple[Any, Session] | None = None


def session_of(state: PipelineState) -> Session:
    global _LAST_SESSION
    data = state["session"]
    last = _LAST_SESSION
    if last is not None and last[0] is data:
        return last[1]
    session = Session.model_validate(data)
    _LAST_SESSION = (data, session)
    return session


def remember_session(data: dict[str, Any], session: Session) -> None:
    """``session`` is what ``data`` reads back as (the caller dumped it): the steps' first
    ``session_of`` need not validate the whole transcript again."""
    global _LAST_SESSION
    _LAST_SESSION = (data, session)


def build_of(state: PipelineState) -> SessionBuild:
    """The build so far, as new objects a step may change freely (the state keeps its data)."""
    return SessionBuild.model_validate(state["build"])


def dump(build: SessionBuild) -> dict[str, Any]:
    return build.model_dump(mode="json")


def plan_data(plan: AppendPlan) -> dict[str, Any]:
    data = {f.name: getattr(plan, f.name) for f in fields(plan)}
    data["window"] = [t.model_dump(mode="json") for t in plan.window]
    data["context"] = [t.model_dump(mode="json") for t in plan.context]
    return data


def plan_of(state: PipelineState) -> AppendPlan | None:
    data = state.get("append")
    if not data:
        return None
    turns = {k: [Turn.model_validate(t) for t in data.get(k, [])] for k in ("window", "context")}
    return AppendPlan(**{**data, **turns})
