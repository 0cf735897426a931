"""``storage.vector_plan``: a chain of planned splices builds the matrix that splicing it commit
by commit builds; per-kind vectors carried through appends equal those picked anew."""

from __future__ import annotations

import random

import numpy as np

from memgraph_agents.storage.splice import Splice, plan_splice, splice_array
from memgraph_agents.storage.vector_plan import KindRows, VectorPlan, carry_kind_rows, plan_vectors


def random_commit(rng: random.Random, rowid: list[int], next_rowid: int) -> tuple[Splice, list[int], int]:
    """A random commit over rows of ``rowid``: some gone, some read back in place, some new at the end."""
    n = len(rowid)
    gone = sorted(rng.sample(range(n), rng.randrange(0, min(n, 4) + 1))) if n else []
    back = sorted(rowid[p] for p in gone if rng.random() < 0.5)  # rewritten in place
    fresh = list(range(next_rowid, next_rowid + rng.randrange(0, 5)))  # appended
    new_rowid = back + fresh
    sp = plan_splice(np.array(rowid, dtype=np.int64), np.array(gone, dtype=np.int64), np.array(new_rowid))
    assert sp is not None
    kept = [r for p, r in enumerate(rowid) if p not in set(gone)]
    return sp, sorted(kept + new_rowid), next_rowid + len(fresh)


def test_a_chained_plan_builds_the_spliced_matrix() -> None:
    rng = random.Random(11)
    for _ in range(60):
        n = rng.randrange(0, 30)
        rowid = list(range(1, n + 1))
        mat = np.arange(n * 3, dtype=np.float32).reshape(n, 3)
        prev: np.ndarray | VectorPlan = mat
        want = mat
        nxt = n + 1
        for step in range(rng.randrange(1, 8)):
            sp, rowid, nxt = random_commit(rng, rowid, nxt)
            fresh = np.full((sp.n_new - int((sp.remap >= 0).sum()), 3), -(step + 1), dtype=np.float32)
            fresh += np.arange(len(fresh), dtype=np.float32)[:, None]
            want = splice_array(want, sp, fresh)
            prev = plan_vectors(prev, sp, fresh)
            assert isinstance(prev, VectorPlan) and len(prev.fresh) == step + 1
            got = prev.materialize()
            assert got.dtype == np.float32 and np.array_equal(got, want)


def kinds_of(ids: list[str]) -> np.ndarray:
    return np.array([0 if i.startswith("a") else 1 for i in ids], dtype=np.int8)


def test_kind_rows_carried_through_appends_equal_those_picked_again() -> None:
    rng = random.Random(5)
    carried = 0
    for _ in range(80):
        n = rng.randrange(1, 25)
        ids = [f"{rng.choice('ab')}{p}" for p in range(n)]
        mat = rng.random() * np.arange(n * 2, dtype=np.float32).reshape(n, 2)
        rowid = list(range(1, n + 1))
        idx = np.flatnonzero(kinds_of(ids) == 0)
        rows_a = KindRows.of(idx, mat[idx])
        for _ in range(rng.randrange(1, 6)):
            # Re-read some existing rows (same id, same rowid; vector changed or not), append new ones.
            back = sorted(rng.sample(range(len(ids)), rng.randrange(0, min(3, len(ids)) + 1)))
            k = rng.randrange(0, 4)
            new_ids = [f"{rng.choice('ab')}{len(ids) + j}x" for j in range(k)]
            new_rowid = [rowid[p] for p in back] + list(range(rowid[-1] + 1, rowid[-1] + 1 + k))
            sp = plan_splice(np.array(rowid), np.array(back, dtype=np.int64), np.array(new_rowid))
            assert sp is not None
            read = [ids[p] for p in back] + new_ids
            fresh = np.array(
                [mat[p] if rng.random() < 0.8 else mat[p] + 1 for p in back]
                + [[float(len(ids) + j)] * 2 for j in range(k)],
                dtype=np.float32,
            ).reshape(-1, 2)
            new_ids_all = ids + new_ids
            new_mat = splice_array(mat, sp, fresh)
            index = {i: p for p, i in enumerate(new_ids_all)}
            rows = [(i, "kind") for i in read]
            got = carry_kind_rows(rows_a, ids, sp, index, rows, fresh, 0, kinds_of(read))
            want_idx = np.flatnonzero(kinds_of(new_ids_all) == 0)
            if got is not None:
                carried += 1
                assert got.idx.tolist() == want_idx.tolist()
                assert np.array_equal(got.vecs, new_mat[want_idx])
            else:  # only when a row of the kind changed its vector
                changed = [
                    j for j, p in enumerate(back) if ids[p].startswith("a") and not np.array_equal(fresh[j], mat[p])
                ]
                assert changed
                got = KindRows.of(want_idx, new_mat[want_idx])
            rows_a, ids, mat, rowid = got, new_ids_all, new_mat, sorted(rowid + new_rowid[len(back) :])
    assert carried > 100


def test_carries_from_one_snapshot_do_not_overwrite_each_other() -> None:
    """Two deltas from the same base (a base reused): the second must not write the rows the
    first placed in the shared buffer's spare capacity."""
    idx = np.array([0, 1])
    base = KindRows.of(idx, np.array([[1, 1], [2, 2]], dtype=np.float32))
    sp = plan_splice(np.array([1, 2]), np.zeros(0, dtype=np.int64), np.array([3]))
    assert sp is not None
    index = {"a0": 0, "a1": 1, "a2": 2}
    first = carry_kind_rows(
        base, ["a0", "a1"], sp, index, [("a2", "k")], np.array([[3, 3]], np.float32), 0, np.zeros(1)
    )
    second = carry_kind_rows(
        base, ["a0", "a1"], sp, index, [("a2", "k")], np.array([[9, 9]], np.float32), 0, np.zeros(1)
    )
    assert first is not None and second is not None
    assert first.vecs.tolist() == [[1, 1], [2, 2], [3, 3]]
    assert second.vecs.tolist() == [[1, 1], [2, 2], [9, 9]]
    assert base.vecs.tolist() == [[1, 1], [2, 2]]
    assert not first.vecs.flags.writeable and not first.idx.flags.writeable
