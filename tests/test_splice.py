"""``storage.splice``: splicing rowid-ordered columns equals merging and sorting them again."""

from __future__ import annotations

import random

import numpy as np

from memgraph_agents.model.ranking import ranks_of
from memgraph_agents.storage.snapshot import object_column
from memgraph_agents.storage.splice import (
    append_column,
    grow_column,
    is_append,
    plan_splice,
    rewritten_in_place,
    splice_array,
    splice_index,
    splice_list,
    splice_ranks,
)


def reference(old_rowid: list[int], gone: set[int], new_rowid: list[int]) -> list[tuple[str, int]]:
    """What a full reload orders: the kept old rows and the new ones, by rowid."""
    rows = [(r, ("old", p)) for p, r in enumerate(old_rowid) if p not in gone]
    rows += [(r, ("new", j)) for j, r in enumerate(new_rowid)]
    return [src for _, src in sorted(rows)]


def test_splice_matches_a_sorted_merge_on_random_changes() -> None:
    rng = random.Random(7)
    for _ in range(300):
        n = rng.randrange(0, 40)
        old_rowid = sorted(rng.sample(range(1, 200), n))
        gone = set(rng.sample(range(n), rng.randrange(0, n + 1))) if n else set()
        # new rows: some under a gone row's rowid (updated in place), others at free rowids
        free = sorted(set(range(1, 260)) - set(old_rowid))
        reused = [old_rowid[p] for p in gone if rng.random() < 0.5]
        new_rowid = sorted(reused + rng.sample(free, rng.randrange(0, 8)))
        sp = plan_splice(np.array(old_rowid, dtype=np.int64), np.array(sorted(gone)), np.array(new_rowid))
        assert sp is not None
        want = reference(old_rowid, gone, new_rowid)
        old = [f"o{p}" for p in range(n)]
        new = [f"n{j}" for j in range(len(new_rowid))]
        expect = [f"o{i}" if k == "old" else f"n{i}" for k, i in want]
        assert splice_list(old, sp, new) == expect
        mat = np.arange(n * 2, dtype=np.float32).reshape(n, 2)
        fresh = -np.arange(1, 1 + 2 * len(new_rowid), dtype=np.float32).reshape(-1, 2)
        got = splice_array(mat, sp, fresh)
        assert got.tolist() == [(mat[i] if k == "old" else fresh[i]).tolist() for k, i in want]
        # each kept old position's new place, and each new row's
        for pos, (k, i) in enumerate(want):
            assert (sp.remap[i] if k == "old" else sp.at[i]) == pos
        assert all(sp.remap[p] == -1 for p in gone)


def test_a_changed_row_not_read_back_is_refused() -> None:
    # rowid 5 is kept (not gone) yet comes back as new: the delta missed a change
    assert plan_splice(np.array([1, 5, 9]), np.array([], dtype=np.int64), np.array([5])) is None
    assert plan_splice(np.array([1, 5, 9]), np.array([1]), np.array([5])) is not None


def test_spliced_ranks_equal_ranks_of_the_new_ids() -> None:
    rng = random.Random(3)
    for _ in range(200):
        n = rng.randrange(0, 30)
        old_ids = rng.sample([f"event:S{s}:{k}" for s in range(1, 12) for k in range(1, 12)], n)
        gone = sorted(rng.sample(range(n), rng.randrange(0, n + 1))) if n else []
        # gone rows read back under new rowids (at the end), with fresh ids besides
        back = [old_ids[p] for p in gone if rng.random() < 0.5]
        fresh = [f"arg:{rng.random():.6f}" for _ in range(rng.randrange(0, 6))]
        sp = plan_splice(
            np.arange(n, dtype=np.int64), np.array(gone, dtype=np.int64), np.arange(n, n + len(back) + len(fresh))
        )
        assert sp is not None
        ids = splice_list(old_ids, sp, back + fresh)
        assert splice_ranks(ranks_of(old_ids), sp, ids).tolist() == ranks_of(ids).tolist()
        old_index = {n: i for i, n in enumerate(old_ids)}
        assert splice_index(old_index, old_ids, sp, ids) == {n: i for i, n in enumerate(ids)}
        assert old_index == {n: i for i, n in enumerate(old_ids)}  # the old map is not touched


