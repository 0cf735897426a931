"""MemORAI's two LLM calls per session (§3.1–3.2), each one structured call plus a repair turn.

1. ``segment_and_gate``: topic segments with title and summary, and the selective gate.
2. ``entities_and_triples``: over the turns the gate kept, entities with descriptions and
   triples, all citing turns.

Provenance is enforced, not trusted: cited ids are mapped back to real turn ids (``d1:3``,
``[D1:3]`` are accepted) and unknown ones dropped; for entities and triples only the turns
shown in the prompt count. A turn claimed by two segments stays in the first; a turn no
segment claims joins the segment of the nearest earlier turn (else the next one), so the
segments always cover the session. A reply left with nothing usable raises ``ValueError``
inside ``check``, which buys one repair turn; after that ``LLMError`` reaches the layer,
which falls back to the offline implementation for that session.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Unpack

from memgraph_agents.construct.llm.extract import format_session_date, format_turns
from memgraph_agents.construct.llm.turn_ids import TurnIds
from memgraph_agents.construct.memorai.plan import EntityPlan, GateVerdict, SegmentPlan, TriplePlan, TurnView
from memgraph_agents.construct.memorai.schemas import EntitiesReply, SegmentsReply
from memgraph_agents.construct.relate import argument_key
from memgraph_agents.llm.structured import LLMCallOptions, ainvoke_json
from memgraph_agents.model.conversation import Session
from memgraph_agents.prompts import render_prompt


def cover_all(segments: list[list[str]], ids: TurnIds) -> list[tuple[int, list[str]]]:
    """Disjoint segments covering every turn, as ``(index of the segment it came from, turn
    ids)``: first claim wins, orphans join the nearest earlier turn's segment (the next
    turn's for leading orphans). Ordered by first turn."""
    owner: dict[str, int] = {}
    for k, seg in enumerate(segments):
        for t in seg:
            owner.setdefault(t, k)
    order = list(ids.position)
    for i, t in enumerate(order):
        if t in owner:
            continue
        earlier = [owner[u] for u in reversed(order[:i]) if u in owner]
        later = [owner[u] for u in order[i + 1 :] if u in owner]
        owner[t] = (earlier or later)[0]
    groups: dict[int, list[str]] = {}
    for t in order:
        groups.setdefault(owner[t], []).append(t)
    return sorted(groups.items(), key=lambda kg: ids.position[kg[1][0]])


async def segment_and_gate(
    model: Any,
    session: Session,
    *,
    speakers: Sequence[str],
    **call: Unpack[LLMCallOptions],
) -> tuple[list[SegmentPlan], dict[str, GateVerdict]]:
    """Segments covering every turn of ``session`` and a verdict for every turn."""
    ids = TurnIds.of(session)
    prompt = render_prompt(
        "memorai_segments",
        speakers=", ".join(speakers) or "the speakers",
        session_date=format_session_date(session.date),
        turns=format_turns(session),
    )

    def check(reply: SegmentsReply) -> SegmentsReply:
        kept = [s.model_copy(update={"turn_ids": ids.resolve(s.turn_ids)}) for s in reply.segments]
        kept = [s for s in kept if s.turn_ids]
        if not kept:
            raise ValueError(
                "no segment cites a turn id of this session; copy turn ids exactly from the "
                f"turn list (valid ids: {ids.hint()})"
            )
        return SegmentsReply.model_construct(segments=kept, user_specific=reply.user_specific)

    reply = await ainvoke_json(
        model, prompt, SegmentsReply, check=check, run_name=f"memorai_segments:{session.id}", **call
    )
    segments = [
        SegmentPlan(turn_ids=group, summary=reply.segments[k].summary, title=reply.segments[k].title)
        for k, group in cover_all([s.turn_ids for s in reply.segments], ids)
    ]
    gate = {t: GateVerdict(keep=False, reason="") for t in ids.position}
    for item in reply.user_specific:
        for t in ids.resolve([item.turn_id]):
            gate[t] = GateVerdict(keep=True, reason=item.reason)
    return segments, gate


async def entities_and_triples(
    model: Any,
    session: Session,
    turns: Sequence[TurnView],
    segments: Sequence[SegmentPlan],
    *,
    speakers: Sequence[str],
    **call: Unpack[LLMCallOptions],
) -> tuple[list[EntityPlan], list[TriplePlan]]:
    """Entities and triples of ``turns`` (the gated ones), citing only those turns.

    Entities are merged by argument key (turns united, first description kept); a triple
    needs a cited turn and two different endpoints. No turns: no call, ``([], [])``.
    """
    if not turns:
        return [], []
    ids = TurnIds([t.id for t in turns])
    topics = "\n".join(f"- {s.title + ': ' if s.title else ''}{s.summary}" for s in segments) or "- (none)"
    prompt = render_prompt(
        "memorai_entities",
        speakers=", ".join(speakers) or "the speakers",
        session_date=format_session_date(session.date),
        turns=format_turns(session, [t.id for t in turns]),
        segments=topics,
    )

    def check(reply: EntitiesReply) -> tuple[list[EntityPlan], list[TriplePlan]]:
        entities: dict[str, EntityPlan] = {}
        for e in reply.entities:
            cited, key = ids.resolve(e.turn_ids), argument_key(e.name)
            if not cited or not key:
                continue
            if key in entities:
                old = entities[key]
                old.turn_ids = ids.resolve([*old.turn_ids, *cited])
            else:
                entities[key] = EntityPlan(name=e.name, description=e.description, turn_ids=cited)
        triples = []
        for tr in reply.triples:
            cited = ids.resolve(tr.turn_ids)
            a, b = argument_key(tr.subject), argument_key(tr.object)
            if cited and a and b and a != b and argument_key(tr.predicate):
                triples.append(TriplePlan(subject=tr.subject, predicate=tr.predicate, object=tr.object, turn_ids=cited))
        if not entities:
            what = "the entities list is empty" if not reply.entities else "no entity cites a listed turn id"
            raise ValueError(
                f"{what}; list the entities of these turns, copying turn ids exactly (valid ids: {ids.hint()})"
            )
        return list(entities.values()), triples

    result: Any = await ainvoke_json(
        model, prompt, EntitiesReply, check=check, run_name=f"memorai_entities:{session.id}", **call
    )
    return result
