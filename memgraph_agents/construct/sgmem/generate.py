"""SGMem generated memory by LLM: one structured call per session (summary, facts, insights).

SGMem (Wu et al., §3.3, appendix B.3-B.5) asks an LLM for three things: a concise session
summary, every explicit personal fact as a standalone sentence (no pronouns, all details),
and insights reflected from the facts (preferences, habits, goals), an insight carrying the
latest timestamp of the facts it merges. Here the three come from one call
(``prompts/sgmem_memory.txt``), and every item keeps its provenance:

* a fact's turn ids are mapped to the session's real ids (``TurnIds``). A fact citing no
  real turn is *repaired* when its words point to one turn (``overlap_turn``) and dropped
  otherwise, each time with a note. A reply whose facts cite no real turn at all gets one
  repair turn (``ValueError`` in ``check``), then raises: the layer falls back to offline;
* an insight's fact references (``"F2"``, ``2``, ``"fact 2"``) are resolved to kept facts;
  one left without any source is dropped with a note (an insight must say where it came from);
* the summary's turn ids default to the whole session.

Relative dates the model left in a fact or the summary are annotated with their absolute
date (``timeparse.annotate_times``), so every stored statement is dated.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Unpack

from langchain_core.language_models import BaseChatModel

from memgraph_agents.construct.arguments import STOPWORDS

# Turn-id resolution and the turn listing are shared with event extraction on purpose: the
# model sees the same "id | date | speaker: text" lines and its ids are mapped the same way.
from memgraph_agents.construct.llm.extract import format_session_date, format_turns
from memgraph_agents.construct.llm.turn_ids import TurnIds
from memgraph_agents.construct.sgmem.draft import DraftFact, DraftInsight, MemoryDraft
from memgraph_agents.construct.sgmem.schemas import GeneratedFact, SessionMemory
from memgraph_agents.construct.timeparse import annotate_times
from memgraph_agents.llm.structured import LLMCallOptions, ainvoke_json
from memgraph_agents.model.conversation import Session
from memgraph_agents.prompts import render_prompt

OVERLAP_MIN = 0.5  # share of a fact's content words one turn must hold to adopt an orphan fact
_WORD_RE = re.compile(r"[a-z0-9]+")
_REF_NOISE_RE = re.compile(r"[^0-9a-z]")


def content_words(text: str) -> set[str]:
    """Lower-cased words of 3+ characters (or digits) that are not stopwords."""
    return {w for w in _WORD_RE.findall(text.lower()) if (len(w) >= 3 or w.isdigit()) and w not in STOPWORDS}


def overlap_turn(text: str, turns: Sequence[tuple[str, str]], minimum: float = OVERLAP_MIN) -> str | None:
    """The turn id whose text holds the largest share of ``text``'s content words.

    ``share(t) = |W(text) ∩ W(t)| / |W(text)|``; the best turn wins if ``share ≥ minimum``
    (ties: the earlier turn), else ``None``. ``turns`` are ``(turn id, turn text)`` pairs.
    """
    words = content_words(text)
    if not words:
        return None
    best, best_share = None, 0.0
    for tid, body in turns:
        share = len(words & content_words(body)) / len(words)
        if share > best_share:
            best, best_share = tid, share
    return best if best_share >= minimum else None


def ref_key(ref: str) -> str:
    """Canonical fact reference: ``"F2"``, ``"F02"``, ``"[2]"``, ``"fact 2"``, ``"2"`` -> ``f2``;
    other ids are kept (lower-cased, punctuation removed)."""
    key = _REF_NOISE_RE.sub("", ref.casefold())
    number = key.removeprefix("fact") if key.startswith("fact") else key.removeprefix("f")
    return f"f{int(number)}" if number.isdigit() else key


def fact_index(facts: Sequence[GeneratedFact]) -> dict[str, int]:
    """Reference key -> position. Facts are numbered F1, F2... in order (as the prompt says);
    ids the model wrote itself override that numbering."""
    keys = {f"f{i}": i - 1 for i in range(1, len(facts) + 1)}
    for i, fact in enumerate(facts):
        if fact.id and ref_key(fact.id):
            keys[ref_key(fact.id)] = i
    return keys


def _check(ids: TurnIds) -> Callable[[SessionMemory], SessionMemory]:
    def check(result: SessionMemory) -> SessionMemory:
        # A reply whose every fact cites unknown turns is worth one repair turn; single
        # orphans are repaired or dropped afterwards (``resolve``).
        if result.facts and not any(ids.resolve(f.turn_ids) for f in result.facts):
            raise ValueError(
                "no fact cites a turn id of this session; copy turn ids exactly from the turn list "
                f"(valid ids: {ids.hint()})"
            )
        return result

    return check


def resolve(result: SessionMemory, session: Session) -> MemoryDraft:
    """The validated reply as a ``MemoryDraft`` with real turn ids (see the module docstring)."""
    ids = TurnIds.of(session)
    turns = [(t.id, t.content) for t in session.turns]
    date = session.date
    notes: list[str] = []
    facts: list[DraftFact] = []
    kept: dict[int, int] = {}  # position in the reply -> position in ``facts``
    for i, fact in enumerate(result.facts):
        turn_ids = ids.resolve(fact.turn_ids)
        if not turn_ids:
            guess = overlap_turn(fact.text, turns)
            label = fact.id or f"F{i + 1}"
            if guess is None:
                notes.append(f"sgmem: dropped fact {label} (cites no turn of the session): {fact.text[:80]!r}")
                continue
            notes.append(f"sgmem: fact {label} cited no turn of the session; attached to {guess} by word overlap")
            turn_ids = [guess]
        kept[i] = len(facts)
        facts.append(
            DraftFact(text=annotate_times(fact.text, date), turn_ids=turn_ids, subject=fact.subject, time=fact.time)
        )
    index = fact_index(result.facts)
    insights: list[DraftInsight] = []
    for insight in result.insights:
        sources = [kept[index[k]] for k in map(ref_key, insight.facts) if k in index and index[k] in kept]
        sources = list(dict.fromkeys(sources))
        if not sources:
            notes.append(f"sgmem: dropped insight citing no kept fact: {insight.text[:80]!r}")
            continue
        insights.append(DraftInsight(text=insight.text, facts=sources, subject=insight.subject))
    summary_turns = ids.resolve(result.summary.turn_ids) or [t.id for t in session.turns]
    return MemoryDraft(
        summary=annotate_times(result.summary.text, date),
        summary_turns=summary_turns,
        builder="llm",
        facts=facts,
        insights=insights,
        notes=notes,
    )


async def generate_memory(model: BaseChatModel, session: Session, **call: Unpack[LLMCallOptions]) -> MemoryDraft:
    """Summary, facts and insights of one session; raises ``LLMError`` when the model cannot deliver.
    ``call``: ``usage``, ``timeout``, ``semaphore``, ``retries``, ``backoff_base`` (``ainvoke_json``)."""
    result = await ainvoke_json(
        model,
        render_memory_prompt(session),
        SessionMemory,
        check=_check(TurnIds.of(session)),
        run_name=f"sgmem_memory:{session.id}",
        **call,
    )
    return resolve(result, session)


def render_memory_prompt(session: Session) -> str:
    return render_prompt(
        "sgmem_memory",
        session_date=format_session_date(session.date),
        speakers=", ".join(session.participants),
        turns=format_turns(session),
    )
