"""Forgiving coercions shared by the pydantic schemas of the LLM calls.

Models often give the right content in a slightly wrong form: a comma string where a list was
asked, a year as a number, padded or repeated ids, ``"Temporal Before"`` for a snake_case
label, a spelled-out date. These helpers (used as ``mode="before"`` validators or
``BeforeValidator``\\ s) turn such forms into what the schema asks and pass anything else
through unchanged, so the schema still rejects what is really wrong: every failed validation
costs a repair call, so form is forgiven and substance is not.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

LIST_SEPARATORS = re.compile(r"[,;]\s*")
LINE_SEPARATORS = re.compile(r"[,;\n]\s*")  # a list written one item a line, too
NULLISH = frozenset({"", "none", "null", "n/a", "na", "unknown", "unspecified"})
_LABEL_RE = re.compile(r"[^0-9a-z]+")
_INT_RE = re.compile(r"\d+")
_SIGNED_INT_RE = re.compile(r"-?\d+")
_ISO_PREFIX_RE = re.compile(r"^(\d{4})(?:-(\d{2}))?(?:-(\d{2}))?")
_DATE_FORMATS = ("%d %B %Y", "%d %b %Y", "%B %d, %Y", "%b %d, %Y", "%B %d %Y", "%Y/%m/%d")
_MONTH_FORMATS = ("%B %Y", "%b %Y")


def as_str_list(value: Any, separators: re.Pattern[str] = LIST_SEPARATORS) -> Any:
    """Accept ``"D1:3"`` or ``"D1:3, D1:4"`` where a list of strings was asked; numbers in a
    list become strings, ``None`` an empty list."""
    if value is None:
        return []
    if isinstance(value, str):
        return separators.split(value)
    if isinstance(value, (list, tuple)):
        return [str(v) if isinstance(v, (int, float)) else v for v in value]
    return value


def unique_stripped(values: list[str]) -> list[str]:
    """Stripped, non-empty, first of each case-insensitive duplicate, in order."""
    out: list[str] = []
    seen: set[str] = set()
    for v in values:
        v = v.strip()
        if v and v.casefold() not in seen:
            seen.add(v.casefold())
            out.append(v)
    return out


def str_list(value: Any, limit: int | None = None) -> Any:
    """``as_str_list`` then, when every item is a string, ``unique_stripped`` (at most
    ``limit`` items: a long list is cut, not worth a repair call)."""
    value = as_str_list(value)
    if isinstance(value, list) and all(isinstance(x, str) for x in value):
        return unique_stripped(value)[:limit]
    return value


def stripped(value: Any) -> Any:
    """A string without surrounding whitespace; anything else unchanged."""
    return value.strip() if isinstance(value, str) else value


def collapse_spaces(value: Any) -> Any:
    """A string with every run of whitespace made one space (and none at the ends)."""
    return " ".join(value.split()) if isinstance(value, str) else value


def first_int(value: Any, signed: bool = False) -> Any:
    """The first number in a string: ``"Pair 2"``, ``"#2"``, ``"E3"``, ``"[3]"`` -> 2, 2, 3, 3
    (a leading minus counts when ``signed``); a string without one, or no string, unchanged."""
    if isinstance(value, str):
        m = (_SIGNED_INT_RE if signed else _INT_RE).search(value)
        return int(m.group()) if m else value
    return value


def normalise_label(value: str) -> str:
    """Relation / role labels in snake_case: ``"Temporal Before"`` -> ``temporal_before``."""
    return _LABEL_RE.sub("_", value.strip().lower()).strip("_")


def normalise_time(value: str | None) -> str | None:
    """``YYYY-MM-DD``, ``YYYY-MM`` or ``YYYY``; common spelled-out dates are converted.

    Anything else becomes ``None`` instead of failing: the date also lives in the event text,
    so a repair call is not worth it.
    """
    if value is None:
        return None
    text = value.strip()
    if text.lower() in NULLISH:
        return None
    m = _ISO_PREFIX_RE.match(text)
    if m:
        year, month, day = m.groups()
        try:
            if day:
                return datetime(int(year), int(month), int(day)).date().isoformat()
            if month and 1 <= int(month) <= 12:
                return f"{year}-{month}"
        except ValueError:
            return None
        return year if not month else None
    for fmt in _DATE_FORMATS:
        try:
            return datetime.strptime(text, fmt).date().isoformat()
        except ValueError:
            pass
    for fmt in _MONTH_FORMATS:
        try:
            return datetime.strptime(text, fmt).strftime("%Y-%m")
        except ValueError:
            pass
    return None


def time_value(value: Any) -> Any:
    """A time field: a year as a number (``2023``) or any string through ``normalise_time``."""
    if isinstance(value, int) and 1000 <= value <= 9999:
        return str(value)
    return normalise_time(value) if isinstance(value, str) or value is None else value
