"""What a search or a listing is restricted to: a time window, speakers, a metadata filter.

``MemoryFilter`` is applied inside retrieval (``retrieval.scope``: retrievers search only the
turns it admits and the nodes built from them, as if nothing else were stored), so ``k``
results come back whenever ``k`` matching items exist. A turn is admitted when

* its **date** lies in ``TimeWindow(since, until)``: ``since <= date < until``, where a turn's
  date is its own timestamp if it has one, else its session's date (when it was said, not the
  dates it mentions);
* its **speaker** is one of ``speakers`` (compared case-insensitively), when any are given;
* its session's **metadata** passes ``metadata`` (``model.metadata.matches``).

A time window is the one test of "is this date in range" (``TimeWindow.contains``); a filter on
another date of a stored item (e.g. when a fact stopped being current) reuses it.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from memgraph_agents.model.metadata import check_filter


class TimeWindow(BaseModel):
    """``[since, until)`` over naive UTC datetimes; an open end is ``None``."""

    model_config = ConfigDict(frozen=True)

    since: datetime | None = None
    until: datetime | None = None

    @model_validator(mode="after")
    def _ordered(self) -> TimeWindow:
        if self.since is not None and self.until is not None and self.since >= self.until:
            raise ValueError(f"since ({self.since.isoformat()}) must be before until ({self.until.isoformat()})")
        return self

    @property
    def open(self) -> bool:
        return self.since is None and self.until is None

    def contains(self, when: datetime) -> bool:
        """``since <= when < until``."""
        return (self.since is None or when >= self.since) and (self.until is None or when < self.until)

    def bounds(self) -> tuple[str | None, str | None]:
        """The ends as ISO strings (``datetime.isoformat``), for comparing stored ISO dates."""
        return (
            self.since.isoformat() if self.since is not None else None,
            self.until.isoformat() if self.until is not None else None,
        )


class MemoryFilter(BaseModel):
    """A restriction of memory to some turns (see the module docstring); empty: everything."""

    model_config = ConfigDict(frozen=True)

    window: TimeWindow = Field(default_factory=TimeWindow)
    speakers: tuple[str, ...] = ()
    metadata: dict[str, Any] = Field(default_factory=dict)

    @field_validator("metadata")
    @classmethod
    def _filter(cls, v: dict[str, Any]) -> dict[str, Any]:
        return check_filter(v)

    @field_validator("speakers")
    @classmethod
    def _speakers(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(sorted({s.strip().casefold() for s in v if s.strip()}))

    @property
    def empty(self) -> bool:
        return self.window.open and not self.speakers and not self.metadata

    def key(self) -> str:
        """A stable text of the filter: equal filters give equal keys (a cache key)."""
        return json.dumps(self.model_dump(mode="json"), sort_keys=True)

    def admits_speaker(self, speaker: str) -> bool:
        return not self.speakers or speaker.strip().casefold() in self.speakers
