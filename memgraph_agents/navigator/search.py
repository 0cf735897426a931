"""Per-step view of one question's search: snapshot, event view, vectors and scorer.

Every graph node rebuilds it from the state (cheap: the event view is cached per snapshot
and the query-side vectors per run), which keeps numpy arrays out of the LangGraph state.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from memgraph_agents.navigator.resources import Resources, embed_texts
from memgraph_agents.navigator.view import Scorer
from memgraph_agents.retrieval.event_view import EventView, event_view
from memgraph_agents.storage.snapshot import GraphSnapshot


@dataclass
class Decision:
    """One explorer decision, whichever policy took it."""

    node: str
    action: str  # SKIP | EXPAND | ANSWER
    next: list[str]
    supports: list[int]  # 0-based subgoal indices
    reason: str
    source: str  # offline | llm | fallback
    scores: dict[str, float]


@dataclass
class Search:
    res: Resources
    snap: GraphSnapshot
    view: EventView
    question: str
    subgoals: list[str]
    qv: np.ndarray
    scorer: Scorer

    @property
    def q_index(self) -> int | None:
        """Which subgoal is the question itself (the one-shot scores count for it)."""
        return self.subgoals.index(self.question) if self.question in self.subgoals else None

    def idx(self, node_id: str) -> int | None:
        return self.snap.index.get(node_id)

    def rels(self, nodes: list[int]) -> np.ndarray:
        """Relative similarity per subgoal; the question's column also takes the one-shot score."""
        r = self.scorer.rel(nodes)
        qi = self.q_index
        if qi is not None and len(nodes):
            r[:, qi] = np.maximum(r[:, qi], [self.scorer.os_score(n) for n in nodes])
        return r

    def speakers(self) -> list[str]:
        names: list[str] = []
        for s in self.snap.sessions.values():
            for p in s.get("participants") or []:
                if p not in names:
                    names.append(p)
        return names

    def date(self, i: int) -> str:
        a = self.snap.attrs[i]
        return str(a.get("time") or self.snap.session_date(self.snap.owner[i]) or "")[:10]

    def text(self, i: int, limit: int = 700) -> str:
        t = " / ".join(line.strip() for line in self.snap.text[i].splitlines() if line.strip())
        return t if len(t) <= limit else t[: limit - 1] + "…"


def build_search(state: Mapping[str, Any], res: Resources, *, subgoals: list[str] | None = None) -> Search:
    snap = res.store.snapshot()
    view = event_view(snap)
    question = state["question"]
    goals = subgoals if subgoals is not None else (state.get("subgoals") or [question])
    vecs = embed_texts(res.store.embedder, [question, *goals])
    one_shot = {snap.index[f"turn:{t}"]: float(s) for t, s in state.get("one_shot") or [] if f"turn:{t}" in snap.index}
    scorer = Scorer(snap, view, vecs[1:], one_shot, state.get("refs") or None)
    return Search(res=res, snap=snap, view=view, question=question, subgoals=list(goals), qv=vecs[0], scorer=scorer)
