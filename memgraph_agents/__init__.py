"""memgraph-agents: long-term conversational memory for LangGraph agents.

    from memgraph_agents import Memory

``Memory``, the data types (``Conversation``, ``Session``, ``Turn``, ``Evidence``, ``MemoryItem``,
``ItemPage``, ``NoteHistory``, ``SearchRequest``), ``register_retriever``, the run contexts (``MemoryContext``, ``NavigatorContext``) and
every error class a user can meet (``errors``' and their subclasses beside what raises them:
``DataDirInUseError``, ``EmbeddingMismatchError``, ``LLMTimeoutError``…) are imported on first
use (module ``__getattr__``), so ``import memgraph_agents`` stays light: no torch, no LangGraph
until they are needed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

import importlib

from memgraph_agents.errors import __all__ as _ERRORS  # the bottom layer: imports nothing, cheap

_LAZY = {
    "Memory": "memgraph_agents.api",
    "AddReport": "memgraph_agents.api",
    "AskResult": "memgraph_agents.api",
    "ForgetReport": "memgraph_agents.api",
    "SearchRequest": "memgraph_agents.api.request",
    "register_retriever": "memgraph_agents.registry",
    "Settings": "memgraph_agents.config",
    "Conversation": "memgraph_agents.model.conversation",
    "Session": "memgraph_agents.model.conversation",
    "Turn": "memgraph_agents.model.conversation",
    "Evidence": "memgraph_agents.model.evidence",
    "MemoryContext": "memgraph_agents.runtime",
    "NavigatorContext": "memgraph_agents.navigator.config",
    "MemoryItem": "memgraph_agents.api.items",
    "ItemPage": "memgraph_agents.api.items",
    "NoteHistory": "memgraph_agents.api.items",
    **{name: "memgraph_agents.errors" for name in _ERRORS},
    # The error classes defined beside what raises them (each subclasses one of ``errors``).
    "DataDirInUseError": "memgraph_agents.storage.locks",
    "MemoryClosedError": "memgraph_agents.resources",
    "WriterBusyError": "memgraph_agents.storage.locks",
    "EmbeddingMismatchError": "memgraph_agents.storage.embedding_mark",
    "DiskFullError": "memgraph_agents.storage.disk",
    "ChromaUnavailableError": "memgraph_agents.storage.vectors",
    "NamespaceUnusableError": "memgraph_agents.storage.memory_store",
    "GraphServerError": "memgraph_agents.storage.pg_schema",
    "SchemaVersionError": "memgraph_agents.storage.pg_schema",
    "TimeOutOfRangeError": "memgraph_agents.construct.timeparse",
    "LLMConfigError": "memgraph_agents.llm.chat",
    "LLMOutputError": "memgraph_agents.llm.structured",
    "LLMTimeoutError": "memgraph_agents.llm.structured",
    "LLMCallError": "memgraph_agents.llm.structured",
    "MemoryWriteError": "memgraph_agents.integrations.writer",
    "MissingUserError": "memgraph_agents.integrations.run_scopes",
}

# A literal list (tools read it statically); a test checks it matches ``_LAZY``.
__all__ = [
    "__version__",
    "Memory",
    "AddReport",
    "AskResult",
    "ForgetReport",
    "SearchRequest",
    "register_retriever",
    "Settings",
    "Conversation",
    "Session",
    "Turn",
    "Evidence",
    "MemoryContext",
    "NavigatorContext",
    "MemoryItem",
    "ItemPage",
    "NoteHistory",
    "MemgraphError",
    "InputError",
    "NamespaceError",
    "NamespaceNotFoundError",
    "LimitExceededError",
    "ConfigError",
    "SessionConflictError",
    "StorageError",
    "LLMError",
    "DataDirInUseError",
    "MemoryClosedError",
    "WriterBusyError",
    "EmbeddingMismatchError",
    "DiskFullError",
    "ChromaUnavailableError",
    "NamespaceUnusableError",
    "GraphServerError",
    "SchemaVersionError",
    "TimeOutOfRangeError",
    "LLMConfigError",
    "LLMOutputError",
    "LLMTimeoutError",
    "LLMCallError",
    "MemoryWriteError",
    "MissingUserError",
]

if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs only
    from memgraph_agents.api import AddReport, AskResult, ForgetReport, Memory
    from memgraph_agents.api.items import ItemPage, MemoryItem, NoteHistory
    from memgraph_agents.api.request import SearchRequest
    from memgraph_agents.config import Settings
    from memgraph_agents.construct.timeparse import TimeOutOfRangeError
    from memgraph_agents.errors import (
        ConfigError,
        InputError,
        LimitExceededError,
        LLMError,
        MemgraphError,
        NamespaceError,
        NamespaceNotFoundError,
        SessionConflictError,
        StorageError,
    )
    from memgraph_agents.integrations.run_scopes import MissingUserError
    from memgraph_agents.integrations.writer import MemoryWriteError
    from memgraph_agents.llm.chat import LLMConfigError
    from memgraph_agents.llm.structured import LLMCallError, LLMOutputError, LLMTimeoutError
    from memgraph_agents.model.conversation import Conversation, Session, Turn
    from memgraph_agents.model.evidence import Evidence
    from memgraph_agents.navigator.config import NavigatorContext
    from memgraph_agents.registry import register_retriever
    from memgraph_agents.resources import MemoryClosedError
    from memgraph_agents.runtime import MemoryContext
    from memgraph_agents.storage.disk import DiskFullError
    from memgraph_agents.storage.embedding_mark import EmbeddingMismatchError
    from memgraph_agents.storage.locks import DataDirInUseError, WriterBusyError
    from memgraph_agents.storage.memory_store import NamespaceUnusableError
    from memgraph_agents.storage.pg_schema import GraphServerError, SchemaVersionError
    from memgraph_agents.storage.vectors import ChromaUnavailableError


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'memgraph_agents' has no attribute {name!r}")

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # cached: __getattr__ runs once per name
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY])
