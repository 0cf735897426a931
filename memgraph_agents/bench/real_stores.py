"""``memgraph bench scale --real-stores``: the real stores with 1e4 .. 1e5 nodes in one namespace
(SQLite and PostgreSQL, embedded and server Chroma).

    memgraph bench scale --real-stores --nodes 1e4,1e5 --tenant-backends sqlite,postgres --out DIR

The plain ``memgraph bench scale`` times an in-memory stand-in (``SyntheticStore``: no SQLite,
no Chroma): the algorithm-only line. This one writes the same synthetic graph
(``bench.synthetic.synthetic_graph``) into a real store and reads it back:

* **ingest**: in a fresh process, the graph is committed session by session with
  ``MemoryStore.commit_session`` (the commit protocol an ingest ends with: pending row, vectors
  to Chroma, one transaction of nodes and edges); nodes that belong to no session (topics) and
  every edge go in the first commit that holds both its ends. Vectors are the deterministic hash
  embedding (``embeddings="hash"``) of each node's text, computed before the clock starts
  (``embed_seconds``, reported apart): what is timed is the store, not the model.
  ``nodes_per_second`` = nodes / ingest seconds.
* **cold start**: in another fresh process (nothing cached: no store, no snapshot, no vectors;
  the modules imported before the clock starts, ``imports_seconds`` apart),
  ``runtime.get_store`` (open: connections, the Chroma client and collection), ``store.snapshot()`` (every node and edge row read and parsed:
  *snapshot rows*), ``snapshot.vectors()`` (every vector from Chroma: *snapshot vectors*), then the
  first ``ppr`` query (builds the CSR matrices and derived structures) and ``--queries`` warm
  ones (p50/p95); RSS after each step.

Backends (``--tenant-backends``, as for ``--tenants``): ``sqlite`` (SQLite + embedded Chroma),
``sqlite+chroma-server``, ``postgres`` (``MEMGRAPH_GRAPH_URL`` + the ``MEMGRAPH_CHROMA_HOST``
server, both already running; each run writes under a store id of its own).

Writes ``DIR/real_stores.json``.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from memgraph_agents.bench.machine import machine_info
from memgraph_agents.bench.metrics import percentile
from memgraph_agents.bench.process import dir_bytes, in_child, open_fds, rss_mb
from memgraph_agents.bench.tenants import _settings

NAMESPACE = "scale"


def _commits(g) -> list[tuple[dict, list[tuple], list[tuple]]]:
    """The synthetic graph as session commits: (session, node rows, edge rows)."""
    order = {s["id"]: i for i, s in enumerate(g.sessions)}
    last = len(g.sessions) - 1
    where = {r[0]: order.get(r[3], last) for r in g.node_rows}
    nodes: list[list[tuple]] = [[] for _ in g.sessions]
    edges: list[list[tuple]] = [[] for _ in g.sessions]
    for r in g.node_rows:
        nodes[where[r[0]]].append(r)
    for e in g.edge_rows:
        edges[max(where[e[0]], where[e[1]])].append(e)
    return list(zip(g.sessions, nodes, edges))


def ingest(data_dir: Path, n_nodes: int, *, seed: int, n_questions: int, chroma, graph_url) -> dict:
    from memgraph_agents.bench.synthetic import synthetic_graph
    from memgraph_agents.runtime import get_store
    from memgraph_agents.storage import SessionRecord, SessionWrite
    from memgraph_agents.storage.sqlite_rows import row_to_edge, row_to_node

    settings = _settings(data_dir, 4, chroma, graph_url)
    g = synthetic_graph(n_nodes, dim=8, seed=seed, n_questions=n_questions)  # its vectors are not used
    store = get_store(settings, NAMESPACE)
    t = time.perf_counter()
    texts = [r[2] for r in g.node_rows]
    vecs = store.embedder.embed(texts)
    vector_of = {r[0]: vecs[i] for i, r in enumerate(g.node_rows)}
    embed_s = time.perf_counter() - t
    commits = _commits(g)
    rss0 = rss_mb()[0]
    t0 = time.perf_counter()
    for s, node_rows, edge_rows in commits:
        rec = SessionRecord(id=s["id"], date=s["date"], participants=s["participants"], n_turns=s["n_turns"])
        store.commit_session(
            SessionWrite(
                record=rec,
                nodes=[row_to_node(r) for r in node_rows],
                edges=[row_to_edge(e) for e in edge_rows],
                vectors={r[0]: vector_of[r[0]] for r in node_rows if r[6]},
            )
        )
    ingest_s = time.perf_counter() - t0
    return {
        "nodes": len(g.node_rows),
        "edges": len(g.edge_rows),
        "sessions": len(commits),
        "embed_seconds": round(embed_s, 2),
        "ingest_seconds": round(ingest_s, 2),
        "nodes_per_second": round(len(g.node_rows) / ingest_s, 1),
        "ingest_rss_mb_start": round(rss0, 1),
        "ingest_rss_mb_end": round(rss_mb()[0], 1),
        "ingest_peak_rss_mb": round(rss_mb()[1], 1),
        "questions": [q for q, _ in g.questions],
    }


def cold_start(data_dir: Path, questions: list[str], *, chroma, graph_url) -> dict:
    from memgraph_agents.registry import get_retriever
    from memgraph_agents.runtime import get_store

    settings = _settings(data_dir, 4, chroma, graph_url)
    ppr = get_retriever("ppr")
    t = time.perf_counter()
    import chromadb  # noqa: F401 - imported before the clock: a server process has it loaded

    from memgraph_agents.storage import MemoryStore  # noqa: F401

    imports_s = time.perf_counter() - t
    rss: dict[str, float] = {"start": rss_mb()[0]}
    t = time.perf_counter()
    store = get_store(settings, NAMESPACE, create=False)
    open_s = time.perf_counter() - t
    t = time.perf_counter()
    snap = store.snapshot()
    rows_s = time.perf_counter() - t
    rss["after_rows"] = rss_mb()[0]
    t = time.perf_counter()
    n_vec = int((snap.vectors().any(axis=1)).sum())
    vec_s = time.perf_counter() - t
    rss["after_vectors"] = rss_mb()[0]
    t = time.perf_counter()
    got = ppr(questions[0], store, k=10)
    first_s = time.perf_counter() - t
    if not got:
        raise RuntimeError("the first query answered nothing")
    warm = []
    for q in questions[1:]:
        t = time.perf_counter()
        ppr(q, store, k=10)
        warm.append(time.perf_counter() - t)
    rss["end"] = rss_mb()[0]
    return {
        "imports_seconds": round(imports_s, 3),
        "open_ms": round(1000 * open_s, 1),
        "snapshot_rows_seconds": round(rows_s, 3),
        "snapshot_vectors_seconds": round(vec_s, 3),
        "vectors_loaded": n_vec,
        "cold_load_seconds": round(open_s + rows_s + vec_s, 3),  # open + rows + vectors
        "first_query_ms": round(1000 * first_s, 1),
        "warm_query_ms": {
            "p50": round(1000 * percentile(warm, 50), 2),
            "p95": round(1000 * percentile(warm, 95), 2),
            "queries": len(warm),
        },
        "rss_mb": {k: round(v, 1) for k, v in rss.items()},
        "peak_rss_mb": round(rss_mb()[1], 1),
        "open_fds": open_fds(),
    }


def run_real_stores(
    sizes: list[int],
    out_dir: Path,
    *,
    backends: list[dict] | None = None,
    queries: int = 30,
    seed: int = 0,
    progress=print,
    command: str | None = None,
) -> list[dict]:
    """Every (backend, size): ingest in one fresh process, cold start + queries in another."""
    out_dir.mkdir(parents=True, exist_ok=True)
    results: list[dict[str, Any]] = []
    doc: dict[str, Any] = {
        "command": command
        or f"memgraph bench scale --real-stores --nodes {','.join(str(n) for n in sizes)} --out {out_dir}",
        "machine": machine_info(),
        "embeddings": "hash",
        "namespace": NAMESPACE,
        "runs": results,
    }
    for b in backends or [{"backend": "sqlite"}]:
        name, chroma, url = b["backend"], b.get("chroma"), b.get("graph_url")
        for n in sizes:
            data_dir = out_dir / f"real-{name}-{n}"
            if data_dir.exists() and any(data_dir.iterdir()):
                raise ValueError(f"{data_dir} is not empty: give a fresh --out")
            data_dir.mkdir(parents=True, exist_ok=True)
            progress(f"real stores[{name}]: {n:,} nodes: ingest ...")
            t0 = time.perf_counter()
            r: dict[str, Any] = {
                "backend": name,
                "graph": "postgresql" if url else "sqlite",
                "vectors": f"chroma server {chroma[0]}:{chroma[1]}" if chroma else "embedded chroma",
                "target_nodes": n,
            }
            r.update(in_child(ingest, data_dir, n, seed=seed, n_questions=queries + 1, chroma=chroma, graph_url=url))
            questions = r.pop("questions")
            progress(
                f"  ingest {r['nodes']:,} nodes / {r['edges']:,} edges in {r['sessions']} commits: "
                f"{r['ingest_seconds']:.1f}s ({r['nodes_per_second']:,.0f} nodes/s); cold start ..."
            )
            r.update(in_child(cold_start, data_dir, questions, chroma=chroma, graph_url=url))
            if not url:
                r["disk_bytes"] = dir_bytes(data_dir)
            else:
                from memgraph_agents.bench.tenants import bench_store_id, pg_store_bytes

                r["pg_bytes"] = pg_store_bytes(url, bench_store_id(data_dir))["bytes"]
            r["wall_seconds"] = round(time.perf_counter() - t0, 1)
            results.append(r)
            progress(
                f"  cold load {r['cold_load_seconds']:.2f}s (rows {r['snapshot_rows_seconds']:.2f}s + vectors "
                f"{r['snapshot_vectors_seconds']:.2f}s), first query {r['first_query_ms']:.0f} ms, warm p50 "
                f"{r['warm_query_ms']['p50']:.1f} ms, RSS {r['rss_mb']['end']:.0f} MB"
            )
            (out_dir / "real_stores.json").write_text(json.dumps(doc, indent=2))
    return results
