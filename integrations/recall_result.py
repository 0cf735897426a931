"""``RecallResult``: what a recall found, as the model reads it (``content``) and as the
application gets it (``artifact``: evidence, the navigator's path, subgoals, trace)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from memgraph_agents.model.evidence import Evidence
from memgraph_agents.model.outcome import EmptyReason, nothing_line


@dataclass
class RecallResult:
    namespace: str
    retriever: str
    query: str
    evidence: list[Evidence]
    answer: str | None = None
    navigation: Any = None  # a NavigationResult for the navigator
    empty: str = ""  # why nothing was searched (the namespace holds no memory yet), else ""
    scopes: list[str] | None = None  # the namespaces read, when more than ``namespace``
    unseen: int = 0  # writes still queued for these namespaces when recall gave up waiting
    waited: float = 0.0  # seconds recall waited for queued writes
    min_score: float = 0.0  # the per-item relevance floor applied
    best_relevance: float | None = None  # the best relevance of the ranking, before the gate and floor
    reason: EmptyReason | None = None  # why the evidence is empty (None: it is not)
    why: str = ""  # why the evidence is empty (``ops.Retrieval.why``: nothing stored, filtered out, below the gate)
    failed_writes: list[str] = field(default_factory=list)  # background writes that failed, told once

    def failure_note(self) -> str:
        """Earlier writes that failed, said plainly ("" when none did)."""
        return "Warning: " + "; ".join(self.failed_writes) + "." if self.failed_writes else ""

    def unseen_note(self) -> str:
        """What recall could not see, said plainly ("" when it saw every write)."""
        if not self.unseen:
            return ""
        return (
            f"{self.unseen} memory write(s) were still being saved after waiting {self.waited:.0f} s and "
            "were not searched; recall again shortly to include them."
        )

    def content(self) -> str:
        """Evidence lines with dates and turn ids (a statement a later one replaced says
        "(superseded on DATE by …)"): what the model reads, after any failed write's warning."""
        failed = self.failure_note()
        return f"{failed}\n{self._content()}" if failed else self._content()

    def _content(self) -> str:
        note = self.unseen_note()
        if not self.evidence:
            if note:
                return f"Nothing found for {self.query!r} in what is saved so far: {note}"
            return nothing_line(self.query, self.reason, self.why)
        head = f"Memory evidence for {self.query!r} ({self.retriever}; cite turn ids):"
        lines = [head] + ([f"Note: {note}"] if note else [])
        if self.answer:
            lines.append(f"Suggested answer: {self.answer}")
        for i, ev in enumerate(self.evidence, start=1):
            where = f"({ev.namespace}) " if self.scopes else ""
            lines.append(f"{i}. {where}{' '.join(ev.cite().split())}")
        return "\n".join(lines)

    def artifact(self) -> dict[str, Any]:
        """JSON-able details for the application (not shown to the model): evidence, path, trace."""
        out: dict[str, Any] = {
            "namespace": self.namespace,
            "retriever": self.retriever,
            "query": self.query,
            "answer": self.answer,
            "scopes": list(self.scopes or [self.namespace]),
            "unseen_writes": self.unseen,
            "failed_writes": list(self.failed_writes),
            "evidence": [ev.model_dump(mode="json") for ev in self.evidence],
        }
        nav = self.navigation
        if nav is not None:
            steps = [e for e in nav.trace if e.get("type") == "decision"]
            out["path"] = [
                {
                    "step": n,
                    "node": e.get("node"),
                    "action": e.get("action"),
                    "via": e.get("via"),
                    "round": e.get("round"),
                    "wave": e.get("wave"),
                    "explorer": e.get("explorer"),
                    "next": e.get("next", []),
                    "scores": e.get("scores", {}),
                    "reason": e.get("reason", ""),
                }
                for n, e in enumerate(steps, start=1)
            ]
            out["kept"] = [{"node": ev.node_id, "path": ev.path, "turn_ids": ev.turn_ids} for ev in nav.evidence]
            out["subgoals"] = list(nav.subgoals)
            out["satisfied"] = list(nav.satisfied)
            out["trace"] = list(nav.trace)
            out["counters"] = dict(nav.counters)
        else:
            out["path"] = [{"node": ev.node_id, "path": list(ev.path)} for ev in self.evidence]
        return out
