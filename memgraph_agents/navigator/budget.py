"""Per-question budgets: node decisions (steps) and LLM calls (a hard cap).

LLM calls are allocated, never estimated after the fact: a role gets an *allowance*
(calls it may make, its repair turn included) before it runs, and allowances always fit in
what is left after the reserve for later roles. So concurrent explorers cannot overshoot.

Reserve while exploring: the responder's call, plus a refined query and one explorer call
while a refinement round is still possible and the budget can pay for both it and a wave
now (a small cap spends itself on the first round rather than on a refinement it cannot
afford to explore). Unused reserve is simply not spent.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from memgraph_agents.navigator.config import NavigatorContext


def calls_used(state: Mapping[str, Any]) -> int:
    return int((state.get("counters") or {}).get("llm_calls", 0))


def steps_used(state: Mapping[str, Any]) -> int:
    return int((state.get("counters") or {}).get("steps", 0))


def calls_left(state: Mapping[str, Any], ctx: NavigatorContext) -> int:
    return max(0, ctx.max_llm_calls - calls_used(state))


def can_refine(state: Mapping[str, Any], ctx: NavigatorContext, offline: bool) -> bool:
    if state.get("round", 0) >= ctx.max_refinements:
        return False
    return offline or calls_left(state, ctx) >= 3  # refine + one explorer + the responder


def explore_calls(state: Mapping[str, Any], ctx: NavigatorContext) -> int:
    """Calls explorers may use now: what is left after the reserve."""
    left = calls_left(state, ctx) - 1  # the responder
    if state.get("round", 0) < ctx.max_refinements and left - 2 >= 1:
        left -= 2  # a refined query and one explorer call after it
    return max(0, left)


def allowance(left: int, keep: int = 0) -> int:
    """Calls one role may make (1, or 2 with a repair turn) keeping ``keep`` for later roles."""
    return max(0, min(2, left - keep))
