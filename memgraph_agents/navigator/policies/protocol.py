"""The ``Policy`` protocol: who takes the navigator's decisions, as the nodes see it.

A node asks its run's policy (``policies.choose.policy_for``) and records the ``Choice`` it gets back: the
value, which policy produced it (``offline``, ``score``, ``llm`` or ``fallback``), the trace
events the choice produced (a failed model call, notes on a repaired reply) and the model
usage. The offline policy (``offline_policy.OfflinePolicy``) decides from embedding
statistics; the LLM policy (``llm_policy.LLMPolicy``) asks the chat model within the allowance
the node hands it and falls back to the offline policy inside itself, so a node never knows
which one answered beyond the ``source`` it records.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from memgraph_agents.llm.usage import LLMUsage
from memgraph_agents.navigator.search import Decision, Search
from memgraph_agents.navigator.state import KeptItem, QueueEntry
from memgraph_agents.navigator.trace import event

T = TypeVar("T")


@dataclass
class Choice(Generic[T]):
    """A policy's answer to one question a node asks."""

    value: T
    source: str  # offline | score | llm | fallback
    events: list[dict[str, Any]] = field(default_factory=list)
    usage: LLMUsage | None = None


class Policy(Protocol):
    """The four choices of a search. ``allowance`` is the LLM calls the role may make (the node
    takes it from the question's budget); ``where`` locates the choice in the trace
    (``round_``, ``wave``, ``explorer``)."""

    async def plan(self, question: str, *, allowance: int) -> Choice[list[str]]:
        """The subgoals of ``question`` (the question itself first)."""
        ...

    async def select_start(
        self,
        search: Search,
        cands: list[tuple[int, float]],
        *,
        satisfied: list[bool],
        allowance: int,
        where: Mapping[str, Any],
    ) -> Choice[list[int]]:
        """The candidate events (node indices) the explorers start from."""
        ...

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
        """One decision per frontier entry, in frontier order."""
        ...

    async def refine(
        self, state: Mapping[str, Any], *, satisfied: list[bool], allowance: int, where: Mapping[str, Any]
    ) -> Choice[str]:
        """The next round's query, aimed at the subgoals still open."""
        ...


def fallback_event(role: str, err: Exception, where: Mapping[str, Any]) -> dict[str, Any]:
    """The trace event of a failed model call that the offline policy stood in for."""
    why = " ".join(str(err).split())[:200]
    return event("fallback", reason=f"{role}: {type(err).__name__}: {why}", role=role, llm_failed=True, **where)
