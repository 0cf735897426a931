"""Splicing rowid-ordered columns: the few rows a commit changed, merged into the rest in place.

A snapshot's node and edge columns are in rowid order (the order a full reload gives). After
a commit, some old positions are gone (their rows were deleted or read back again) and some
rows are new (read back, each with its rowid). ``plan_splice`` merges the two by rowid into a
list of pieces (runs of old positions, and single new rows) whose number grows with the
change, not with the column; ``splice_list`` / ``splice_array`` then build a column from them
with slice copies (C speed), never a Python pass over every row.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Splice:
    """How a column of ``n_old`` rows becomes one of ``n_new``: ``pieces`` in output order,
    each ``(start, stop)`` (a run of old positions) or ``(-1, j)`` (new row ``j``);
    ``remap``: each old position's new position (-1: gone); ``at``: each new row's position."""

    n_old: int
    n_new: int
    pieces: list[tuple[int, int]]
    remap: np.ndarray
    at: np.ndarray


def plan_splice(old_rowid: np.ndarray, gone: np.ndarray, new_rowid: np.ndarray) -> Splice | None:
    """Merge the old rows minus the positions ``gone`` with new rows of rowids ``new_rowid``
    (both ascending), by rowid. None when the result is not a merge of sorted runs: a new
    rowid equal to a kept old row's (that row changed but was not read back)."""
    n = len(old_rowid)
    gone = np.unique(np.asarray(gone, dtype=np.int64))
    new_rowid = np.asarray(new_rowid, dtype=np.int64)
    if len(new_rowid) > 1 and bool((np.diff(new_rowid) <= 0).any()):
        return None
    q = np.searchsorted(old_rowid, new_rowid)  # insert before old position q
    hit = q < n
    same = np.zeros(len(new_rowid), dtype=bool)
    same[hit] = old_rowid[q[hit]] == new_rowid[hit]
    if same.any() and not np.isin(q[same], gone).all():
        return None
    # Events by old position; at one position the new row comes before the drop.
    events = sorted([(int(p), 1, 0) for p in gone] + [(int(p), 0, j) for j, p in enumerate(q)])
    pieces: list[tuple[int, int]] = []
    remap = np.full(n, -1, dtype=np.int64)
    at = np.zeros(len(new_rowid), dtype=np.int64)
    cur = out = 0
    for p, kind, j in events:
        if p > cur:
            pieces.append((cur, p))
            remap[cur:p] = np.arange(out, out + p - cur)
            out += p - cur
            cur = p
        if kind == 0:
            pieces.append((-1, j))
            at[j] = out
            out += 1
        else:
            cur = p + 1
    if cur < n:
        pieces.append((cur, n))
        remap[cur:n] = np.arange(out, out + n - cur)
        out += n - cur
    return Splice(n, out, pieces, remap, at)


def splice_list(old: list, sp: Splice, new: list) -> list:
    """The spliced list: runs of ``old`` by slice, ``new[j]`` where the plan puts it."""
    res: list[Any] = []
    for a, b in sp.pieces:
        if a < 0:
            res.append(new[b])
        else:
            res += old[a:b]
    return res


def splice_array(old: np.ndarray, sp: Splice, new: np.ndarray) -> np.ndarray:
    """The spliced array (along axis 0; ``new`` has the same trailing shape and dtype)."""
    out = np.empty((sp.n_new, *old.shape[1:]), dtype=old.dtype)
    pos = 0
    for a, b in sp.pieces:
        if a < 0:
            out[pos] = new[b]
            pos += 1
        else:
            out[pos : pos + b - a] = old[a:b]
            pos += b - a
    return out


def splice_ranks(old_rank: np.ndarray, sp: Splice, ids: Sequence[str] | np.ndarray) -> np.ndarray:
    """``model.ranking.ranks_of(ids)`` for the spliced ids, from the old ids' ranks: the kept
    ids keep their relative order, and only the new rows' ids are placed among them, by
    binary search (no sort of every id)."""
    order = np.empty(len(old_rank), dtype=np.int64)
    order[old_rank] = np.arange(len(old_rank))  # old positions in id order
    kept = sp.remap[order]
    kept = kept[kept >= 0]  # their new positions, in id order
    fresh = sp.at[np.argsort(np.asarray([ids[p] for p in sp.at], dtype=object), kind="stable")]
    # A binary search through ``kept`` by id per new row: gathering every kept id into a
    # sorted object array first cost a scattered read of every id (~2 ms at 63,000 nodes).
    where = np.array([bisect_left(kept, ids[p], key=ids.__getitem__) for p in fresh], dtype=np.int64)
    merged = np.insert(kept, where, fresh)
    rank = np.empty(sp.n_new, dtype=np.int64)
    rank[merged] = np.arange(sp.n_new)
    return rank


