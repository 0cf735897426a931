"""What is current: the ``supersedes`` links of memory read at question time.

Construction links a later turn to the earlier turn whose statement it replaces
(``construct.supersession``). Here:

* ``Validity.of(snap)`` indexes those links per snapshot: for each turn, the later turns that
  replaced it and the earlier ones it replaced, with their dates;
* ``Validity.replaced_by(day)`` gives the time-bounded view (Graphiti's ``valid_at`` /
  ``invalid_at``): a turn is valid on ``day`` when it was said on or before it and nothing said
  on or before it replaced it (the ``as_of`` filter, ``retrieval.scope.valid_turns``);
* ``annotate`` writes ``current`` / ``superseded_by`` / ``superseded_on`` / ``supersedes`` into
  evidence, and ``order`` re-ranks a ranking by the question's time (``question_time``): for
  the present ("now", "still", "these days", an unmarked present tense) the current statement
  comes before the one it replaced; for the past ("before", "used to", "in March 2024") the
  earlier statement comes first. A ranking holding one side of a link gains the other side in
  front of it when that side matches the question nearly as well (``relevance`` within
  ``PULL_MARGIN``), so "what is X now?" finds the new value even where only the old one ranked.

``order`` only moves items within a ranking and pulls in linked ones; it is idempotent (an
ordering that already satisfies every link is returned as it is), so it may run twice on one
ranking (the navigator's, then the registry's) without effect.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from typing import Literal

import numpy as np

from memgraph_agents.construct.speech import same_subject
from memgraph_agents.construct.supersede import change_cue, is_statement
from memgraph_agents.construct.voice import same_named_subject
from memgraph_agents.loaders.dates import MONTH_NUMBERS
from memgraph_agents.model.evidence import Evidence
from memgraph_agents.storage.snapshot import EDGE_CODE, GraphSnapshot

PULL_MARGIN = 0.2  # a linked statement joins the ranking when its relevance is within this of its partner's
KEEP_HEAD = True  # links only as constraints: the ranking's order kept, no move to the front
IMPLIED_SIMILAR = 0.35  # turn cosine of two statements of one speaker about the same thing

Focus = Literal["present", "past", "date", "none"]

_MONTH = r"(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)\.?"
_ISO_DAY = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_DAY_MONTH_YEAR = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH},?\s+(\d{{4}})\b", re.I)
_MONTH_DAY_YEAR = re.compile(rf"\b{_MONTH}\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b", re.I)
_MONTH_YEAR = re.compile(rf"\b{_MONTH}\s+(?:of\s+)?(\d{{4}})\b", re.I)
_YEAR = re.compile(r"\b(?:in|during|by|as of|until|back in)\s+((?:19|20)\d{2})\b", re.I)
_YEAR_EDGE = re.compile(r"\b(?:the\s+)?(start|beginning|end)\s+of\s+((?:19|20)\d{2})\b", re.I)
_PAST = re.compile(
    r"\b(?:before|used to|use to|previously|formerly|originally|at first|earlier|in the past|back then|"
    r"at the time|prior|former|old)\b",
    re.I,
)
_PRESENT = re.compile(
    r"\b(?:now|current|currently|still|these days|nowadays|at the moment|at present|today|any ?more|right now|"
    r"lately)\b",
    re.I,
)
# The first auxiliary or verb after the question word decides an unmarked question's tense.
_PRESENT_TENSE = re.compile(
    r"^\s*(?:(?:what|where|who|whom|which|how|why|whose)\b[^?]*?\b)?(?:is|are|am|does|do|has|have|'s)\b", re.I
)
_PAST_TENSE = re.compile(
    r"^\s*(?:(?:what|where|who|whom|which|how|why|whose|when)\b[^?]*?\b)?(?:was|were|did|had)\b", re.I
)


@dataclass(frozen=True)
class TimeFocus:
    kind: Focus
    day: date | None = None  # for "date": the last day of the period the question names


def _month_end(y: int, m: int) -> date:
    return date(y, m, calendar.monthrange(y, m)[1])


def named_day(text: str) -> date | None:
    """The last day of the first absolute date or period ``text`` names ("3 May 2024",
    "May 3, 2024", "2024-05-03", "March 2024", "in 2023"; "the start of 2024" is its first
    day), else ``None``."""
    try:
        if m := _ISO_DAY.search(text):
            return date(int(m[1]), int(m[2]), int(m[3]))
        if m := _DAY_MONTH_YEAR.search(text):
            return date(int(m[3]), MONTH_NUMBERS[m[2].lower().rstrip(".")], int(m[1]))
        if m := _MONTH_DAY_YEAR.search(text):
            return date(int(m[3]), MONTH_NUMBERS[m[1].lower().rstrip(".")], int(m[2]))
        if m := _YEAR_EDGE.search(text):  # "at the start of 2024": its first day; "the end of 2023": its last
            return date(int(m[2]), 1, 1) if m[1].lower() != "end" else date(int(m[2]), 12, 31)
        if m := _MONTH_YEAR.search(text):
            return _month_end(int(m[2]), MONTH_NUMBERS[m[1].lower().rstrip(".")])
        if m := _YEAR.search(text):
            return date(int(m[1]), 12, 31)
    except ValueError:  # "31 February": no such day
        return None
    return None


def question_time(question: str) -> TimeFocus:
    """What time a question is about: a named date or period, the past, the present, or
    nothing said (a simple past: "What did X do?"). Markers win over tense: "Where did X live
    before?" is the past, "Is X still vegan?" the present."""
    day = named_day(question)
    if day is not None:
        return TimeFocus("date", day)
    if _PAST.search(question):
        return TimeFocus("past")
    if _PRESENT.search(question) or (_PRESENT_TENSE.search(question) and not _PAST_TENSE.search(question)):
        return TimeFocus("present")
    return TimeFocus("none")


