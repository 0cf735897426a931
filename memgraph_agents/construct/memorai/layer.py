"""The ``memorai`` layer (MemORAI, Pham Van et al.): segments, gate, summaries, entities, triples.

Per session (MemORAI §3.1–3.2):

1. topic segments with summaries, and the selective gate over turns —
   LLM: one call (``llm.segment_and_gate``); offline: semantic-shift segments with
   extractive summaries (``segments``) and the heuristic gate (``gate``);
2. entities with descriptions and turn citations, and triples, from the gated turns —
   LLM: one call (``llm.entities_and_triples``); offline: the gated turns' arguments with
   extractive descriptions and no triples (``entities``).

Each call falls back to its offline implementation on ``LLMError`` independently, with a note
in the build, so a misbehaving model never loses a session's memory. What is stored is
described in ``write``. Description and triple texts are embedded here once: the embedding
cache keeps them, so DW-PR's per-snapshot embedding of them is a cache lookup.
"""

from __future__ import annotations

from memgraph_agents.aio import off_loop
from memgraph_agents.construct.build import SessionBuild, fallback_note
from memgraph_agents.construct.context import BuildContext
from memgraph_agents.construct.memorai import write
from memgraph_agents.construct.memorai.entities import offline_entities
from memgraph_agents.construct.memorai.gate import offline_gate
from memgraph_agents.construct.memorai.plan import (
    EntityPlan,
    GateVerdict,
    SegmentPlan,
    TriplePlan,
    TurnView,
    turn_views,
)
from memgraph_agents.construct.memorai.segments import offline_segments
from memgraph_agents.errors import LLMError
from memgraph_agents.model.conversation import Session
from memgraph_agents.model.graph import NodeKind


def known_names(ctx: BuildContext) -> frozenset[str]:
    """Single-word names (people, proper nouns) already in memory, for the offline gate."""
    snap = ctx.snapshot
    return frozenset(
        snap.text[i].lower()
        for i in snap.indices_of(NodeKind.ARGUMENT)
        if snap.attrs[i].get("arg_kind") in ("person", "proper") and " " not in snap.text[i].strip()
    )


def _failed(b: SessionBuild, step: str, exc: Exception) -> None:
    b.notes.append(fallback_note(f"memorai {step}", exc))


async def plan_segments(
    b: SessionBuild, session: Session, turns: list[TurnView], ctx: BuildContext
) -> tuple[list[SegmentPlan], dict[str, GateVerdict], str]:
    """Segments and gate verdicts, and which builder made them (``llm`` or ``offline``)."""
    if ctx.llm is not None:
        # lazy: its LLM prompts and schemas (pydantic models, ~20 ms): only with a chat model
        from memgraph_agents.construct.memorai.llm import segment_and_gate

        try:
            segments, gate = await segment_and_gate(
                ctx.llm,
                session,
                speakers=ctx.speakers,
                usage=ctx.usage,
                timeout=ctx.llm_timeout,
                semaphore=ctx.semaphore,
            )
            return segments, gate, "llm"
        except LLMError as exc:
            _failed(b, "segments", exc)
    p = ctx.params
    segments = await off_loop(
        offline_segments,
        turns,
        ctx.embedder,
        min_turns=p.memorai_segment_min_turns,
        max_turns=p.memorai_segment_max_turns,
        window=p.segment_window,
        depth=p.segment_depth,
        n_sentences=p.memorai_summary_sentences,
        speakers=ctx.speakers,
    )
    gate = offline_gate(turns, ctx.speakers, p.memorai_gate_min_content, known_names(ctx))
    return segments, gate, "offline"


async def plan_entities(
    b: SessionBuild, session: Session, gated: list[TurnView], segments: list[SegmentPlan], ctx: BuildContext
) -> tuple[list[EntityPlan], list[TriplePlan], str]:
    """Entities and triples of the gated turns, and which builder made them."""
    if ctx.llm is not None and gated:
        # lazy: its LLM prompts and schemas (pydantic models, ~20 ms): only with a chat model
        from memgraph_agents.construct.memorai.llm import entities_and_triples

        try:
            entities, triples = await entities_and_triples(
                ctx.llm,
                session,
                gated,
                segments,
                speakers=ctx.speakers,
                usage=ctx.usage,
                timeout=ctx.llm_timeout,
                semaphore=ctx.semaphore,
            )
            return entities, triples, "llm"
        except LLMError as exc:
            _failed(b, "entities", exc)
    return offline_entities(gated, ctx.speakers, ctx.params.memorai_keyphrases), [], "offline"


async def build_layer(b: SessionBuild, session: Session, ctx: BuildContext) -> SessionBuild:
    turns = turn_views(b)
    if not turns:
        return b
    segments, gate, seg_builder = await plan_segments(b, session, turns, ctx)
    write.add_segments(b, session, segments, seg_builder)
    write.apply_gate(b, gate)
    gated = [t for t in turns if gate.get(t.id, GateVerdict(keep=False)).keep]
    entities, triples, ent_builder = await plan_entities(b, session, gated, segments, ctx)
    texts = write.add_entities(b, session, ctx.snapshot, entities, triples, ent_builder)
    if texts:
        await off_loop(ctx.embedder.embed, texts)  # warm the (model, text) cache for DW-PR (module doc)
    return b
