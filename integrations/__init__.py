"""Drop-in memory for LangGraph / LangChain agents.

- ``create_memory_tools(...)``: recall + remember tools (``create_agent``, ``ToolNode``);
- ``MemoryMiddleware`` / ``memory_writer_node``: write every finished chat turn to memory;
- ``MemoryRetriever``: a LangChain ``BaseRetriever`` over any retriever;
- ``AgentMemory``: the object behind them (namespace from the run, background writer);
- ``OfflineRecallModel``: a stand-in model that recalls instead of chatting (no LLM);
- ``MemgraphStore``: LangGraph's ``BaseStore`` over graph memory (``compile(store=...)``, langmem).
"""

from memgraph_agents.integrations.agent_memory import AgentMemory, MissingUserError, user_namespace
from memgraph_agents.integrations.hooks import MemoryMiddleware, memory_writer_node
from memgraph_agents.integrations.offline_model import OfflineRecallModel
from memgraph_agents.integrations.recall_result import RecallResult
from memgraph_agents.integrations.retriever import MemoryRetriever, evidence_document
from memgraph_agents.integrations.store import MemgraphStore
from memgraph_agents.integrations.tools import MemoryTools, create_memory_tools
from memgraph_agents.integrations.turn_rule import TurnRule
from memgraph_agents.integrations.writer import BackgroundWriter, MemoryWriteError

__all__ = [
    "AgentMemory",
    "BackgroundWriter",
    "MemgraphStore",
    "MemoryMiddleware",
    "MemoryRetriever",
    "MemoryTools",
    "MemoryWriteError",
    "MissingUserError",
    "OfflineRecallModel",
    "RecallResult",
    "TurnRule",
    "create_memory_tools",
    "evidence_document",
    "memory_writer_node",
    "user_namespace",
]
