"""Which ``Policy`` a run uses: the LLM one when it has a chat model, else the offline one."""

from __future__ import annotations

from memgraph_agents.navigator.policies.offline_policy import OfflinePolicy
from memgraph_agents.navigator.policies.protocol import Policy
from memgraph_agents.navigator.resources import Resources


def policy_for(res: Resources) -> Policy:
    """The run's policy (the LLM one holds the offline one as its fallback)."""
    if res.offline:
        return OfflinePolicy(res)
    from memgraph_agents.navigator.policies.llm_policy import (
        LLMPolicy,
    )  # lazy: LangChain's chat stack, only with a model

    return LLMPolicy(res)
