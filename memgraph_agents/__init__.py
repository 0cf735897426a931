"""memgraph-agents: long-term conversational memory for LangGraph agents.

    from memgraph_agents import Memory

``Memory``, the data types (``Conversation``, ``Session``, ``Turn``, ``Evidence``), the run
contexts (``MemoryContext``, ``NavigatorContext``) and the error classes are imported on first
use (module ``__getattr__``), so ``import memgraph_agents`` stays light: no torch, no LangGraph
until they are needed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

from memgraph_agents.errors import __all__ as _ERRORS  # the bottom layer: imports nothing, cheap

_LAZY = {
    "Memory": "memgraph_agents.api",
    "AddReport": "memgraph_agents.api",
    "AskResult": "memgraph_agents.api",
    "ForgetReport": "memgraph_agents.api",
    "Settings": "memgraph_agents.config",
    "Conversation": "memgraph_agents.model.conversation",
    "Session": "memgraph_agents.model.conversation",
    "Turn": "memgraph_agents.model.conversation",
    "Evidence": "memgraph_agents.model.evidence",
    "MemoryContext": "memgraph_agents.runtime",
    "NavigatorContext": "memgraph_agents.navigator.config",
    **{name: "memgraph_agents.errors" for name in _ERRORS},
}

# A literal list (tools read it statically); a test checks it matches ``_LAZY``.
__all__ = [
    "__version__",
    "Memory",
    "AddReport",
    "AskResult",
    "ForgetReport",
    "Settings",
    "Conversation",
    "Session",
    "Turn",
    "Evidence",
    "MemoryContext",
    "NavigatorContext",
    "MemgraphError",
    "InputError",
    "NamespaceError",
    "NamespaceNotFoundError",
    "LimitExceededError",
    "ConfigError",
    "SessionConflictError",
    "StorageError",
    "LLMError",
]

if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs only
    from memgraph_agents.api import AddReport, AskResult, ForgetReport, Memory
    from memgraph_agents.config import Settings
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
    from memgraph_agents.model.conversation import Conversation, Session, Turn
    from memgraph_agents.model.evidence import Evidence
    from memgraph_agents.navigator.config import NavigatorContext
    from memgraph_agents.runtime import MemoryContext


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'memgraph_agents' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # cached: __getattr__ runs once per name
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY])
