"""Step 3: relations between events and role edges to arguments (docs/architecture.md, "The ingest pipeline").

Relations — offline: ``follow_up`` between consecutive events of the session and
cross-session ``similar`` edges above a threshold; LLM: typed pairwise relations with
evidence turns, and the offline ``follow_up`` edges for consecutive pairs it left unlinked.
Arguments — LLM role–argument pairs (EMem) when the event carries them, else offline
proper nouns, numbers, dates and keyphrases; new arguments get ``synonym`` edges to
arguments at cosine >= 0.9 (at most ~100 each), computed only for the new ones
(HippoRAG's all-to-all recomputation on every insert is the anti-pattern).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from memgraph_agents.aio import off_loop
from memgraph_agents.construct.arguments import extract_arguments
from memgraph_agents.construct.build import SessionBuild
from memgraph_agents.construct.context import BuildContext
from memgraph_agents.construct.supersede import Candidate, Supersession
from memgraph_agents.construct.supersession import add_links, candidates, offline_links
from memgraph_agents.construct.synonyms import synonym_pairs, synonym_pairs_within
from memgraph_agents.model.conversation import Session
from memgraph_agents.model.evidence import human_date
from memgraph_agents.model.graph import Edge, EdgeKind, Node, NodeKind, node_id
from memgraph_agents.model.ranking import exact_dots, top_k

if TYPE_CHECKING:
    from memgraph_agents.construct.llm.schemas import UpdateCandidate

_KEY = re.compile(r"[^a-z0-9]+")
LLM_EARLIER = 3  # earlier statements shown to the LLM per candidate update


def argument_key(value: str) -> str:
    return _KEY.sub(" ", value.lower().replace("'s ", " ")).strip()


def _follow_ups(b: SessionBuild, session: Session) -> None:
    """``follow_up`` between consecutive events, in LLM mode too (where the model linked a
    pair already, its typed edge stands): an empty or lost LLM reply must not leave the
    session's events unconnected."""
    events = b.of_kind(NodeKind.EVENT)
    linked = {frozenset((e.src, e.dst)) for e in b.edges if e.kind == EdgeKind.RELATION}
    for a, c in zip(events, events[1:]):
        if frozenset((a.id, c.id)) in linked:
            continue
        b.edges.append(
            Edge(
                src=a.id,
                dst=c.id,
                kind=EdgeKind.RELATION,
                label="follow_up",
                session_id=session.id,
                turn_ids=[a.turn_ids[-1], c.turn_ids[0]] if a.turn_ids and c.turn_ids else [],
            )
        )


def _similar_across_sessions(b: SessionBuild, session: Session, ctx: BuildContext) -> None:
    events = b.of_kind(NodeKind.EVENT)
    idx, old = ctx.existing(NodeKind.EVENT, other_sessions=True)
    if not events or not len(idx) or ctx.params.similar_max == 0:
        return
    new = ctx.embed_with_build([e.text for e in events], b)
    sims = new @ old.T
    rank = ctx.snapshot.id_rank[idx]
    for r, ev in enumerate(events):
        best = top_k(sims[r], ctx.params.similar_max, tiebreak=rank)  # near-ties by event id
        # The threshold and the weight: exact cosines, not their BLAS rounding (model.ranking).
        for j, sim in zip(best.tolist(), exact_dots(new, old, [r] * len(best), best).tolist()):
            if sim < ctx.cut(ctx.params.similar_threshold):
                break
            b.edges.append(
                Edge(
                    src=ev.id,
                    dst=ctx.snapshot.ids[idx[j]],
                    kind=EdgeKind.SIMILAR,
                    label="event",
                    session_id=session.id,
                    weight=ctx.scaled(sim),
                )
            )


def _updates(cands: list[Candidate]) -> list[UpdateCandidate]:
    # lazy: the LLM schemas (pydantic models, ~15 ms): only with a chat model
    from memgraph_agents.construct.llm.schemas import EarlierStatement, UpdateCandidate

    return [
        UpdateCandidate(
            turn_id=c.new.turn_id,
            speaker=c.new.speaker,
            text=c.new.text,
            earlier=[
                EarlierStatement(turn_id=m.old.turn_id, date=human_date(m.old.when), text=m.old.text)
                for m in c.matches[:LLM_EARLIER]
            ],
        )
        for c in cands
    ]


async def _llm_updates(
    b: SessionBuild, session: Session, ctx: BuildContext, cands: list[Candidate]
) -> list[Supersession] | None:
    """The candidate updates the LLM confirms (``None`` when the call failed: the caller falls
    back to the offline rule). Its own call, after the relations: the relations of a session
    are asked ahead (``construct.llm.prefetch``) and cannot know what memory will offer."""
    # lazy: the LLM extraction stack: only with a chat model
    from memgraph_agents.construct.llm.extract import label_updates

    if not cands:
        return []
    try:
        labels = await label_updates(
            ctx.llm, session, _updates(cands), usage=ctx.usage, timeout=ctx.llm_timeout, semaphore=ctx.semaphore
        )
    except Exception as exc:
        b.notes.append(f"updates: LLM failed ({type(exc).__name__}); offline fallback")
        return None
    return [
        Supersession(
            old=cands[u].matches[o].old,
            new=cands[u].new,
            attribute=attribute or "statement",
            score=round(cands[u].matches[o].score, 6),
            how="llm",
        )
        for u, o, attribute in labels
    ]


