"""Query-side signals shared by the graph retrievers: similarities, lexical and mention seeds."""

from __future__ import annotations

import numpy as np

from memgraph_agents.construct.arguments import extract_arguments
from memgraph_agents.model.graph import NodeKind
from memgraph_agents.retrieval.algorithms.fusion import reciprocal_rank_fusion
from memgraph_agents.retrieval.lexical import bm25_ranking

# Weight of turns by participants the query does not name (see ``speaker_weights``): a soft
# prior, so a strong match from the other speaker can still win.
OTHER_SPEAKER = 0.6
RRF_K = 10  # sharper than the usual 60: seeds for a random walk must not be flat


def node_similarities(snap, qv: np.ndarray) -> np.ndarray:
    """Cosine of the query to every node (0 for nodes without a vector)."""
    vecs = snap.vectors()
    if vecs.shape[1] != qv.shape[0]:
        return np.zeros(len(snap.ids), dtype=np.float32)
    return vecs @ qv


def sentence_turn_ranking(snap, sims: np.ndarray, pool: int) -> list[int]:
    """Turns ranked by their best sentence's similarity (long turns are not diluted)."""
    sents = snap.indices_of(NodeKind.SENTENCE)
    if not len(sents):
        return []
    out: list[int] = []
    seen: set[int] = set()
    for j in sents[np.argsort(-sims[sents], kind="stable")]:
        t = snap.index.get(f"turn:{snap.attrs[j]['turn_id']}")
        if t is not None and t not in seen:
            seen.add(t)
            out.append(t)
            if len(out) >= pool:
                break
    return out


def turn_seeds(query: str, snap, sims: np.ndarray, pool: int = 50, rrf_k: int = RRF_K,
               sentences: bool = True) -> dict[int, float]:
    """Rank fusion over turns of dense, BM25 and best-sentence rankings, as seed mass."""
    turns = snap.indices_of(NodeKind.TURN)
    dense = turns[np.argsort(-sims[turns], kind="stable")[:pool]]
    rankings = [list(map(int, dense)), [i for i, _ in bm25_ranking(query, snap, pool)]]
    if sentences:
        rankings.append(sentence_turn_ranking(snap, sims, pool))
    return dict(reciprocal_rank_fusion(rankings, k=rrf_k))


def mention_seeds(query: str, snap, sims_of, ka: int = 10, max_seeds: int = 30, floor: float = 0.8) -> dict[int, float]:
    """Arguments matching the query's mentions (EMem-G: top-Ka per mention, ≤ 30 in all)."""
    args = snap.indices_of(NodeKind.ARGUMENT)
    # Participants are hubs (an argument of nearly every event): seeding them only blurs the
    # walk; the speaker prior (``speaker_weights``) uses that signal instead.
    speakers = {p.lower() for s in snap.sessions.values() for p in s.get("participants", [])}
    speakers |= {p.split()[0] for p in speakers if p}
    mentions = [m for m in extract_arguments(query, []) if m.key not in speakers]
    if not len(args) or not mentions:
        return {}
    vecs = snap.vectors()[args]
    out: dict[int, float] = {}
    for m in mentions:
        s = vecs @ sims_of(m.name)
        for r in np.argsort(-s)[:ka]:
            if s[r] < floor:
                break
            out[int(args[r])] = max(out.get(int(args[r]), 0.0), float(s[r]))
    return dict(sorted(out.items(), key=lambda kv: -kv[1])[:max_seeds])


def mentioned_speakers(query: str, snap) -> set[str]:
    """Participants of the conversation named in the query (full or first name, any case)."""
    import re

    names = {p for s in snap.sessions.values() for p in s.get("participants", [])}
    found = set()
    for name in names:
        first = name.split()[0]
        if re.search(rf"\b({re.escape(name)}|{re.escape(first)})('s)?\b", query, re.IGNORECASE):
            found.add(name)
    return found


def speaker_weights(query: str, snap, other: float = OTHER_SPEAKER) -> np.ndarray | None:
    """Per-node multiplier: turns by a speaker the query does not name get ``other``.

    In conversational memory a question about one participant is answered by what that
    participant said (on LoCoMo's development split 96% of the evidence turns of questions
    naming one speaker are that speaker's). ``None`` when the query names no participant,
    or all of them (then it carries no signal).
    """
    named = mentioned_speakers(query, snap)
    everyone = {p for s in snap.sessions.values() for p in s.get("participants", [])}
    if not named or named >= everyone:
        return None
    w = np.ones(len(snap.ids))
    for i in snap.indices_of(NodeKind.TURN):
        if snap.attrs[i].get("speaker") not in named:
            w[i] = other
    return w
