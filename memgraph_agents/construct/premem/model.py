"""``Fragment``: one PREMem memory fragment as the layer stores it (episodic or reasoning)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from memgraph_agents.construct.premem.temporal import FragmentTime


class Fragment(BaseModel):
    """PREMem's ``m = (id, key, content, time)`` (Kim et al., 2025, §3.1) plus its category
    and source turns; the id is given when it becomes a node."""

    category: str  # factual | experiential | subjective; the pattern for reasoning fragments
    key: str
    content: str
    turn_ids: list[str]
    time: FragmentTime
    builder: Literal["llm", "offline"]

    @property
    def text(self) -> str:
        """What is embedded and shown: ``key: content (on 2023-05-07)``."""
        return f"{self.key}: {self.content} ({self.time.text})"