async def _llm_relations(b: SessionBuild, session: Session, ctx: BuildContext) -> bool:
    # lazy: the LLM extraction stack: only with a chat model
    from memgraph_agents.construct.llm.extract import extract_relations
    from memgraph_agents.construct.llm.prefetch import current_prefetch
    from memgraph_agents.construct.llm.schemas import ExtractedEvent

    events = b.of_kind(NodeKind.EVENT)
    if len(events) < 2:
        return True
    as_schema = [
        ExtractedEvent(
            text=e.text,
            turn_ids=e.turn_ids or ["?"],
            time=e.attrs.get("time"),
            participants=e.attrs.get("participants", []),
            arguments=[],
        )
        for e in events
    ]
    prefetch = current_prefetch()  # asked ahead when these are the events the ingest expected
    try:
        rels = await prefetch.relations(session, as_schema, ctx.usage) if prefetch else None
        if rels is None:
            rels = await extract_relations(
                ctx.llm, session, as_schema, usage=ctx.usage, timeout=ctx.llm_timeout, semaphore=ctx.semaphore
            )
    except Exception as exc:
        b.notes.append(f"relations: LLM failed ({type(exc).__name__}); offline fallback")
        return False
    for r in rels:
        b.edges.append(
            Edge(
                src=events[r.source].id,
                dst=events[r.target].id,
                kind=EdgeKind.RELATION,
                label=r.type,
                session_id=session.id,
                turn_ids=list(r.turn_ids),
                attrs={"description": r.description},
            )
        )
    return True


def add_arguments(b: SessionBuild, session: Session, ctx: BuildContext) -> None:
    new_args: dict[str, Node] = {}
    seen_edges: set[tuple[str, str, str]] = set()
    for ev in b.of_kind(NodeKind.EVENT):
        pairs: list[tuple[str, str, str]] = []  # (role, surface, kind)
        if ev.attrs.get("arguments"):
            pairs = [(role, value, "entity") for role, value in ev.attrs["arguments"]]
        else:
            bodies = [line.split(": ", 1)[-1] for line in ev.text.split("\n")]
            for m in extract_arguments(" ".join(bodies), ctx.speakers):
                pairs.append((m.role, m.name, m.kind))
        for role, surface, kind in pairs:
            key = argument_key(surface)
            if not key:
                continue
            aid = node_id(NodeKind.ARGUMENT, key)
            if aid not in ctx.snapshot and aid not in new_args:
                new_args[aid] = Node(
                    id=aid,
                    kind=NodeKind.ARGUMENT,
                    text=surface.strip(),
                    session_id=session.id,
                    turn_ids=[],
                    attrs={"arg_kind": kind, "key": key},
                )
            if (ev.id, aid, role) not in seen_edges:
                seen_edges.add((ev.id, aid, role))
                b.edges.append(
                    Edge(
                        src=ev.id,
                        dst=aid,
                        kind=EdgeKind.ROLE,
                        label=role,
                        session_id=session.id,
                        turn_ids=list(ev.turn_ids),
                    )
                )
    args = list(new_args.values())
    b.nodes.extend(args)
    if not args:
        return
    p = ctx.params
    vecs = ctx.embed_with_build([a.text for a in args], b)
    idx, old = ctx.existing(NodeKind.ARGUMENT)
    # Ties at the cap go by id, not row order; ranked by key, not by sorting (copying) every row.
    by_id = ctx.snapshot.id_rank[idx]
    cut = ctx.cut(p.synonym_threshold)
    for i, j, s in synonym_pairs(vecs, old, threshold=cut, max_per_node=p.synonym_max, old_order=by_id):
        b.edges.append(
            Edge(
                src=args[i].id,
                dst=ctx.snapshot.ids[idx[j]],
                kind=EdgeKind.SYNONYM,
                session_id=session.id,
                weight=ctx.scaled(s),
            )
        )
    for i, j, s in synonym_pairs_within(vecs, threshold=cut, max_per_node=p.synonym_max):
        b.edges.append(
            Edge(src=args[i].id, dst=args[j].id, kind=EdgeKind.SYNONYM, session_id=session.id, weight=ctx.scaled(s))
        )


async def relate(b: SessionBuild, session: Session, ctx: BuildContext) -> SessionBuild:
    if ctx.llm is not None:
        await _llm_relations(b, session, ctx)
    cands = await off_loop(candidates, b, ctx)  # store reads and embeddings: off the loop
    links = await _llm_updates(b, session, ctx, cands) if ctx.llm is not None else None
    add_links(b, offline_links(cands) if links is None else links, session.id)
    _follow_ups(b, session)  # always: the LLM's relations add to the offline follow-ups
    await off_loop(_similar_across_sessions, b, session, ctx)  # store reads and embeddings: off the loop
    await off_loop(add_arguments, b, session, ctx)
    return b
