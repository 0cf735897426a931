"""The graph-store interface, and the one place that picks its implementation.

Two implementations of one contract (the commit protocol lives in ``storage.commit`` and
talks only to these protocols):

* ``GraphDB`` (``storage.graph_db``): one SQLite file per namespace in the data dir, the
  embedded default;
* ``PgGraphDB`` (``storage.pg_graph``): every namespace of every store in one PostgreSQL
  database (``MEMGRAPH_GRAPH_URL=postgresql://…``), each statement scoped by
  ``(store id, namespace)``.

``GraphStore`` is the namespace's rows seen from outside a write (reads, meta, locks);
``GraphWrite`` is one open write transaction (``GraphStore.write()``), whose commit bumps
the generation so that every reader reloads its snapshot. Nothing outside ``storage`` knows
which implementation runs: it asks ``open_graph_store`` / ``graph_exists`` /
``stored_namespaces`` / ``namespace_meta`` here.
"""

from __future__ import annotations

from collections.abc import Iterable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from memgraph_agents.config import GRAPH_URL_SCHEMES, graph_url_problem
from memgraph_agents.errors import ConfigError
from memgraph_agents.model.graph import Edge, Node
from memgraph_agents.storage.graph_db import GraphDB, read_meta
from memgraph_agents.storage.locks import RemoteLock
from memgraph_agents.storage.namespaces import list_namespaces, namespace_dir, scan_namespaces, validate_stored_name

if TYPE_CHECKING:
    from memgraph_agents.config import Settings
    from memgraph_agents.storage.pg_graph import PgGraphDB


class GraphWrite(Protocol):
    """One atomic write of one namespace (everything or nothing is committed)."""

    def insert_nodes(self, nodes: Iterable[Node], replace: bool = False) -> None: ...
    def add_owner(self, node_ids: Iterable[str], session_id: str) -> None: ...
    def add_owner_pairs(self, pairs: Iterable[tuple[str, str]]) -> None: ...
    def insert_edges(self, edges: Iterable[Edge], replace: bool = False) -> None: ...
    def drop_rows(
        self, session_id: str, node_ids: list[str] | None = None, keep: set[str] | frozenset[str] = frozenset()
    ) -> tuple[list[str], list[str]]: ...
    def drop_derived(self, kind: str, owner: str) -> None: ...
    def write_turns(self, session_id: str, start: int, turns: list[tuple[str, str, dict]], replace: bool) -> None: ...
    def node_texts(self, ids: Iterable[str]) -> dict[str, tuple[str, str, bool]]: ...
    def begin_write(self, session_id: str, mode: str, now: str) -> None: ...
    def end_write(self, session_id: str) -> None: ...
    def add_pending_session(self, values: dict[str, Any]) -> None: ...
    def commit_session_row(self, values: dict[str, Any]) -> None: ...
    def set_session_status(self, session_id: str, status: str) -> None: ...
    def remove_session(self, session_id: str) -> None: ...
    def add_version(self, session_id: str, text: str, metadata: dict[str, Any], at: str) -> None: ...
    def add_garbage(self, ids: Iterable[str]) -> None: ...
    def put_vectors(self, rows: Iterable[tuple[str, bytes, bytes]]) -> None: ...
    def drop_vectors(self, ids: Iterable[str]) -> None: ...
    def remove_garbage(self, ids: Iterable[str]) -> None: ...
    def set_meta(self, key: str, value: str) -> None: ...


