"""The navigator's per-question scorer over the event view (``retrieval.event_view``)."""

from __future__ import annotations

import numpy as np

from memgraph_agents.model.ranking import exact_dots
from memgraph_agents.retrieval.event_view import EventView
from memgraph_agents.storage.snapshot import GraphSnapshot


class Scorer:
    """Per-question similarity of events to subgoals, relative to what localisation found.

    ``sims``: cosine of each subgoal to the event, taken as the best of the event's own vector
    and its turns' vectors (an offline event is several turns; one matching turn is enough).
    ``os``: the one-shot ranking's turn scores, normalised by its best score, so an event's
    one-shot score is its best turn's. Both are made relative (``rel``) so one threshold
    means the same thing for every question and subgoal.
    """

    def __init__(
        self,
        snap: GraphSnapshot,
        view: EventView,
        subgoal_vectors: np.ndarray,
        one_shot: dict[int, float],
        refs: list[float] | None = None,
    ) -> None:
        self.snap, self.view = snap, view
        self.h = np.atleast_2d(subgoal_vectors).astype(np.float32)
        self.one_shot = one_shot
        self.refs = np.asarray(refs if refs else np.ones(len(self.h)), dtype=np.float32)
        self._cache: dict[int, np.ndarray] = {}

    def sims(self, nodes: list[int]) -> np.ndarray:
        """``(len(nodes), n_subgoals)`` cosines."""
        todo = [n for n in dict.fromkeys(nodes) if n not in self._cache]
        if todo:
            vecs = self.snap.vectors()
            rows, owners = [], []
            for n in todo:
                for r in [n, *self.view.turns.get(n, [])]:
                    rows.append(r)
                    owners.append(n)
            s = vecs[rows] @ self.h.T if vecs.shape[1] == self.h.shape[1] else np.zeros((len(rows), len(self.h)))
            s = self.snap.calibration.query.to_reference(s)  # relative levels read in one scale per model
            owners_arr = np.asarray(owners)
            for n in todo:
                self._cache[n] = s[owners_arr == n].max(axis=0)
        if not nodes:
            return np.zeros((0, len(self.h)), dtype=np.float32)
        return np.stack([self._cache[n] for n in nodes])

    def os_score(self, node: int) -> float:
        return max((self.one_shot.get(t, 0.0) for t in self.view.turns.get(node, [])), default=0.0)

    def rel(self, nodes: list[int]) -> np.ndarray:
        """Cosines divided by each subgoal's best localisation cosine (``refs``)."""
        return self.sims(nodes) / np.maximum(self.refs, 1e-6)

    def turn_order(self, node: int, qv: np.ndarray) -> list[int]:
        """The event's turns, best first: one-shot score, then cosine to the question."""
        ts = self.view.turns.get(node, [])
        vecs = self.snap.vectors()
        # Exact cosines (model.ranking): two copies of a turn tie exactly and go by node id.
        fits = ts and vecs.shape[1] == qv.shape[0]
        dense = (
            exact_dots(vecs, qv.reshape(1, -1), ts, np.zeros(len(ts), dtype=np.int64)) if fits else np.zeros(len(ts))
        )
        rank = self.snap.id_rank
        return [
            t for *_, t in sorted(zip([-self.one_shot.get(t, 0.0) for t in ts], -dense, [int(rank[t]) for t in ts], ts))
        ]
