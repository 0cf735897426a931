"""Storage: Chroma vectors + a graph store per namespace (SQLite in the data dir, or
PostgreSQL: ``storage.graph_store``), committed atomically per session.

Names load lazily (PEP 562): ``memgraph stats`` and the namespace helpers must not pay for
importing Chroma.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the real names, for type checkers
    from memgraph_agents.storage.commit import StoreFault
    from memgraph_agents.storage.drop import delete_namespace
    from memgraph_agents.storage.locks import DataDirInUseError, WriterBusyError
    from memgraph_agents.storage.memory_store import MemoryStore
    from memgraph_agents.storage.namespaces import (
        NamespaceError,
        list_namespaces,
        validate_namespace,
    )
    from memgraph_agents.storage.session_write import SessionRecord, SessionWrite
    from memgraph_agents.storage.snapshot import GraphSnapshot

_WHERE = {
    "MemoryStore": "memory_store",
    "SessionRecord": "session_write",
    "SessionWrite": "session_write",
    "StoreFault": "commit",
    "delete_namespace": "drop",
    "NamespaceError": "namespaces",
    "list_namespaces": "namespaces",
    "validate_namespace": "namespaces",
    "GraphSnapshot": "snapshot",
    "DataDirInUseError": "locks",
    "WriterBusyError": "locks",
}
__all__ = [
    "DataDirInUseError",
    "GraphSnapshot",
    "MemoryStore",
    "NamespaceError",
    "SessionRecord",
    "SessionWrite",
    "StoreFault",
    "WriterBusyError",
    "delete_namespace",
    "list_namespaces",
    "validate_namespace",
]


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'memgraph_agents.storage' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"memgraph_agents.storage.{module}"), name)
    globals()[name] = value
    return value
