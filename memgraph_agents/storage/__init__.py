"""Storage: Chroma vectors + SQLite graph per namespace, committed atomically per session."""

from memgraph_agents.storage.locks import DataDirInUseError, WriterBusyError
from memgraph_agents.storage.memory import MemoryStore, SessionRecord, SessionWrite, StoreFault, delete_namespace
from memgraph_agents.storage.namespaces import NamespaceError, list_namespaces, validate_namespace
from memgraph_agents.storage.snapshot import GraphSnapshot

__all__ = ["MemoryStore", "SessionRecord", "SessionWrite", "StoreFault", "delete_namespace", "NamespaceError",
           "list_namespaces", "validate_namespace", "GraphSnapshot", "DataDirInUseError", "WriterBusyError"]
