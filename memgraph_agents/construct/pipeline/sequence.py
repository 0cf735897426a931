"""The ingest pipeline: a plain function sequence, and ``run_session``.

Ingest is a straight line (``check``, which may end an unchanged session's run, then ``STEPS``
in order), so it runs as what it is: each step a function of the state, its update merged
before the next step runs (``notes`` and ``usage`` through ``PipelineState``'s own reducers,
read from its annotations). Blocking steps run off the event loop, consecutive ones in one
hand-off; the commit is one transaction. The ingest graph LangGraph Studio draws
(``pipeline.graph``) is built from these very tables (``NODES``, ``STEPS``, ``route_check``),
not a copy of them; a test checks both store the same graph.
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from memgraph_agents.aio import off_loop, run_off_loop
from memgraph_agents.construct.layers import LAYER_STEPS
from memgraph_agents.construct.pipeline.nodes import (
    RUN_MEMO,
    check,
    commit,
    context_settings,
    fuse_step,
    layer_node,
    normalise,
    relate_step,
    route_check,
    segment,
    sentences,
    topics,
)
from memgraph_agents.construct.pipeline.state import PipelineState, remember_session
from memgraph_agents.embeddings.cache import known_vectors
from memgraph_agents.model.conversation import Session
from memgraph_agents.runtime import MemoryContext, get_chat_model
from memgraph_agents.storage.vector_rows import StoredVectors

# After ``check`` (which may end the run), in this order.
STEPS = ["normalise", "segment", "relate", "fuse", "topics", "sentences", *LAYER_STEPS, "commit"]
NODES: dict[str, Callable[..., Any]] = {
    "check": check,
    "normalise": normalise,
    "segment": segment,
    "relate": relate_step,
    "fuse": fuse_step,
    "topics": topics,
    "sentences": sentences,
    **{name: layer_node(name) for name in LAYER_STEPS},
    "commit": commit,
}
# The state's reducers, read from its annotations (``Annotated[list[str], operator.add]``).
_REDUCERS: dict[str, Callable[[Any, Any], Any]] = {
    key: hint.__metadata__[0]
    for key, hint in typing.get_type_hints(PipelineState, include_extras=True).items()
    if typing.get_origin(hint) is typing.Annotated
}


@dataclass(frozen=True)
class StepRuntime:
    """What a step reads of its runtime: the run context (a LangGraph ``Runtime`` in Studio)."""

    context: MemoryContext


def _apply(state: dict[str, Any], update: dict[str, Any] | None) -> None:
    for key, value in (update or {}).items():
        reducer = _REDUCERS.get(key)
        state[key] = reducer(state[key], value) if reducer else value


_TAKES_RUNTIME: dict[Callable[..., Any], bool] = {}  # per node function: reading its signature per write cost


def _call_sync(fn: Callable[..., Any], state: dict[str, Any], runtime: StepRuntime) -> Any:
    takes = _TAKES_RUNTIME.get(fn)
    if takes is None:
        takes = _TAKES_RUNTIME[fn] = len(inspect.signature(fn).parameters) > 1
    return fn(state, runtime) if takes else fn(state)


def _blocking_run(names: list[str], state: dict[str, Any], runtime: StepRuntime) -> bool:
    """Run the blocking nodes ``names`` in order (one worker-thread hand-off for all of them);
    False when ``check`` ended the run."""
    for name in names:
        _apply(state, _call_sync(NODES[name], dict(state), runtime))
        if name == "check" and route_check(state) == "__end__":  # type: ignore[arg-type]
            return False
    return True


async def run_steps(inputs: dict[str, Any], context: MemoryContext) -> dict[str, Any]:
    """The pipeline's final state for ``inputs`` (the graph's input keys): the steps in order."""
    runtime = StepRuntime(context)
    state: dict[str, Any] = {"notes": [], "usage": {}}
    _apply(state, inputs)
    order = ["check", *STEPS]
    memo = RUN_MEMO.set({})  # the store and build context, opened once for every step
    try:
        i = 0
        while i < len(order):
            if inspect.iscoroutinefunction(NODES[order[i]]):
                _apply(state, await NODES[order[i]](dict(state), runtime))
                i += 1
                continue
            j = i
            while j < len(order) and not inspect.iscoroutinefunction(NODES[order[j]]):
                j += 1
            if not await off_loop(_blocking_run, order[i:j], state, runtime):
                break
            i = j
    finally:
        RUN_MEMO.reset(memo)
    return state


async def run_session(
    store: Any,
    session: Session,
    speakers: list[str],
    context: MemoryContext,
    *,
    replace: bool,
    rebuild: bool,
    existing: bool = False,
    keep_metadata: bool = False,
) -> dict[str, Any]:
    """Build and commit ``session`` in ``store``'s namespace, holding its ingest lock from the
    check to the commit (one writer per namespace: every session is built on the graph it is
    committed to). ``existing``: the session must be stored already (an update never
    re-creates a deleted one; checked under the lock). ``keep_metadata``: it keeps its stored
    metadata, read under the lock. Returns the pipeline's final state."""
    inputs = session_inputs(session, speakers, replace, rebuild, existing, keep_metadata)
    remember_session(inputs["session"], session)
    # Offline, the steps never wait (no LLM call): they run to the end in one hand-off.
    offline = get_chat_model(context_settings(context)) is None
    # A text the namespace already stores (a replaced session, an event's earlier turns, an
    # argument met before) is not embedded again: its vector is read beside the graph rows.
    async with store.ingest_lock.hold_async():
        with known_vectors(StoredVectors(store.db)):
            if offline:
                return await run_off_loop(run_steps, inputs, context)
            return await run_steps(inputs, context)


def session_inputs(
    session: Session, speakers: list[str], replace: bool, rebuild: bool, existing: bool, keep_metadata: bool = False
) -> dict:
    """The pipeline's input state."""
    return {
        "session": session.model_dump(mode="json"),
        "speakers": list(speakers),
        "replace": replace,
        "rebuild": rebuild,
        "existing": existing,
        "keep_metadata": keep_metadata,
    }
