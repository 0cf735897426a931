"""The ingest pipeline's steps run as a plain in-process sequence, and ``run_session``.

A chat write is one small session append: run through the compiled LangGraph graph
(``pipeline.graph``), the graph's per-step bookkeeping and hand-offs cost about as much as the
build itself. ``run_session`` therefore calls the same node functions, in the graph's order,
with the graph's semantics: the state's reducers (``notes`` concatenated, ``usage`` summed,
both starting empty), ``check`` ending an unchanged session's run, each node's update merged
before the next node runs. Blocking steps run off the event loop, consecutive ones in one
hand-off; the commit is the same one transaction. The compiled graph (``langgraph dev``,
Studio, ``graphs/ingest.py``'s exported graph) is built from these tables; a test checks both
store the same graph.
"""

from __future__ import annotations

import inspect
import operator
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
from memgraph_agents.construct.pipeline.state import remember_session
from memgraph_agents.llm.usage import add_counts
from memgraph_agents.model.conversation import Session
from memgraph_agents.runtime import MemoryContext, get_chat_model

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
_REDUCERS: dict[str, Callable[[Any, Any], Any]] = {"notes": operator.add, "usage": add_counts}


@dataclass(frozen=True)
class DirectRuntime:
    """What the nodes read from LangGraph's ``Runtime``: the run context."""

    context: MemoryContext


def _apply(state: dict[str, Any], update: dict[str, Any] | None) -> None:
    for key, value in (update or {}).items():
        reducer = _REDUCERS.get(key)
        state[key] = reducer(state[key], value) if reducer else value


_TAKES_RUNTIME: dict[Callable[..., Any], bool] = {}  # per node function: reading its signature per write cost


def _call_sync(fn: Callable[..., Any], state: dict[str, Any], runtime: DirectRuntime) -> Any:
    takes = _TAKES_RUNTIME.get(fn)
    if takes is None:
        takes = _TAKES_RUNTIME[fn] = len(inspect.signature(fn).parameters) > 1
    return fn(state, runtime) if takes else fn(state)


def _blocking_run(names: list[str], state: dict[str, Any], runtime: DirectRuntime) -> bool:
    """Run the blocking nodes ``names`` in order (one worker-thread hand-off for all of them);
    False when ``check`` ended the run."""
    for name in names:
        _apply(state, _call_sync(NODES[name], dict(state), runtime))
        if name == "check" and route_check(state) == "__end__":  # type: ignore[arg-type]
            return False
    return True


async def run_steps(inputs: dict[str, Any], context: MemoryContext) -> dict[str, Any]:
    """The pipeline's final state for ``inputs`` (the graph's input keys), without LangGraph."""
    runtime = DirectRuntime(context)
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
    async with store.ingest_lock.hold_async():
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
