"""The topic layer's k-means: this package's numpy k-means against scikit-learn's ``KMeans``
(the one it replaced) on the same embedded turns, CPU time and inertia.

    python docs/bench-light/kmeans_cost.py ../shared/data/locomo/locomo_dev.json   # scikit-learn: in .[dev]

For each size n the first n turns of the file (in conversation order) are embedded with the
default model, L2-normalised as the topic layer does, and clustered into ``topic_count(n)``
topics, 4 seeded runs each (as the topic layer asks); CPU ms are the median of 3 calls (all
threads), one BLAS thread for both.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
from sklearn.cluster import KMeans  # noqa: E402

from memgraph_agents.construct.kmeans import kmeans  # noqa: E402
from memgraph_agents.construct.topics import topic_count  # noqa: E402
from memgraph_agents.embeddings import make_embedding_model  # noqa: E402
from memgraph_agents.loaders.locomo import load_locomo  # noqa: E402


def cpu_ms(call) -> tuple[float, float]:
    times, inertia = [], 0.0
    for _ in range(3):
        t = time.process_time()
        inertia = call()
        times.append((time.process_time() - t) * 1000)
    return statistics.median(times), inertia


def main(path: str) -> None:
    texts = [t.text for s in load_locomo(path) for sess in s.conversation.sessions for t in sess.turns]
    vecs = np.asarray(make_embedding_model("minilm").embed(texts[:1000]), dtype=np.float64)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    print("| n | topics | numpy k-means CPU ms | scikit-learn CPU ms | inertia numpy / scikit-learn |")
    print("|--:|--:|--:|--:|--:|")
    for n in (100, 300, 1000):
        x, k = vecs[:n], topic_count(n)
        ours, ours_j = cpu_ms(lambda x=x, k=k: kmeans(x, k, n_init=4, seed=0)[2])
        theirs, theirs_j = cpu_ms(lambda x=x, k=k: KMeans(n_clusters=k, n_init=4, random_state=0).fit(x).inertia_)
        print(f"| {n} | {k} | {ours:.0f} | {theirs:.0f} | {ours_j / theirs_j:.4f} |")


if __name__ == "__main__":
    main(sys.argv[1])
