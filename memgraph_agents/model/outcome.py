"""What a call did: an ingest with one session (``SessionOutcome``), a search that found nothing (``EmptyReason``)."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, Field


class SessionOutcome(BaseModel):
    """One session of an ingest: stored or unchanged, how it was built, which LLM steps fell back."""

    id: str
    status: str  # new | appended | replaced | unchanged
    builder: str = ""  # llm | offline ("" when unchanged)
    fallbacks: list[str] = Field(default_factory=list)

    def line(self, llm: bool) -> str:
        if self.status == "unchanged":
            return f"{self.id}: unchanged"
        if not llm:
            return f"{self.id}: {self.status}, built offline"
        if self.builder == "llm" and not self.fallbacks:
            return f"{self.id}: {self.status}, LLM-built"
        how = "LLM-built, with offline fallback for" if self.builder == "llm" else "OFFLINE FALLBACK (LLM failed) for"
        steps = ", ".join(dict.fromkeys(f.split(":", 1)[0] for f in self.fallbacks)) or "events"
        return f"{self.id}: {self.status}, {how} {steps}"


class EmptyReason(StrEnum):
    """Why a search / ask / recall returned no evidence (every door says which)."""

    NOTHING_STORED = "nothing_stored"  # the namespace holds no memory yet
    FILTERED_OUT = "filtered_out"  # memory holds something, but nothing the filter admits
    BELOW_GATE = "below_gate"  # the question's best match in the namespace is below the relevance gate
    BELOW_FLOOR = "below_floor"  # every item's relevance is below the caller's min_score
    NO_MATCH = "no_match"  # the retriever ranked nothing (a lexical one: no word of the question stored)

    def explain(self, namespace: str, best: float | None = None, cut: float | None = None) -> str:
        """One sentence for a person (``best``: the best relevance; ``cut``: the gate or floor)."""
        if self is EmptyReason.NOTHING_STORED:
            return f"namespace {namespace!r} holds no memory yet"
        if self is EmptyReason.FILTERED_OUT:
            return f"nothing in namespace {namespace!r} matches the filter"
        if self is EmptyReason.NO_MATCH:
            return f"nothing in namespace {namespace!r} matches the question"
        rel = "none" if best is None else f"{best:.3f}"
        if self is EmptyReason.BELOW_GATE:
            return (
                f"the best match's relevance, {rel}, is below the relevance gate {cut:g} "
                "(min_score=0 shows the ranking anyway)"
            )
        return f"every item's relevance (best {rel}) is below min_score {cut:g}"

    @property
    def irrelevant(self) -> bool:
        """Memory was searched and judged to hold nothing relevant (not: nothing to search)."""
        return self in (EmptyReason.BELOW_GATE, EmptyReason.BELOW_FLOOR)


def nothing_line(query: str, reason: EmptyReason | None, why: str) -> str:
    """What a door says for an empty result: "Nothing relevant in memory for 'q': why."."""
    head = "Nothing relevant in memory" if reason is not None and reason.irrelevant else "Nothing in memory"
    return f"{head} for {query!r}: {why or 'nothing matches'}."


def one_reason(reasons: list[EmptyReason | None]) -> EmptyReason | None:
    """The reason of several empty namespaces: theirs when they agree, else the first judged
    irrelevant (memory was searched), else the first."""
    if len(set(reasons)) == 1:
        return reasons[0]
    return next((r for r in reasons if r is not None and r.irrelevant), reasons[0] if reasons else None)
