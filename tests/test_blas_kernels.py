"""Similarity decisions do not depend on the BLAS kernel: the same inputs give the same edges,
neighbours and orders under every OpenBLAS core type this machine can select.

A BLAS kernel rounds a dot product by where the row sits in the matrix (which micro-kernel
tile) and by the kernel chosen for the CPU, so two identical vectors get scores a few ulps
apart. Each case below runs in a child process with ``OPENBLAS_CORETYPE`` (and 1 or 2 BLAS
threads) set before numpy loads, and every run must print the same result.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from memgraph_agents.model.ranking import exact_dots, screen_margin

pytestmark = pytest.mark.slow  # seconds per test: left out of the fast subset (-m "not slow")

# The kernel families this OpenBLAS (numpy's bundled build) dispatches to on x86-64; a name
# the build does not know falls back to the detected core, which is harmless here.
CORETYPES = ("Prescott", "Nehalem", "Sandybridge", "Haswell", "SkylakeX")

_SCRIPT = r"""
import json
import numpy as np
from memgraph_agents.construct.premem.clusters import cluster_fragments
from memgraph_agents.construct.segment import gap_similarities
from memgraph_agents.construct.sgmem.offline import pick_central
from memgraph_agents.construct.synonyms import knn_pairs, synonym_pairs, synonym_pairs_within
from memgraph_agents.construct.topics import kmeans_topics
from memgraph_agents.retrieval.diverse import mmr_order

rng = np.random.default_rng(7)
base = rng.normal(size=(6, 48)).astype(np.float32)
old = base[rng.integers(0, 6, 70)]  # exact duplicates at many row positions: equal cosines
new = base[rng.integers(0, 6, 9)] + np.float32(0.02) * rng.normal(size=(9, 48)).astype(np.float32)
key = rng.permutation(70)
unit = old / np.linalg.norm(old, axis=1, keepdims=True)
out = {
    "synonyms": synonym_pairs(new, old, threshold=0.8, max_per_node=100, old_order=key),
    "within": synonym_pairs_within(old, threshold=0.8, max_per_node=4),
    "knn": knn_pairs(old, 2),
    "central": pick_central(unit, 4),
    "mmr": mmr_order([1.0] * 70, unit, 0.1, 10)[0],
    "gaps": gap_similarities(old).tolist(),
}
blurred = old + np.float32(0.6) * rng.normal(size=old.shape).astype(np.float32)  # overlapping topics
out["topics"] = kmeans_topics(np.vstack([old, blurred]), 9)[0].tolist()
out["fragments"] = cluster_fragments(blurred[:24])
print(json.dumps(out))
"""


# Every kernel family, with one and with two BLAS threads between them.
SETTINGS = (("Prescott", 1), ("Nehalem", 2), ("Sandybridge", 1), ("Haswell", 2), ("SkylakeX", 1))


def _start(coretype: str, threads: int) -> subprocess.Popen[str]:
    env = {**os.environ, "OPENBLAS_CORETYPE": coretype, "OPENBLAS_NUM_THREADS": str(threads)}
    return subprocess.Popen(
        [sys.executable, "-c", _SCRIPT], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def test_similarity_decisions_equal_under_every_blas_kernel():
    assert {c for c, _ in SETTINGS} == set(CORETYPES)
    procs = {setting: _start(*setting) for setting in SETTINGS}  # side by side: imports dominate
    runs = {}
    for setting, proc in procs.items():
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
        runs[setting] = out
    first = runs[SETTINGS[0]]
    assert json.loads(first)["synonyms"] and json.loads(first)["knn"]
    differ = [setting for setting, out in runs.items() if out != first]
    assert not differ, f"results differ from {SETTINGS[0]} under {differ}"


def test_exact_dots_depend_on_the_vectors_not_their_rows():
    rng = np.random.default_rng(3)
    v = rng.normal(size=48).astype(np.float32)
    mat = rng.normal(size=(37, 48)).astype(np.float32)
    rows = [0, 5, 6, 17, 31, 36]
    mat[rows] = v  # one vector at rows BLAS handles in different tiles
    q = rng.normal(size=(1, 48)).astype(np.float32)
    got = exact_dots(mat, q, rows, [0] * len(rows))
    assert len(set(got.tolist())) == 1  # bit-identical, not merely close
    assert got[0] == pytest.approx(float(v.astype(np.float64) @ q[0].astype(np.float64)), abs=1e-12)
    assert abs(float((mat @ q[0])[0]) - got[0]) <= screen_margin(48) / 2  # BLAS within the stated bound
    assert exact_dots(mat, q, [], []).shape == (0,)
