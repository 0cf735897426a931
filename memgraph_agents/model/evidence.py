"""``Evidence``: what every retriever returns (docs/architecture.md, "Data model")."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field


class Evidence(BaseModel):
    node_id: str
    kind: str
    text: str
    score: float
    turn_ids: list[str] = Field(default_factory=list, description="provenance turns, best first")
    session_ids: list[str] = Field(default_factory=list)
    session_dates: list[str] = Field(default_factory=list, description="ISO dates of those sessions")
    path: list[str] = Field(default_factory=list, description="node ids by which it was reached")
    retriever: str = ""
    metadata: dict[str, Any] = Field(
        default_factory=dict, description="the user's metadata of its first session (session_ids[0])"
    )
    namespace: str = Field("", description="the namespace it came from (set by Memory.search)")

    def cite(self) -> str:
        """One line for a prompt or a terminal: ``[2023-05-08 | D1:3] text``."""
        dates = ",".join(sorted(set(self.session_dates)))
        turns = ",".join(self.turn_ids[:6]) + ("…" if len(self.turn_ids) > 6 else "")
        return f"[{dates} | {turns}] {self.text}"


def flatten_turns(evidence: list[Evidence], k: int | None = None) -> list[str]:
    """Ranked evidence -> ranked provenance turn ids, first occurrence wins, first ``k`` kept."""
    seen: set[str] = set()
    out: list[str] = []
    for ev in evidence:
        for t in ev.turn_ids:
            if t not in seen:
                seen.add(t)
                out.append(t)
                if k is not None and len(out) >= k:
                    return out
    return out
