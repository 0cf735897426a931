"""``memgraph bench scale``: retrieval latency and memory on synthetic event graphs.

    memgraph bench scale --nodes 1e3,1e4,1e5,1e6 --out DIR [--queries 30] [--dim 384]
        [--nav-queries 10] [--baseline-queries 3] [--baseline-max-nodes 1e6] [--seed 0]

(the command line is ``memgraph_agents.cli.bench_cmd``). Each size runs in its own process
(so its peak RSS is its own) and:

1. generates an event graph shaped like an offline ingest of LoCoMo
   (``bench.synthetic.synthetic_graph``: skewed degrees, topic-clustered random unit vectors;
   the query "embedding" is a lookup: embedding time is not what is measured);
2. loads it the way a store loads a namespace (``GraphSnapshot.from_rows`` on row tuples
   with JSON columns) and serves it through ``SyntheticStore`` (``snapshot()``,
   ``embedder.embed_one``): *build seconds* = that load plus the first query of every
   retriever (which builds the cached CSR matrices, BM25 indexes and derived structures);
3. times ``ppr``, ``dwpr``, ``sentence_hop`` and the offline ``navigator`` per query
   (p50/p95 over ``--queries`` questions made from the graph's own turns);
4. times the PPR core (``ppr_prepared`` on the retriever's own transition matrix and seed)
   against ``networkx.pagerank(personalization=...)`` and, if installed, igraph's
   ``personalized_pagerank`` on the same graph and seeds, and reports the speed-ups and the
   largest score difference.

Writes ``DIR/scale.json`` and ``DIR/scale.png`` (log-log latency vs nodes).
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path

import numpy as np

from memgraph_agents.bench.machine import machine_info
from memgraph_agents.bench.metrics import percentile
from memgraph_agents.bench.process import in_child, rss_mb
from memgraph_agents.bench.synthetic import (
    SyntheticEmbedder,
    SyntheticStore,
    synthetic_graph,
)

TARGET_PPR_P50_MS_AT_1M = 200.0
RETRIEVERS = ("ppr", "dwpr", "sentence_hop", "navigator")


# --------------------------------------------------------------------------- one size


def _ppr_seed(store, query: str) -> tuple:
    """``(prepared walk, seed on the walk, walk kwargs)`` the ``ppr`` retriever uses for ``query``,
    to feed the same walk to every engine."""
    from memgraph_agents.retrieval.ppr_retriever import DAMPING, seed_vector, walk_graph
    from memgraph_agents.retrieval.seeds import node_similarities

    snap = store.snapshot()
    seed = seed_vector(query, store, snap, node_similarities(snap, store.embedder.embed_one(query)))
    nodes, prepared = walk_graph(snap)
    return prepared, seed[nodes], {"damping": DAMPING}


def _baselines(store, questions, n_queries: int) -> dict:
    """PPR core vs networkx / igraph on the retriever's own walk matrix and seeds."""
    import scipy.sparse as sp

    from memgraph_agents.extras import require

    nx = require("networkx", "bench", "bench scale's networkx baseline")

    from memgraph_agents.retrieval.algorithms.ppr import ppr_prepared

    seeds = [_ppr_seed(store, q) for q, _ in questions[:n_queries]]
    prepared = seeds[0][0]
    # A symmetric prepared graph stores the adjacency itself, in row blocks.
    adj = sp.csr_matrix(sp.vstack(prepared.blocks), dtype=np.float64)
    adj.eliminate_zeros()
    coo = adj.tocoo()
    out: dict = {"walk_nodes": int(adj.shape[0]), "walk_edges_undirected": int(adj.nnz // 2)}
    damping = seeds[0][2].get("damping", 0.5)

    ours, mine = [], []  # our scores, compared with each engine's below
    for prepared, seed, kw in seeds:
        t = time.perf_counter()
        mine.append(ppr_prepared(prepared, seed, **kw))
        ours.append(time.perf_counter() - t)
    out["ours_ms"] = {"p50": 1000 * percentile(ours, 50), "p95": 1000 * percentile(ours, 95)}

    t = time.perf_counter()
    g = nx.DiGraph()
    g.add_nodes_from(range(adj.shape[0]))
    g.add_weighted_edges_from(zip(coo.row.tolist(), coo.col.tolist(), coo.data.astype(float).tolist()))
    out["networkx_build_s"] = time.perf_counter() - t
    times, diffs = [], []
    for (_, seed, _), scores in zip(seeds, mine):
        pers = {int(i): float(seed[i]) for i in np.flatnonzero(seed)}
        t = time.perf_counter()
        pr = nx.pagerank(g, alpha=damping, personalization=pers, tol=1e-8, max_iter=200, dangling=pers, weight="weight")
        times.append(time.perf_counter() - t)
        ref = np.fromiter((pr[i] for i in range(adj.shape[0])), dtype=np.float64, count=adj.shape[0])
        diffs.append(float(np.abs(ref - scores).max()))
    del g
    out["networkx_ms"] = {"p50": 1000 * percentile(times, 50), "p95": 1000 * percentile(times, 95)}
    out["networkx_max_abs_diff"] = max(diffs)
    out["speedup_vs_networkx"] = out["networkx_ms"]["p50"] / out["ours_ms"]["p50"]
    try:
        import igraph as ig
    except ImportError:
        out["igraph"] = "not installed (pip install igraph)"
        return out
    t = time.perf_counter()
    upper = coo.row < coo.col
    h = ig.Graph(n=adj.shape[0], edges=list(zip(coo.row[upper].tolist(), coo.col[upper].tolist())), directed=False)
    h.es["weight"] = coo.data[upper].astype(float).tolist()
    out["igraph_build_s"] = time.perf_counter() - t
    times, diffs = [], []
    for (_, seed, _), scores in zip(seeds, mine):
        t = time.perf_counter()
        got = h.personalized_pagerank(damping=damping, reset=seed.tolist(), directed=False, weights="weight")
        times.append(time.perf_counter() - t)
        diffs.append(float(np.abs(np.asarray(got) - scores).max()))
    out["igraph_ms"] = {"p50": 1000 * percentile(times, 50), "p95": 1000 * percentile(times, 95)}
    out["igraph_max_abs_diff"] = max(diffs)
    out["speedup_vs_igraph"] = out["igraph_ms"]["p50"] / out["ours_ms"]["p50"]
    return out


def run_size(
    n_nodes: int,
    *,
    dim: int = 384,
    seed: int = 0,
    queries: int = 30,
    nav_queries: int = 10,
    baseline_queries: int = 3,
    baselines: bool = True,
    k: int = 10,
) -> dict:
    """Build one synthetic graph, load it, time every retriever and the baselines."""
    from memgraph_agents.registry import get_retriever
    from memgraph_agents.storage.snapshot import GraphSnapshot

    t0 = time.perf_counter()
    g = synthetic_graph(n_nodes, dim=dim, seed=seed, n_questions=max(queries, nav_queries, baseline_queries))
    gen_s = time.perf_counter() - t0
    n, m = len(g.node_rows), len(g.edge_rows)

    t0 = time.perf_counter()
    snap = GraphSnapshot.from_rows(1, g.node_rows, g.edge_rows, g.sessions)
    snap._vectors = g.vectors  # what the store's vector loader would return (Chroma not measured)
    load_s = time.perf_counter() - t0
    del g.node_rows, g.edge_rows
    store = SyntheticStore(snap, SyntheticEmbedder(dim, dict(g.questions), g.vectors, g.arg_index))

    out: dict = {
        "nodes": n,
        "edges": m,
        "sessions": len(g.sessions),
        "dim": dim,
        "kinds": _kind_counts(snap),
        "generate_seconds": round(gen_s, 3),
        "load_seconds": round(load_s, 3),
    }
    deg = np.bincount(np.concatenate([snap.src, snap.dst]), minlength=n)
    out["degree"] = {
        "mean": float(deg.mean()),
        "p50": float(np.median(deg)),
        "p99": float(np.percentile(deg, 99)),
        "max": int(deg.max()),
    }
    first, lat = {}, {}
    for name in RETRIEVERS:
        fn = get_retriever(name)
        qs = g.questions[: (nav_queries if name == "navigator" else queries)]
        t = time.perf_counter()
        got = fn(qs[0][0], store, k=k)  # builds the derived structures this retriever needs
        first[name] = time.perf_counter() - t
        assert got, f"{name} returned nothing"
        times = []
        for q, _ in qs:
            t = time.perf_counter()
            fn(q, store, k=k)
            times.append(time.perf_counter() - t)
        lat[name] = {
            "p50_ms": round(1000 * percentile(times, 50), 3),
            "p95_ms": round(1000 * percentile(times, 95), 3),
            "first_ms": round(1000 * first[name], 1),
            "queries": len(times),
        }
    out["build_seconds"] = round(load_s + sum(max(0.0, first[r] - lat[r]["p50_ms"] / 1000) for r in RETRIEVERS), 3)
    out["latency"] = lat
    out["rss_mb_after_build"], _ = rss_mb()
    if baselines:
        out["baselines"] = _baselines(store, g.questions, baseline_queries)
    out["rss_mb_now"], out["peak_rss_mb"] = rss_mb()
    return out


def _kind_counts(snap) -> dict[str, int]:
    from memgraph_agents.storage.snapshot import NODE_KINDS

    counts = np.bincount(snap.kind.astype(np.int64), minlength=len(NODE_KINDS))
    return {NODE_KINDS[i].value: int(c) for i, c in enumerate(counts) if c}


def run_scale(
    sizes: list[int],
    out_dir: Path,
    *,
    dim: int = 384,
    seed: int = 0,
    queries: int = 30,
    nav_queries: int = 10,
    baseline_queries: int = 3,
    baseline_max_nodes: int = 1_000_000,
    progress=print,
    command: str | None = None,
) -> dict:
    """Every size in a fresh process; writes ``scale.json`` and ``scale.png`` into ``out_dir``.

    ``command``: the command line to record (the CLI passes the one typed)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    results = []
    for n in sizes:
        kwargs = dict(
            dim=dim,
            seed=seed,
            queries=queries,
            nav_queries=nav_queries,
            baseline_queries=baseline_queries,
            baselines=n <= baseline_max_nodes,
        )
        progress(f"scale: {n:,} nodes ...")
        t0 = time.perf_counter()
        try:
            payload = in_child(run_size, n, **kwargs)
        except RuntimeError as e:
            raise RuntimeError(f"bench scale at {n:,} nodes failed: {e}") from None
        payload["wall_seconds"] = round(time.perf_counter() - t0, 1)
        results.append(payload)
        lat = payload["latency"]
        progress(
            f"  {payload['nodes']:,} nodes, {payload['edges']:,} edges: build {payload['build_seconds']:.1f}s, "
            f"peak RSS {payload['peak_rss_mb']:.0f} MB; p50 "
            + ", ".join(f"{r} {lat[r]['p50_ms']:.1f}ms" for r in RETRIEVERS)
        )
    summary = _summary(results)
    command = command or f"memgraph bench scale --nodes {','.join(str(n) for n in sizes)} --out {out_dir}"
    doc = {
        "command": command,
        "machine": machine_info(),
        "settings": {
            "dim": dim,
            "seed": seed,
            "queries": queries,
            "nav_queries": nav_queries,
            "baseline_queries": baseline_queries,
        },
        "sizes": results,
        "summary": summary,
    }
    (out_dir / "scale.json").write_text(json.dumps(doc, indent=2))
    _plot(results, out_dir / "scale.png")
    return doc


def _summary(results: list[dict]) -> dict:
    out: dict = {}
    if len(results) >= 2:
        e = np.log([r["edges"] for r in results])
        for name in RETRIEVERS:
            y = np.log([r["latency"][name]["p50_ms"] for r in results])
            slope = float(np.polyfit(e, y, 1)[0])
            last = float((y[-1] - y[-2]) / (e[-1] - e[-2]))
            out[f"{name}_slope_vs_edges"] = round(slope, 3)
            out[f"{name}_slope_vs_edges_last_step"] = round(last, 3)
        out["ppr_cost_grows_no_faster_than_edges"] = bool(out["ppr_slope_vs_edges"] <= 1.05)
    big = [r for r in results if r["nodes"] >= 900_000]
    if big:
        p50 = big[-1]["latency"]["ppr"]["p50_ms"]
        out["ppr_p50_ms_at_1m"] = p50
        out["ppr_p50_target_ms"] = TARGET_PPR_P50_MS_AT_1M
        out["ppr_p50_target_met"] = bool(p50 <= TARGET_PPR_P50_MS_AT_1M)
    out["navigator"] = "offline policy (memgraph_agents.navigator), localize = oneshot (its seed and ranking)"
    return out


def _plot(results: list[dict], path: Path) -> None:
    from memgraph_agents.extras import require

    matplotlib = require("matplotlib", "bench", "a benchmark's plot")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    x = [r["nodes"] for r in results]
    for name in RETRIEVERS:
        ax.plot(x, [r["latency"][name]["p50_ms"] for r in results], marker="o", label=f"{name} (p50)")
    base = [r for r in results if "baselines" in r]
    if base:
        bx = [r["nodes"] for r in base]
        ax.plot(bx, [r["baselines"]["ours_ms"]["p50"] for r in base], "k--", marker=".", label="PPR core (ours)")
        ax.plot(bx, [r["baselines"]["networkx_ms"]["p50"] for r in base], ":", marker="x", label="networkx.pagerank")
        if all("igraph_ms" in r["baselines"] for r in base):
            ax.plot(
                bx,
                [r["baselines"]["igraph_ms"]["p50"] for r in base],
                ":",
                marker="+",
                label="igraph personalized_pagerank",
            )
    ax.axhline(TARGET_PPR_P50_MS_AT_1M, color="grey", lw=0.8, ls="-.", label="PPR target at 1M nodes")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("nodes")
    ax.set_ylabel("ms per query")
    ax.set_title("Retrieval latency on synthetic event graphs")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def parse_sizes(text: str) -> list[int]:
    sizes = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        try:
            value = float(part)
        except ValueError:
            raise ValueError(f"--nodes: {part!r} is not a number (e.g. 1e3,1e4,1e5,1e6)") from None
        if not math.isfinite(value) or value < 100 or value > 5e7:
            raise ValueError(f"--nodes: {part!r} must be between 100 and 5e7")
        sizes.append(int(value))
    if not sizes:
        raise ValueError("--nodes: give at least one size, e.g. 1e3,1e4,1e5,1e6")
    return sizes
