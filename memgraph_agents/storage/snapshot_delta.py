"""The snapshot after a store's own commit, without reading the namespace again (a chat turn costs the same at any size).

After a commit, ``read_own_commit`` reads back only the rows that commit can have changed
(and the edge rows under the (src, dst, kind, label) keys it touched, and the writing
session's record); ``apply_delta`` splices them into the cached snapshot's columns by rowid
(the order a full reload gives; ``storage.splice``), carries the other edges and the vectors
matrix over and decides again which duplicate edge row is the graph's edge only for the
touched keys (``kept_edge_rows``). Its cost grows with the commit, not with the namespace
(slice copies of the columns aside). Anything it cannot reproduce exactly returns None, and
the store reloads in full on its next read. ``tests/test_snapshot_delta.py`` compares the
result with a full reload after every write of randomized workloads.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from memgraph_agents.model.graph import TOPIC_OWNER
from memgraph_agents.storage.session_write import SessionWrite
from memgraph_agents.storage.snapshot import (
    EDGE_CODE,
    KIND_CODE,
    GraphSnapshot,
    _delta_key,
    kept_edge_rows,
    object_column,
)
from memgraph_agents.storage.splice import (
    Spare,
    Splice,
    append_column,
    grow_column,
    is_append,
    plan_splice,
    rewritten_in_place,
    splice_array,
    splice_index,
    splice_ranks,
)
from memgraph_agents.storage.vector_plan import VectorPlan, carry_kind_rows, plan_vectors

VectorLoader = Callable[[list[str], list[str]], dict[str, np.ndarray]]

# The parsed-JSON memo is shared from snapshot to snapshot (values are read-only); once it
# holds this many times the entries the rows need (stale texts of rewritten rows), it restarts.
_MEMO_SLACK = 4


@dataclass
class Keyed:
    """The cached snapshot with what ``read_own_commit`` needs of its rows: each node's and
    each edge's rowid, and the key (src, dst, kind, label) -> rowid of each edge. ``spent``:
    a delta took its ``edge_keys`` over (it is the base of no other delta)."""

    snap: GraphSnapshot
    node_rowid: np.ndarray
    edge_keys: dict[tuple, int]
    edge_rowid: np.ndarray
    spent: bool = False
    # Per edge column, its buffer with spare capacity (``storage.splice.append_column``): a
    # commit that only adds edge rows writes them there, copying none of the others.
    spare: dict[str, Spare] = field(default_factory=dict)

    @classmethod
    def of(cls, snap: GraphSnapshot, nodes: list[tuple]) -> Keyed:
        rows = snap._edge_rows
        return cls(
            snap,
            np.array([r[-1] for r in nodes], dtype=np.int64),
            {r[:4]: r[-1] for r in rows},
            np.array([r[-1] for r in rows], dtype=np.int64),
        )


@dataclass
class Delta:
    """What ``read_own_commit`` read after our own commit (rows with rowid last)."""

    generation: int
    nodes: list[tuple]  # the rows of the touched nodes that exist, in rowid order
    edge_rows: list[tuple]  # every edge row under ``keys``, in rowid order
    keys: set[tuple]  # the (src, dst, kind, label) whose edge can have changed
    sessions: list[dict]  # the committed records among ``session_ids``
    session_ids: set[str]
    touched: set[str]


def read_own_commit(
    db: Any, base: Keyed | None, gen: int, w: SessionWrite, removed: list[str], *, steps: int = 2
) -> Delta | None:
    """What our own commit changed, read without reading the namespace; None (a full
    reload later) unless the cached snapshot was that of generation ``gen - steps`` and the
    commit produced ``gen`` with nothing else written between: ``steps`` is the number of
    transactions the commit ran (2 with a Chroma index: ``begin_write`` at ``gen - 1``, then
    the rows; 1 without one: everything in one transaction).

    What a commit changes (``_write_rows``): rows of the write's nodes and edge endpoints,
    of the derived rows it rewrites, of ``drop_nodes`` and what ``drop_rows`` removed; nodes
    whose primary owner was the session (re-owned when it drops them); namespace-level
    topic rows when ``drop_rows`` runs (it drops those left without members); edge rows of
    the session (``drop_rows``) or with an endpoint among those nodes; the session's record.
    Those node rows are read again, and every edge row sharing its (src, dst, kind, label)
    with an edge row that is or was among those: which row is the graph's edge
    (``kept_edge_rows``) can change only for those keys."""
    read = getattr(db, "read_delta", None)
    if base is None or base.spent or read is None or base.snap.generation != gen - steps:
        return None
    old = base.snap
    sid = w.record.id
    new_edges = list(w.edges) + list(w.replace_edges or [])
    drops = w.mode == "replace" or (w.mode == "append" and bool(w.drop_nodes))  # ``drop_rows`` runs
    derived = set(w.replace_kinds) | ({"topic"} if drops else set())  # it drops memberless topics
    of_kind = np.flatnonzero(np.isin(old.kind, [KIND_CODE[k] for k in derived])) if derived else np.zeros(0, np.int64)
    derived_nodes = {old.ids[i] for i in of_kind if old.owner[i] == TOPIC_OWNER}
    # Node rows the commit can have changed: its own, its edges' endpoints, what it dropped or
    # rewrote and, when a replacement's ``drop_rows`` runs, the session's (it passes those other
    # sessions state to another owner; an append's drop re-owns only the nodes it drops).
    touched = {n.id for n in w.nodes} | set(w.drop_nodes) | set(removed) | derived_nodes
    touched.update(n.id for n in w.replace_nodes or [])
    for e in new_edges:
        touched.update((e.src, e.dst))
    if w.mode == "replace":
        touched.update(i for i, o in zip(old.ids, old.owner) if o == sid)
    # Edge keys whose winning row can have changed: those of the rows the commit inserted, and
    # of the rows it deleted (the edges of removed and rewritten nodes; a replacement: every
    # edge of the session). A node merely restated keeps its edges: an append never re-reads
    # the rest of its thread.
    sessions = {sid} if w.mode == "replace" else set()
    edge_nodes = set(removed) | set(w.drop_nodes) | derived_nodes
    at = np.array(sorted(old.index[i] for i in edge_nodes if i in old.index), dtype=np.int64)
    scope = np.isin(old.src, at) | np.isin(old.dst, at) if len(at) else np.zeros(len(old.src), dtype=bool)
    if sessions:
        scope[[j for j, r in enumerate(old._edge_rows) if r[4] in sessions]] = True
    old_keys = {old._edge_rows[j][:4] for j in np.flatnonzero(scope)}
    old_keys |= {(e.src, e.dst, e.kind.value, e.label) for e in new_edges}
    got_gen, new_nodes, key_rows, committed = read(touched, sessions, old_keys, edge_nodes, session_ids=[sid])
    if got_gen != gen:
        return None
    return Delta(got_gen, new_nodes, key_rows, old_keys | {r[:4] for r in key_rows}, committed, {sid}, touched)


def apply_delta(base: Keyed, d: Delta, gen: int, load_vectors: VectorLoader) -> tuple[GraphSnapshot, Keyed] | None:
    """The snapshot of generation ``gen`` from the delta, with its ``Keyed``: the touched node
    rows spliced into the node columns by rowid, the edges under the delta's keys decided
    again (``kept_edge_rows``) and spliced into the edge columns, the others carried over,
    the vectors matrix carried over (touched rows loaded). Takes ``base.edge_keys`` over."""
    old = base.snap
    gone = np.array(sorted(old.index[i] for i in d.touched if i in old.index), dtype=np.int64)
    nsp = plan_splice(base.node_rowid, gone, np.array([r[-1] for r in d.nodes], dtype=np.int64))
    if nsp is None:
        return None
    memo = old._json if len(old._json) <= _MEMO_SLACK * 2 * (len(old.ids) + len(old.src)) + 4096 else {}

    def parse(raw: str) -> Any:
        value = memo.get(raw)
        if value is None:
            value = old._json.get(raw)
            if value is None:
                value = json.loads(raw)
            memo[raw] = value
        return value

    rows = d.nodes
    # Topic rows are rewritten in place (same rowid): most commits keep every old row where it
    # was and append, and a column whose rewritten rows did not change only grows.
    in_place = rewritten_in_place(nsp)
    fresh = {
        "ids": object_column([r[0] for r in rows]),
        "kind": np.array([KIND_CODE[r[1]] for r in rows], dtype=np.int8),
        "text": object_column([r[2] for r in rows]),
        "owner": object_column([r[3] for r in rows]),
        "turn_ids": object_column([parse(r[4]) for r in rows]),
        "attrs": object_column([parse(r[5]) for r in rows]),
        "node_rowid": np.array([r[-1] for r in rows], dtype=np.int64),
    }
    cols: dict[str, np.ndarray] = {}
    for name, new in fresh.items():
        was = base.node_rowid if name == "node_rowid" else getattr(old, name)
        cols[name], spare = grow_column(was, base.spare.get("n:" + name), nsp, new, in_place)
        if spare is None:
            base.spare.pop("n:" + name, None)
        else:
            base.spare["n:" + name] = spare
    ids = cols["ids"]
    snap = GraphSnapshot(
        generation=gen,
        ids=ids,
        kind=cols["kind"],
        text=cols["text"],
        owner=cols["owner"],
        turn_ids=cols["turn_ids"],
        attrs=cols["attrs"],
        src=np.zeros(0, dtype=np.int32),
        dst=np.zeros(0, dtype=np.int32),
        ekind=np.zeros(0, dtype=np.int8),
        elabel=object_column([]),
        eweight=np.zeros(0, dtype=np.float32),
        eturns=object_column([]),
        sessions=_sessions(old.sessions, d),
        _vector_loader=load_vectors,
        _json=memo,
    )
    snap.__dict__["index"] = index = splice_index(old.index, old.ids, nsp, ids)
    remap = nsp.remap.copy()
    for p in gone:  # a row read back under a new rowid moved: edges follow it by id
        remap[p] = index.get(old.ids[p], -1)
    result = _splice_edges(base, d, snap, remap, parse)
    if result is None:
        return None
    edge_rowid, edge_keys = result  # ``base.spare`` updated
    carry_vectors(old, snap, nsp, rows, load_vectors)
    if "id_rank" in old.__dict__:  # computed for the old snapshot: carried, not sorted again
        snap.__dict__["id_rank"] = splice_ranks(old.__dict__["id_rank"], nsp, ids)
    base.spent = True
    return snap, Keyed(snap, cols["node_rowid"], edge_keys, edge_rowid, spare=base.spare)


def _sessions(old: dict[str, dict], d: Delta) -> dict[str, dict]:
    """The committed sessions: ``old`` with the delta's records in (in seq order, as read)."""
    out = dict(old)
    got = {s["id"]: s for s in d.sessions}
    ordered = True
    for sid in sorted(d.session_ids):
        rec, was = got.get(sid), out.get(sid)
        if rec is None:
            out.pop(sid, None)
        elif was is not None and was["seq"] == rec["seq"]:
            out[sid] = rec  # keeps its place
        else:
            out.pop(sid, None)
            last = next(reversed(out.values()), None)
            ordered = ordered and (last is None or last["seq"] < rec["seq"])
            out[sid] = rec
    return out if ordered else dict(sorted(out.items(), key=lambda kv: kv[1]["seq"]))


