"""``NavigatorContext``: the navigator graph's ``context_schema`` (docs/architecture.md, "Retrieval").

It extends ``MemoryContext`` (which memory, which models) with the search parameters, so
LangGraph Studio can edit them per run. CompassMem's LoCoMo settings are the defaults where
the paper gives one (k = 5, p = 5 topics, 3 explorers, one refinement round). The offline
thresholds were chosen on the LoCoMo development split, so they may flatter it. The ranking
is the seed retriever's (``seed_retriever``, by default ``oneshot``, whose own options hold its
ranking knobs) with what the explorers found fused in (``seed_keep``).

``events_k`` is the *localisation* k (events the search starts from); the number of evidence
items returned is ``navigate(..., k=)`` (the inherited ``MemoryContext.top_k`` in the
navigator graph, else ``Settings.top_k``).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Annotated, Any

from pydantic import Field

from memgraph_agents.config import Settings
from memgraph_agents.errors import ConfigError
from memgraph_agents.prompts import load_prompt
from memgraph_agents.runtime import MemoryContext

POLICIES = ("auto", "llm", "offline")


@dataclass
class NavigatorContext(MemoryContext):
    """Run parameters of the navigator; every field has a working default."""

    policy: Annotated[str, Field(description="llm | offline | auto (llm when a chat model is configured)")] = "auto"
    n_explorers: Annotated[int, Field(description="explorers per wave, run in parallel through Send")] = 3
    events_k: Annotated[
        int, Field(description="localisation: the best-k events the search starts from (not the evidence count)")
    ] = 5
    topics_p: Annotated[int, Field(description="localisation: also the best event of each of the first p topics")] = 5
    max_refinements: Annotated[int, Field(description="extra rounds after the first (CompassMem: one)")] = 1
    max_steps: Annotated[int, Field(description="node decisions (explorer steps) per question, all rounds")] = 24
    max_llm_calls: Annotated[int, Field(description="hard cap per question, repair turns included")] = 8
    frontier: Annotated[int, Field(description="nodes one explorer decides in one call")] = 5
    max_start: Annotated[int, Field(description="start nodes per round (LLM policy); offline: one per explorer")] = 5
    start_selection: Annotated[
        str, Field(description="score (topic-diverse, the first wave judges them) | llm (one more call)")
    ] = "score"
    seed_retriever: Annotated[
        str,
        Field(
            description="localize: the retrieval node whose ranking seeds the search and is the answer's "
            "ranking (a registered name, or several joined by '+': their RRF)"
        ),
    ] = "oneshot"
    seed_meets: Annotated[
        float,
        Field(
            description="localize: a subgoal is met by the seed when one of its k best turns is this close "
            "(relative cosine) to the subgoal's closest turn in memory; explorers search only for the others"
        ),
    ] = 0.95
    seed_keep: Annotated[
        int, Field(description="ranking: the seed's first turns that explored turns never displace")
    ] = 5
    seed_pool: Annotated[int, Field(description="turns taken from the one-shot ranking")] = 50
    keep_os: Annotated[
        float, Field(description="offline keep: one-shot score relative to the best (question subgoal)")
    ] = 0.25
    keep_sim: Annotated[
        float, Field(description="offline keep: cosine to an open subgoal relative to the best found")
    ] = 0.92
    satisfy_os: Annotated[
        float, Field(description="offline: the question is satisfied by a node this high in the one-shot")
    ] = 0.6
    satisfy_sim: Annotated[
        float, Field(description="offline: a subgoal is satisfied by a node this close to the best")
    ] = 0.97
    next_floor: Annotated[
        float, Field(description="queued nodes below this relative priority are dropped, not explored")
    ] = 0.85
    llm_timeout: Annotated[float, Field(description="seconds per LLM call; 0 = the settings' value")] = 0.0
    answer_prompt: Annotated[
        str,
        Field(
            description="the Responder's prompt: a name in memgraph_agents.prompts, or "
            "'package:name' (the benchmark passes its short-answer prompt)"
        ),
    ] = "nav_answer"

    def __post_init__(self) -> None:
        if self.policy not in POLICIES:
            raise ConfigError(f"navigator policy {self.policy!r}: choose from {', '.join(POLICIES)}")
        if self.start_selection not in ("llm", "score"):
            raise ConfigError(f"start_selection {self.start_selection!r}: choose score or llm")
        for name in ("n_explorers", "events_k", "frontier", "max_start", "seed_pool"):
            if getattr(self, name) < 1:
                raise ConfigError(f"navigator {name} must be >= 1")
        for name in (
            "max_refinements",
            "max_steps",
            "max_llm_calls",
            "topics_p",
            "seed_meets",
            "seed_keep",
        ):
            if getattr(self, name) < 0:
                raise ConfigError(f"navigator {name} must be >= 0")
        try:
            load_prompt(self.answer_prompt)
        except (KeyError, ModuleNotFoundError) as exc:
            raise ConfigError(f"navigator answer_prompt {self.answer_prompt!r}: no such prompt ({exc})") from None

    @classmethod
    def from_settings(cls, s: Settings, **params: Any) -> NavigatorContext:
        """The memory fields from ``s``; navigator fields from ``params`` (unknown names raise)."""
        known = {f.name for f in fields(cls)}
        unknown = set(params) - known
        if unknown:
            raise ConfigError(f"unknown navigator parameter(s) {', '.join(sorted(unknown))}")
        base = {
            **MemoryContext.fields_from(s, skip=("retriever",)),
            "retriever": "navigator",
            "seed_retriever": s.localize,  # the localize node the settings chose
        }
        return cls(**{**base, **params})

    def timeout(self, settings: Settings) -> float:
        return self.llm_timeout or settings.llm_timeout
