"""A snapshot's vectors matrix carried across commits without copying it on each one (flat cost per commit).

The snapshot delta used to splice the whole ``(n, dim)`` matrix after every commit: a copy
of every stored vector per session, while an ingest only reads the vectors of a few node
kinds (``GraphSnapshot.kind_vectors``). ``VectorPlan`` defers it: each row of the matrix is
named by its ``origin`` in the concatenation of a materialized ``base`` matrix and the fresh
rows of each commit since. Carrying a plan through a commit splices the int64 ``origin``
(8 bytes a row, not ``4 * dim``); the matrix is built with one gather when someone asks for it.

``carry_kind_rows`` carries the rows of one kind (their positions and a read-only matrix of
their vectors) through a commit that only appends to that kind, into spare capacity of the
same buffer: what an ingest compares new nodes with, at a cost that grows with the commit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from memgraph_agents.storage.splice import Spare, Splice, append_column, splice_array

# A plan is materialized (and a new one started from it) after this many commits, or once
# its fresh rows are this fraction of the base: a bounded chain, an amortized gather.
MAX_STEPS = 64
MAX_FRESH_FRACTION = 0.25


@dataclass(frozen=True)
class VectorPlan:
    """Row ``r`` of the matrix is row ``origin[r]`` of ``base`` followed by every ``fresh``."""

    base: np.ndarray
    fresh: tuple[np.ndarray, ...]
    origin: np.ndarray

    def materialize(self) -> np.ndarray:
        """The ``(len(origin), dim)`` float32 matrix (one gather from each source)."""
        n_base = len(self.base)
        out = np.empty((len(self.origin), self.base.shape[1]), dtype=np.float32)
        from_base = self.origin < n_base
        out[from_base] = self.base[self.origin[from_base]]
        if self.fresh and not from_base.all():
            rest = np.concatenate(self.fresh)
            out[~from_base] = rest[self.origin[~from_base] - n_base]
        return out

    def too_long(self) -> bool:
        """Time to materialize instead of carrying the plan further."""
        extra = sum(len(f) for f in self.fresh)
        return len(self.fresh) >= MAX_STEPS or extra > MAX_FRESH_FRACTION * max(len(self.base), 1)


def plan_vectors(prev: np.ndarray | VectorPlan, sp: Splice, fresh: np.ndarray) -> VectorPlan:
    """The plan of ``splice_array(matrix of prev, sp, fresh)``, without building either matrix."""
    if isinstance(prev, VectorPlan):
        base, rows, origin = prev.base, prev.fresh, prev.origin
    else:
        base, rows, origin = prev, (), np.arange(len(prev), dtype=np.int64)
    offset = len(base) + sum(len(f) for f in rows)
    fresh = np.asarray(fresh, dtype=np.float32)
    return VectorPlan(base, (*rows, fresh), splice_array(origin, sp, np.arange(offset, offset + len(fresh))))


@dataclass(frozen=True)
class KindRows:
    """The positions of one node kind's rows (ascending) and their vectors (read-only): the
    leading rows of ``spare``'s buffer, so that a carry appends after them in place when no
    other snapshot appended there first (``storage.splice.append_column``)."""

    idx: np.ndarray
    vecs: np.ndarray
    spare: Spare

    def __post_init__(self) -> None:
        self.idx.flags.writeable = False  # handed out as is (``BuildContext.existing``)
        self.vecs.flags.writeable = False

    @classmethod
    def of(cls, idx: np.ndarray, vecs: np.ndarray) -> KindRows:
        """From the kind's positions and vectors (copied into a buffer with spare capacity)."""
        view, spare = append_column(np.zeros((0, vecs.shape[1]), dtype=np.float32), None, vecs)
        return cls(np.asarray(idx, dtype=np.int64), view, spare)


def carry_kind_rows(
    old: KindRows,
    old_ids: Sequence[str] | np.ndarray,
    sp: Splice,
    index: dict[str, int],
    rows: list[tuple],
    fresh: np.ndarray,
    code: int,
    kind_codes: np.ndarray,
) -> KindRows | None:
    """``old`` (the rows of kind ``code`` before a commit) after the commit spliced as ``sp``:
    ``rows`` the node rows read back (``(id, kind, ...)``), ``fresh`` their vectors, ``index``
    and ``kind_codes`` (per read-back row) of the new snapshot. None (computed again when
    asked) unless the kind's rows kept their order and vectors and the new ones come after
    all of them: then only the new rows are written, in spare capacity when there is some."""
    pos = sp.remap[old.idx]
    gone = np.flatnonzero(pos < 0)
    mine = [j for j in range(len(rows)) if kind_codes[j] == code]
    reread: dict[str, int] = {}
    if len(gone):
        at_row = {rows[j][0]: j for j in mine}
        for g in gone:
            nid = old_ids[int(old.idx[g])]
            j = at_row.get(nid)
            if j is None or not np.array_equal(fresh[j], old.vecs[g]):
                return None  # removed, changed kind or changed vector: not a pure append
            pos[g] = index[nid]
            reread[nid] = j
    new = [j for j in mine if rows[j][0] not in reread]
    new_pos = np.asarray(sp.at[new], dtype=np.int64) if new else np.zeros(0, dtype=np.int64)
    if len(pos) > 1 and bool((np.diff(pos) <= 0).any()):
        return None
    if len(new_pos) and ((len(pos) and new_pos.min() <= pos[-1]) or bool((np.diff(new_pos) <= 0).any())):
        return None
    idx = np.concatenate([pos, new_pos])
    if not new:
        return KindRows(idx, old.vecs, old.spare)
    return KindRows(idx, *append_column(old.vecs, old.spare, fresh[new]))
