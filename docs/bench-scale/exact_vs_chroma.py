"""Exact dense top-k on a float32 matrix vs an embedded Chroma HNSW collection, by size.

    python docs/bench-scale/exact_vs_chroma.py

Random unit 384-d vectors (MiniLM's dimension), n = 1e4, 3e4, 1e5: median ms of an exact
top-10 (one matrix-vector product and a partial sort, what ``storage.exact_search`` does), of a
Chroma query (k = 10, with documents), and of a Chroma upsert of 66 vectors with documents and
metadata (one synthetic 22-turn session's embedded nodes). It is the measurement behind the
default ``MEMGRAPH_EXACT_SEARCH_NODES`` / ``MEMGRAPH_CHROMA_INDEX_NODES`` (BENCHMARKS.md).
"""

import statistics as st
import tempfile
import time

import chromadb
import numpy as np
from chromadb.config import Settings

rng = np.random.default_rng(0)
dim = 384
client = chromadb.PersistentClient(path=tempfile.mkdtemp(), settings=Settings(anonymized_telemetry=False))


def med(f, n=30):
    ts = []
    for _ in range(n):
        t = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t)
    return 1000 * st.median(ts)


for n in (10_000, 30_000, 100_000):
    mat = rng.standard_normal((n, dim)).astype(np.float32)
    mat /= np.linalg.norm(mat, axis=1, keepdims=True)
    qs = [rng.standard_normal(dim).astype(np.float32) for _ in range(30)]
    it = iter(qs * 100)

    def exact():
        s = mat @ next(it)
        idx = np.argpartition(-s, 10)[:10]
        idx[np.argsort(-s[idx])]

    col = client.create_collection(f"c{n}", configuration={"hnsw": {"space": "cosine"}})
    for i in range(0, n, 5000):
        col.add(
            ids=[f"n{j}" for j in range(i, min(n, i + 5000))],
            embeddings=mat[i : i + 5000],
            documents=[f"text {j}" for j in range(i, min(n, i + 5000))],
            metadatas=[{"kind": "turn", "session_id": "s"} for _ in range(i, min(n, i + 5000))],
        )
    it2 = iter(qs * 100)

    def chroma_q():
        col.query(query_embeddings=[next(it2)], n_results=10, include=["distances", "documents"])

    k = [n]

    def upsert():
        ids = [f"n{j}" for j in range(k[0], k[0] + 66)]
        v = rng.standard_normal((66, dim)).astype(np.float32)
        col.upsert(ids=ids, embeddings=v, documents=ids, metadatas=[{"kind": "turn", "session_id": "s"}] * 66)
        k[0] += 66

    print(
        f"n={n:>7}: exact top-10 {med(exact):.2f} ms | chroma query {med(chroma_q):.2f} ms | chroma upsert of 66 {med(upsert, 20):.1f} ms",
        flush=True,
    )
