"""``LLMPolicy``: the ``Policy`` of a run with a chat model (``policies.llm``'s calls), the
offline policy inside it for every choice the model cannot or may not take.

A choice asks the model only with an allowance left; an ``LLMError`` becomes a ``fallback``
trace event and the offline choice; an explorer reply that leaves frontier nodes out has them
decided offline (``policies.llm.explore``), with a note in the trace.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from memgraph_agents.aio import off_loop
from memgraph_agents.errors import LLMError
from memgraph_agents.llm.usage import LLMUsage
from memgraph_agents.navigator.policies import llm
from memgraph_agents.navigator.policies.offline_policy import OfflinePolicy
from memgraph_agents.navigator.policies.protocol import Choice, fallback_event
from memgraph_agents.navigator.resources import Resources
from memgraph_agents.navigator.search import Decision, Search, build_search
from memgraph_agents.navigator.state import KeptItem, QueueEntry
from memgraph_agents.navigator.trace import event


class LLMPolicy:
    """The chat model decides within its allowance; the offline policy stands in."""

    def __init__(self, res: Resources) -> None:
        self.res = res
        self.offline = OfflinePolicy(res, source="fallback")

    def _call(self, allowance: int) -> dict[str, Any]:
        return {
            "model": self.res.llm,
            "allowance": allowance,
            "usage": LLMUsage(),
            "timeout": self.res.timeout,
            "slot": self.res.slot,
        }

    async def plan(self, question: str, *, allowance: int) -> Choice[list[str]]:
        subgoals = (await self.offline.plan(question, allowance=0)).value
        if not allowance:
            return Choice(subgoals, "offline")
        call = self._call(allowance)
        try:
            search = await off_loop(build_search, {"question": question}, self.res, subgoals=[question])
            return Choice(await llm.plan(search, **call), "llm", usage=call["usage"])
        except LLMError as e:
            return Choice(subgoals, "offline", [fallback_event("planner", e, {})], call["usage"])

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
        scored = await self.offline.select_start(search, cands, satisfied=satisfied, allowance=0, where=where)
        if ctx.start_selection != "llm" or len(cands) < 2 or not allowance:
            return scored
        call = self._call(allowance)
        try:
            ids = [c for c, _ in cands]
            got = await llm.select_start(search, ids, satisfied=satisfied, max_start=ctx.max_start, **call)
            return Choice(got, "llm", usage=call["usage"])
        except LLMError as e:
            return Choice(scored.value, "score", [fallback_event("start selection", e, where)], call["usage"])

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
        offline = self.offline.explore  # the stand-in, with the same frontier and status
        if allowance <= 0:
            return await offline(
                search, entries, satisfied=satisfied, kept=kept, visited=visited, allowance=0, where=where
            )
        usage = LLMUsage()
        try:
            got, notes = await llm.explore(
                search,
                entries,
                satisfied=satisfied,
                kept=kept,
                visited=visited,
                ctx=self.res.context,
                model=self.res.llm,
                allowance=allowance,
                usage=usage,
                timeout=self.res.timeout,
                slot=self.res.slot,
            )
        except LLMError as e:
            off = await offline(
                search, entries, satisfied=satisfied, kept=kept, visited=visited, allowance=0, where=where
            )
            return Choice(off.value, off.source, [fallback_event("explorer", e, where)], usage)
        return Choice(got, "llm", [event("note", reason=n, **where) for n in notes], usage)

    async def refine(
        self, state: Mapping[str, Any], *, satisfied: list[bool], allowance: int, where: Mapping[str, Any]
    ) -> Choice[str]:
        query = (await self.offline.refine(state, satisfied=satisfied, allowance=0, where=where)).value
        if not allowance:
            return Choice(query, "offline")
        call = self._call(allowance)
        try:
            search = await off_loop(build_search, state, self.res)
            kept = state.get("kept") or {}
            got = await llm.refine(
                search, query=state.get("query") or state["question"], satisfied=satisfied, kept=kept, **call
            )
            return Choice(got, "llm", usage=call["usage"])
        except LLMError as e:
            return Choice(query, "offline", [fallback_event("refiner", e, where)], call["usage"])
