"""The ingest's supersession links: ``supersedes`` edges from a later turn to the earlier turn
whose statement it replaces (part of the relation step, ``construct.relate``).

For every statement of the new turns that marks a change (``supersede.change_cue``), its
candidates are the speaker's earlier statements: the stored sentences nearest to it (the
sentence vectors the store holds, ``CANDIDATES`` of the speaker's, earlier timestamp) and the
earlier sentences of this build (a chat session written over several days). Offline, the
detector's rule decides (``supersede.decide``); with an LLM, the relation call labels the
candidate pairs and the rule is the fallback.

An edge is owned by the session whose build made it and lists both turns, so deleting either
session removes it (the provenance rule: an edge goes with its owner, and with a node it
touches). ``attrs``: the two dates (``old_date``, ``new_date``), ``how`` (``offline`` | ``llm``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np

from memgraph_agents.construct.build import SessionBuild
from memgraph_agents.construct.context import BuildContext
from memgraph_agents.construct.sentences import split_sentences
from memgraph_agents.construct.supersede import (
    CANDIDATES,
    Candidate,
    Statement,
    Supersession,
    candidate,
    change_cue,
    decide,
    is_statement,
    profiles,
    prototype_texts,
    statements,
)
from memgraph_agents.construct.voice import disowned
from memgraph_agents.model.graph import Edge, EdgeKind, NodeKind
from memgraph_agents.model.ranking import top_k

_WIDEN = 4  # stored sentences read per candidate wanted (others' sentences are skipped)


def _body(text: str) -> str:
    return text.split(": ", 1)[1] if ": " in text else text


def _new_statements(b: SessionBuild) -> tuple[list[Statement], list[Statement]]:
    """(the build's statements that mark a change, every sentence-statement of the build). A
    turn that jokes or denies what it repeats marks no change (``voice.disowned``)."""
    changing: list[Statement] = []
    every: list[Statement] = []
    for t in b.of_kind(NodeKind.TURN):
        tid, who, when = t.attrs["turn_id"], t.attrs["speaker"], t.attrs["timestamp"]
        order = int(t.attrs.get("index") or 0)
        body = _body(t.text)
        if not disowned(body):
            own = statements(t.id, tid, who, when, body, order, b.session_id)
            changing += [s for s in own if change_cue(s.text)]
        every += [
            Statement(t.id, tid, who, when, s, order, b.session_id) for s in split_sentences(body) if is_statement(s)
        ]
    return changing, every


def _spoken_in_session(b: SessionBuild, ctx: BuildContext) -> set[tuple[str, int]]:
    """(speaker, turn index) of every turn of the build's session: the build's and, for a
    session that grew, the stored ones."""
    out = {(str(t.attrs["speaker"]), int(t.attrs.get("index") or 0)) for t in b.of_kind(NodeKind.TURN)}
    snap = ctx.snapshot
    for i in snap.indices_of(NodeKind.TURN):
        if str(snap.owner[i]) == b.session_id:
            out.add((str(snap.attrs[i].get("speaker")), int(snap.attrs[i].get("index") or 0)))
    return out


def _stored_of_session(ctx: BuildContext, new: Statement) -> list[Statement]:
    """The speaker's stored statements earlier in ``new``'s session (a session that grew): what
    a self-correction may correct."""
    snap = ctx.snapshot
    out: list[Statement] = []
    for i in snap.indices_of(NodeKind.TURN):
        a = snap.attrs[i]
        order = int(a.get("index") or 0)
        if str(snap.owner[i]) != new.session or a.get("speaker") != new.speaker or order >= new.order:
            continue
        when = str(a.get("timestamp") or "")
        out += [
            Statement(snap.ids[i], str(a.get("turn_id")), new.speaker, when, s, order, new.session)
            for s in split_sentences(_body(snap.text[i]))
            if is_statement(s)
        ]
    return out


def _stored_earlier(ctx: BuildContext, new: Statement, row: np.ndarray, idx: np.ndarray) -> list[Statement]:
    """The speaker's stored statements nearest to ``new`` (by the stored sentence vectors),
    earlier than it, at most ``CANDIDATES``; near-ties by node id."""
    snap = ctx.snapshot
    out: list[Statement] = []
    for j in top_k(row, CANDIDATES * _WIDEN, tiebreak=snap.id_rank[idx]):
        i = int(idx[j])
        tid = snap.attrs[i].get("turn_id")
        t = snap.index.get(f"turn:{tid}") if tid else None
        if t is None:
            continue
        who, when = snap.attrs[t].get("speaker"), str(snap.attrs[t].get("timestamp") or "")
        text = _body(snap.text[i])
        if who != new.speaker or not when or when > new.when or not is_statement(text):
            continue
        order = int(snap.attrs[t].get("index") or 0)
        out.append(Statement(snap.ids[t], tid, who, when, text, order, str(snap.owner[t])))
        if len(out) >= CANDIDATES:
            break
    return out


def candidates(b: SessionBuild, ctx: BuildContext) -> list[Candidate]:
    """Every changing statement of the build with its earlier matches (best first)."""
    changing, every = _new_statements(b)
    if not changing:
        return []
    idx, stored = ctx.existing(NodeKind.SENTENCE)
    # Stored sentence vectors carry the speaker prefix, as the sentence layer embeds them. The
    # bare statements (compared below) and the build's own texts (its events and sentences,
    # embedded by later steps) go into the same model call: a chat write whose turn marks a
    # change then makes one call, not two (each call has a fixed cost of its own).
    asked = [f"{s.speaker}: {s.text}" for s in changing] + [s.text for s in changing]
    vecs_asked = ctx.embed_with_build(asked, b)
    rows = vecs_asked[: len(changing)] @ stored.T if len(idx) else None
    spoken = _spoken_in_session(b, ctx) if any(change_cue(s.text) == "correct" for s in changing) else set()
    pairs: list[tuple[Statement, list[Statement]]] = []
    for r, new in enumerate(changing):
        olds = _stored_earlier(ctx, new, rows[r], idx) if rows is not None else []
        if spoken:
            olds += [s for s in _stored_of_session(ctx, new) if s not in olds]
        olds += [s for s in every if s.speaker == new.speaker and s.before(new)]
        if olds:
            pairs.append((new, olds))
    if not pairs:
        return []
    # Similarities and attributes on the bare sentences: a shared speaker prefix would make any
    # two sentences of one person look alike.
    texts = list(dict.fromkeys([s.text for new, olds in pairs for s in (new, *olds)]))
    vecs = dict(zip(texts, ctx.embedder.embed(texts)))
    proto, owners = prototype_texts()
    cal = ctx.snapshot.calibration.doc  # the rule's floors are levels of the reference scale
    prof_rows = cal.to_reference(profiles(np.stack([vecs[t] for t in texts]), ctx.embedder.embed(proto), owners))
    prof = dict(zip(texts, prof_rows))
    out = []
    for new, olds in pairs:
        in_session = any(who == new.speaker and order < new.order for who, order in spoken)
        c = candidate(
            new,
            vecs[new.text],
            prof[new.text],
            [(o, vecs[o.text], prof[o.text]) for o in olds],
            spoke_in_session=in_session,
        )
        if c is not None:
            out.append(c if cal.identity else in_reference_scale(c, cal.to_reference))
    return out


def in_reference_scale(c: Candidate, to_reference: Callable[[float], float]) -> Candidate:
    """``c`` with its matches' cosines in the reference scale, re-ordered as ``candidate``
    orders them (its attribute strengths are already: they come from the profiles)."""
    matches = [replace(m, cosine=float(to_reference(m.cosine))) for m in c.matches]
    matches.sort(key=lambda m: (-round(m.score, 6), m.old.turn_id, m.old.text))
    return replace(c, matches=matches)


def offline_links(cands: list[Candidate]) -> list[Supersession]:
    return [s for s in (decide(c) for c in cands) if s is not None]


def add_links(b: SessionBuild, links: list[Supersession], session_id: str) -> None:
    """One ``supersedes`` edge per (later turn, earlier turn): the best-scoring link."""
    best: dict[tuple[str, str], Supersession] = {}
    for s in links:
        key = (s.new.node, s.old.node)
        if s.new.node != s.old.node and (key not in best or s.score > best[key].score):
            best[key] = s
    for (src, dst), s in sorted(best.items()):
        b.edges.append(
            Edge(
                src=src,
                dst=dst,
                kind=EdgeKind.SUPERSEDES,
                label=s.attribute,
                session_id=session_id,
                weight=s.score,
                turn_ids=[s.old.turn_id, s.new.turn_id],
                attrs={"old_date": s.old.when[:10], "new_date": s.new.when[:10], "how": s.how},
            )
        )
