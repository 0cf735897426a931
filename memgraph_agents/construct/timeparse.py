"""Resolve relative time expressions against a reference date (the session date).

About a fifth of LoCoMo questions are temporal, and the answer is usually an absolute date
("When did Jonas hand in his notice?" -> "15 March 2024") while the turn says
"yesterday". PREMem normalises such expressions with an LLM; here it is done with rules so
the offline mode gets the same benefit without a model call.

Conventions (weeks run Monday..Sunday, ISO style; ``ref`` is the session date):

* today / tonight / this morning|afternoon|evening -> ref; yesterday / last night -> ref-1;
  the day before yesterday -> ref-2; tomorrow -> ref+1; the day after tomorrow -> ref+2.
* last / this / next week -> the week before / of / after ref's week (label: its Monday).
* last / this / next weekend -> the Saturday of the week before / of / after ref's week.
  So on a Wednesday "last weekend" is the one just gone, and on a Sunday "this weekend" is the
  current one (the Saturday before).
* last / this / next month|year -> calendar month/year before / of / after ref's.
* last <weekday> -> the most recent such day strictly before ref (on Friday, "last Friday" is
  7 days ago); next <weekday> -> the first such day strictly after ref (the coming one);
  this <weekday> -> that day in ref's week (so on Wednesday "this Monday" is two days ago).
  Bare "on <weekday>" -> the most recent such day strictly before ref, or the coming one when
  the clause has a future marker (will, 'll, gonna, going to, plan...). Plurals ("on
  Fridays", "Mondays are hard") are habits and are not resolved.
* N days|weeks|months|years ago, in N days|weeks|months|years: calendar arithmetic with day
  clamping (31 Mar - 1 month = 28/29 Feb). Granularity follows the unit: "two weeks ago" is
  the week containing ref-14 days. N is digits, one..twelve, a/an, (a) couple (of) = 2,
  (a) few = 3 ("a few days ago" is an approximation). "in N ..." after a negation in the same
  clause ("haven't seen her in a year") is a duration, not a date, and is skipped.
* last / this / next <Month name> (capitalised, so "this may help" is not May): last May is the
  most recent May before ref's month, next May the first after, this May the one of ref's year.
* last / this / next <season> (meteorological, northern hemisphere: spring = Mar-May,
  summer = Jun-Aug, autumn/fall = Sep-Nov, winter = Dec-Feb): last = latest occurrence that
  starts before the current season, next = first that starts after it, this = the one of ref's
  calendar year (in Jan/Feb "this winter" is the current one). Granularity "season" (an
  addition to day/week/weekend/month/year); label "summer 2022", "winter 2022-2023".
* ``TimeMention.date`` is the point estimate: ref shifted by the expression ("last week" on
  8 May = 1 May, "last month" on 31 Mar = 28/29 Feb); the label names the whole period (weeks
  by their Monday, weekends by their Saturday, which is also the weekend's ``date``).
* "the last week/year..." (a duration: "over the last year") is skipped; vague expressions
  ("recently", "the other day", "long ago") are not resolved.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Literal

from memgraph_agents.errors import InputError

Granularity = Literal["day", "week", "weekend", "month", "year", "season"]


@dataclass(frozen=True)
class TimeMention:
    text: str
    start: int
    end: int
    date: date
    granularity: Granularity
    label: str


# ---------------------------------------------------------------- date arithmetic helpers


def add_months(d: date, months: int) -> date:
    """Calendar month arithmetic; the day is clamped to the target month's length."""
    y, m0 = divmod(d.year * 12 + (d.month - 1) + months, 12)
    m = m0 + 1
    return date(y, m, min(d.day, calendar.monthrange(y, m)[1]))


def _monday(d: date) -> date:
    return d - timedelta(days=d.weekday())


def _fmt_day(d: date) -> str:
    return f"{d.day} {calendar.month_name[d.month]} {d.year}"


