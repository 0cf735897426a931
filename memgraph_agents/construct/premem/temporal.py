"""PREMem's temporal representation of a memory fragment: ``on | before | after <date>``.

PREMem (Kim et al., 2025, §3.1) stamps every fragment with one of four patterns:

1. an ongoing fact or current state -> the message date            ``on 2023-05-08``
2. a past event with a resolvable time -> that absolute date        ``on 2023-05-07``
3. a past event with no resolvable time -> before the message date  ``before 2023-05-08``
4. a future plan or intention -> after the message date             ``after 2023-05-08``

The date part is ``YYYY-MM-DD``, ``YYYY-MM`` or ``YYYY`` (coarser when the expression is:
"last month" is ``2023-04``), ``the week of YYYY-MM-DD`` (its Monday) or ``<season> YYYY``.
Reasoning fragments may also span a range: ``from 2023-03-05 to 2023-03-22``.

Offline, the date comes from :mod:`memgraph_agents.construct.timeparse` (the first relative
expression of the sentence); with an LLM, whatever the model wrote is parsed back into this
form (``parse_time``), and anything unreadable becomes the message date rather than an error.
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta
from typing import Literal

from pydantic import BaseModel

from memgraph_agents.construct.timeparse import TimeMention, find_time_mentions
from memgraph_agents.llm.coerce import normalise_time

Relation = Literal["on", "before", "after", "range"]

_BEFORE_RE = re.compile(r"^(?:before|prior\s+to|until|till|by|earlier\s+than)\b[\s:,]*", re.I)
_AFTER_RE = re.compile(r"^(?:after|since|later\s+than|from|planned\s+for|upcoming)\b[\s:,]*", re.I)
_ON_RE = re.compile(r"^(?:on|in|during|around|about|at|approximately|circa|the\s+date\s+of)\b[\s:,]*", re.I)
_RANGE_RE = re.compile(r"^(?:from\s+|between\s+)?(?P<a>.+?)\s+(?:to|until|till|through|and|–|—|-)\s+(?P<b>.+)$", re.I)
_WEEK_RE = re.compile(r"^(?:the\s+)?week\s+of\s+(?P<d>.+)$", re.I)
_SEASON_RE = re.compile(r"^(?P<s>spring|summer|autumn|fall|winter)\s+(?P<y>\d{4}(?:-\d{4})?)$", re.I)


class FragmentTime(BaseModel):
    """``relation`` + ``value`` (the date part); ``text`` is what gets stored and embedded."""

    relation: Relation
    value: str
    end: str = ""  # second date of a range

    @property
    def text(self) -> str:
        if self.relation == "range":
            return f"from {self.value} to {self.end}"
        return f"{self.relation} {self.value}"


def day(d: date | datetime) -> str:
    return (d.date() if isinstance(d, datetime) else d).isoformat()


def from_mention(m: TimeMention) -> str:
    """The date part for a resolved relative expression, at the expression's granularity."""
    if m.granularity in ("day", "weekend"):
        return m.date.isoformat()
    if m.granularity == "week":
        return f"the week of {(m.date - timedelta(days=m.date.weekday())).isoformat()}"
    if m.granularity == "month":
        return f"{m.date:%Y-%m}"
    if m.granularity == "season":
        return m.label  # "summer 2022", "winter 2022-2023"
    return str(m.date.year)


def _date_part(text: str) -> str | None:
    """``YYYY-MM-DD`` / ``YYYY-MM`` / ``YYYY``, a week or a season; ``None`` if unreadable."""
    text = text.strip().strip(".,;()[]\"'")
    week = _WEEK_RE.match(text)
    if week:
        d = normalise_time(week.group("d"))
        return f"the week of {d}" if d and len(d) == 10 else None
    season = _SEASON_RE.match(text)
    if season:
        return f"{season.group('s').lower()} {season.group('y')}"
    return normalise_time(text)


def parse_time(value: str | None, message_date: date | datetime) -> FragmentTime:
    """Read a model-written time ("2027-03-13", "Before 2027-03-14", "After 14 March 2027",
    "2027-02-05 to 2027-02-22", even "yesterday") into a ``FragmentTime``; unreadable or
    missing -> the message date (pattern 1): the content still carries what the model said."""
    fallback = FragmentTime(relation="on", value=day(message_date))
    text = " ".join((value or "").split())
    if not text:
        return fallback
    rng = _RANGE_RE.match(text)
    if rng:
        got = _range(rng)
        if got is not None:
            return got
    for rx, relation in ((_BEFORE_RE, "before"), (_AFTER_RE, "after"), (_ON_RE, "on")):
        m = rx.match(text)
        if m:
            parsed = _date_part(text[m.end() :])
            return FragmentTime(relation=relation, value=parsed) if parsed else fallback
    parsed = _date_part(text)
    if parsed:
        return FragmentTime(relation="on", value=parsed)
    # a relative expression the model left as it was ("yesterday", "next month")
    mentions = find_time_mentions(text, message_date)
    return FragmentTime(relation="on", value=from_mention(mentions[0])) if mentions else fallback


def _range(m: re.Match) -> FragmentTime | None:
    """Two readable dates -> a range (one date when both are equal); else ``None``.
    A leading relation word is dropped: "Before 2023-03-05 to 2023-03-22" spans the dates."""
    a = m.group("a")
    for rx in (_BEFORE_RE, _AFTER_RE, _ON_RE):
        a = rx.sub("", a)
    start, end = _date_part(a), _date_part(m.group("b"))
    if not (start and end):
        return None
    if start == end:
        return FragmentTime(relation="on", value=start)
    return FragmentTime(relation="range", value=start, end=end)
