"""The answer-aware terms of the one-pass ranking (``retrieval.oneshot``), each with its weight
so it can be measured alone (0 turns it off)::

    gated(t) = kind · carries(t, asked_kind(q))          (``retrieval.answer_kind``)
             + subject · own(t, subject(q))              (``retrieval.subject``)
    flat(t)  = reply · gain(t)                           (``retrieval.reply_gain``)

``gated`` is multiplied by the turn's relevance gate like the other priors (a turn that carries
a date but does not match the question gains little); ``flat`` is not (the reply's point is
that it does not match: its asking turn did). ``lexical_terms`` (the question's own words)
and ``ordered_head`` (the head re-sorted by whether a turn answers: ``retrieval.head_order``)
complete them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from memgraph_agents.retrieval.answer_kind import asked_kind, carries
from memgraph_agents.retrieval.bm25_rank import turn_bm25
from memgraph_agents.retrieval.head_order import HeadTurn, HeadWeights, head_order
from memgraph_agents.retrieval.relevance import neutral_question
from memgraph_agents.retrieval.reply_gain import asks, reply_gains
from memgraph_agents.retrieval.subject import own, subject_of
from memgraph_agents.storage.snapshot import GraphSnapshot


def speakers_of(snap: GraphSnapshot) -> list[str]:
    """The conversation's participants, in first-seen order."""
    names: list[str] = []
    for s in snap.sessions.values():
        for p in s.get("participants") or []:
            if p not in names:
                names.append(p)
    return names


def gated_terms(
    snap: GraphSnapshot, question: str, nodes: Sequence[int], *, kind: float, subject: float
) -> dict[int, float]:
    """``{turn node: kind and subject terms}`` for the turns in ``nodes`` that earn any."""
    if kind <= 0 and subject <= 0:
        return {}
    asked = asked_kind(question) if kind > 0 else None
    who = subject_of(question, snap) if subject > 0 else None
    if asked is None and who is None:
        return {}
    speakers = speakers_of(snap)
    out: dict[int, float] = {}
    for i in nodes:
        a = snap.attrs[i]
        v = (kind if carries(snap.text[i], a, asked, speakers) else 0.0) + (subject if own(a, who) else 0.0)
        if v:
            out[i] = v
    return out


def reply_terms(
    snap: GraphSnapshot, nodes: Sequence[int], rel: Callable[[int], float], reply: float
) -> dict[int, float]:
    """``{reply turn node: reply · gain}`` for replies to the asking turns in ``nodes``."""
    if reply <= 0:
        return {}
    return {j: reply * g for j, g in reply_gains(snap, nodes, rel).items() if g > 0}


def lexical_terms(snap: GraphSnapshot, question: str, nodes: Sequence[int], weight: float) -> dict[int, float]:
    """``{turn node: weight · bm25(t) / max bm25 over nodes}``: the question's own words (its
    speakers left out, as relevance leaves them out), where the dense match sees only a topic."""
    if weight <= 0 or not nodes:
        return {}
    idx, index = turn_bm25(snap)
    scores = index.scores(neutral_question(question, snap))
    at = {int(n): r for r, n in enumerate(idx)}
    got = {i: float(scores[at[i]]) for i in nodes if i in at}
    top = max(got.values(), default=0.0)
    return {i: weight * s / top for i, s in got.items() if s > 0} if top > 0 else {}


def ordered_head(
    snap: GraphSnapshot, question: str, ranked: list[tuple[int, float]], rel: Callable[[int], float], w: HeadWeights
) -> list[tuple[int, float]]:
    """``ranked`` (``[(turn node, score)]``, best first) with its first items re-sorted by the
    head order (``retrieval.head_order``); the head's scores handed out again in the new order."""
    if w.off or len(ranked) < 2:
        return ranked
    nodes = [i for i, _ in ranked]
    asked = asked_kind(question) if w.kind else None
    speakers = speakers_of(snap)
    lex = lexical_terms(snap, question, nodes, 1.0) if w.words else {}
    turns = [
        HeadTurn(
            score=s,
            rel=rel(i),
            carries=carries(snap.text[i], snap.attrs[i], asked, speakers),
            lex=lex.get(i, 0.0),
            asks=asks(snap.text[i], snap.attrs[i].get("speaker")),
        )
        for i, s in ranked
    ]
    perm = head_order(turns, w)
    return [(nodes[j], s) for j, (_, s) in zip(perm, ranked)]
