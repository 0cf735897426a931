"""``memgraph bench scale``: retrieval latency and memory on synthetic event graphs (issue 6.7).

    memgraph bench scale --nodes 1e3,1e4,1e5,1e6 --out DIR [--queries 30] [--dim 384]
        [--nav-queries 10] [--baseline-queries 3] [--baseline-max-nodes 1e6] [--seed 0]

Each size runs in its own process (so its peak RSS is its own) and:

1. generates an event graph shaped like an offline ingest of LoCoMo (per session: ~22
   turns, ~3.4 sentences per turn, an event per ~4 turns, ~7.5 role edges per event, 3 kNN
   sentence edges per sentence, ``next``/``contains``/``evidence``/``member``/``similar``/
   ``relation``/``synonym`` edges) with skewed degrees: arguments are drawn from a Zipf law,
   speakers come from a small pool, so a few argument nodes are hubs; vectors are random
   unit vectors (clustered by topic, so similarities are not uniform noise) and the query
   "embedding" is a lookup: embedding time is not what is measured;
2. loads it the way a store loads a namespace (``GraphSnapshot.from_rows`` on row tuples
   with JSON columns) and serves it through ``SyntheticStore`` (``snapshot()``,
   ``embedder.embed_one``, ``search()`` in numpy): *build seconds* = that load plus the
   first query of every retriever (which builds the cached CSR matrices, BM25 indexes and
   derived structures);
3. times ``ppr``, ``dwpr``, ``sentence_hop`` and the offline ``navigator`` per query
   (p50/p95 over ``--queries`` questions made from the graph's own turns);
4. times the PPR core (``ppr_prepared`` on the retriever's own transition matrix and seed)
   against ``networkx.pagerank(personalization=...)`` and, if installed, igraph's
   ``personalized_pagerank`` on the same graph and seeds, and reports the speed-ups and the
   largest score difference.

Writes ``DIR/scale.json`` and ``DIR/scale.png`` (log-log latency vs nodes).
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import platform
import resource
import shlex
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

TARGET_PPR_P50_MS_AT_1M = 200.0
RETRIEVERS = ("ppr", "dwpr", "sentence_hop", "navigator")

_SYLLABLES = ("ka ri mo ne ta lu vi so re na el ba di go fe mi ra to zu pa ke lo si da ve ni ho "
              "ar ul en ix or am").split()
_COMMON = ("the a and to of I you it was we in that my for is on with so but have had about really "
           "went go got new time day week yesterday today last next home work friend family love great "
           "nice fun happy talk trip class game dog cat book music movie food run walk park beach city "
           "school job project garden paint cook bake dance sing play read write photo kids party").split()


# --------------------------------------------------------------------------- synthetic graph


@dataclass
class SyntheticGraph:
    node_rows: list[tuple]
    edge_rows: list[tuple]
    sessions: list[dict]
    vectors: np.ndarray  # (n, dim) float32, unit rows, aligned with node_rows
    questions: list[tuple[str, np.ndarray]]
    arg_index: dict[str, int]  # argument text -> node index (mentions embed like their node)


def _names(rng: np.random.Generator, n: int) -> list[str]:
    out, seen = [], set()
    while len(out) < n:
        k = int(rng.integers(2, 4))
        w = "".join(_SYLLABLES[int(i)] for i in rng.integers(0, len(_SYLLABLES), k)).capitalize()
        w = w if w not in seen else f"{w}{len(out)}"
        seen.add(w)
        out.append(w)
    return out


def _unit(m: np.ndarray) -> np.ndarray:
    m /= np.linalg.norm(m, axis=1, keepdims=True) + 1e-12
    return m


def synthetic_graph(n_nodes: int, *, dim: int = 384, seed: int = 0, n_questions: int = 30) -> SyntheticGraph:
    """An event graph of about ``n_nodes`` nodes (see the module docstring)."""
    rng = np.random.default_rng(seed)
    per_session = 112  # nodes per session here (LoCoMo offline: ~130 with its share of arguments)
    n_sessions = max(2, round(n_nodes / per_session))
    n_args = max(50, int(0.19 * n_nodes))
    people = _names(rng, 60)
    arg_names = _names(rng, n_args)
    n_topics = max(2, int(0.85 * n_sessions))
    # Zipf popularity of arguments (rank r has weight 1/r^1.1): hubs and a long tail.
    pop = 1.0 / np.arange(1, n_args + 1) ** 1.1
    pop /= pop.sum()
    cdf = np.cumsum(pop)
    word_pop = 1.0 / np.arange(1, len(_COMMON) + 1)
    word_pop /= word_pop.sum()

    ids: list[str] = []
    kinds: list[str] = []
    texts: list[str] = []
    owners: list[str] = []
    turn_ids: list[list[str]] = []
    attrs: list[dict] = []
    parent: list[int] = []  # node whose vector this node's vector is drawn around (-1: topic centroid)
    topic_of: list[int] = []
    edges: list[tuple] = []

    def add(nid, kind, text, owner, tids, a, par, top) -> int:
        ids.append(nid)
        kinds.append(kind)
        texts.append(text)
        owners.append(owner)
        turn_ids.append(tids)
        attrs.append(a)
        parent.append(par)
        topic_of.append(top)
        return len(ids) - 1

    def edge(a, b, kind, label, owner, w=1.0, tids=()):
        edges.append((ids[a], ids[b], kind, label, owner, w, list(tids)))

    arg_node: dict[int, int] = {}  # argument rank -> node index

    def arg(rank: int, owner: str) -> int:
        i = arg_node.get(rank)
        if i is None:
            name = arg_names[rank]
            i = add(f"arg:{name.lower()}", "argument", name, owner, [], {"arg_kind": "proper", "key": name.lower()},
                    -1, int(rng.integers(n_topics)))
            arg_node[rank] = i
        return i

    topics = [add(f"topic:{t}", "topic", f"Topic {t}", "", [], {"size": 0}, -1, t) for t in range(n_topics)]
    events_so_far: list[int] = []
    sent_so_far: list[int] = []
    sessions: list[dict] = []
    turn_nodes_all: list[int] = []
    date0 = np.datetime64("2022-01-01T10:00")
    for s in range(1, n_sessions + 1):
        conv = (s - 1) // 20
        a, b = (people[int(x)] for x in np.random.default_rng(conv).choice(len(people), 2, replace=False))
        sid = f"S{s}"
        date = str(date0 + np.timedelta64(2 * s, "D"))[:16] + ":00"
        n_turns = int(np.clip(rng.poisson(22), 6, 40))
        topic = int(rng.integers(n_topics))
        sess = add(f"session:{sid}", "session", f"Session on {date[:10]} between {a} and {b}", sid, [],
                   {"date": date, "participants": [a, b]}, -1, topic)
        sessions.append({"id": sid, "date": date, "seq": s, "participants": [a, b], "n_turns": n_turns})
        time_arg = add(f"arg:{date[:10]}:{s}", "argument", date[:10], sid, [], {"arg_kind": "date", "key": date[:10]},
                       -1, topic)
        p_a, p_b = (arg(people.index(x) % n_args, sid) for x in (a, b))
        # events: contiguous runs of 2-6 turns
        sizes, left = [], n_turns
        while left > 0:
            k = min(left, int(rng.integers(2, 7)))
            sizes.append(k)
            left -= k
        t_index = 0
        prev_turn = -1
        session_turns: list[int] = []
        prev_event = -1
        for e_no, size in enumerate(sizes, start=1):
            e_topic = topic if rng.random() < 0.7 else int(rng.integers(n_topics))
            ev = add(f"event:{sid}:{e_no}", "event", "", sid, [], {"time": date[:10], "participants": [a, b]},
                     -1, e_topic)
            edge(topics[e_topic], ev, "member", "topic", "", 1.0)
            ranks = np.searchsorted(cdf, rng.random(1 + rng.poisson(5.5)))
            ev_turn_text = []
            for _ in range(size):
                t_index += 1
                tid = f"D{s}:{t_index}"
                speaker = a if t_index % 2 else b
                n_sent = min(8, 1 + int(rng.poisson(2.4)))
                sents = []
                for _j in range(n_sent):
                    words = list(rng.choice(_COMMON, int(rng.integers(6, 15)), p=word_pop))
                    if rng.random() < 0.5:
                        words.insert(int(rng.integers(len(words))), arg_names[int(ranks[int(rng.integers(len(ranks)))])])
                    sents.append(" ".join(words).capitalize() + ".")
                text = f"{speaker}: " + " ".join(sents)
                turn = add(f"turn:{tid}", "turn", text, sid, [tid],
                           {"turn_id": tid, "index": t_index - 1, "speaker": speaker, "timestamp": date, "dates": []},
                           ev, e_topic)
                session_turns.append(turn)
                turn_nodes_all.append(turn)
                ev_turn_text.append(text)
                edge(sess, turn, "contains", "", sid)
                edge(ev, turn, "evidence", "", sid, 1.0, [tid])
                if prev_turn >= 0:
                    edge(prev_turn, turn, "next", "", sid)
                prev_turn = turn
                for j, st in enumerate(sents, start=1):
                    sn = add(f"sentence:{tid}:{j}", "sentence", f"{speaker}: {st}", sid, [tid],
                             {"turn_id": tid, "index": j}, turn, e_topic)
                    edge(turn, sn, "contains", "", sid)
                    sent_so_far.append(sn)
                    # kNN: two near neighbours (same stretch of conversation), one anywhere
                    for _ in range(2):
                        if len(sent_so_far) > 1:
                            other = sent_so_far[max(0, len(sent_so_far) - 1 - int(rng.integers(1, 200)))]
                            if other != sn:
                                edge(sn, other, "similar", "sentence", sid, float(0.6 + 0.4 * rng.random()))
                    if len(sent_so_far) > 10:
                        other = sent_so_far[int(rng.integers(len(sent_so_far) - 1))]
                        edge(sn, other, "similar", "sentence", sid, float(0.5 + 0.3 * rng.random()))
            texts[ev] = "\n".join(ev_turn_text)
            turn_ids[ev] = [attrs[t]["turn_id"] for t in session_turns[-size:]]
            edge(ev, p_a, "role", "participant", sid)
            edge(ev, p_b, "role", "participant", sid)
            edge(ev, time_arg, "role", "time", sid)
            for r in set(int(x) for x in ranks):
                edge(ev, arg(r, sid), "role", "entity", sid)
            if prev_event >= 0:
                edge(prev_event, ev, "relation", "follow_up", sid, 1.0)
            for other in (events_so_far[int(i)] for i in rng.integers(0, max(1, len(events_so_far)), 2)
                          if events_so_far):
                edge(ev, other, "similar", "event", sid, float(0.6 + 0.3 * rng.random()))
            prev_event = ev
            events_so_far.append(ev)
        turn_ids[sess] = [attrs[t]["turn_id"] for t in session_turns]
        if len(ids) >= n_nodes:
            break
    for r in rng.choice(list(arg_node), max(1, len(arg_node) // 100)):  # a few synonym pairs
        other = rng.choice(list(arg_node))
        if other != r:
            edge(arg_node[int(r)], arg_node[int(other)], "synonym", "", owners[arg_node[int(r)]], 0.92)

    # Vectors: topic centroids; events around their topic, turns around their event, sentences
    # around their turn; sessions, arguments: their topic plus more noise. Random, unit length.
    n = len(ids)
    vec = np.empty((n, dim), dtype=np.float32)
    centroids = _unit(rng.standard_normal((n_topics, dim), dtype=np.float32))
    par = np.asarray(parent)
    top = np.asarray(topic_of)
    roots = np.flatnonzero(par < 0)
    sigma = 1.0 / math.sqrt(dim)  # noise of about unit norm: cosine ~0.7 to the parent
    vec[roots] = _unit(centroids[top[roots]] + sigma * rng.standard_normal((len(roots), dim), dtype=np.float32))
    kind_arr = np.asarray(kinds)
    for kind in ("turn", "sentence"):  # turns around their event, sentences around their turn
        idx = np.flatnonzero(kind_arr == kind)
        vec[idx] = _unit(vec[par[idx]] + sigma * rng.standard_normal((len(idx), dim), dtype=np.float32))
    topic_idx = np.flatnonzero(kind_arr == "topic")
    vec[topic_idx] = centroids[top[topic_idx]]

    # Questions: from random turns — a speaker, a few of its words, a mention, a noisy vector.
    questions = []
    for t in rng.choice(turn_nodes_all, min(n_questions, len(turn_nodes_all)), replace=False):
        words = [w.strip(".") for w in texts[t].split(": ", 1)[1].split() if w.lower() not in ("the", "a", "and", "to")]
        picked = " ".join(words[int(i)] for i in sorted(rng.choice(len(words), min(4, len(words)), replace=False)))
        q = f"When did {attrs[t]['speaker']} talk about {picked}?"
        qv = _unit((vec[t] + sigma * rng.standard_normal(dim, dtype=np.float32))[None, :])[0]
        questions.append((q, qv))

    node_rows = [(ids[i], kinds[i], texts[i], owners[i], json.dumps(turn_ids[i]), json.dumps(attrs[i]), 1)
                 for i in range(n)]
    edge_rows = [(s, d, k, lab, o, w, json.dumps(list(t)), "{}") for s, d, k, lab, o, w, t in edges]
    arg_index = {texts[i]: i for i in np.flatnonzero(kind_arr == "argument")}
    return SyntheticGraph(node_rows, edge_rows, sessions, vec, questions, arg_index)


# --------------------------------------------------------------------------- in-memory store


class SyntheticEmbedder:
    """``embed_one`` / ``embed`` by lookup: a question's planned vector, an argument's own vector
    for its name, else a random unit vector seeded by the text."""

    name = "synthetic"

    def __init__(self, dim: int, known: dict[str, np.ndarray], vectors: np.ndarray, arg_index: dict[str, int]):
        self.dim = dim
        self.known = known
        self.vectors = vectors
        self.arg_index = {k.lower(): v for k, v in arg_index.items()}

    def embed_one(self, text: str) -> np.ndarray:
        v = self.known.get(text)
        if v is not None:
            return v
        i = self.arg_index.get(text.strip().lower())
        if i is not None:
            return self.vectors[i]
        seed = int.from_bytes(text.encode("utf-8", "surrogatepass")[:64].ljust(8, b"\0")[:8], "little") ^ len(text)
        r = np.random.default_rng(seed).standard_normal(self.dim).astype(np.float32)
        return r / np.linalg.norm(r)

    def embed(self, texts: list[str]) -> np.ndarray:
        return np.stack([self.embed_one(t) for t in texts]) if texts else np.zeros((0, self.dim), np.float32)


class SyntheticStore:
    """What the retrievers need from a ``MemoryStore``, in memory: ``snapshot()``,
    ``embedder`` and a numpy ``search()`` (no SQLite, no Chroma)."""

    namespace = "scale"

    def __init__(self, snapshot, embedder: SyntheticEmbedder) -> None:
        self._snap = snapshot
        self.embedder = embedder

    def snapshot(self):
        return self._snap

    def search(self, vector: np.ndarray, k: int, kinds: list[str] | None = None) -> list[tuple[str, float]]:
        snap = self._snap
        vecs = snap.vectors()
        if kinds:
            from memgraph_agents.storage.snapshot import KIND_CODE

            idx = np.flatnonzero(np.isin(snap.kind, [KIND_CODE[k] for k in kinds]))
        else:
            idx = np.arange(len(snap.ids))
        sims = vecs[idx] @ np.asarray(vector, dtype=np.float32)
        top = idx[np.argsort(-sims, kind="stable")[:k]] if len(idx) else idx
        return [(snap.ids[i], float(vecs[i] @ vector)) for i in top]

    def sessions(self) -> list[dict]:
        return list(self._snap.sessions.values())


# --------------------------------------------------------------------------- one size


def _rss_mb() -> tuple[float, float]:
    """(current, peak) resident set size in MB, from /proc (Linux) or getrusage."""
    cur = peak = 0.0
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                cur = int(line.split()[1]) / 1024
            elif line.startswith("VmHWM:"):
                peak = int(line.split()[1]) / 1024
    except OSError:
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return cur, peak


def _pct(xs: list[float], p: float) -> float:
    return float(np.percentile(np.asarray(xs), p)) if xs else float("nan")


def _ppr_seed(store, query: str) -> tuple:
    """The seed vector the ``ppr`` retriever builds for ``query`` (to feed the same walk to every engine)."""
    from memgraph_agents.retrieval import ppr_retriever as pr

    captured = {}
    real = pr.ppr_prepared

    def spy(prepared, seed, **kw):
        captured["prepared"], captured["seed"], captured["kw"] = prepared, np.array(seed, dtype=np.float64), kw
        return real(prepared, seed, **kw)

    pr.ppr_prepared = spy
    try:
        pr.ppr(query, store, k=10)
    finally:
        pr.ppr_prepared = real
    return captured["prepared"], captured["seed"], captured["kw"]


def _baselines(store, questions, n_queries: int) -> dict:
    """PPR core vs networkx / igraph on the retriever's own walk matrix and seeds."""
    import networkx as nx
    import scipy.sparse as sp

    from memgraph_agents.retrieval.algorithms.ppr import ppr_prepared

    seeds = [_ppr_seed(store, q) for q, _ in questions[:n_queries]]
    prepared = seeds[0][0]
    # A symmetric prepared graph stores the adjacency itself, in row blocks.
    adj = sp.csr_matrix(sp.vstack(prepared.blocks), dtype=np.float64)
    adj.eliminate_zeros()
    coo = adj.tocoo()
    out: dict = {"walk_nodes": int(adj.shape[0]), "walk_edges_undirected": int(adj.nnz // 2)}
    damping = seeds[0][2].get("damping", 0.5)

    ours = []
    for prepared, seed, kw in seeds:
        t = time.perf_counter()
        ppr_prepared(prepared, seed, **kw)
        ours.append(time.perf_counter() - t)
    out["ours_ms"] = {"p50": 1000 * _pct(ours, 50), "p95": 1000 * _pct(ours, 95)}

    t = time.perf_counter()
    g = nx.DiGraph()
    g.add_nodes_from(range(adj.shape[0]))
    g.add_weighted_edges_from(zip(coo.row.tolist(), coo.col.tolist(), coo.data.astype(float).tolist()))
    out["networkx_build_s"] = time.perf_counter() - t
    times, diffs = [], []
    for prepared, seed, kw in seeds:
        pers = {int(i): float(seed[i]) for i in np.flatnonzero(seed)}
        t = time.perf_counter()
        pr = nx.pagerank(g, alpha=damping, personalization=pers, tol=1e-8, max_iter=200, dangling=pers,
                         weight="weight")
        times.append(time.perf_counter() - t)
        ref = np.fromiter((pr[i] for i in range(adj.shape[0])), dtype=np.float64, count=adj.shape[0])
        mine = ppr_prepared(prepared, seed, **kw)
        diffs.append(float(np.abs(ref - mine).max()))
    del g
    out["networkx_ms"] = {"p50": 1000 * _pct(times, 50), "p95": 1000 * _pct(times, 95)}
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
    for prepared, seed, kw in seeds:
        t = time.perf_counter()
        got = h.personalized_pagerank(damping=damping, reset=seed.tolist(), directed=False, weights="weight")
        times.append(time.perf_counter() - t)
        diffs.append(float(np.abs(np.asarray(got) - ppr_prepared(prepared, seed, **kw)).max()))
    out["igraph_ms"] = {"p50": 1000 * _pct(times, 50), "p95": 1000 * _pct(times, 95)}
    out["igraph_max_abs_diff"] = max(diffs)
    out["speedup_vs_igraph"] = out["igraph_ms"]["p50"] / out["ours_ms"]["p50"]
    return out


def run_size(n_nodes: int, *, dim: int = 384, seed: int = 0, queries: int = 30, nav_queries: int = 10,
             baseline_queries: int = 3, baselines: bool = True, k: int = 10) -> dict:
    """Build one synthetic graph, load it, time every retriever and the baselines."""
    from memgraph_agents.retrieval.registry import get_retriever
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

    out: dict = {"nodes": n, "edges": m, "sessions": len(g.sessions), "dim": dim, "kinds": _kind_counts(snap),
                 "generate_seconds": round(gen_s, 3), "load_seconds": round(load_s, 3)}
    deg = np.bincount(np.concatenate([snap.src, snap.dst]), minlength=n)
    out["degree"] = {"mean": float(deg.mean()), "p50": float(np.median(deg)), "p99": float(np.percentile(deg, 99)),
                     "max": int(deg.max())}
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
        lat[name] = {"p50_ms": round(1000 * _pct(times, 50), 3), "p95_ms": round(1000 * _pct(times, 95), 3),
                     "first_ms": round(1000 * first[name], 1), "queries": len(times)}
    out["build_seconds"] = round(load_s + sum(max(0.0, first[r] - lat[r]["p50_ms"] / 1000) for r in RETRIEVERS), 3)
    out["latency"] = lat
    out["rss_mb_after_build"], _ = _rss_mb()
    if baselines:
        out["baselines"] = _baselines(store, g.questions, baseline_queries)
    out["rss_mb_now"], out["peak_rss_mb"] = _rss_mb()
    return out


def _kind_counts(snap) -> dict[str, int]:
    from memgraph_agents.storage.snapshot import NODE_KINDS

    counts = np.bincount(snap.kind.astype(np.int64), minlength=len(NODE_KINDS))
    return {NODE_KINDS[i].value: int(c) for i, c in enumerate(counts) if c}


def _child(n_nodes: int, kwargs: dict, conn) -> None:
    try:
        conn.send(("ok", run_size(n_nodes, **kwargs)))
    except BaseException as e:  # noqa: BLE001 - reported by the parent
        import traceback

        conn.send(("error", f"{type(e).__name__}: {e}\n{traceback.format_exc()}"))
    finally:
        conn.close()


def run_scale(sizes: list[int], out_dir: Path, *, dim: int = 384, seed: int = 0, queries: int = 30,
              nav_queries: int = 10, baseline_queries: int = 3, baseline_max_nodes: int = 1_000_000,
              progress=print) -> dict:
    """Every size in a fresh process; writes ``scale.json`` and ``scale.png`` into ``out_dir``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    ctx = multiprocessing.get_context("spawn")
    results = []
    for n in sizes:
        kwargs = dict(dim=dim, seed=seed, queries=queries, nav_queries=nav_queries,
                      baseline_queries=baseline_queries, baselines=n <= baseline_max_nodes)
        progress(f"scale: {n:,} nodes ...")
        recv, send = ctx.Pipe(duplex=False)
        p = ctx.Process(target=_child, args=(n, kwargs, send))
        t0 = time.perf_counter()
        p.start()
        send.close()
        status, payload = recv.recv()
        p.join()
        if status != "ok":
            raise RuntimeError(f"bench scale at {n:,} nodes failed: {payload}")
        payload["wall_seconds"] = round(time.perf_counter() - t0, 1)
        results.append(payload)
        lat = payload["latency"]
        progress(f"  {payload['nodes']:,} nodes, {payload['edges']:,} edges: build {payload['build_seconds']:.1f}s, "
                 f"peak RSS {payload['peak_rss_mb']:.0f} MB; p50 " +
                 ", ".join(f"{r} {lat[r]['p50_ms']:.1f}ms" for r in RETRIEVERS))
    summary = _summary(results)
    command = ("memgraph " + shlex.join(sys.argv[1:]) if Path(sys.argv[0]).name == "memgraph"
               else f"memgraph bench scale --nodes {','.join(str(n) for n in sizes)} --out {out_dir}")
    doc = {"command": command,
           "machine": {"python": platform.python_version(), "cpus": os.cpu_count(), "platform": platform.platform(),
                       "memory_gb": round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1)},
           "settings": {"dim": dim, "seed": seed, "queries": queries, "nav_queries": nav_queries,
                        "baseline_queries": baseline_queries},
           "sizes": results, "summary": summary}
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
    out["navigator"] = "offline policy (memgraph_agents.navigator), seeded by ppr+dwpr"
    return out


def _plot(results: list[dict], path: Path) -> None:
    import matplotlib

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
            ax.plot(bx, [r["baselines"]["igraph_ms"]["p50"] for r in base], ":", marker="+",
                    label="igraph personalized_pagerank")
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


# --------------------------------------------------------------------------- CLI


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


def add_scale_parser(bsub) -> None:
    s = bsub.add_parser("scale", help="retrieval latency and memory on synthetic graphs (1e3..1e6 nodes)",
                        description="Synthetic event graphs of each size; per size: build seconds, peak RSS, "
                                    "p50/p95 latency of ppr, dwpr, sentence_hop and the offline navigator, and the "
                                    "PPR core against networkx / igraph. Writes OUT/scale.json and OUT/scale.png.")
    s.add_argument("--nodes", default="1e3,1e4,1e5,1e6", help="comma-separated sizes (default 1e3,1e4,1e5,1e6)")
    s.add_argument("--out", type=Path, help="output directory (required)")
    s.add_argument("--queries", type=int, default=30, help="timed questions per retriever (default 30)")
    s.add_argument("--nav-queries", type=int, default=10, help="timed questions for the navigator (default 10)")
    s.add_argument("--baseline-queries", type=int, default=3, help="questions for networkx / igraph (default 3)")
    s.add_argument("--baseline-max-nodes", type=float, default=1e6,
                   help="skip networkx / igraph above this size (default 1e6)")
    s.add_argument("--dim", type=int, default=384, help="vector dimension (default 384, as all-MiniLM-L6-v2)")
    s.add_argument("--seed", type=int, default=0)


def cmd_bench_scale(args: argparse.Namespace, settings) -> int:
    from memgraph_agents.cli.output import console

    if args.out is None:
        raise ValueError("bench scale needs --out DIR (where scale.json and scale.png go)")
    if args.out.exists() and not args.out.is_dir():
        raise ValueError(f"--out {args.out}: exists and is not a directory")
    for name in ("queries", "nav_queries", "baseline_queries", "dim"):
        if getattr(args, name) < 1:
            raise ValueError(f"--{name.replace('_', '-')} must be at least 1")
    sizes = parse_sizes(args.nodes)
    doc = run_scale(sizes, args.out, dim=args.dim, seed=args.seed, queries=args.queries, nav_queries=args.nav_queries,
                    baseline_queries=args.baseline_queries, baseline_max_nodes=int(args.baseline_max_nodes),
                    progress=lambda m: console.print(m, markup=False))
    s = doc["summary"]
    if "ppr_p50_ms_at_1m" in s:
        console.print(f"PPR p50 at 1M nodes: {s['ppr_p50_ms_at_1m']:.1f} ms (target {s['ppr_p50_target_ms']:.0f} ms: "
                      f"{'met' if s['ppr_p50_target_met'] else 'NOT met'})", markup=False)
    if "ppr_slope_vs_edges" in s:
        console.print(f"PPR p50 log-log slope vs edges: {s['ppr_slope_vs_edges']:.2f} (≤ 1: no faster than edges)",
                      markup=False)
    console.print(f"wrote {args.out / 'scale.json'} and {args.out / 'scale.png'}", markup=False)
    return 0
