"""What an ingest did with one session (reported per session by ``memgraph ingest`` and ``Memory.add``)."""

from __future__ import annotations

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
