"""``RecallResult``: what a recall found, as the model reads it (``content``) and as the
application gets it (``artifact``: evidence, the navigator's path, subgoals, trace)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from memgraph_agents.model.evidence import Evidence


@dataclass
class RecallResult:
    namespace: str
    retriever: str
    query: str
    evidence: list[Evidence]
    answer: str | None = None
    navigation: Any = None  # a NavigationResult for the navigator
    empty: str = ""  # why nothing was searched (the namespace holds no memory yet), else ""
    min_score: float = 0.0  # the relevance floor applied
    best_relevance: float | None = None  # the best relevance of the ranking, before the floor

    def content(self) -> str:
        """Evidence lines with dates and turn ids (a statement a later one replaced says
        "(superseded on DATE by …)"): what the model reads."""
        if not self.evidence and self.best_relevance is not None:
            return (
                f"Nothing relevant in memory for {self.query!r} (best match relevance "
                f"{self.best_relevance:.2f}, below the floor {self.min_score:g})."
            )
        if not self.evidence:
            return f"Nothing in memory matches {self.query!r}."
        head = f"Memory evidence for {self.query!r} ({self.retriever}; cite turn ids):"
        lines = [head]
        if self.answer:
            lines.append(f"Suggested answer: {self.answer}")
        for i, ev in enumerate(self.evidence, start=1):
            lines.append(f"{i}. {' '.join(ev.cite().split())}")
        return "\n".join(lines)

    def artifact(self) -> dict[str, Any]:
        """JSON-able details for the application (not shown to the model): evidence, path, trace."""
        out: dict[str, Any] = {
            "namespace": self.namespace,
            "retriever": self.retriever,
            "query": self.query,
            "answer": self.answer,
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