_SEASONS = {"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12}


def _label(d: date, g: str) -> str:
    if g == "day":
        return _fmt_day(d)
    if g == "week":
        return f"the week of {_fmt_day(_monday(d))}"
    if g == "weekend":
        return f"the weekend of {_fmt_day(_monday(d) + timedelta(days=5))}"
    if g == "month":
        return f"{calendar.month_name[d.month]} {d.year}"
    if g == "season":
        name = {3: "spring", 6: "summer", 9: "autumn", 12: "winter"}[d.month]
        return f"winter {d.year}-{d.year + 1}" if d.month == 12 else f"{name} {d.year}"
    return str(d.year)


def _mention(m: re.Match, d: date, g: str) -> TimeMention:
    # ``date`` is the point estimate (ref shifted by the expression: "last month" on 31 Mar is
    # 28/29 Feb); the label names the whole period. Weekends are anchored on their Saturday.
    if g == "weekend":
        d = _monday(d) + timedelta(days=5)
    return TimeMention(m.group(0), m.start(), m.end(), d, g, _label(d, g))  # type: ignore[arg-type]


# ---------------------------------------------------------------- vocabulary

_NUMBERS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "couple": 2,
    "a couple": 2,
    "a couple of": 2,
    "couple of": 2,
    "few": 3,
    "a few": 3,
}
_NUM = r"(?P<n>\d{1,3}|a\s+couple(?:\s+of)?|couple(?:\s+of)?|a\s+few|few|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
_UNIT = r"(?P<unit>day|week|month|year)s?"
_WEEKDAYS = {
    "monday": 0,
    "mon": 0,
    "tuesday": 1,
    "tue": 1,
    "tues": 1,
    "wednesday": 2,
    "wed": 2,
    "thursday": 3,
    "thu": 3,
    "thur": 3,
    "thurs": 3,
    "friday": 4,
    "fri": 4,
    "saturday": 5,
    "sunday": 6,
}
# Abbreviations only after last/this/next ("sat"/"sun" are words, so full names only there).
_WD_FULL = r"(?P<wd>monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_WD_ANY = r"(?P<wd>monday|tuesday|wednesday|thursday|friday|saturday|sunday|mon|tues?|wed|thu(?:rs?)?|fri)"
_MONTHS = {calendar.month_name[i]: i for i in range(1, 13)}
_FUTURE_RE = re.compile(
    r"\b(will|shall|gonna|going\s+to|plan(?:ning|s)?|hope\s+to|can't\s+wait|until|till|see\s+you)\b|'ll\b",
    re.I,
)
_NEG_RE = re.compile(r"n't\b|\b(not|never|first\s+time)\b", re.I)
_CLAUSE_START_RE = re.compile(r"[.!?;\n]")


def _n(m: re.Match) -> int:
    raw = re.sub(r"\s+", " ", m.group("n").lower())
    return int(raw) if raw.isdigit() else _NUMBERS[raw]


def _clause_before(text: str, start: int) -> str:
    """The text of the current sentence/clause before ``start`` (at most 80 chars)."""
    seg = text[max(0, start - 80) : start]
    parts = _CLAUSE_START_RE.split(seg)
    return parts[-1]


# ---------------------------------------------------------------- rules

Rule = tuple[re.Pattern, Callable[[re.Match, date, str], "TimeMention | None"]]
_RULES: list[Rule] = []


def _rule(pattern: str, flags: int = re.I):
    def deco(fn):
        _RULES.append((re.compile(pattern, flags), fn))
        return fn

    return deco


_DAY_WORDS = {
    "the day before yesterday": -2,
    "the day after tomorrow": 2,
    "yesterday": -1,
    "last night": -1,
    "tomorrow": 1,
    "today": 0,
    "tonight": 0,
    "this morning": 0,
    "this afternoon": 0,
    "this evening": 0,
}


@_rule(
    r"\b(the\s+day\s+before\s+yesterday|the\s+day\s+after\s+tomorrow|yesterday|tomorrow|today|tonight|last\s+night|this\s+(?:morning|afternoon|evening))\b(?!['’]s\b)"
)
def _day_word(m, ref, text):
    return _mention(m, ref + timedelta(days=_DAY_WORDS[re.sub(r"\s+", " ", m.group(1).lower())]), "day")


@_rule(r"(?<!\bthe\s)\b(?P<rel>last|this|next|this\s+past|this\s+coming|past)\s+(?P<unit>week|weekend|month|year)\b")
def _rel_period(m, ref, text):
    rel = re.sub(r"\s+", " ", m.group("rel").lower())
    unit = m.group("unit").lower()
    if rel == "past" and unit != "weekend":  # "past week" is a duration ("for the past week")
        return None
    step = {"last": -1, "this past": -1, "past": -1, "this": 0, "next": 1, "this coming": 1}[rel]
    if unit in ("week", "weekend"):
        return _mention(m, ref + timedelta(weeks=step), unit)
    if unit == "month":
        return _mention(m, add_months(ref, step), "month")
    return _mention(m, add_months(ref, 12 * step), "year")


@_rule(r"\b" + _NUM + r"\s+" + _UNIT + r"\s+(?:ago|back)\b")
def _ago(m, ref, text):
    return _shift(m, ref, -_n(m))


@_rule(r"\bin\s+(?:about\s+|another\s+)?" + _NUM + r"\s+" + _UNIT + r"\b(?!\s+(?:ago|old|time))")
def _in_n(m, ref, text):
    if _NEG_RE.search(_clause_before(text, m.start())):
        return None  # "haven't been there in a year": a duration
    return _shift(m, ref, _n(m))


@_rule(r"\b" + _NUM + r"\s+" + _UNIT + r"\s+from\s+(?:now|today)\b")
def _from_now(m, ref, text):
    return _shift(m, ref, _n(m))


def _shift(m: re.Match, ref: date, n: int) -> TimeMention:
    unit = m.group("unit").lower()
    if unit == "day":
        return _mention(m, ref + timedelta(days=n), "day")
    if unit == "week":
        return _mention(m, ref + timedelta(weeks=n), "week")
    if unit == "month":
        return _mention(m, add_months(ref, n), "month")
    return _mention(m, add_months(ref, 12 * n), "year")


