"""Turn graph nodes into ``Evidence``: text, score, provenance turns, session dates.

Provenance of a node (the turns that cite it):

* turn, sentence: its own turn;
* event: its turns, then the turns its ``evidence`` edges add (fused events gain turns from
  later sessions that way);
* argument: the turns of the events that have it in a ``role``;
* topic: the turns of its ``member`` events.

Edge lookups go through per-snapshot incidence lists (``incident``), so one node costs
O(its degree), not a scan of every edge.
"""

from __future__ import annotations

import numpy as np

from memgraph_agents.model.evidence import Evidence
from memgraph_agents.model.graph import NodeKind
from memgraph_agents.model.ranking import top_k
from memgraph_agents.storage.snapshot import EDGE_CODE, KIND_CODE, GraphSnapshot

_TURN, _SENTENCE = KIND_CODE["turn"], KIND_CODE["sentence"]
_EVENT, _ARGUMENT, _TOPIC = KIND_CODE["event"], KIND_CODE["argument"], KIND_CODE["topic"]


def incident(snap: GraphSnapshot, edge_kind: str, *, outgoing: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """``(indptr, other)``: node ``i``'s ``edge_kind`` neighbours are ``other[indptr[i]:indptr[i + 1]]``.

    ``outgoing``: edges leaving ``i`` (``other`` = their targets), else edges entering ``i``.
    Neighbours keep the order of the snapshot's edge list. Built once per snapshot.
    """

    def build():
        sel = np.flatnonzero(snap.ekind == EDGE_CODE[edge_kind])
        key, other = (snap.src[sel], snap.dst[sel]) if outgoing else (snap.dst[sel], snap.src[sel])
        order = np.argsort(key, kind="stable")
        indptr = np.searchsorted(key[order], np.arange(len(snap.ids) + 1))
        return indptr, other[order].astype(np.int64)

    return snap.derived(("incident", edge_kind, outgoing), build)


def _neighbours(snap: GraphSnapshot, i: int, edge_kind: str, *, outgoing: bool) -> np.ndarray:
    indptr, other = incident(snap, edge_kind, outgoing=outgoing)
    return other[indptr[i] : indptr[i + 1]]


def provenance(snap: GraphSnapshot, i: int) -> list[str]:
    """Turn ids behind node ``i`` (see the module docstring), in conversation order where known."""
    kind = int(snap.kind[i])
    if kind in (_TURN, _SENTENCE):
        return list(snap.turn_ids[i])
    turns = list(snap.turn_ids[i])
    if kind == _EVENT:
        for j in _neighbours(snap, i, "evidence", outgoing=True):
            turns += snap.turn_ids[j]  # a turn node's turn_ids is [its own id]
    elif kind == _ARGUMENT:
        turns = [t for e in _neighbours(snap, i, "role", outgoing=False) for t in snap.turn_ids[e]]
    elif kind == _TOPIC:
        turns = [t for e in _neighbours(snap, i, "member", outgoing=True) for t in snap.turn_ids[e]]
    return list(dict.fromkeys(turns))


def session_counts(snap: GraphSnapshot) -> np.ndarray:
    """Per node, the number of distinct sessions its provenance turns belong to (at least 1).

    HippoRAG 2's node specificity, counted in sessions (``ppr_seed_weights``). Computed for
    events (the nodes ``ppr`` seeds by similarity); other nodes get 1. Built once per snapshot.
    """

    def build():
        counts = np.ones(len(snap.ids), dtype=np.float64)
        ts = snap.turn_session
        for i in snap.indices_of(NodeKind.EVENT):
            sessions = {ts[t] for t in provenance(snap, int(i)) if t in ts}
            counts[i] = max(1, len(sessions))
        return counts

    return snap.derived("session_counts", build)


def to_evidence(
    snap: GraphSnapshot,
    i: int,
    score: float,
    *,
    retriever: str,
    path: list[str] | None = None,
    turn_ids: list[str] | None = None,
) -> Evidence:
    """``Evidence`` for node ``i``; sessions from its turns (else its owner session), metadata
    from the first of them."""
    if turn_ids is not None:
        turns, sessions, dates, metadata = _parts_of(snap, i, list(turn_ids))
        return Evidence(
            node_id=snap.ids[i],
            kind=snap.kind_of(i),
            text=snap.text[i],
            score=float(score),
            turn_ids=turns,
            session_ids=sessions,
            session_dates=dates,
            path=path or [snap.ids[i]],
            retriever=retriever,
            metadata=metadata,
        )
    # A node's provenance, sessions and metadata are fixed for a snapshot: validated once per
    # node, then copied with the fields of this call and fresh containers (a caller may edit its
    # item without touching the next one's).
    tpl = shared_evidence(snap, i)
    return tpl.model_copy(
        update={
            "score": float(score),
            "turn_ids": list(tpl.turn_ids),
            "session_ids": list(tpl.session_ids),
            "session_dates": list(tpl.session_dates),
            "path": list(path) if path else [snap.ids[i]],
            "retriever": retriever,
            "metadata": dict(tpl.metadata),
        }
    )


def _parts_of(snap: GraphSnapshot, i: int, turns: list[str]) -> tuple[list[str], list[str], list[str], dict]:
    ts = snap.turn_session
    sessions = list(dict.fromkeys(ts[t] for t in turns if t in ts)) or ([snap.owner[i]] if snap.owner[i] else [])
    metadata = _metadata(snap, sessions[0]) if sessions else {}
    return turns, sessions, [snap.session_date(s) for s in sessions], metadata


def shared_evidence(snap: GraphSnapshot, i: int) -> Evidence:
    """Node ``i``'s evidence as a retriever-less item (score 0), made once per snapshot and
    shared by every caller: to read (its relevance, its turns), never to change or hand out
    (``to_evidence`` copies it for that)."""
    made = snap.derived("evidence_templates", dict)
    tpl = made.get(i)
    if tpl is None:
        turns, sessions, dates, metadata = _parts_of(snap, i, provenance(snap, i))
        tpl = made[i] = Evidence(
            node_id=snap.ids[i],
            kind=snap.kind_of(i),
            text=snap.text[i],
            score=0.0,
            turn_ids=turns,
            session_ids=sessions,
            session_dates=dates,
            path=[snap.ids[i]],
            retriever="",
            metadata=metadata,
        )
    return tpl


def _metadata(snap: GraphSnapshot, session_id: str) -> dict:
    record = snap.sessions.get(session_id)
    return dict(record.get("metadata") or {}) if record else {}


def turn_evidence(
    snap: GraphSnapshot, turn_id: str, score: float, *, retriever: str, path: list[str] | None = None
) -> Evidence | None:
    """``Evidence`` for the turn ``turn_id`` (``D1:3``), ``None`` when it is not stored."""
    i = snap.index.get(f"turn:{turn_id}")
    return None if i is None else to_evidence(snap, i, score, retriever=retriever, path=path)


def top_indices(
    scores: np.ndarray, k: int, mask: np.ndarray | None = None, tiebreak: np.ndarray | None = None
) -> np.ndarray:
    """Indices of the ``k`` highest scores (restricted to ``mask``), best first.

    Near-ties (``model.ranking.TIE_EPS``) go by ``tiebreak`` (pass ``snap.id_rank``: by node
    id), else to the lower index. NaN scores are never returned.
    """
    return top_k(scores, k, tiebreak=tiebreak, mask=mask)


__all__ = [
    "NodeKind",
    "incident",
    "provenance",
    "session_counts",
    "shared_evidence",
    "to_evidence",
    "top_indices",
    "turn_evidence",
]