def splice_index(
    old_index: dict[str, int], old_ids: Sequence[str] | np.ndarray, sp: Splice, ids: Sequence[str] | np.ndarray
) -> dict[str, int]:
    """``{id: position}`` of the spliced ``ids``, from the old ids' map: the positions before
    the first one that changed keep their entries (one dict copy), only the rest are set
    again; a map built anew when that tail is most of the list."""
    stable = 0
    for a, b in sp.pieces:  # identical prefix: runs that did not move, rows rewritten in place
        if a < 0:
            if stable < len(old_ids) and ids[stable] == old_ids[stable]:
                stable += 1
                continue
            break
        if a != stable:
            break
        stable += b - a
    if 4 * (len(ids) - stable) > len(ids):
        return dict(zip(ids, range(len(ids))))
    index = old_index.copy()
    for p in range(stable, len(old_ids)):
        del index[old_ids[p]]
    for p in range(stable, len(ids)):
        index[ids[p]] = p
    return index


def is_append(sp: Splice) -> bool:
    """The plan keeps every old row where it was and adds the new rows after them all (the
    old rows then fill the first ``n_old`` places: the new ones can only come after)."""
    return sp.n_new == sp.n_old + len(sp.at) and bool((sp.remap == np.arange(sp.n_old)).all())


@dataclass
class Spare:
    """A column's buffer with room for more rows: ``buf[:fill]`` is in use (some snapshot's
    column is a view of it); rows past ``fill`` belong to no snapshot yet."""

    buf: np.ndarray
    fill: int


def append_column(old: np.ndarray, spare: Spare | None, new: np.ndarray) -> tuple[np.ndarray, Spare]:
    """``np.concatenate([old, new])``, as the leading slice of a buffer with spare capacity, and that
    buffer. When ``old`` is the filled prefix of ``spare``'s buffer (no other column grew it
    since), ``new`` is written after it, in place: ``old`` (a view that ends where it did)
    does not change, and nothing of it is copied. Else ``old`` is copied into a buffer half as
    large again, so a column that only grows is copied O(log n) times in all."""
    n, k = len(old), len(new)
    if (
        spare is not None
        and spare.fill == n
        and n + k <= len(spare.buf)
        and old.base is spare.buf
        and old.__array_interface__["data"][0] == spare.buf.__array_interface__["data"][0]
    ):
        spare.buf[n : n + k] = new
        spare.fill = n + k
        return spare.buf[: n + k], spare
    buf = np.empty((max(16, (n + k) * 3 // 2), *old.shape[1:]), dtype=old.dtype)
    buf[:n] = old
    buf[n : n + k] = new
    return buf[: n + k], Spare(buf, n + k)


def rewritten_in_place(sp: Splice) -> np.ndarray | None:
    """For a plan that keeps every old row where it was, puts some new rows at the positions of
    the old rows they replace (rewritten under the same rowid) and the others after them all:
    the indices of the new rows written in place (the others are appended, in order); else None."""
    n = sp.n_old
    mid = np.flatnonzero(sp.at < n)
    gone = np.flatnonzero(sp.remap < 0)
    kept = sp.remap >= 0
    if not np.array_equal(np.sort(sp.at[mid]), gone) or not np.array_equal(sp.remap[kept], np.flatnonzero(kept)):
        return None
    return mid


def grow_column(
    old: np.ndarray, spare: Spare | None, sp: Splice, new: np.ndarray, in_place: np.ndarray | None
) -> tuple[np.ndarray, Spare | None]:
    """``splice_array(old, sp, new)``, and the buffer behind it when it has spare capacity: when
    the rows ``sp`` rewrites in place (``rewritten_in_place``) hold the values they held, only
    the appended rows are written (``append_column``); else a spliced copy (no spare)."""
    if in_place is not None and all(old[sp.at[j]] == new[j] for j in in_place):
        return append_column(old, spare, new[np.flatnonzero(sp.at >= sp.n_old)])
    return splice_array(old, sp, new), None