def test_spliced_index_of_a_long_list_with_a_changed_tail() -> None:
    """Few rows rewritten in place or moved near the end: the map is updated, not rebuilt."""
    rng = random.Random(5)
    for _ in range(100):
        n = 200
        old_ids = [f"n{i}" for i in range(n)]
        gone = sorted(rng.sample(range(n - 20, n), 4) + rng.sample(range(n), 2))
        moved = [old_ids[p] for p in gone[:2]]
        in_place = [p for p in gone[2:] if rng.random() < 0.5]
        new_rowid = sorted([*in_place, n + 1, n + 2])
        rows = {p: f"n{p}" for p in in_place} | {n + 1: moved[0], n + 2: f"x{rng.random()}"}
        sp = plan_splice(np.arange(n, dtype=np.int64), np.array(gone), np.array(new_rowid))
        assert sp is not None
        ids = splice_list(old_ids, sp, [rows[r] for r in new_rowid])
        assert splice_index({m: i for i, m in enumerate(old_ids)}, old_ids, sp, ids) == {
            m: i for i, m in enumerate(ids)
        }


def test_append_column_grows_in_place_and_never_changes_an_older_view() -> None:
    rng = random.Random(9)
    for dtype in (np.int32, np.float32, object):
        col = np.zeros(0, dtype=dtype)
        spare = None
        views: list[tuple[np.ndarray, list]] = []
        in_place = 0
        for step in range(60):
            new = np.array([step * 10 + j for j in range(rng.randrange(0, 5))], dtype=dtype)
            base = views[rng.randrange(len(views))] if views and rng.random() < 0.2 else None
            if base is not None:  # grow an older column again: must not overwrite what a newer one wrote
                grown, _ = append_column(base[0], spare, new)
                assert grown.tolist() == base[1] + new.tolist()
                continue
            before = spare.buf if spare is not None else None
            col, spare = append_column(col, spare, new)
            in_place += spare.buf is before
            views.append((col, col.tolist()))
            for v, want in views:
                assert v.tolist() == want
        assert in_place > 25


def test_is_append_tells_a_plan_that_only_adds_rows_at_the_end() -> None:
    old = np.array([1, 2, 3], dtype=np.int64)
    none = np.zeros(0, dtype=np.int64)
    assert is_append(plan_splice(old, none, np.array([4, 5])))  # type: ignore[arg-type]
    assert is_append(plan_splice(old, none, none))  # type: ignore[arg-type]
    assert is_append(plan_splice(np.zeros(0, dtype=np.int64), none, np.array([1])))  # type: ignore[arg-type]
    assert not is_append(plan_splice(old, np.array([1]), np.array([4])))  # type: ignore[arg-type]
    assert not is_append(plan_splice(np.array([1, 5]), none, np.array([3])))  # type: ignore[arg-type]


def test_grow_column_equals_the_splice_and_appends_when_rewritten_rows_are_unchanged() -> None:
    rng = random.Random(21)
    appended = 0
    for _ in range(300):
        n = rng.randrange(0, 30)
        rowid = sorted(rng.sample(range(1, 100), n))
        back = sorted(rng.sample(range(n), rng.randrange(0, min(n, 4) + 1))) if n else []
        moved = [p for p in back if rng.random() < 0.2]  # read back under a new rowid: not in place
        tail = list(range(200, 200 + rng.randrange(0, 5)))
        new_rowid = sorted([rowid[p] for p in back if p not in moved] + [300 + p for p in moved] + tail)
        sp = plan_splice(np.array(rowid, dtype=np.int64), np.array(back, dtype=np.int64), np.array(new_rowid))
        assert sp is not None
        old = object_column([f"v{p}" for p in range(n)])
        by_rowid = {r: f"v{p}" for p, r in enumerate(rowid)}
        new = object_column(
            [by_rowid[r] if r in by_rowid and rng.random() < 0.8 else f"w{r}" for r in new_rowid]  # most unchanged
        )
        in_place = rewritten_in_place(sp)
        assert in_place is not None or moved  # (a row moved to the last place is in place too)
        got, spare = grow_column(old, None, sp, new, in_place)
        assert got.tolist() == splice_array(old, sp, new).tolist()
        appended += spare is not None
        if spare is not None:  # in place and unchanged: the old rows kept, the rest appended
            assert in_place is not None and all(new[j] == old[sp.at[j]] for j in in_place)
    assert appended > 50
