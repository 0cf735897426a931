"""Bounded per-namespace caches: ``runtime.get_store`` keeps at most
``cache_namespaces`` stores open; an evicted store is closed (its SQLite descriptors freed),
but only once no call is running on it, and it stays usable by whoever still holds it."""

from __future__ import annotations

import gc
import os
import threading
from pathlib import Path

import pytest

from memgraph_agents.ingest import ingest_conversation
from memgraph_agents.registry import retrieve
from memgraph_agents.runtime import cached_stores, get_store
from memgraph_agents.storage import MemoryStore
from memgraph_agents.storage.locks import NamespaceIngestLock
from tests.workloads import conversation

pytestmark = pytest.mark.slow  # seconds per test: left out of the fast subset (-m "not slow")

CACHE = 3


def graph_fds(data_dir: Path) -> tuple[int, int]:
    """(descriptors, distinct namespaces) this process holds on namespace SQLite files: the
    part the cache bounds (embedded Chroma keeps its own, see README "Many tenants")."""
    root = str((Path(data_dir) / "namespaces").resolve())
    n, spaces = 0, set()
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if target.startswith(root):
            n += 1
            spaces.add(target[len(root) :].split("/")[1])
    return n, len(spaces)


def test_open_stores_and_descriptors_stay_bounded(settings):
    settings = settings.model_copy(update={"cache_namespaces": CACHE})
    names = [f"u{i}" for i in range(12)]
    fds, spaces = [], []
    for ns in names:
        ingest_conversation(conversation(ns, 1, tag=ns, turns=4), settings, namespace=ns)
        assert retrieve("ppr", "what happened", get_store(settings, ns, create=False), k=3)
        assert cached_stores() <= CACHE
        n, k = graph_fds(settings.data_dir)
        fds.append(n)
        spaces.append(k)
    assert max(spaces) <= CACHE, spaces  # files of evicted namespaces are all closed
    # A writer and a reader per thread that used it for each open store, each with its WAL and
    # shared-memory files, plus lock files: bounded by the cache and the threads, not by the
    # twelve namespaces touched. (How many pool threads an ingest's nodes ran on varies with the
    # tests before this one, so the count itself is not compared between namespaces.)
    per_store = 3 * (1 + threading.active_count()) + 2
    assert max(fds) <= CACHE * per_store, (fds, threading.active_count())
    # Nothing per namespace outlives its store: not the store, not its ingest lock.
    gc.collect()
    root = Path(settings.data_dir).resolve()
    stores = [o for o in gc.get_objects() if isinstance(o, MemoryStore) and o.data_dir.resolve() == root]
    locks = [o for o in gc.get_objects() if isinstance(o, NamespaceIngestLock) and root in o.path.parents]
    assert 0 < len(stores) <= CACHE and 0 < len(locks) <= CACHE, (stores, locks)
    # An evicted namespace reopens and answers the same as before.
    first = [e.node_id for e in retrieve("ppr", "what happened", get_store(settings, "u0", create=False), k=5)]
    for ns in names[1:]:
        get_store(settings, ns, create=False)
    again = [e.node_id for e in retrieve("ppr", "what happened", get_store(settings, "u0", create=False), k=5)]
    assert first == again


def test_eviction_waits_for_the_call_in_flight(settings):
    settings = settings.model_copy(update={"cache_namespaces": 1})
    ingest_conversation(conversation("a", 1, tag="a", turns=4), settings, namespace="a")
    ingest_conversation(conversation("b", 1, tag="b", turns=4), settings, namespace="b")
    store = get_store(settings, "a", create=False)
    inside, go_on = threading.Event(), threading.Event()
    seen: list = []

    def reader():
        with store.usage.use():  # a call in flight (what every store method does)
            inside.set()
            go_on.wait(10)
            seen.append(len(store.db.raw_nodes()))  # would fail on a closed connection

    t = threading.Thread(target=reader)
    t.start()
    inside.wait(10)
    get_store(settings, "b", create=False)  # would evict "a", but "a" is busy: it stays
    assert cached_stores() == 2 and store.db._conn is not None
    go_on.set()
    t.join(10)
    assert seen and seen[0] > 0
    get_store(settings, "b", create=False)  # now "a" is idle: evicted and closed
    assert cached_stores() == 1
    assert store.db._conn is None
    assert store.sessions()  # a holder of the evicted store still gets answers …
    assert store.db._conn is None  # … and its connections are closed again after the call
