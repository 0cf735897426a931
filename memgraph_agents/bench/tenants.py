"""``memgraph bench scale --tenants N``: N small namespaces in one process, bounded memory.

    memgraph bench scale --tenants 10000 --out DIR [--cache-namespaces 32]
        [--tenant-backends sqlite,sqlite+chroma-server,postgres]

Embeddings are the deterministic hash embedding (``hash``): what is measured is the store, not
the model. Every namespace holds the first session of the packaged demo conversation
(``examples/conversation.json``), ingested once through the real ingest graph
into a template namespace, then committed into each tenant with ``MemoryStore.commit_session``
(the same commit protocol an ingest ends with; this keeps creating 10,000 tenants to minutes).
Tenants are created in child processes of 500 tenants each (embedded Chroma allows one process
per data dir: one child at a time; with a Chroma server two side by side), each reporting its
RSS before and after (what writing into many namespaces costs a process); the measuring process
starts clean. Then a fresh process opens each namespace through
``runtime.get_store`` (the LRU of ``MEMGRAPH_CACHE_NAMESPACES`` stores) and asks one ``ppr``
question (cold: first query on a namespace not in the cache), asks it again (warm), and reports
RSS before and after touching all N, the open descriptors, and how many Chroma collections the
queries opened (none: snapshots read their vectors beside the graph rows, ``storage.vector_rows``).
A tenant is far smaller than ``MEMGRAPH_CHROMA_INDEX_NODES`` (``storage.chroma_index``), so by
default nothing is written to Chroma (``chroma_collections_written``); with
``MEMGRAPH_CHROMA_INDEX_NODES=0`` every tenant gets a collection, as before that setting.

Backends: ``sqlite`` (the graph in one SQLite file per namespace, vectors in embedded Chroma),
``sqlite+chroma-server`` (the same with the vectors in the ``MEMGRAPH_CHROMA_HOST`` server) and
``postgres`` (the graph in
PostgreSQL, ``MEMGRAPH_GRAPH_URL``, vectors in the Chroma server of ``MEMGRAPH_CHROMA_HOST``; the
servers are started beforehand, as in production; each run gets a store id of its own,
``bench-<data dir id>``). Disk per namespace: for ``sqlite`` the bytes
under the data dir / (N + 1); for ``postgres`` the bytes PostgreSQL holds for this run's store id
(``pg_total_relation_size`` of the ``mg_*`` tables, indexes and TOAST included, times this
store id's share of the tables' row bytes, ``sum(pg_column_size(t.*))``) / (N + 1): the vectors
in the Chroma server are not in that figure (the bench cannot see the server's disk).

Writes ``DIR/tenants.json``: a list with one object per backend.
"""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from memgraph_agents.bench.metrics import percentile
from memgraph_agents.bench.process import dir_bytes, in_child, open_fds, rss_mb
from memgraph_agents.examples import sample_conversation

QUESTION = "what did they plan for the weekend"
CREATE_CHUNK = 500


def tenant_name(i: int) -> str:
    return f"t{i:06d}"


def _settings(data_dir: Path, cache: int, chroma: tuple[str, int] | None, graph_url: str | None = None):
    from memgraph_agents.config import Settings

    # Every backend field explicit: a MEMGRAPH_CHROMA_HOST / MEMGRAPH_GRAPH_URL in the environment
    # must not turn the embedded backend into a server one.
    extra: dict = {"graph_url": graph_url, "chroma_host": None}
    if graph_url:  # a memory of its own in the shared database: one run never reuses another's rows
        extra["store_id"] = bench_store_id(data_dir)
    if chroma:
        extra.update(chroma_host=chroma[0], chroma_port=chroma[1])
    return Settings(data_dir=data_dir, embeddings="hash", cache_namespaces=cache, **extra)


def bench_store_id(data_dir: Path) -> str:
    """The PostgreSQL store id of a bench data dir: ``bench-`` + the data dir's random id."""
    from memgraph_agents.storage.identity import store_id

    return f"bench-{store_id(data_dir)}"


def _template(settings):
    """The demo's first session, ingested for real into namespace ``template``; its rows."""
    from memgraph_agents.ingest import ingest_conversation
    from memgraph_agents.loaders import load_conversations
    from memgraph_agents.runtime import get_store
    from memgraph_agents.storage import SessionRecord, SessionWrite
    from memgraph_agents.storage.vector_rows import matching

    conv = load_conversations(sample_conversation())[0]
    conv = conv.model_copy(update={"sessions": conv.sessions[:1]})
    ingest_conversation(conv, settings, namespace="template")
    store = get_store(settings, "template", create=False)
    snap = store.snapshot()
    nodes = [snap.node(i) for i in snap.ids]
    edges = store.db.edges()
    text = {n.id: n.text for n in nodes if n.embed}
    vectors = matching(store.db.node_vectors(list(text)), text)  # beside the rows (Chroma may hold none)
    rec = SessionRecord(**{k: v for k, v in store.sessions()[0].items() if k in SessionRecord.model_fields})
    return lambda: SessionWrite(record=rec, nodes=nodes, edges=edges, vectors=vectors)


