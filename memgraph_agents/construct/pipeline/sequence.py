"""The ingest pipeline: one step table and one runner, ``run_session``.

Ingest is a straight line (``check``, which may end an unchanged session's run, then ``STEPS``
in order), so it runs as what it is: each step a function ``step(state, context) -> update``,
its update merged before the next step runs (``notes`` and ``usage`` through ``REDUCERS``, the
rest replaced). Blocking steps run off the event loop, consecutive ones in one hand-off; the
commit is one transaction. Every door that writes (``Memory.add``, the agent tools, the store,
MCP, the CLI, Studio's ingest graph) reaches this runner through ``memgraph_agents.ingest``;
``describe()`` draws the table for docs and reviews (``tests/test_graph_topology.py``).
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable
from typing import Any, Protocol

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
from memgraph_agents.construct.pipeline.state import REDUCERS, remember_session
from memgraph_agents.embeddings.cache import known_vectors
from memgraph_agents.model.conversation import Session
from memgraph_agents.runtime import MemoryContext, get_chat_model
from memgraph_agents.storage.vector_rows import StoredVectors


class Step(Protocol):
    """One pipeline step: the state so far and the run context in, the state's update out
    (a coroutine for the steps that may call an LLM)."""

    def __call__(self, state: Any, context: MemoryContext, /) -> dict | Awaitable[dict]: ...


# After ``check`` (which may end the run), in this order.
STEPS = ["normalise", "segment", "relate", "fuse", "topics", "sentences", *LAYER_STEPS, "commit"]
NODES: dict[str, Step] = {
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
_ASYNC = {name for name, fn in NODES.items() if inspect.iscoroutinefunction(fn)}


def describe() -> str:
    """The step table as a Mermaid flowchart: what a run does, in order."""
    lines = ["flowchart TD", "\tcheck -. unchanged .-> done", f"\tcheck --> {STEPS[0]}"]
    lines += [f"\t{a} --> {b}" for a, b in zip(STEPS, STEPS[1:])]
    return "\n".join([*lines, f"\t{STEPS[-1]} --> done"])


def _apply(state: dict[str, Any], update: dict[str, Any]) -> None:
    for key, value in update.items():
        reducer = REDUCERS.get(key)
        state[key] = reducer(state[key], value) if reducer else value


def _blocking_run(names: list[str], state: dict[str, Any], context: MemoryContext) -> bool:
    """Run the blocking steps ``names`` in order (one worker-thread hand-off for all of them);
    False when ``check`` ended the run."""
    for name in names:
        _apply(state, NODES[name](dict(state), context))  # type: ignore[arg-type]
        if name == "check" and route_check(state) == "__end__":  # type: ignore[arg-type]
            return False
    return True


async def run_steps(inputs: dict[str, Any], context: MemoryContext) -> dict[str, Any]:
    """The pipeline's final state for ``inputs`` (``session_inputs``): the steps in order."""
    state: dict[str, Any] = {"notes": [], "usage": {}}
    _apply(state, inputs)
    order = ["check", *STEPS]
    memo = RUN_MEMO.set({})  # the store and build context, opened once for every step
    try:
        i = 0
        while i < len(order):
            if order[i] in _ASYNC:
                _apply(state, await NODES[order[i]](dict(state), context))  # type: ignore[misc]
                i += 1
                continue
            j = i
            while j < len(order) and order[j] not in _ASYNC:
                j += 1
            if not await off_loop(_blocking_run, order[i:j], state, context):
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
