"""The filter arguments of ``search`` / ``ask`` / ``list`` (``since``, ``until``, ``speaker``,
``filter``) checked and turned into one ``MemoryFilter`` (``model.filters``).

``since`` / ``until``: a ``datetime`` (an aware one is converted to UTC, as stored dates are), a
``date`` (its midnight) or a string in a session-date format (``loaders.dates``: ISO 8601,
``"2 March 2024"``…); the window is ``since <= date < until``. ``speaker``: a name or a list of
names (any of them, case-insensitive). ``filter``: a metadata filter (``model.metadata``).
``as_of``: a day, as ``since`` is read (statements valid on that day: ``model.filters``).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime
from typing import Any

from pydantic import ValidationError

from memgraph_agents.errors import InputError
from memgraph_agents.loaders.dates import parse_session_date
from memgraph_agents.model.filters import MemoryFilter, TimeWindow
from memgraph_agents.model.metadata import check_filter
from memgraph_agents.model.unicode import check_unicode

DateLike = datetime | date | str


def when(value: Any, name: str) -> datetime | None:
    """``value`` as a naive UTC datetime, ``None`` for ``None``; else an ``InputError`` naming ``name``."""
    if value is None:
        return None

    if isinstance(value, datetime) or isinstance(value, str):
        return parse_session_date(value, where=name)
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day)
    raise InputError(f"{name} must be a datetime, a date or a date string, got {type(value).__name__}")


def speakers(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    names = [value] if isinstance(value, str) else value
    if not isinstance(names, Sequence) or not all(isinstance(n, str) and n.strip() for n in names) or not names:
        raise InputError(f"speaker must be a non-empty name or a list of them, got {value!r}")
    return tuple(check_unicode(n, "speaker") for n in names)


def memory_filter(
    since: DateLike | None = None,
    until: DateLike | None = None,
    speaker: Any = None,
    filter: Any = None,
    as_of: DateLike | None = None,
) -> MemoryFilter:
    """The checked ``MemoryFilter`` of these arguments (empty when all are ``None``)."""
    try:
        window = TimeWindow(since=when(since, "since"), until=when(until, "until"))
    except ValidationError as e:
        raise InputError(e.errors()[0]["msg"].removeprefix("Value error, ")) from None
    day = when(as_of, "as_of")
    return MemoryFilter(
        window=window,
        speakers=speakers(speaker),
        metadata=check_filter(filter),
        as_of=day.date() if day is not None else None,
    )