def create_tenants(data_dir: Path, first: int, last: int, cache: int, chroma, graph_url) -> dict:
    """Tenants ``first`` to ``last - 1``, each a copy of the template's session rows; the
    child's RSS and descriptors before and after (a writer's memory, with embedded Chroma,
    grows with the collections it wrote)."""
    from memgraph_agents.runtime import get_store

    settings = _settings(data_dir, cache, chroma, graph_url)
    make = _template(settings)
    before = rss_mb()[0], open_fds()
    written = 0
    for i in range(first, last):
        store = get_store(settings, tenant_name(i))
        if not store.sessions():
            store.commit_session(make())
            written += store.vectors.opened  # a namespace past MEMGRAPH_CHROMA_INDEX_NODES writes Chroma
    return {
        "tenants": last - first,
        "chroma_collections_written": written,
        "rss_mb": [round(before[0], 1), round(rss_mb()[0], 1)],
        "fds": [before[1], open_fds()],
    }


def measure(data_dir: Path, n: int, *, cache: int, chroma=None, graph_url: str | None = None) -> dict:
    """Touch ``n`` tenants once each (cold query, then warm query): latency, RSS, descriptors."""
    from memgraph_agents.registry import get_retriever
    from memgraph_agents.runtime import cached_stores, get_store

    settings = _settings(data_dir, cache, chroma, graph_url)
    ppr = get_retriever("ppr")
    ppr(QUESTION, get_store(settings, "template", create=False), k=10)  # imports, model, numba-free warm-up
    rss_start, fds_start = rss_mb()[0], open_fds()
    cold, warm, rss_curve = [], [], []
    opened = 0
    for i in range(n):
        t = time.perf_counter()
        store = get_store(settings, tenant_name(i), create=False)
        got = ppr(QUESTION, store, k=10)
        cold.append(time.perf_counter() - t)
        opened += store.vectors.opened
        if not got:
            raise RuntimeError(f"tenant {tenant_name(i)} answered nothing")
        t = time.perf_counter()
        ppr(QUESTION, get_store(settings, tenant_name(i), create=False), k=10)
        warm.append(time.perf_counter() - t)
        if (i + 1) % max(1, n // 10) == 0:
            rss_curve.append({"tenants": i + 1, "rss_mb": round(rss_mb()[0], 1), "open_fds": open_fds()})
    return {
        "rss_mb_start": round(rss_start, 1),
        "rss_mb_end": round(rss_mb()[0], 1),
        "open_fds_start": fds_start,
        "open_fds_end": open_fds(),
        "cached_stores_end": cached_stores(),
        "chroma_collections_opened": opened,  # by the queries: 0 when vectors come from the graph rows
        "rss_curve": rss_curve,
        "cold_query_ms": {"p50": round(1000 * percentile(cold, 50), 2), "p95": round(1000 * percentile(cold, 95), 2)},
        "warm_query_ms": {"p50": round(1000 * percentile(warm, 50), 2), "p95": round(1000 * percentile(warm, 95), 2)},
    }


def pg_store_bytes(graph_url: str, sid: str) -> dict:
    """Bytes PostgreSQL holds for store id ``sid``: the ``mg_*`` tables' total relation size
    (heap, indexes, TOAST) times ``sid``'s share of their row bytes (``pg_column_size``)."""
    import psycopg

    total = mine = rows = 0
    with psycopg.connect(graph_url, autocommit=True) as c:
        tables = [
            r[0]
            for r in c.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() AND tablename LIKE 'mg\\_%' "
                "AND tablename <> 'mg_schema'"
            ).fetchall()
        ]
        for t in tables:
            size_row = c.execute("SELECT pg_total_relation_size(%s::regclass)", (t,)).fetchone()
            row = c.execute(
                f"SELECT coalesce(sum(pg_column_size(x.*)), 0), "  # noqa: S608 - names from pg_tables
                f"coalesce(sum(pg_column_size(x.*)) FILTER (WHERE x.store_id = %s), 0), "
                f"count(*) FILTER (WHERE x.store_id = %s) FROM {t} x",
                (sid, sid),
            ).fetchone()
            assert size_row is not None and row is not None
            size, (all_b, own_b, own_n) = size_row[0], row
            total += size
            mine += round(size * own_b / all_b) if all_b else 0
            rows += own_n
    return {"bytes": mine, "all_stores_bytes": total, "rows": rows, "tables": len(tables)}


