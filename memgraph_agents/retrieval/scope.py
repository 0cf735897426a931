"""Filtered retrieval: every retriever runs on the part of a namespace that a ``MemoryFilter``
admits (as if nothing else were stored), so ``k`` results come back whenever ``k`` matching
items exist.

``scoped(store, filter)`` is a ``StoreReader`` whose snapshot is the sub-graph of admitted
material (built from the committed snapshot, kept per snapshot for the last few filters):

* a **turn** is admitted by the filter (``model.filters``: its date in the window, its
  speaker, its session's metadata);
* any other **node** stays when one of its provenance turns (``retrieval.evidence.provenance``,
  computed for every node at once: ``provenance_matrix``) is admitted, with its turn list cut to those; a node with no provenance turns stays when its
  owner session has an admitted turn;
* an **edge** stays when both ends stay; a **session** record when it has an admitted turn.

Dense search on the view is exact over its vectors (``storage.exact_search``), whatever the
namespace's size. The admitted turns come from ``admitted_turns``, an AND of per-turn tests;
what was valid on a day (``as_of``) is one of them (``valid_turns``).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from datetime import date, timedelta

import numpy as np
import scipy.sparse as sp

from memgraph_agents.model.filters import MemoryFilter
from memgraph_agents.model.graph import NodeKind
from memgraph_agents.model.metadata import matches
from memgraph_agents.storage.exact_search import exact_search
from memgraph_agents.storage.protocols import Embedder, StoreReader
from memgraph_agents.storage.snapshot import EDGE_CODE, KIND_CODE, GraphSnapshot, object_column

VIEWS_PER_SNAPSHOT = 8  # filters whose view a snapshot keeps (an agent asks with a few at most)
_TURN, _SENTENCE = KIND_CODE["turn"], KIND_CODE["sentence"]


class _Views:
    """A snapshot's last few views, by filter key."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.views: OrderedDict[str, GraphSnapshot] = OrderedDict()


