"""What the SGMem layer generates for one session, before it becomes graph rows.

Both builders (LLM: ``generate.py``, offline: ``offline.py``) produce a ``MemoryDraft``;
``rows.py`` turns it into nodes and edges. Keeping one shape for both is what makes the
per-session fallback trivial: whichever builder ran, the rows look the same.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class DraftFact:
    text: str  # self-contained statement, dates absolute
    turn_ids: list[str]  # provenance: real turn ids of the session, in turn order (never empty)
    subject: str | None = None  # who the fact is about
    time: str | None = None  # when it happened (YYYY-MM-DD, YYYY-MM or YYYY), if known


@dataclass
class DraftInsight:
    text: str
    facts: list[int]  # indices into ``MemoryDraft.facts`` (never empty)
    subject: str | None = None


@dataclass
class MemoryDraft:
    summary: str
    summary_turns: list[str]  # the turns the summary covers
    builder: str  # "llm" | "offline"
    facts: list[DraftFact] = field(default_factory=list)
    insights: list[DraftInsight] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # repairs and drops worth reporting
