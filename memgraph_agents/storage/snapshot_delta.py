"""The snapshot after a store's own commit, without reading the namespace again (issue 15.5).

After a commit, ``read_own_commit`` reads back only the rows that commit can have changed
(and the edge rows under the (src, dst, kind, label) keys it touched); ``apply_delta`` merges
them with the cached snapshot by rowid (the order a full reload gives), carries the other
edges and the vectors matrix over and decides again which duplicate edge row is the graph's
edge only for the touched keys (``kept_edge_rows``). Anything it cannot reproduce exactly
returns None, and the store reloads in full on its next read. ``tests/test_snapshot_delta.py``
compares the result with a full reload after every write of randomized workloads.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from memgraph_agents.model.graph import TOPIC_OWNER
from memgraph_agents.storage.session_write import SessionWrite
from memgraph_agents.storage.snapshot import KIND_CODE, GraphSnapshot, kept_edge_rows

VectorLoader = Callable[[list[str], list[str]], dict[str, np.ndarray]]


@dataclass
class Keyed:
    """The cached snapshot with what ``read_own_commit`` needs of its rows: the node rows
    (rowid last), and the key (src, dst, kind, label) -> rowid and the rowid of each edge."""

    snap: GraphSnapshot
    nodes: list[tuple]
    edge_keys: dict[tuple, int]
    edge_rowid: np.ndarray

    @classmethod
    def of(cls, snap: GraphSnapshot, nodes: list[tuple]) -> Keyed:
        rows = snap._edge_rows
        return cls(snap, nodes, {r[:4]: r[-1] for r in rows}, np.array([r[-1] for r in rows], dtype=np.int64))


@dataclass
class Delta:
    """What ``read_own_commit`` read after our own commit (rows with rowid last)."""

    generation: int
    nodes: list[tuple]  # every node row, in rowid order
    edge_rows: list[tuple]  # every edge row under ``keys``, in rowid order
    keys: set[tuple]  # the (src, dst, kind, label) whose edge can have changed
    sessions: list[dict]
    touched: set[str]


def read_own_commit(db: Any, base: Keyed | None, gen: int, w: SessionWrite, removed: list[str]) -> Delta | None:
    """What our own commit changed, read without reading the namespace; None (a full
    reload later) unless the cached snapshot was that of generation ``gen - 2`` and the
    commit produced ``gen`` with nothing else written between (``gen - 1``: our
    ``begin_write``).

    What a commit changes (``_write_rows``): rows of the write's nodes and edge endpoints,
    of the derived rows it rewrites, of ``drop_nodes`` and what ``drop_rows`` removed; nodes
    whose primary owner was the session (re-owned when it drops them); namespace-level
    topic rows when ``drop_rows`` runs (it drops those left without members); edge rows of
    the session (``drop_rows``) or with an endpoint among those nodes. Those node rows are
    read again, and every edge row sharing its (src, dst, kind,
    label) with an edge row that is or was among those: which row is the graph's edge
    (``kept_edge_rows``) can change only for those keys."""
    read = getattr(db, "read_delta", None)
    if base is None or read is None or base.snap.generation != gen - 2:
        return None
    old = base.snap
    sid = w.record.id
    new_edges = list(w.edges) + list(w.replace_edges or [])
    drops = w.mode == "replace" or (w.mode == "append" and bool(w.drop_nodes))  # ``drop_rows`` runs
    derived = set(w.replace_kinds) | ({"topic"} if drops else set())  # it drops memberless topics
    derived_nodes = {r[0] for r in base.nodes if r[3] == TOPIC_OWNER and r[1] in derived}
    # Node rows the commit can have changed: its own, its edges' endpoints, what it dropped or
    # rewrote and, when ``drop_rows`` runs, the session's (it passes some to another owner).
    touched = {n.id for n in w.nodes} | set(w.drop_nodes) | set(removed) | derived_nodes
    touched.update(n.id for n in w.replace_nodes or [])
    for e in new_edges:
        touched.update((e.src, e.dst))
    if drops:
        touched.update(r[0] for r in base.nodes if r[3] == sid)
    # Edge keys whose winning row can have changed: those of the rows the commit inserted, and
    # of the rows it deleted (the edges of removed and rewritten nodes; a replacement: every
    # edge of the session). A node merely restated keeps its edges: an append never re-reads
    # the rest of its thread.
    sessions = {sid} if w.mode == "replace" else set()
    edge_nodes = set(removed) | set(w.drop_nodes) | derived_nodes
    at = np.array(sorted(old.index[i] for i in edge_nodes if i in old.index), dtype=np.int64)
    scope = np.isin(old.src, at) | np.isin(old.dst, at)
    scope[[j for j, r in enumerate(old._edge_rows) if r[4] in sessions]] = True
    old_keys = {old._edge_rows[j][:4] for j in np.flatnonzero(scope)}
    old_keys |= {(e.src, e.dst, e.kind.value, e.label) for e in new_edges}
    got_gen, new_nodes, key_rows, committed = read(touched, sessions, old_keys, edge_nodes)
    if got_gen != gen:
        return None
    merged = [r for r in base.nodes if r[0] not in touched] + new_nodes
    merged.sort(key=lambda r: r[-1])
    return Delta(got_gen, merged, key_rows, old_keys | {r[:4] for r in key_rows}, committed, touched)


def apply_delta(base: Keyed, d: Delta, gen: int, load_vectors: VectorLoader) -> tuple[GraphSnapshot, Keyed] | None:
    """The snapshot of generation ``gen`` from the delta, with its ``Keyed``: node columns from the merged
    rows, edges not under the delta's keys carried over, those under them decided again
    (``kept_edge_rows``), the vectors matrix carried over (touched rows loaded)."""
    old = base.snap
    snap = GraphSnapshot.from_rows(gen, d.nodes, [], d.sessions, load_vectors, old)
    index = snap.index
    remap = np.array([index.get(i, -1) for i in old.ids], dtype=np.int64)
    drop = np.zeros(len(old.src), dtype=bool)
    for k in d.keys:
        was = base.edge_keys.get(k)
        if was is not None:
            drop[int(np.searchsorted(base.edge_rowid, was))] = True
    keep = np.flatnonzero(~drop)
    if len(keep) and (remap[old.src[keep]].min() < 0 or remap[old.dst[keep]].min() < 0):
        return None  # an edge not under the delta lost an endpoint: cannot happen; reload to be safe
    winners = kept_edge_rows(index, d.edge_rows)
    rowid = snap.with_edges(old, keep, remap, winners, base.edge_rowid)
    edge_keys = dict(base.edge_keys)
    for k in d.keys:
        edge_keys.pop(k, None)
    edge_keys.update((r[:4], r[-1]) for r in winners)
    if old._vectors is not None:
        snap._vectors = carry_vectors(old, snap, d.touched, load_vectors)
    return snap, Keyed(snap, d.nodes, edge_keys, rowid)


def carry_vectors(
    old: GraphSnapshot, snap: GraphSnapshot, touched: set[str], load_vectors: VectorLoader
) -> np.ndarray | None:
    """``snap.vectors()`` as a full computation would give it, from ``old``'s matrix; None
    (computed when asked) when the dimension cannot be told from the touched rows alone."""
    topic = KIND_CODE["topic"]
    fresh = [i for i, n in enumerate(snap.ids) if n in touched]
    load = [i for i in fresh if snap.kind[i] != topic]
    got = load_vectors([snap.ids[i] for i in load], [snap.text[i] for i in load]) if load else {}
    assert old._vectors is not None
    dim = old._vectors.shape[1]
    if not got or any(len(v) != dim for v in got.values()):
        return None
    old_index = old.index
    src = np.array([old_index.get(n, -1) for n in snap.ids], dtype=np.int64)
    src[fresh] = -1
    mat = np.zeros((len(snap.ids), dim), dtype=np.float32)
    keep = src >= 0
    mat[keep] = old._vectors[src[keep]]
    for nid, v in got.items():
        mat[snap.index[nid]] = v
    for i in fresh:
        a = snap.attrs[i]
        if "centroid" in a and len(a["centroid"]) == dim:
            mat[i] = np.asarray(a["centroid"], dtype=np.float32)
    return mat