def turn_table(snap: GraphSnapshot) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per turn node: ``(node index, date as datetime64[us], speaker casefolded, session)``;
    a turn's date is its timestamp, else its session's date (``attrs["timestamp"]``)."""

    def build():
        idx = snap.indices_of(NodeKind.TURN)
        attrs = [snap.attrs[i] for i in idx]
        dates = np.array([a.get("timestamp") or "NaT" for a in attrs], dtype="datetime64[us]")
        speakers = object_column([str(a.get("speaker", "")).strip().casefold() for a in attrs])
        return idx, dates, speakers, snap.owner[idx]

    return snap.derived("turn_table", build)


def admitted_turns(snap: GraphSnapshot, f: MemoryFilter) -> np.ndarray:
    """Boolean per node: the turn nodes ``f`` admits (every test of ``model.filters`` holds)."""
    idx, dates, speakers, owners = turn_table(snap)
    ok = np.ones(len(idx), dtype=bool)
    if f.metadata:
        sessions = {s for s, rec in snap.sessions.items() if matches(rec.get("metadata") or {}, f.metadata)}
        ok &= np.fromiter((o in sessions for o in owners), dtype=bool, count=len(idx))
    else:
        ok &= np.fromiter((o in snap.sessions for o in owners), dtype=bool, count=len(idx))
    if f.window.since is not None:
        ok &= dates >= np.datetime64(f.window.since, "us")
    if f.window.until is not None:
        ok &= dates < np.datetime64(f.window.until, "us")
    if f.speakers:
        ok &= np.isin(speakers.astype(str), list(f.speakers))
    if f.as_of is not None:
        ok &= valid_turns(snap, idx, dates, f.as_of)
    out = np.zeros(len(snap.ids), dtype=bool)
    out[idx[ok]] = True
    return out


def valid_turns(snap: GraphSnapshot, idx: np.ndarray, dates: np.ndarray, day: date) -> np.ndarray:
    """Per turn of ``idx`` (said on ``dates``): valid on ``day`` — said on or before it and not
    replaced by a statement said on or before it (``retrieval.validity``)."""
    # lazy: the validity rules import construct's language tables (~25 ms): only for a dated filter
    from memgraph_agents.retrieval.validity import Validity

    ok = dates < np.datetime64(day + timedelta(days=1), "us")
    replaced = Validity.of(snap).replaced_by(day)
    if replaced:
        ok &= ~np.fromiter((snap.attrs[i].get("turn_id") in replaced for i in idx), dtype=bool, count=len(idx))
    return ok


def provenance_matrix(snap: GraphSnapshot) -> sp.csr_matrix:
    """``(nodes x nodes)``, entry ``(i, j)`` > 0 when turn node ``j`` is a provenance turn of node
    ``i``: ``retrieval.evidence.provenance``'s rules as sparse products (one pass over the turn
    lists, no walk per node). With ``O`` a node's own turns, ``E`` / ``R`` / ``M`` the evidence,
    role and member edges: an event has ``O + E O`` (its turns and the turns it cites), an
    argument ``R^T O`` (the turns of the events it has a role in), a topic ``M O`` (its member
    events' turns), any other node ``O``. Built once per snapshot."""

    def build():
        n, index = len(snap.ids), snap.index
        pairs = [(i, index[f"turn:{t}"]) for i, ts in enumerate(snap.turn_ids) for t in ts if f"turn:{t}" in index]
        own = _matrix([p[0] for p in pairs], [p[1] for p in pairs], n)
        by_kind = {k: sp.diags((snap.kind == KIND_CODE[k]).astype(np.float32)) for k in ("event", "argument", "topic")}
        other = sp.diags((~np.isin(snap.kind, [KIND_CODE[k] for k in by_kind])).astype(np.float32))
        event = by_kind["event"] @ (own + _edges(snap, "evidence") @ own)
        argument = by_kind["argument"] @ (_edges(snap, "role").T @ own)
        topic = by_kind["topic"] @ (_edges(snap, "member") @ own)
        return (other @ own + event + argument + topic).tocsr()

    return snap.derived("provenance_matrix", build)


def _matrix(rows: list[int] | np.ndarray, cols: list[int] | np.ndarray, n: int) -> sp.csr_matrix:
    return sp.csr_matrix((np.ones(len(rows), dtype=np.float32), (rows, cols)), shape=(n, n))


def _edges(snap: GraphSnapshot, kind: str) -> sp.csr_matrix:
    sel = snap.ekind == EDGE_CODE[kind]
    return _matrix(snap.src[sel], snap.dst[sel], len(snap.ids))


def kept_nodes(snap: GraphSnapshot, admitted: np.ndarray) -> np.ndarray:
    """Boolean per node: it stays in the view (see the module docstring)."""
    prov = provenance_matrix(snap)
    kept = np.asarray(prov @ admitted.astype(np.float32)).ravel() > 0
    bare = np.diff(prov.indptr) == 0
    if bare.any():
        live = set(snap.owner[admitted])
        kept[bare] = np.fromiter((o in live for o in snap.owner[bare]), dtype=bool, count=int(bare.sum()))
    return kept


def view(snap: GraphSnapshot, f: MemoryFilter) -> GraphSnapshot:
    """The sub-snapshot of what ``f`` admits (the same snapshot when ``f`` is empty)."""
    if f.empty:
        return snap
    views = snap.derived("scope_views", _Views)
    key = f.key()
    with views.lock:
        got = views.views.get(key)
        if got is not None:
            views.views.move_to_end(key)
            return got
        got = _build_view(snap, f)
        views.views[key] = got
        while len(views.views) > VIEWS_PER_SNAPSHOT:
            views.views.popitem(last=False)
        return got


def _build_view(snap: GraphSnapshot, f: MemoryFilter) -> GraphSnapshot:
    admitted = admitted_turns(snap, f)
    kept = kept_nodes(snap, admitted)
    sel = np.flatnonzero(kept)
    new_index = np.full(len(snap.ids), -1, dtype=np.int64)
    new_index[sel] = np.arange(len(sel))
    live_turns = {snap.attrs[i]["turn_id"] for i in np.flatnonzero(admitted)}
    esel = np.flatnonzero(kept[snap.src] & kept[snap.dst]) if len(snap.src) else np.zeros(0, dtype=np.int64)
    live_sessions = set(snap.owner[admitted])
    sub = GraphSnapshot(
        generation=snap.generation,
        ids=snap.ids[sel],
        kind=snap.kind[sel],
        text=snap.text[sel],
        owner=snap.owner[sel],
        turn_ids=object_column([[t for t in snap.turn_ids[i] if t in live_turns] for i in sel]),
        attrs=snap.attrs[sel],
        src=new_index[snap.src[esel]].astype(np.int32),
        dst=new_index[snap.dst[esel]].astype(np.int32),
        ekind=snap.ekind[esel],
        elabel=snap.elabel[esel],
        eweight=snap.eweight[esel],
        eturns=snap.eturns[esel],
        sessions={s: r for s, r in snap.sessions.items() if s in live_sessions},
        _vector_loader=snap._vector_loader,
    )
    if snap._vectors is not None or snap._vector_plan is not None:  # the parent's matrix is at hand: slice it
        sub._vectors = snap.vectors()[sel]
    return sub


class ScopedStore:
    """A ``StoreReader`` over the view of ``store`` that ``filter`` admits."""

    def __init__(self, store: StoreReader, filter: MemoryFilter) -> None:
        self.store = store
        self.filter = filter
        self.namespace: str = getattr(store, "namespace", "")

    @property
    def embedder(self) -> Embedder:
        return self.store.embedder

    def snapshot(self) -> GraphSnapshot:
        return view(self.store.snapshot(), self.filter)

    def search(self, vector: np.ndarray, k: int, kinds: list[str] | None = None) -> list[tuple[str, float]]:
        """Exact dense top-k over the view's nodes (``storage.exact_search``)."""
        return exact_search(self.snapshot(), vector, k, kinds)


def scoped(store: StoreReader, f: MemoryFilter | None) -> StoreReader:
    """``store`` itself when ``f`` admits everything, else its filtered view."""
    return store if f is None or f.empty else ScopedStore(store, f)
