"""Immutable in-memory view of a namespace's committed graph, for retrieval.

Columns instead of objects (cheap to build for large graphs), a networkx view on demand, and
cached scipy CSR adjacency matrices keyed by (edge kinds, undirected) for the algorithms.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp

from memgraph_agents.model.graph import Edge, EdgeKind, Node, NodeKind

if TYPE_CHECKING:
    import networkx as nx

    from memgraph_agents.embeddings.calibration import Calibration
from memgraph_agents.extras import require
from memgraph_agents.model.ranking import ranks_of
from memgraph_agents.storage.vector_plan import KindRows, VectorPlan

NODE_KINDS = list(NodeKind)
EDGE_KINDS = list(EdgeKind)
KIND_CODE = {k.value: i for i, k in enumerate(NODE_KINDS)}
EDGE_CODE = {k.value: i for i, k in enumerate(EDGE_KINDS)}


@dataclass
class GraphSnapshot:
    generation: int
    # Per-node Python values as object arrays (``object_column``), for the reason given for the
    # edge columns below: a snapshot delta makes new columns after each commit, and each young
    # list of every node cost two collections a walk over all its items (~15 ms a session at
    # 65,000 nodes, measured with ``gc.callbacks``).
    ids: np.ndarray  # str per node
    kind: np.ndarray  # int8 code per node (index into NODE_KINDS)
    text: np.ndarray  # str per node
    owner: np.ndarray  # str per node: its primary owner session
    turn_ids: np.ndarray  # list[str] per node
    attrs: np.ndarray  # dict per node
    src: np.ndarray  # int32 edge endpoints (node indices)
    dst: np.ndarray
    ekind: np.ndarray  # int8 code per edge (index into EDGE_KINDS)
    # Per-edge Python values as object arrays, not lists: numpy arrays are no GC containers, so
    # the cycle collector never walks them (a fresh list of every edge costs each collection
    # that sees it young a pass over all its items: O(namespace) per write).
    elabel: np.ndarray  # str per edge (object array)
    eweight: np.ndarray
    eturns: np.ndarray  # list[str] per edge (object array)
    sessions: dict[str, dict]  # committed session id -> record (date, seq, participants…)
    _vector_loader: Callable[[list[str], list[str]], dict[str, np.ndarray]] | None = None
    _csr_cache: dict = field(default_factory=dict)
    _lock: threading.RLock = field(default_factory=threading.RLock)
    _derived: dict = field(default_factory=dict)
    _vectors: np.ndarray | None = None
    # Set by a snapshot delta instead of ``_vectors``: the matrix, built when first asked for
    # (``storage.vector_plan``); and per node kind code, its rows and their vectors.
    _vector_plan: VectorPlan | None = None
    _kind_rows: dict[int, KindRows] = field(default_factory=dict)

    _json: dict[str, Any] = field(default_factory=dict)  # raw JSON column text -> parsed value
    # Keyed snapshots (rows with their rowid last): per edge, what the snapshot delta reads of
    # the row behind it (``snapshot_delta``): (src, dst, kind, label, session_id, rowid).
    _edge_rows: np.ndarray = field(default_factory=lambda: object_column([]))
    # The scale of this memory's cosines (``embeddings.calibration``): a calibration, or a
    # callable giving it at first use (set by the store that made the snapshot); else the identity.
    _calibration: Any = None

    @classmethod
    def from_rows(
        cls,
        generation: int,
        node_rows: list[tuple],
        edge_rows: list[tuple],
        sessions: list[dict],
        vector_loader=None,
        previous: GraphSnapshot | None = None,
        keyed: bool = False,
    ) -> GraphSnapshot:
        """The snapshot of these rows. With ``previous`` (the snapshot it replaces), JSON columns
        whose text is unchanged are not parsed again: a reload after a chat turn parses that
        turn's rows, not the namespace's. Parsed values are shared, so they are read-only.
        ``keyed``: the rows end with their rowid; keep what a snapshot delta needs of the edge rows."""
        known = previous._json if previous is not None else {}
        memo: dict[str, Any] = {}

        def parse(raw: str) -> Any:
            value = memo.get(raw)
            if value is None:
                value = known.get(raw)
                if value is None:
                    value = json.loads(raw)
                memo[raw] = value
            return value

        ids = [r[0] for r in node_rows]
        index = {n: i for i, n in enumerate(ids)}
        kept = kept_edge_rows(index, edge_rows)
        return cls(
            generation=generation,
            ids=object_column(ids),
            kind=np.array([KIND_CODE[r[1]] for r in node_rows], dtype=np.int8),
            text=object_column([r[2] for r in node_rows]),
            owner=object_column([r[3] for r in node_rows]),
            turn_ids=object_column([parse(r[4]) for r in node_rows]),
            attrs=object_column([parse(r[5]) for r in node_rows]),
            src=np.array([index[r[0]] for r in kept], dtype=np.int32),
            dst=np.array([index[r[1]] for r in kept], dtype=np.int32),
            ekind=np.array([EDGE_CODE[r[2]] for r in kept], dtype=np.int8),
            elabel=object_column([r[3] for r in kept]),
            eweight=np.array([r[5] for r in kept], dtype=np.float32),
            eturns=object_column([parse(r[6]) for r in kept]),
            sessions={s["id"]: s for s in sessions},
            _vector_loader=vector_loader,
            _json=memo,
            _edge_rows=object_column([_delta_key(r) for r in kept] if keyed else []),
        )

    # -- lookups ---------------------------------------------------------------------------
    @cached_property
    def index(self) -> dict[str, int]:
        return {n: i for i, n in enumerate(self.ids)}

    @cached_property
    def id_rank(self) -> np.ndarray:
        """Each node's rank by id: the tiebreak of every ranking (never the row order)."""
        return ranks_of(self.ids)

    def __len__(self) -> int:
        return len(self.ids)

    def __contains__(self, node_id: str) -> bool:
        return node_id in self.index

    def indices_of(self, kind: NodeKind | str) -> np.ndarray:
        return np.flatnonzero(self.kind == KIND_CODE[str(kind)])

    def kind_of(self, i: int) -> str:
        return NODE_KINDS[int(self.kind[i])].value

    def node(self, node_id: str) -> Node:
        i = self.index[node_id]
        return Node(
            id=node_id,
            kind=NodeKind(self.kind_of(i)),
            text=self.text[i],
            session_id=self.owner[i],
            turn_ids=self.turn_ids[i],
            attrs=self.attrs[i],
        )

    def edges_of(self, node_id: str) -> list[Edge]:
        i = self.index[node_id]
        sel = np.flatnonzero((self.src == i) | (self.dst == i))
        return [
            Edge(
                src=self.ids[self.src[j]],
                dst=self.ids[self.dst[j]],
                kind=EDGE_KINDS[self.ekind[j]],
                label=self.elabel[j],
                session_id="",
                weight=float(self.eweight[j]),
                turn_ids=self.eturns[j],
            )
            for j in sel
        ]

    def session_of_turn(self, turn_id: str) -> str | None:
        i = self.index.get(f"turn:{turn_id}")
        return self.owner[i] if i is not None else None

    @cached_property
    def turn_session(self) -> dict[str, str]:
        """turn id (``D1:3``) -> session id, for every stored turn."""
        return {self.attrs[i]["turn_id"]: self.owner[i] for i in self.indices_of(NodeKind.TURN)}

    @cached_property
    def event_topic(self) -> dict[int, int]:
        """event index -> its topic's index, from the topic -> event ``member`` edges only
        (PREMem clusters and MemORAI segments have ``member`` edges too)."""
        m = (self.ekind == EDGE_CODE["member"]) & (self.kind[self.src] == KIND_CODE["topic"])
        return {int(d): int(s) for s, d in zip(self.src[m], self.dst[m])}

    def session_date(self, session_id: str) -> str:
        s = self.sessions.get(session_id)
        return s["date"][:10] if s else ""

    # -- matrices --------------------------------------------------------------------------
    def adjacency(
        self, kinds: Iterable[EdgeKind | str] | None = None, *, undirected: bool = True, weighted: bool = False
    ) -> sp.csr_matrix:
        """Cached CSR adjacency over the chosen edge kinds (all when ``None``)."""
        kinds_key = tuple(sorted(str(k) for k in kinds)) if kinds is not None else None
        key = (kinds_key, undirected, weighted)
        with self._lock:
            if key not in self._csr_cache:
                if kinds_key is None:
                    mask = np.ones(len(self.src), dtype=bool)
                else:
                    mask = np.isin(self.ekind, [EDGE_CODE[k] for k in kinds_key])
                w = self.eweight[mask] if weighted else np.ones(int(mask.sum()), dtype=np.float32)
                n = len(self.ids)
                a = sp.csr_matrix((w, (self.src[mask], self.dst[mask])), shape=(n, n), dtype=np.float32)
                if undirected:
                    a = a.maximum(a.T).tocsr()
                self._csr_cache[key] = a
            return self._csr_cache[key]

    def set_calibration(self, source: Calibration | Callable[[], Calibration]) -> None:
        self._calibration = source

    @property
    def calibration(self) -> Calibration:
        """The namespace's calibration (the identity when no store set one)."""
        c = self._calibration
        if c is None:
            # lazy: the embeddings package imports LangChain: a snapshot loads without it
            from memgraph_agents.embeddings.calibration import identity_for

            return identity_for("")
        if callable(c):  # resolved outside the lock: it may read (or write once) the namespace's meta
            c = c()
            with self._lock:
                self._calibration = c
        return c

    def derived(self, key: object, factory: Callable[[], object]):
        """A structure computed once per snapshot (BM25 index, prepared transition, …)."""
        with self._lock:
            if key not in self._derived:
                self._derived[key] = factory()
            return self._derived[key]

    def vectors(self) -> np.ndarray:
        """``(n_nodes, dim)`` embeddings aligned with ``ids``; zero rows for un-embedded nodes."""
        with self._lock:
            if self._vectors is None and self._vector_plan is not None:
                self._vectors, self._vector_plan = self._vector_plan.materialize(), None
            if self._vectors is None:
                # Topics carry their centroid in attrs and have no stored vector: asking the index
                # for them would miss on every reload.
                rows = np.flatnonzero(self.kind != KIND_CODE["topic"])
                got = (
                    self._vector_loader([self.ids[i] for i in rows], [self.text[i] for i in rows])
                    if self._vector_loader and len(rows)
                    else {}
                )
                dim = len(next(iter(got.values()))) if got else 1
                mat = np.zeros((len(self.ids), dim), dtype=np.float32)
                for nid, v in got.items():
                    mat[self.index[nid]] = v
                for i, a in enumerate(self.attrs):  # topic centroids live in attrs, not in Chroma
                    if "centroid" in a and len(a["centroid"]) == dim:
                        mat[i] = np.asarray(a["centroid"], dtype=np.float32)
                self._vectors = mat
            return self._vectors

    def kind_vectors(self, kind: NodeKind | str) -> tuple[np.ndarray, np.ndarray]:
        """``(indices_of(kind), vectors()[those])``, the matrix read-only; cached, and carried by
        a snapshot delta that only adds rows of the kind (no copy of every stored vector)."""
        code = KIND_CODE[str(kind)]
        with self._lock:
            rows = self._kind_rows.get(code)
            if rows is None:
                idx = self.indices_of(kind)
                rows = self._kind_rows[code] = KindRows.of(idx, self.vectors()[idx])
            return rows.idx, rows.vecs

    def to_networkx(self) -> nx.MultiDiGraph:
        nx = require("networkx", "draw", "GraphSnapshot.to_networkx")  # on demand: no query path needs it

        g = nx.MultiDiGraph()
        for i, nid in enumerate(self.ids):
            g.add_node(
                nid,
                kind=self.kind_of(i),
                text=self.text[i],
                session_id=self.owner[i],
                turn_ids=self.turn_ids[i],
                **{k: v for k, v in self.attrs[i].items() if k != "centroid"},
            )
        for j in range(len(self.src)):
            g.add_edge(
                self.ids[self.src[j]],
                self.ids[self.dst[j]],
                key=f"{EDGE_KINDS[self.ekind[j]].value}:{self.elabel[j]}",
                kind=EDGE_KINDS[self.ekind[j]].value,
                label=self.elabel[j],
                weight=float(self.eweight[j]),
            )
        return g


def object_column(items: list) -> np.ndarray:
    """``items`` as a 1-D object array (items that are lists stay single elements)."""
    return np.fromiter(items, dtype=object, count=len(items))


def _delta_key(row: tuple) -> tuple:
    """(src, dst, kind, label, session_id, rowid) of an edge row with its rowid last: the rest
    (weight, turn ids, attributes) is in the snapshot's columns, not kept twice."""
    return (*row[:5], row[-1])


def kept_edge_rows(index: dict[str, int], edge_rows: Iterable[tuple]) -> list[tuple]:
    """The rows that are edges of the graph: both endpoints stored, and an edge stated by
    several sessions is one edge (the first row of its (src, dst, kind, label) wins)."""
    seen: set[tuple] = set()
    kept = []
    for r in edge_rows:
        if r[0] in index and r[1] in index and r[:4] not in seen:
            seen.add(r[:4])
            kept.append(r)
    return kept