def _splice_edges(
    base: Keyed, d: Delta, snap: GraphSnapshot, remap: np.ndarray, parse: Callable[[str], Any]
) -> tuple[np.ndarray, dict[tuple, int]] | None:
    """Set ``snap``'s edge columns: ``base``'s edges, those under the delta's keys replaced by
    the rows that now win them. Returns the edges' rowids and the key -> rowid map."""
    old, index = base.snap, snap.index
    gone = []
    for k in d.keys:
        was = base.edge_keys.get(k)
        if was is not None:
            gone.append(int(np.searchsorted(base.edge_rowid, was)))
    winners = kept_edge_rows(index, d.edge_rows)
    new_rowid = np.array([w[-1] for w in winners], dtype=np.int64)
    esp: Splice | None = plan_splice(base.edge_rowid, np.array(gone, dtype=np.int64), new_rowid)
    if esp is None:
        return None
    new: dict[str, np.ndarray] = {
        "src": np.array([index[w[0]] for w in winners], dtype=np.int32),
        "dst": np.array([index[w[1]] for w in winners], dtype=np.int32),
        "ekind": np.array([EDGE_CODE[w[2]] for w in winners], dtype=np.int8),
        "eweight": np.array([w[5] for w in winners], dtype=np.float32),
        "elabel": object_column([w[3] for w in winners]),
        "eturns": object_column([parse(w[6]) for w in winners]),
        "_edge_rows": object_column([_delta_key(w) for w in winners]),
        "edge_rowid": new_rowid,
    }
    cols = {name: getattr(old, name) for name in new if name != "edge_rowid"} | {"edge_rowid": base.edge_rowid}
    same_nodes = bool((remap == np.arange(len(remap))).all())  # every old node where it was
    if not same_nodes:  # node positions moved: every edge's endpoints are renumbered
        r32 = remap.astype(np.int32)
        cols["src"], cols["dst"] = r32[old.src], r32[old.dst]
        kept = esp.remap >= 0
        if kept.any() and (cols["src"][kept].min() < 0 or cols["dst"][kept].min() < 0):
            return None  # an edge not under the delta lost an endpoint: cannot happen; reload to be safe
    spare = base.spare  # taken over with the edge keys (``Keyed.spent``)
    out: dict[str, np.ndarray] = {}
    append = is_append(esp)
    for name, col in cols.items():
        if append:  # the usual commit: new edge rows only, written after the old ones
            out[name], spare[name] = append_column(
                col, spare.get(name) if name not in ("src", "dst") or same_nodes else None, new[name]
            )
        else:
            out[name] = splice_array(col, esp, new[name])
            spare.pop(name, None)
    snap.src, snap.dst, snap.ekind, snap.eweight = out["src"], out["dst"], out["ekind"], out["eweight"]
    snap.elabel, snap.eturns, snap._edge_rows = out["elabel"], out["eturns"], out["_edge_rows"]
    edge_keys = base.edge_keys  # taken over (``Keyed.spent``): no copy of every key
    for k in d.keys:
        edge_keys.pop(k, None)
    edge_keys.update((w[:4], w[-1]) for w in winners)
    return out["edge_rowid"], edge_keys


