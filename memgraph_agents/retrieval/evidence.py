"""Turn graph nodes into ``Evidence``: text, score, provenance turns, session dates."""

from __future__ import annotations

import numpy as np

from memgraph_agents.model.evidence import Evidence
from memgraph_agents.model.graph import NodeKind
from memgraph_agents.storage.snapshot import EDGE_CODE, KIND_CODE, GraphSnapshot

_EVIDENCE = EDGE_CODE["evidence"]
_MEMBER = EDGE_CODE["member"]
_ROLE = EDGE_CODE["role"]


def provenance(snap: GraphSnapshot, i: int) -> list[str]:
    """Turn ids behind node ``i``, in conversation order where known."""
    kind = int(snap.kind[i])
    if kind in (KIND_CODE["turn"], KIND_CODE["sentence"]):
        return list(snap.turn_ids[i])
    turns = list(snap.turn_ids[i])
    if kind == KIND_CODE["event"]:
        # Fused events gain turns from later sessions through their evidence edges.
        extra = snap.dst[(snap.src == i) & (snap.ekind == _EVIDENCE)]
        turns += [snap.attrs[j]["turn_id"] for j in extra]
    elif kind == KIND_CODE["argument"]:
        events = snap.src[(snap.dst == i) & (snap.ekind == _ROLE)]
        turns = [t for e in events for t in snap.turn_ids[e]]
    elif kind == KIND_CODE["topic"]:
        events = snap.dst[(snap.src == i) & (snap.ekind == _MEMBER)]
        turns = [t for e in events for t in snap.turn_ids[e]]
    return list(dict.fromkeys(turns))


def to_evidence(snap: GraphSnapshot, i: int, score: float, *, retriever: str, path: list[str] | None = None,
                turn_ids: list[str] | None = None) -> Evidence:
    turns = turn_ids if turn_ids is not None else provenance(snap, i)
    ts = snap.turn_session
    sessions = list(dict.fromkeys(ts[t] for t in turns if t in ts)) or ([snap.owner[i]] if snap.owner[i] else [])
    return Evidence(node_id=snap.ids[i], kind=snap.kind_of(i), text=snap.text[i], score=float(score), turn_ids=turns,
                    session_ids=sessions, session_dates=[snap.session_date(s) for s in sessions],
                    path=path or [snap.ids[i]], retriever=retriever)


def turn_evidence(snap: GraphSnapshot, turn_id: str, score: float, *, retriever: str,
                  path: list[str] | None = None) -> Evidence | None:
    i = snap.index.get(f"turn:{turn_id}")
    return None if i is None else to_evidence(snap, i, score, retriever=retriever, path=path)


def top_indices(scores: np.ndarray, k: int, mask: np.ndarray | None = None) -> np.ndarray:
    """Indices of the ``k`` highest scores (restricted to ``mask``), best first, ties stable."""
    s = scores if mask is None else np.where(mask, scores, -np.inf)
    k = min(k, int(np.isfinite(s).sum()))
    if k <= 0:
        return np.zeros(0, dtype=np.int64)
    part = np.argpartition(-s, k - 1)[:k]
    return part[np.lexsort((part, -s[part]))]


__all__ = ["provenance", "to_evidence", "turn_evidence", "top_indices", "NodeKind"]