@dataclass
class Validity:
    """The ``supersedes`` links of one snapshot, by turn id."""

    later: dict[str, list[str]] = field(default_factory=dict)  # turn -> turns that replaced it
    earlier: dict[str, list[str]] = field(default_factory=dict)  # turn -> turns it replaced
    said: dict[str, str] = field(default_factory=dict)  # turn -> ISO date it was said (linked turns)

    @staticmethod
    def of(snap: GraphSnapshot) -> Validity:
        def build() -> Validity:
            v = Validity()
            code = EDGE_CODE.get("supersedes")
            if code is None:
                return v
            for j in np.flatnonzero(snap.ekind == code):
                new, old = int(snap.src[j]), int(snap.dst[j])
                nt, ot = snap.attrs[new].get("turn_id"), snap.attrs[old].get("turn_id")
                if not nt or not ot:
                    continue
                v.later.setdefault(ot, []).append(nt)
                v.earlier.setdefault(nt, []).append(ot)
                for i, t in ((new, nt), (old, ot)):
                    v.said[t] = str(snap.attrs[i].get("timestamp") or snap.session_date(snap.owner[i]))[:10]
            for d in (v.later, v.earlier):
                for t in d:
                    d[t] = sorted(set(d[t]), key=lambda x: (v.said.get(x, ""), x))
            return v

        return snap.derived("validity", build)

    def __bool__(self) -> bool:
        return bool(self.later)

    def replaced_by(self, day: date) -> set[str]:
        """The turns a statement said on or before ``day`` replaced."""
        iso = day.isoformat()
        return {t for t, later in self.later.items() if any(self.said.get(n, "") <= iso for n in later)}

    def superseded_on(self, turn: str, day: date | None = None) -> str | None:
        """The first date a later statement replaced ``turn`` (on or before ``day`` when given)."""
        dates = [self.said[t] for t in self.later.get(turn, []) if t in self.said]
        if day is not None:
            dates = [d for d in dates if d <= day.isoformat()]
        return min(dates) if dates else None


