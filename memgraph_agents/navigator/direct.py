"""The navigator's state machine run in-process, without the LangGraph runtime.

Importing LangGraph's graph runtime costs about a second of CPU (it pulls ``langchain_core``'s
tracers and with them the LangSmith client's schemas), more than a whole offline answer. So
``navigate`` / ``anavigate`` run the same node functions here, with the semantics of the
compiled graph (``navigator.graph``): super-steps, one ``explore`` task per dispatched
assignment, every task's update merged after its step through ``NavState``'s reducers in task
order, a key without a reducer written at most once per step, reducer keys starting from their
type's empty value, the same recursion limit. ``astream_navigate`` and Studio keep the compiled
graph; a test checks both give the same result.
"""

from __future__ import annotations

import asyncio
import typing
from dataclasses import dataclass
from functools import cache
from typing import Any, cast

from memgraph_agents.navigator.nodes import coordinate, dispatch, explore, localize, planner, refine
from memgraph_agents.navigator.respond import respond
from memgraph_agents.navigator.state import ExplorerInput, NavState

_NODES = {"planner": planner, "localize": localize, "coordinate": coordinate, "refine": refine, "respond": respond}
# The graph's fixed edges; ``localize`` and ``coordinate`` route through ``dispatch``.
_AFTER = {"planner": "localize", "refine": "localize", "respond": None}


@dataclass(frozen=True)
class DirectRuntime:
    """What the nodes read from LangGraph's ``Runtime``: the run context (no stream writer)."""

    context: Any
    stream_writer: Any = None


@cache
def _reducers() -> dict[str, Any]:
    """``NavState`` key -> reducer (``None``: last value)."""
    hints = typing.get_type_hints(NavState, include_extras=True)
    return {k: (t.__metadata__[0] if typing.get_origin(t) is typing.Annotated else None) for k, t in hints.items()}


def _initial(inputs: dict[str, Any]) -> dict[str, Any]:
    """Reducer keys start from their type's empty value (``[]``, ``{}``), as LangGraph's channels do."""
    hints = typing.get_type_hints(NavState, include_extras=True)
    state: dict[str, Any] = {}
    for key, reducer in _reducers().items():
        if reducer is not None:
            base = typing.get_args(hints[key])[0]  # Annotated[list[bool], or_merge] -> list[bool]
            state[key] = (typing.get_origin(base) or base)()
    _apply(state, [inputs])
    return state


def _apply(state: dict[str, Any], updates: list[dict[str, Any] | None]) -> None:
    """Merge one step's updates (in task order) into ``state``."""
    reducers = _reducers()
    written: set[str] = set()
    for update in updates:
        for key, value in (update or {}).items():
            if key not in reducers:
                continue
            reducer = reducers[key]
            if reducer is None:
                if key in written:
                    raise RuntimeError(f"navigator: two tasks of one step wrote {key!r}, which has no reducer")
                written.add(key)
                state[key] = value
            else:
                state[key] = reducer(state[key], value)


async def run_direct(inputs: dict[str, Any], config: dict[str, Any], context: Any) -> dict[str, Any]:
    """The navigator graph's final state for ``inputs``, computed without LangGraph."""
    runtime = DirectRuntime(context)
    limit = int(config.get("recursion_limit", 25))
    state = _initial(inputs)
    node: str | None = "planner"
    steps = 0
    while node is not None:
        steps += 1
        if steps > limit:
            raise RuntimeError(f"navigator: recursion limit of {limit} steps reached without an answer")
        if node == "explore":
            payloads = dispatch(state)
            assert isinstance(payloads, list)
            updates = await asyncio.gather(*(explore(cast(ExplorerInput, dict(p)), config, runtime) for p in payloads))
            _apply(state, list(updates))
            node = "coordinate"
            continue
        _apply(state, [await _NODES[node](cast(NavState, dict(state)), config, runtime)])
        if node in _AFTER:
            node = _AFTER[node]
        else:
            step = dispatch(state)
            node = "explore" if isinstance(step, list) else step
    return state
