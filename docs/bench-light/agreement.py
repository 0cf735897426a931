"""How closely two data dirs' vectors agree: the same conversations ingested with two models.

    python docs/bench-light/agreement.py DIR_A DIR_B

For every namespace both hold, the turn nodes' stored vectors (the graph rows' ``node_vectors``)
are compared by cosine (min, 1st percentile, median, mean over all turns), and dense top-10
lists over the turns are compared for 200 turns per namespace used as queries (the query's
own turn excluded): the share of identical top-10 sets.
"""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

import numpy as np


def turn_vectors(data_dir: Path, ns: str) -> dict[str, np.ndarray]:
    con = sqlite3.connect(f"file:{data_dir / 'namespaces' / ns / 'graph.sqlite'}?mode=ro", uri=True)
    try:
        rows = con.execute(
            "SELECT v.id, v.vec FROM node_vectors v JOIN nodes n ON n.id = v.id WHERE n.kind = 'turn'"
        ).fetchall()
    finally:
        con.close()
    return {i: np.frombuffer(v, dtype=np.float32) for i, v in rows}


def main(a: Path, b: Path) -> None:
    names = sorted({p.name for p in (a / "namespaces").iterdir()} & {p.name for p in (b / "namespaces").iterdir()})
    cos_all, same_top = [], []
    for ns in names:
        va, vb = turn_vectors(a, ns), turn_vectors(b, ns)
        ids = sorted(set(va) & set(vb))
        A, B = np.stack([va[i] for i in ids]), np.stack([vb[i] for i in ids])
        cos_all.append((A * B).sum(axis=1))
        for q in range(0, len(ids), max(1, len(ids) // 200)):
            sa, sb = A @ A[q], B @ B[q]
            sa[q] = sb[q] = -np.inf
            same_top.append(set(np.argsort(-sa, kind="stable")[:10]) == set(np.argsort(-sb, kind="stable")[:10]))
    c = np.concatenate(cos_all)
    print(
        f"{len(names)} namespaces, {len(c)} turns: cosine min {c.min():.4f}, p1 {np.percentile(c, 1):.4f}, "
        f"median {np.median(c):.4f}, mean {c.mean():.4f}; identical dense top-10 for "
        f"{100 * np.mean(same_top):.1f} % of {len(same_top)} turn queries"
    )


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
