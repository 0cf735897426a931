"""Session and turn dates: a few explicit formats, nothing guessed.

Everything is returned as a *naive UTC* ``datetime`` (aware inputs are converted), so dates
from different sources compare and sort without ``TypeError``. There is deliberately no fuzzy
parsing: a value that fits none of the formats below is an ``InputError``, never a default.

Accepted:

- LoCoMo: ``"7:43 pm on 2 February, 2027"``
- ISO 8601: ``"2027-02-02"``, ``"2027-02-02T19:43:00"``, ``"2027-02-02 19:43"``,
  with ``Z`` or an offset (``"2027-02-02T19:43:00+02:00"`` -> 17:43 naive UTC)
- ``"2 February 2027"``, ``"2 February, 2027"``, ``"February 2, 2027"``, ``"February 2 2027"``
  (full or 3-letter English month names, any case)
- ``"2027/02/02"``, optionally followed by ``" 19:43"`` or ``" 19:43:00"``
- unix seconds: an ``int``/``float``, or a string of at least 9 digits
- a ``datetime`` (aware -> naive UTC); a ``date`` -> midnight
"""

from __future__ import annotations

import math
import re
from datetime import UTC, date, datetime

from memgraph_agents.loaders.errors import InputError, json_type

__all__ = ["MONTH_NUMBERS", "parse_session_date", "to_naive_utc"]

# English month names and abbreviations -> 1..12 (also read by retrieval.validity for dates in questions).
MONTH_NUMBERS = {
    name: i + 1
    for i, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ]
    )
    for name in names
}

# Month names are matched with our own table (not strptime's %B) so parsing does not depend on
# the process locale.
_LOCOMO = re.compile(
    r"(?P<h>\d{1,2}):(?P<mi>\d{2})\s*(?P<ampm>[ap])\.?\s*m\.?\s+on\s+"
    r"(?P<d>\d{1,2})\s+(?P<mon>[a-z]+)\.?,?\s+(?P<y>\d{4})",
    re.IGNORECASE,
)
_DAY_MONTH_YEAR = re.compile(r"(?P<d>\d{1,2})\s+(?P<mon>[a-z]+)\.?,?\s+(?P<y>\d{4})", re.IGNORECASE)
_MONTH_DAY_YEAR = re.compile(r"(?P<mon>[a-z]+)\.?\s+(?P<d>\d{1,2}),?\s+(?P<y>\d{4})", re.IGNORECASE)
_SLASHED = re.compile(
    r"(?P<y>\d{4})/(?P<m>\d{1,2})/(?P<d>\d{1,2})(?:[ T](?P<h>\d{1,2}):(?P<mi>\d{2})(?::(?P<s>\d{2}))?)?"
)
_ISO_LIKE = re.compile(r"\d{4}-\d{2}")
_UNIX = re.compile(r"[+-]?\d{9,}(?:\.\d+)?")


def to_naive_utc(dt: datetime) -> datetime:
    """Aware -> the same instant as naive UTC; naive is taken to be UTC already and kept."""
    if dt.tzinfo is not None and dt.utcoffset() is not None:
        try:
            return dt.astimezone(UTC).replace(tzinfo=None)
        except OverflowError:  # 9999-12-31T23:00-14:00 is in year 10000 in UTC
            raise ValueError(f"{dt.isoformat()} falls outside years 1-9999 in UTC") from None
    return dt.replace(tzinfo=None)


def parse_session_date(value: str | int | float | datetime, *, where: str) -> datetime:
    """Parse a session/turn date into a naive UTC ``datetime``.

    ``where`` names the place in the input (``"conv.json: session 'S2': 'date'"``) and starts the
    message of the ``InputError`` raised for anything that is not one of the accepted formats.
    """
    if isinstance(value, datetime):
        try:
            return to_naive_utc(value)
        except ValueError as e:
            raise InputError(f"{where}: {e}") from e
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day)
    if isinstance(value, bool):  # bool is an int subclass: True is not 1970-01-01T00:00:01
        raise InputError(f"{where}: expected a date, got boolean {value!r}")
    if isinstance(value, (int, float)):
        return _from_unix(value, where)
    if not isinstance(value, str):
        raise InputError(f"{where}: expected a date string or unix seconds, got {json_type(value)}")

    text = " ".join(value.split())
    if not text:
        raise InputError(f"{where}: empty date")
    if _UNIX.fullmatch(text):
        return _from_unix(float(text), where)
    try:
        parsed = _parse_text(text)
    except ValueError as e:  # a known shape with impossible parts, e.g. "31 February 2027"
        raise InputError(f"{where}: invalid date {_show(value)}: {e}") from e
    if parsed is None:
        raise InputError(
            f"{where}: unrecognised date {_show(value)} (use ISO 8601 such as '2024-03-01T18:30:00', "
            "'7:43 pm on 2 February, 2027', '2 February 2027', 'February 2, 2027', '2027/02/02' or unix seconds)"
        )
    return parsed


def _parse_text(text: str) -> datetime | None:
    """The datetime for one of the accepted shapes, None when the text has none of them."""
    if _ISO_LIKE.match(text):
        # Python 3.11's fromisoformat covers ISO 8601 incl. "Z", offsets and date-only; its
        # ValueError ("month must be in 1..12") becomes an "invalid date" message.
        return to_naive_utc(datetime.fromisoformat(text))
    if len(text) == 8 and text.isdigit():  # ISO basic format, 20230508
        return datetime.fromisoformat(text)
    if m := _SLASHED.fullmatch(text):
        return datetime(
            int(m["y"]),
            int(m["m"]),
            int(m["d"]),
            int(m["h"] or 0),
            int(m["mi"] or 0),
            int(m["s"] or 0),
        )
    if m := _LOCOMO.fullmatch(text):
        month = _month(m["mon"])
        hour = int(m["h"])
        if month is None or not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if m["ampm"].lower() == "p" else 0)
        return datetime(int(m["y"]), month, int(m["d"]), hour, int(m["mi"]))
    for pattern in (_DAY_MONTH_YEAR, _MONTH_DAY_YEAR):
        if (m := pattern.fullmatch(text)) and (month := _month(m["mon"])) is not None:
            return datetime(int(m["y"]), month, int(m["d"]))
    return None


def _month(name: str) -> int | None:
    return MONTH_NUMBERS.get(name.lower())


def _from_unix(seconds: float, where: str) -> datetime:
    if isinstance(seconds, float) and not math.isfinite(seconds):
        raise InputError(f"{where}: invalid unix time {seconds!r}")
    try:
        return datetime.fromtimestamp(seconds, tz=UTC).replace(tzinfo=None)
    except (OverflowError, OSError, ValueError) as e:
        # The usual cause is milliseconds passed where seconds are expected.
        hint = " (milliseconds? expected seconds)" if abs(seconds) > 1e11 else ""
        raise InputError(f"{where}: unix time {seconds!r} out of range{hint}") from e


def _show(value: str) -> str:
    return repr(value if len(value) <= 60 else value[:57] + "...")