def turn_said(snap: GraphSnapshot, turn_id: str) -> str:
    """The ISO date a turn was said ("" when the turn is not stored)."""
    i = snap.index.get(f"turn:{turn_id}")
    if i is None:
        return ""
    return str(snap.attrs[i].get("timestamp") or snap.session_date(snap.owner[i]))[:10]


def annotate(snap: GraphSnapshot, evidence: list[Evidence]) -> list[Evidence]:
    """Evidence with ``current``, ``superseded_by``, ``superseded_on`` and ``supersedes`` set
    from the snapshot's links (an item's own turns do not supersede each other)."""
    v = Validity.of(snap)
    if not v:
        return evidence
    out = []
    for ev in evidence:
        own = set(ev.turn_ids)
        by = [t for x in ev.turn_ids for t in v.later.get(x, []) if t not in own]
        replaced = [t for x in ev.turn_ids for t in v.earlier.get(x, []) if t not in own]
        if not by and not replaced and ev.current and not ev.superseded_by:
            out.append(ev)
            continue
        on = min((v.said[t] for t in by if t in v.said), default=None)
        out.append(
            ev.model_copy(
                update={
                    "current": not by,
                    "superseded_by": list(dict.fromkeys(by)),
                    "superseded_on": on,
                    "supersedes": list(dict.fromkeys(replaced)),
                }
            )
        )
    return out


def _first_turn(ev: Evidence) -> str | None:
    return ev.turn_ids[0] if ev.turn_ids else None


def implied_links(
    snap: GraphSnapshot, evidence: list[Evidence], relevance: Callable[[Evidence], float]
) -> list[tuple[str, str]]:
    """``(older, newer)`` turn pairs the question itself relates, where construction saw no
    link: two turns of one speaker, said on different days, both matching the question within
    ``PULL_MARGIN`` of its best match and alike (turn cosine at least ``IMPLIED_SIMILAR``),
    about one subject (not a named person's news), the later marking a change
    (``supersede.change_cue``). The question names the attribute
    the detector could not type ("Where is X based now?" over "I'm based in A, lots of snow"
    and "B now. Less snow.")."""

    turns: list[tuple[float, int, str, str, str, str]] = []  # (relevance, node, turn, speaker, day, body)
    for ev in evidence:
        t = _first_turn(ev)
        i = snap.index.get(f"turn:{t}") if ev.kind == "turn" and t else None
        if i is not None and t is not None:
            body = snap.text[i].split(": ", 1)[-1]
            turns.append((relevance(ev), i, t, str(snap.attrs[i].get("speaker")), turn_said(snap, t), body))
    if not turns:
        return []
    best = max(x[0] for x in turns)
    close = [x for x in turns if x[0] >= best - PULL_MARGIN]
    vecs = snap.vectors()
    alike = snap.calibration.doc.cut(IMPLIED_SIMILAR)  # the model's cosine for the reference level
    out: list[tuple[str, str]] = []
    for _, i_new, t_new, who, day_new, body_new in close:
        if not change_cue(body_new):
            continue
        for _, i_old, t_old, who_old, day_old, body_old in close:
            if who_old != who or day_old >= day_new or not is_statement(body_old):
                continue
            # someone else's news is no change of the speaker's ("Mallory quit the bakery")
            if not (same_subject(body_old, body_new) and same_named_subject(body_old, body_new)):
                continue
            if vecs.ndim == 2 and max(i_new, i_old) < len(vecs) and float(vecs[i_new] @ vecs[i_old]) >= alike:
                out.append((t_old, t_new))
    return out


