"""The turn ids a model cites, mapped back to the real ids of the turns it was shown.

Every LLM construction call (events, SGMem memory, PREMem fragments, MemORAI segments and
entities) lists turns as ``id | date | speaker: text`` lines and asks for the ids they come
from. Models copy them loosely (``d1:3``, ``[D1:3]``, ``"D1: 3"``): ``TurnIds`` accepts those
forms, drops ids that name no listed turn and returns the rest in turn order.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memgraph_agents.model.conversation import Session

_ID_NOISE_RE = re.compile(r"[\s\[\]()\"'`]")


class TurnIds:
    """Maps the ids a model writes (``d1:3``, ``[D1:3]``) to the real ids of ``turn_ids``, in turn order."""

    def __init__(self, turn_ids: Sequence[str]) -> None:
        self.position = {t: i for i, t in enumerate(turn_ids)}
        self.by_key = {self.key(t): t for t in turn_ids}

    @classmethod
    def of(cls, session: Session) -> TurnIds:
        """The ids of every turn of ``session``."""
        return cls([t.id for t in session.turns])

    @staticmethod
    def key(turn_id: str) -> str:
        """What is left of an id to compare: no whitespace, brackets or quotes, case folded."""
        return _ID_NOISE_RE.sub("", turn_id).casefold()

    def resolve(self, cited: Sequence[str]) -> list[str]:
        """The real ids among ``cited``, each once, in turn order; unknown ids are dropped."""
        found = {self.by_key[k] for k in map(self.key, cited) if k in self.by_key}
        return sorted(found, key=self.position.__getitem__)

    def hint(self) -> str:
        """The first valid ids, for a repair message: ``D1:1, D1:2, ..., D1:8, ...``."""
        ids = list(self.position)
        return ", ".join(ids[:8]) + (", ..." if len(ids) > 8 else "")