def run_backend(
    backend: str,
    n: int,
    data_dir: Path,
    *,
    cache: int,
    chroma=None,
    graph_url: str | None = None,
    progress=print,
    create_workers: int = 2,
) -> dict:
    data_dir.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    # Embedded Chroma admits one process per data dir: one child at a time. With the vectors in
    # a Chroma server, ``create_workers`` children commit tenants side by side.
    workers = max(1, create_workers) if chroma else 1
    in_child(create_tenants, data_dir, 0, 0, cache, chroma, graph_url)  # the template, once
    chunks = [(first, min(n, first + CREATE_CHUNK)) for first in range(0, n, CREATE_CHUNK)]
    writers = []
    with ThreadPoolExecutor(workers) as pool:
        done = pool.map(lambda c: in_child(create_tenants, data_dir, c[0], c[1], cache, chroma, graph_url), chunks)
        for (_, last), child in zip(chunks, done):
            writers.append(child)
            progress(f"tenants[{backend}]: {last:,}/{n:,} created ({time.perf_counter() - t0:.0f} s)")
    create_s = time.perf_counter() - t0
    disk = dir_bytes(data_dir)
    pg: dict | None = None
    if graph_url:
        pg = pg_store_bytes(graph_url, bench_store_id(data_dir))
    from memgraph_agents.storage.chroma_index import threshold as index_threshold

    settings = _settings(data_dir, cache, chroma, graph_url)
    out: dict[str, Any] = {
        "backend": backend,
        "tenants": n,
        "embeddings": "hash",
        "cache_namespaces": cache,
        "create_seconds": round(create_s, 1),
        "create_per_second": round(n / create_s, 1) if create_s else None,
        "create_workers": workers,
        # each creating child: RSS before/after committing its chunk of tenants (writes)
        "create_child_rss_mb": [w["rss_mb"] for w in writers],
        "create_child_fds": [w["fds"] for w in writers],
        "graph": "postgresql" if graph_url else "sqlite",
        "vectors": f"chroma server {chroma[0]}:{chroma[1]}" if chroma else "embedded chroma",
        # Chroma is an index only past this many embedded nodes (storage.chroma_index); below it
        # every vector lives beside the graph rows only
        "chroma_index_nodes": index_threshold(settings.exact_search_nodes, settings.chroma_index_nodes),
        "chroma_collections_written": sum(w["chroma_collections_written"] for w in writers),
    }
    out.update(in_child(measure, data_dir, n, cache=cache, chroma=chroma, graph_url=graph_url))
    out["rss_growth_mb"] = round(out["rss_mb_end"] - out["rss_mb_start"], 1)
    if pg is None:
        out["disk_bytes_per_namespace"] = round(disk / (n + 1))  # the template namespace included
        out["disk_how"] = "bytes of every file under the data dir / (tenants + 1 template)"
    else:
        out["disk_bytes_per_namespace"] = round(pg["bytes"] / (n + 1))
        out["disk_how"] = (
            "PostgreSQL: pg_total_relation_size of the mg_* tables (heap, indexes, TOAST) times this "
            "store id's share of their row bytes (pg_column_size), / (tenants + 1 template); vectors in "
            "the Chroma server not included"
        )
        out["pg_rows_per_namespace"] = round(pg["rows"] / (n + 1), 1)
        out["local_disk_bytes_per_namespace"] = round(disk / (n + 1))  # store id, lock files
    return out


def run_tenants(
    n: int,
    out_dir: Path,
    *,
    cache: int = 32,
    backends: list[dict] | None = None,
    progress=print,
    command: str | None = None,
) -> list[dict]:
    """``backends``: ``[{"backend": "sqlite"}]`` by default; ``chroma`` = (host, port) puts the
    vectors in a Chroma server instead of the embedded one."""
    out_dir.mkdir(parents=True, exist_ok=True)
    results = []
    for b in backends or [{"backend": "sqlite"}]:
        name = b["backend"]
        r = run_backend(
            name,
            n,
            b.get("data_dir") or out_dir / f"tenants-{name}",
            cache=cache,
            chroma=b.get("chroma"),
            graph_url=b.get("graph_url"),
            progress=progress,
        )
        r["command"] = command or f"memgraph bench scale --tenants {n} --out {out_dir}"
        results.append(r)
        progress(
            f"tenants[{name}]: RSS {r['rss_mb_start']:.0f} -> {r['rss_mb_end']:.0f} MB, cold p50 "
            f"{r['cold_query_ms']['p50']:.1f} ms p95 {r['cold_query_ms']['p95']:.1f} ms, warm p50 "
            f"{r['warm_query_ms']['p50']:.1f} ms, fds {r['open_fds_start']} -> {r['open_fds_end']}"
        )
        (out_dir / "tenants.json").write_text(json.dumps(results, indent=2))
    return results