def order(
    snap: GraphSnapshot,
    evidence: list[Evidence],
    focus: TimeFocus,
    *,
    fetch: Callable[[str], Evidence | None],
    relevance: Callable[[Evidence], float],
    implied: list[tuple[str, str]] = (),  # type: ignore[assignment]
    k: int | None = None,
) -> list[Evidence]:
    """``evidence`` re-ranked by ``focus`` over the snapshot's links and the ``implied`` ones
    (module docstring).

    For each link the question wants one side first (the newer for the present, the older for
    the past, the one valid on a named day). With ``KEEP_HEAD`` (the default) the links are
    constraints only: a wanted side ranked below its partner takes the partner's place and the
    partner comes right after it; every other item keeps its place, so the order a ranking
    chose for other reasons (``retrieval.head_order``) survives. Without it the wanted side,
    when it matches the question within ``PULL_MARGIN`` of the best match, moves to the front
    (in ranking order), else just before its partner. ``fetch(turn_id)`` makes the evidence of a linked turn not
    in the ranking (``None``: it stays out); it joins when it matches the question within
    ``PULL_MARGIN`` of its partner. Items keep their places in a stable topological order
    otherwise; scores stay non-increasing. At most ``k`` items (default: as many as given).
    """
    v = Validity.of(snap)
    k = len(evidence) if k is None else k
    if (not v and not implied) or focus.kind == "none" or not evidence:
        return evidence[:k]
    day = focus.day.isoformat() if focus.day else ""

    def first(older: str, newer: str) -> str:
        """Which of two linked turns the question wants first."""
        if focus.kind == "present":
            return newer
        if focus.kind == "past":
            return older
        said_new = v.said.get(newer) or turn_said(snap, newer)
        return older if said_new > day else newer  # not said yet on that day: the older was valid

    items = list(evidence)
    best = max(relevance(ev) for ev in items)
    pos = {t: i for i, ev in enumerate(items) if (t := _first_turn(ev)) is not None}
    later = {t: list(ts) for t, ts in v.later.items()}
    earlier = {t: list(ts) for t, ts in v.earlier.items()}
    for older, newer in implied:
        later.setdefault(older, []).append(newer)
        earlier.setdefault(newer, []).append(older)
    before: dict[str, set[str]] = {}  # turn -> turns that must come before it
    key: dict[str, float] = {t: float(i) for t, i in pos.items()}  # sort key: ranking position
    front: set[str] = set()
    for ev in list(items):
        t = _first_turn(ev)
        if t is None:
            continue
        for older, newer in [(t, n) for n in later.get(t, [])] + [(o, t) for o in earlier.get(t, [])]:
            want = first(older, newer)
            other = newer if want == older else older
            if want not in pos:
                got = fetch(want)
                if got is None or relevance(got) < relevance(ev) - PULL_MARGIN:
                    continue
                items.append(got.model_copy(update={"score": ev.score}))
                pos[want] = len(items) - 1
                key[want] = key.get(other, float(len(items))) - 0.5
            if KEEP_HEAD and other in pos:
                # the wanted side takes its partner's place when below it; nothing else moves
                key[want] = min(key[want], key[other] - 0.5)
            elif not KEEP_HEAD and relevance(items[pos[want]]) >= best - PULL_MARGIN:
                front.add(want)
            if other in pos:
                before.setdefault(other, set()).add(want)
    for t in front:
        key[t] -= len(items) + 1
    order_ = sorted(range(len(items)), key=lambda i: (key.get(_first_turn(items[i]) or "", float(i)), i))
    placed: list[int] = []
    done: set[str] = set()

    def ready(i: int) -> bool:
        t = _first_turn(items[i]) or ""
        return {p for p in before.get(t, ()) if p in pos and p != t} <= done

    while order_:
        # the first item whose predecessors are placed; in a cycle (two turns each before the
        # other) the ranking's order decides
        n = next((n for n, i in enumerate(order_) if ready(i)), 0)
        i = order_.pop(n)
        placed.append(i)
        done.add(_first_turn(items[i]) or "")
    out = [items[i] for i in placed]
    # scores stay non-increasing: a moved item takes the score of the item it now precedes
    for n in range(len(out) - 2, -1, -1):
        if out[n].score < out[n + 1].score:
            out[n] = out[n].model_copy(update={"score": out[n + 1].score})
    return annotate(snap, out[:k])