class GraphStore(Protocol):
    """Durable rows of one namespace: sessions, nodes, edges, turns, meta and the generation."""

    def write(self) -> AbstractContextManager[GraphWrite]: ...
    def writer_lock(self) -> AbstractContextManager[Any]: ...
    def remote_ingest_lock(self) -> RemoteLock | None: ...
    def generation(self) -> int: ...
    def get_meta(self, key: str) -> str | None: ...
    def set_meta(self, key: str, value: str) -> None: ...
    def init_meta(self, key: str, value: str) -> str: ...
    def read_graph(self) -> tuple[int, list[tuple], list[tuple], list[dict]]: ...
    def sessions(self, status: str | None = "committed") -> list[dict]: ...
    def session(self, session_id: str, status: str | None = "committed") -> dict | None: ...
    def node_ids(self, ids: Iterable[str]) -> set[str]: ...
    def node_kinds(self, ids: Iterable[str]) -> dict[str, str]: ...
    def raw_nodes(self) -> list[tuple]: ...
    def raw_edges(self) -> list[tuple]: ...
    def raw_owners(self) -> list[tuple[str, str]]: ...
    def all_meta(self) -> dict[str, str]: ...
    def edges(self) -> list[Edge]: ...
    def session_turns(self, session_id: str) -> list[tuple[str, str, dict]]: ...
    def session_digests(self, session_id: str) -> list[str]: ...
    def note_versions(self, session_id: str) -> list[dict]: ...
    def pending_writes(self) -> list[tuple[str, str]]: ...
    def vector_garbage(self) -> list[str]: ...
    def node_vectors(self, ids: Iterable[str]) -> list[tuple[str, bytes, bytes]]: ...
    def vectors_by_digest(self, digests: Iterable[bytes]) -> list[tuple[bytes, bytes]]: ...
    def node_texts(self, ids: Iterable[str]) -> dict[str, tuple[str, str, bool]]: ...
    def owned_node_ids(self, session_id: str) -> list[str]: ...
    def counts(self) -> tuple[dict[str, int], dict[str, int]]: ...
    def embedded_count(self) -> int: ...
    def embedded_bound(self) -> int: ...  # >= embedded_count(), and cheap
    def stored_bytes(self) -> int: ...
    def close(self) -> None: ...


def pg_graph_db() -> type[PgGraphDB]:
    """The PostgreSQL graph store's class."""
    from memgraph_agents.storage.pg_graph import PgGraphDB  # lazy: PostgreSQL's store, only with a graph URL

    return PgGraphDB


def is_server_url(graph_url: str | None) -> bool:
    return bool(graph_url) and str(graph_url).startswith(GRAPH_URL_SCHEMES)


def check_graph_url(graph_url: str | None) -> None:
    if graph_url and not is_server_url(graph_url):
        raise ConfigError(graph_url_problem(graph_url))


def open_graph_store(data_dir: Path, namespace: str, graph_url: str | None, store_id: str) -> GraphStore:
    """The namespace's graph store: PostgreSQL when ``graph_url`` is one, else SQLite in the data dir."""
    check_graph_url(graph_url)
    validate_stored_name(namespace)  # refused the same way whichever store runs
    if is_server_url(graph_url):
        return pg_graph_db()(str(graph_url), store_id, namespace)

    return GraphDB(namespace_dir(Path(data_dir), namespace) / "graph.sqlite")


def graph_exists(data_dir: Path, namespace: str, graph_url: str | None = None, store_id: str = "default") -> bool:
    """Whether the namespace is stored (never creates it)."""
    check_graph_url(graph_url)
    validate_stored_name(namespace)
    if is_server_url(graph_url):
        return pg_graph_db().exists(str(graph_url), store_id, namespace)
    return (namespace_dir(Path(data_dir), namespace) / "graph.sqlite").exists()


def namespace_exists(settings: Settings, namespace: str) -> bool:
    """``graph_exists`` for the memory ``settings`` point at (data dir, or PostgreSQL store id)."""
    return graph_exists(Path(settings.data_dir), namespace, settings.graph_url, settings.store_id)


def stored_namespaces(data_dir: Path, graph_url: str | None = None, store_id: str = "default") -> list[str]:
    """The namespaces of this memory (the data dir's, or the store id's in PostgreSQL)."""
    check_graph_url(graph_url)
    if is_server_url(graph_url):
        return pg_graph_db().namespaces(str(graph_url), store_id)
    return list_namespaces(Path(data_dir))


def scan_stored_namespaces(
    data_dir: Path, graph_url: str | None = None, store_id: str = "default"
) -> tuple[list[str], list[str]]:
    """(namespaces, folders under ``namespaces/`` that are not one: only the embedded store has them)."""
    if is_server_url(graph_url):
        return stored_namespaces(data_dir, graph_url, store_id), []
    return scan_namespaces(Path(data_dir))


def namespace_meta(
    data_dir: Path, namespace: str, key: str, graph_url: str | None = None, store_id: str = "default"
) -> str | None:
    """One meta value of a stored namespace, read-only (``None``: no such namespace or key)."""
    check_graph_url(graph_url)
    validate_stored_name(namespace)
    if is_server_url(graph_url):
        return pg_graph_db().read_meta(str(graph_url), store_id, namespace, key)

    return read_meta(namespace_dir(Path(data_dir), namespace) / "graph.sqlite", key)