def carry_vectors(
    old: GraphSnapshot, snap: GraphSnapshot, nsp: Splice, rows: list[tuple], load_vectors: VectorLoader
) -> None:
    """Give ``snap`` the plan of its vectors matrix (``storage.vector_plan``: ``old``'s, with
    the touched ``rows`` spliced in as ``nsp``; built when first asked for) and ``old``'s
    per-kind vectors, carried where the commit only appended to a kind. Nothing (computed when
    asked) when ``old`` had no matrix or plan, or the dimension cannot be told from the touched
    rows alone."""
    prev: np.ndarray | VectorPlan | None = old._vectors if old._vectors is not None else old._vector_plan
    if prev is None:
        return
    if isinstance(prev, VectorPlan) and prev.too_long():
        prev = old.vectors()  # one gather now; the next plans start from this matrix
    topic = KIND_CODE["topic"]
    codes = np.array([KIND_CODE[r[1]] for r in rows], dtype=np.int8)
    load = [j for j in range(len(rows)) if codes[j] != topic]
    got = load_vectors([rows[j][0] for j in load], [rows[j][2] for j in load]) if load else {}
    dim = (prev.base if isinstance(prev, VectorPlan) else prev).shape[1]
    if not got or any(len(v) != dim for v in got.values()):
        return
    fresh = np.zeros((len(rows), dim), dtype=np.float32)
    for j, r in enumerate(rows):
        v = got.get(r[0])
        if v is not None:
            fresh[j] = v
        a = snap.attrs[int(nsp.at[j])]
        if "centroid" in a and len(a["centroid"]) == dim:
            fresh[j] = np.asarray(a["centroid"], dtype=np.float32)
    snap._vector_plan = plan_vectors(prev, nsp, fresh)
    for code, kept in list(old._kind_rows.items()):
        carried = carry_kind_rows(kept, old.ids, nsp, snap.index, rows, fresh, code, codes)
        if carried is not None:
            snap._kind_rows[code] = carried
