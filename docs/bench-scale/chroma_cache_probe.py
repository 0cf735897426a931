"""Probe: does capping a `chroma run` server's HNSW segment cache keep many collections usable?

    python docs/bench-scale/chroma_cache_probe.py --capacity 20 --sync 10 --out DIR

Starts `chroma run CONFIG` (chromadb's own server; ``--capacity 0`` leaves its default cache of
RLIMIT_NOFILE / 5 collections) on a free port, writes ``--collections`` collections of 60
random 64-d vectors (documents and metadata too), then twice over all of them: a get of two
embeddings, a 5-NN query, an upsert of 10 more, a delete, a ``where`` read; the second pass also checks
that the first pass's writes are still there. ``--sync N``
creates the collections with HNSW ``sync_threshold`` = ``batch_size`` = N (every write of N or
more persists the index); ``--raise-after`` then modifies them to 1,000 / 100 before the
reads (later writes stay unpersisted). Prints the server's descriptors and RSS and the errors.
Not part of the package: it measures chromadb, for docs/benchmarks-history.md "Many tenants".
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import chromadb
import numpy as np
from chromadb.config import Settings


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--capacity", type=int, default=20, help="HNSW cache capacity (0: chromadb's default)")
    ap.add_argument("--sync", type=int, default=0, help="sync_threshold = batch_size of new collections (0: default)")
    ap.add_argument("--raise-after", action="store_true", help="modify to 1000 / 100 after the first write")
    ap.add_argument("--collections", type=int, default=300)
    ap.add_argument("--out", type=Path, default=None)
    a = ap.parse_args()
    root = a.out or Path(tempfile.mkdtemp(prefix="chroma-probe-"))
    root.mkdir(parents=True, exist_ok=True)
    port = free_port()
    cfg = f'port: {port}\nlisten_address: "127.0.0.1"\npersist_path: "{root / "data"}"\n'
    if a.capacity:
        cfg += f"segment_manager:\n  hnsw_index_pool_cache_config:\n    memory:\n      capacity: {a.capacity}\n"
    (root / "config.yaml").write_text(cfg)
    chroma = str(Path(sys.executable).with_name("chroma"))
    server = subprocess.Popen(
        [chroma, "run", str(root / "config.yaml")], stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT
    )
    try:
        client = None
        for _ in range(100):
            try:
                client = chromadb.HttpClient(host="127.0.0.1", port=port, settings=Settings(anonymized_telemetry=False))
                client.heartbeat()
                break
            except Exception:
                time.sleep(0.2)
        assert client is not None

        def fds() -> int:
            return len(os.listdir(f"/proc/{server.pid}/fd"))

        def rss() -> int:
            status = Path(f"/proc/{server.pid}/status").read_text()
            return int(status.split("VmRSS:")[1].split()[0]) // 1024

        hnsw: dict = {"space": "cosine"}
        if a.sync:
            hnsw.update(sync_threshold=a.sync, batch_size=a.sync)
        rng = np.random.default_rng(0)
        n = a.collections
        for i in range(n):
            col = client.get_or_create_collection(f"t{i:04d}", configuration={"hnsw": hnsw})
            col.upsert(
                ids=[f"n{j}" for j in range(60)],
                embeddings=rng.standard_normal((60, 64)).astype(np.float32),
                documents=[f"d{j}" for j in range(60)],
                metadatas=[{"kind": "turn", "session_id": "S1"}] * 60,
            )
            if a.raise_after:
                col.modify(configuration={"hnsw": {"sync_threshold": 1000, "batch_size": 100}})
        print(f"after writes: descriptors {fds()}, RSS {rss()} MB", flush=True)
        errors = 0
        for rnd in range(2):
            for i in range(n):
                col = client.get_collection(f"t{i:04d}")
                try:
                    got = col.get(ids=["n0", "n59"], include=["embeddings"])
                    assert len(got["ids"]) == 2
                    hits = col.query(query_embeddings=[rng.standard_normal(64).astype(np.float32)], n_results=5)
                    assert len(hits["ids"][0]) == 5
                    new = rng.standard_normal((10, 64)).astype(np.float32)
                    col.upsert(ids=[f"m{rnd}_{j}" for j in range(10)], embeddings=new, documents=["x"] * 10)
                    col.delete(ids=[f"n{1 + rnd}"])
                    col.get(where={"session_id": "S1"}, include=["documents"])
                    if rnd:  # the previous pass's writes are still there
                        kept = col.get(ids=[f"m0_{j}" for j in range(10)], include=["embeddings"])
                        assert len(kept["ids"]) == 10, f"{len(kept['ids'])} of 10 earlier writes found"
                        assert col.count() == 60 + 20 - 2, f"count {col.count()}"
                except Exception as e:
                    errors += 1
                    if errors <= 2:
                        print(f"  error (pass {rnd + 1}, collection {i}): {' '.join(str(e).split())[:160]}")
            print(f"pass {rnd + 1}: errors so far {errors}, descriptors {fds()}, RSS {rss()} MB", flush=True)
    finally:
        server.terminate()
        server.wait(timeout=30)


if __name__ == "__main__":
    main()
