"""``OfflinePolicy``: the ``Policy`` of a run without a chat model (``policies.offline``'s rules).

Also the LLM policy's fallback: ``source`` names who the choice stands in for (``fallback``
when a model was there but could not or did not answer).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from memgraph_agents.aio import off_loop
from memgraph_agents.navigator.localize import select_start
from memgraph_agents.navigator.policies import offline
from memgraph_agents.navigator.policies.protocol import Choice
from memgraph_agents.navigator.resources import Resources
from memgraph_agents.navigator.search import Decision, Search
from memgraph_agents.navigator.state import KeptItem, QueueEntry


class OfflinePolicy:
    """Embedding statistics decide: no model call, deterministic."""

    def __init__(self, res: Resources, *, source: str = "offline") -> None:
        self.res, self.source = res, source

    async def plan(self, question: str, *, allowance: int) -> Choice[list[str]]:
        return Choice(offline.plan(question), "offline")

    async def select_start(
        self,
        search: Search,
        cands: list[tuple[int, float]],
        *,
        satisfied: list[bool],
        allowance: int,
        where: Mapping[str, Any],
    ) -> Choice[list[int]]:
        ctx = self.res.context
        # Offline, one start per explorer; a model-backed run offers the model more to choose from.
        n = ctx.n_explorers if self.res.offline else ctx.max_start
        return Choice(select_start(cands, search.view, n), "score")

    async def explore(
        self,
        search: Search,
        entries: list[QueueEntry],
        *,
        satisfied: list[bool],
        kept: dict[str, KeptItem],
        visited: set[str],
        allowance: int,
        where: Mapping[str, Any],
    ) -> Choice[list[Decision]]:
        got = await off_loop(offline.decide, search, entries, satisfied, self.res.context, visited, self.source)
        return Choice(got, self.source)

    async def refine(
        self, state: Mapping[str, Any], *, satisfied: list[bool], allowance: int, where: Mapping[str, Any]
    ) -> Choice[str]:
        return Choice(offline.refine(state.get("subgoals") or [], satisfied, state["question"]), "offline")
