"""PREMem step 2b, pre-storage reasoning: insights over linked cluster pairs (LLM only).

For each linked pair (p, c) — p an earlier session's cluster, c one of this session's —
PREMem asks ``LLM_reason(M_p, M_c)`` for reasoning fragments along five evolution patterns
(Kim et al., 2025, §3.2.2, after schema theory): extension (generalising), accumulation
(repetition), specification (refinement), transformation (change over time) and connection
(implication). Here all of a session's new links go into one call (``prompts/
premem_reasoning.txt``), in batches of ``MAX_PAIRS_PER_CALL`` pairs when there are many, run
concurrently. Each insight names its pair; it is derived from the fragments of both clusters
shown to the model (at most ``MAX_FRAGMENTS_PER_SIDE`` per cluster, to bound the prompt).

A batch that fails (``LLMError``) adds a note and no insights; the fragments, clusters and
links are kept. Offline there is no reasoning.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from datetime import date

from memgraph_agents.construct.context import BuildContext
from memgraph_agents.construct.premem.model import Fragment
from memgraph_agents.construct.premem.schemas import SessionReasoning
from memgraph_agents.construct.premem.temporal import parse_time
from memgraph_agents.errors import LLMError
from memgraph_agents.llm.structured import ainvoke_json
from memgraph_agents.prompts import render_prompt

MAX_PAIRS_PER_CALL = 8
MAX_FRAGMENTS_PER_SIDE = 8


@dataclass
class ClusterView:
    """What the reasoning step needs of one cluster: its fragments, in order."""

    id: str
    session_id: str
    date: str  # the session date, YYYY-MM-DD
    fragment_ids: list[str] = field(default_factory=list)
    fragment_lines: list[str] = field(default_factory=list)  # "category | key: content (time)"
    fragment_turns: list[list[str]] = field(default_factory=list)

    def shown(self) -> range:
        return range(min(len(self.fragment_ids), MAX_FRAGMENTS_PER_SIDE))


@dataclass
class LinkedPair:
    earlier: ClusterView
    later: ClusterView
    similarity: float


@dataclass
class Insight:
    """A reasoning fragment and what it was derived from."""

    pair: LinkedPair
    fragment: Fragment
    source_ids: list[str]  # the fragments of both clusters it reasons over


def format_pairs(pairs: list[LinkedPair]) -> str:
    """``Pair n (similarity s; earlier session d1, later session d2)`` then one line per
    fragment: ``earlier | category | key: content (time)``."""
    blocks = []
    for n, pair in enumerate(pairs, start=1):
        lines = [
            f"Pair {n} (similarity {pair.similarity:.2f}; earlier session {pair.earlier.date}, "
            f"later session {pair.later.date})"
        ]
        for side, view in (("earlier", pair.earlier), ("later", pair.later)):
            lines += [f"{side} | {' '.join(view.fragment_lines[i].split())}" for i in view.shown()]
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def sources(pair: LinkedPair) -> tuple[list[str], list[str]]:
    """(fragment ids, union of their turn ids in first-seen order) shown for ``pair``."""
    ids: list[str] = []
    turns: list[str] = []
    for view in (pair.earlier, pair.later):
        for i in view.shown():
            ids.append(view.fragment_ids[i])
            turns.extend(t for t in view.fragment_turns[i] if t not in turns)
    return ids, turns


async def _reason_batch(
    pairs: list[LinkedPair], ctx: BuildContext, speakers: str, run_name: str, retries: int
) -> list[Insight]:
    prompt = render_prompt("premem_reasoning", speakers=speakers, pairs=format_pairs(pairs))

    def known_pairs(result: SessionReasoning) -> SessionReasoning:
        kept = [r for r in result.insights if 1 <= r.pair <= len(pairs)]
        if kept or not result.insights:  # nothing substantive to infer is a valid answer
            return SessionReasoning.model_construct(insights=kept)
        raise ValueError(f"every insight names a pair that does not exist: use the pair numbers 1..{len(pairs)}")

    result = await ainvoke_json(
        ctx.llm,
        prompt,
        SessionReasoning,
        usage=ctx.usage,
        retries=retries,
        timeout=ctx.llm_timeout,
        semaphore=ctx.semaphore,
        check=known_pairs,
        run_name=run_name,
    )
    out = []
    for r in result.insights:
        pair = pairs[r.pair - 1]
        ids, turns = sources(pair)
        frag = Fragment(
            category=r.pattern,
            key=r.key,
            content=r.content,
            turn_ids=turns,
            time=parse_time(r.time, date.fromisoformat(pair.later.date[:10])),
            builder="llm",
        )
        out.append(Insight(pair=pair, fragment=frag, source_ids=ids))
    return out


async def reason_over_links(
    pairs: list[LinkedPair], ctx: BuildContext, session_id: str, speakers: list[str], *, retries: int = 1
) -> tuple[list[Insight], list[str]]:
    """(insights, notes) for this session's linked pairs; ``[]`` offline or without links."""
    if ctx.llm is None or not pairs:
        return [], []
    batches = [pairs[i : i + MAX_PAIRS_PER_CALL] for i in range(0, len(pairs), MAX_PAIRS_PER_CALL)]
    names = [f"premem_reasoning:{session_id}" + (f":{k}" if len(batches) > 1 else "") for k in range(len(batches))]
    people = " and ".join([", ".join(speakers[:-1]), speakers[-1]] if len(speakers) > 1 else speakers) or "its speakers"
    results = await asyncio.gather(
        *(_reason_batch(b, ctx, people, n, retries) for b, n in zip(batches, names)), return_exceptions=True
    )
    insights: list[Insight] = []
    notes: list[str] = []
    for batch, got in zip(batches, results):
        if isinstance(got, LLMError):
            notes.append(
                f"premem reasoning: LLM failed on {len(batch)} linked pair(s) "
                f"({type(got).__name__}: {str(got)[:120]}); no reasoning fragments for them"
            )
        elif isinstance(got, BaseException):
            raise got  # a bug, not the model: do not hide it
        else:
            insights.extend(got)
    return insights, notes