@_rule(r"(?<!\bthe\s)\b(?P<rel>last|this|next|this\s+past|this\s+coming)\s+" + _WD_ANY + r"(?![\w'’])")
def _rel_weekday(m, ref, text):
    rel = re.sub(r"\s+", " ", m.group("rel").lower())
    wd = _WEEKDAYS[m.group("wd").lower()]
    if rel in ("last", "this past"):
        back = (ref.weekday() - wd) % 7 or 7
        return _mention(m, ref - timedelta(days=back), "day")
    if rel in ("next", "this coming"):
        fwd = (wd - ref.weekday()) % 7 or 7
        return _mention(m, ref + timedelta(days=fwd), "day")
    return _mention(m, _monday(ref) + timedelta(days=wd), "day")


@_rule(r"\bon\s+" + _WD_FULL + r"(?![\w'’])")
def _on_weekday(m, ref, text):
    wd = _WEEKDAYS[m.group("wd").lower()]
    if _FUTURE_RE.search(_clause_before(text, m.start())):
        return _mention(m, ref + timedelta(days=(wd - ref.weekday()) % 7 or 7), "day")
    return _mention(m, ref - timedelta(days=(ref.weekday() - wd) % 7 or 7), "day")


# Month names must be capitalised: "this may help", "march on" are not dates.
@_rule(r"(?<!\bthe\s)\b(?P<rel>[Ll]ast|[Tt]his|[Nn]ext)\s+(?P<mon>" + "|".join(_MONTHS) + r")\b", 0)
def _rel_month_name(m, ref, text):
    rel, mon = m.group("rel").lower(), _MONTHS[m.group("mon")]
    year = ref.year
    if rel == "last" and mon >= ref.month:
        year -= 1
    elif rel == "next" and mon <= ref.month:
        year += 1
    return _mention(m, date(year, mon, 1), "month")


@_rule(
    r"(?<!\bthe\s)\b(?P<rel>last|this|next|this\s+past|this\s+coming)\s+(?P<season>spring|summer|autumn|fall|winter)\b"
)
def _rel_season(m, ref, text):
    rel = re.sub(r"\s+", " ", m.group("rel").lower())
    smon = _SEASONS[m.group("season").lower()]
    # Start of the season that contains ref (Dec/Jan/Feb -> the December before).
    cur_m = {12: 12, 1: 12, 2: 12}.get(ref.month, 3 * (ref.month // 3))
    cur = date(ref.year - (1 if ref.month < 3 else 0), cur_m, 1)
    if rel in ("last", "this past"):
        start = date(cur.year, smon, 1)
        if start >= cur:
            start = date(cur.year - 1, smon, 1)
    elif rel in ("next", "this coming"):
        start = date(cur.year, smon, 1)
        if start <= cur:
            start = date(cur.year + 1, smon, 1)
    else:  # the one of ref's calendar year; in Jan/Feb "this winter" is the current one
        start = date(ref.year - (1 if smon == 12 and ref.month < 3 else 0), smon, 1)
    return _mention(m, start, "season")


# ---------------------------------------------------------------- public API


def _as_date(ref: datetime | date) -> date:
    return ref.date() if isinstance(ref, datetime) else ref


class TimeOutOfRangeError(InputError):
    """A relative expression resolves outside the calendar (year 1..9999)."""


def find_time_mentions(text: str, ref: datetime | date, *, strict: bool = False) -> list[TimeMention]:
    """All resolvable relative time expressions in ``text``, non-overlapping, in text order.

    Overlaps are settled longest-first ("the day before yesterday" beats "yesterday"). An
    expression whose date falls outside year 1..9999 ("tomorrow" on 31 Dec 9999, "in 20000
    years") is skipped, or with ``strict`` raises ``TimeOutOfRangeError``: ingest validation
    runs strict over every turn, so stored data never holds one.
    """
    r = _as_date(ref)
    found: list[TimeMention] = []
    for pattern, resolve in _RULES:
        for m in pattern.finditer(text):
            try:
                tm = resolve(m, r, text)
            except (OverflowError, ValueError) as e:
                if strict:
                    raise TimeOutOfRangeError(
                        f"{m.group(0)!r} relative to {r.isoformat()} falls outside the calendar (year 1-9999)"
                    ) from e
                continue
            if tm is not None:
                found.append(tm)
    found.sort(key=lambda t: (-(t.end - t.start), t.start))
    chosen: list[TimeMention] = []
    for t in found:
        if all(t.end <= c.start or t.start >= c.end for c in chosen):
            chosen.append(t)
    return sorted(chosen, key=lambda t: t.start)


def annotate_times(text: str, ref: datetime | date) -> str:
    """Insert each mention's absolute label after it: "yesterday" -> "yesterday (13 March 2027)".

    A mention already followed by its own label in parentheses is left alone, so annotating
    twice gives the same text.
    """
    out: list[str] = []
    pos = 0
    for t in find_time_mentions(text, ref):
        out.append(text[pos : t.end])
        pos = t.end
        already = re.match(r"\s*\(" + re.escape(t.label) + r"\)", text[t.end :])
        if not already:
            out.append(f" ({t.label})")
    out.append(text[pos:])
    return "".join(out)
