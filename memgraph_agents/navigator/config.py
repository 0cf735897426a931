"""``NavigatorContext``: the navigator graph's ``context_schema`` (DESIGN §7, §9).

It extends ``MemoryContext`` (which memory, which models) with the search parameters, so
LangGraph Studio can edit them per run. CompassMem's LoCoMo settings are the defaults where
the paper gives one (k = 5, p = 5 topics, 3 explorers, one refinement round). The offline
thresholds, the seed fusion and the ranking knobs (``support``, ``support_cap``) were chosen on
the LoCoMo development split (the ranking knobs on two of its conversations), so they may
flatter it.

``top_k`` keeps its name from the issue but here means the *localisation* k (events), not the
number of evidence items returned; ``navigate(..., k=)`` sets that.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from memgraph_agents.config import Settings
from memgraph_agents.errors import ConfigError
from memgraph_agents.runtime import MemoryContext

POLICIES = ("auto", "llm", "offline")


@dataclass
class NavigatorContext(MemoryContext):
    """Run parameters of the navigator; every field has a working default."""

    policy: str = "auto"  # llm | offline | auto (llm when a chat model is configured)
    n_explorers: int = 3  # explorers per wave, run in parallel through ``Send``
    top_k: int = 5  # localisation: best-k events
    topics_p: int = 5  # localisation: also the best event of each of the first p topics
    max_refinements: int = 1  # extra rounds after the first (CompassMem: one)
    max_steps: int = 24  # node decisions (explorer steps) per question, all rounds
    max_llm_calls: int = 8  # hard cap per question, repair turns included
    frontier: int = 5  # nodes one explorer decides in one call
    max_start: int = 5  # start nodes per round (LLM policy); offline: one per explorer
    start_selection: str = "score"  # score (topic-diverse, the first wave judges them) | llm (one more call)
    seed_retriever: str = "ppr+dwpr"  # one-shot ranking(s) that seed localisation and fill the tail (RRF)
    seed_pool: int = 50  # turns taken from the one-shot ranking
    support: float = 0.1  # ranking: weight of a turn's corroboration by kept neighbours (``navigator.rank``)
    support_cap: float = 3.0  # ...summed neighbour seed scores saturate here
    keep_os: float = 0.25  # offline keep: one-shot score relative to the best (question subgoal)
    keep_sim: float = 0.92  # offline keep: cosine to an open subgoal relative to the best found
    satisfy_os: float = 0.6  # offline: the question is satisfied by a node this high in the one-shot
    satisfy_sim: float = 0.97  # offline: a subgoal is satisfied by a node this close to the best
    next_floor: float = 0.85  # queued nodes below this relative priority are dropped, not explored
    llm_timeout: float = 0.0  # seconds per LLM call; 0 = the settings' value

    def __post_init__(self) -> None:
        if self.policy not in POLICIES:
            raise ConfigError(f"navigator policy {self.policy!r}: choose from {', '.join(POLICIES)}")
        if self.start_selection not in ("llm", "score"):
            raise ConfigError(f"start_selection {self.start_selection!r}: choose score or llm")
        for name in ("n_explorers", "top_k", "frontier", "max_start", "seed_pool"):
            if getattr(self, name) < 1:
                raise ConfigError(f"navigator {name} must be >= 1")
        if self.support < 0 or self.support_cap <= 0:
            raise ConfigError("navigator support must be >= 0 and support_cap > 0")
        for name in ("max_refinements", "max_steps", "max_llm_calls", "topics_p"):
            if getattr(self, name) < 0:
                raise ConfigError(f"navigator {name} must be >= 0")

    @classmethod
    def from_settings(cls, s: Settings, **params: Any) -> NavigatorContext:
        """The memory fields from ``s``; navigator fields from ``params`` (unknown names raise)."""
        known = {f.name for f in fields(cls)}
        unknown = set(params) - known
        if unknown:
            raise ConfigError(f"unknown navigator parameter(s) {', '.join(sorted(unknown))}")
        # ``top_k`` here is the localisation k, not the settings' evidence count: not copied.
        base = {**MemoryContext.fields_from(s, skip=("top_k", "retriever")), "retriever": "navigator"}
        return cls(**{**base, **params})

    def timeout(self, settings: Settings) -> float:
        return self.llm_timeout or settings.llm_timeout
