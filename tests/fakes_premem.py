"""Scripted PREMem model replies built from what each prompt shows, plus the tests' data.

* ``realistic_fragment_responder``: reads the ``id | date | speaker: text`` turn lines of a
  ``premem_fragments`` prompt and writes the fragments a careful model would: one per
  informative sentence, in the third person and present tense, categorised, keyed, dated in
  PREMem's forms ("2024-03-09", "Before 2024-03-10", "After 2024-03-10"); an answer cites the
  question turn before it too.
* ``realistic_reasoning_responder``: reads the ``Pair n (...)`` blocks of a
  ``premem_reasoning`` prompt and writes one or two insights per pair from the fragments it
  sees (accumulation when both sides share a name or word, else connection; transformation
  when the categories differ), citing the pair and the date range.

Also the conversation the link tests are designed on (``link_conversation``) and small
store queries shared by ``test_premem.py`` and ``test_premem_llm.py``.
"""

from __future__ import annotations

import json
import re
from datetime import date, datetime, timedelta
from functools import partial
from typing import Any

from langchain_core.messages import BaseMessage

from memgraph_agents.model import Conversation, Session, Turn
from tests.fakes import Responder, ingest_responder, parse_turn_lines, route_responder, task_text
from tests.helpers import edges, register_model

FRAGMENTS_MARKER = "TASK: PREMEM FRAGMENTS"
REASONING_MARKER = "TASK: PREMEM REASONING"

_SENTENCE_RE = re.compile(r"[^.!?]+[.!?]*")
_WORD_RE = re.compile(r"[A-Za-z']+")
_SMALL = set(
    "i a an the and or but so to of in on at for with my your me you we he she it is are was were be "
    "been this that there here what how did do does no yes hi hey wow good great thanks just really "
    "very much can could would will not sounds amazing congratulations way".split()
)
_OPINION = re.compile(
    r"\b(lov(?:e|es|ed)|like[sd]?|think|feel|want|hope|adorable|amazing|stressful|favou?rite|"
    r"proud)\b",
    re.I,
)
_HABIT = re.compile(r"\b(every|times a week|usually|always|on (?:mon|tues|wednes|thurs|fri|satur|sun)days)\b", re.I)
_PAST = re.compile(r"\b(\w{3,}ed|went|ran|took|got|had|made|won|bought|passed)\b", re.I)
_FUTURE = re.compile(r"\b(next|will|going to|someday|some day|plan)\b", re.I)
_CAPITAL = re.compile(r"\b[A-Z][a-z]+(?:\s+[A-Z][a-z]+)*")
_PAIR_RE = re.compile(
    r"^Pair (?P<n>\d+) \(similarity (?P<sim>[\d.]+); earlier session (?P<d1>[\d-]*), "
    r"later session (?P<d2>[\d-]*)\)$",
    re.M,
)
_FRAG_LINE_RE = re.compile(r"^(?P<side>earlier|later) \| (?P<cat>\w+) \| (?P<text>.*)$", re.M)


def content_words(text: str) -> list[str]:
    return [w.lower() for w in _WORD_RE.findall(text) if w.lower() not in _SMALL and len(w) > 2]


def third_person(speaker: str, sentence: str) -> str:
    s = re.sub(r"\bI'm\b", f"{speaker} is", sentence.strip())
    s = re.sub(r"\bI've\b", f"{speaker} has", s)
    s = re.sub(r"\bI\b", speaker, s)
    s = re.sub(r"\b[Mm]y\b", f"{speaker}'s", s)
    s = re.sub(r"\bme\b", speaker, s)
    s = s.rstrip(".!? ")
    if s.startswith(speaker):
        return s
    first = s.split(" ", 1)[0]
    return f"{speaker} says {s[0].lower() + s[1:] if first.lower() in _SMALL else s}"  # names keep their capital


def _category(sentence: str) -> str:
    if _OPINION.search(sentence) or _HABIT.search(sentence):
        return "subjective"
    if _PAST.search(sentence):
        return "experiential"
    return "factual"


def _time(sentence: str, day: str) -> str:
    d = date.fromisoformat(day)
    if re.search(r"\byesterday\b", sentence, re.I):
        return (d - timedelta(days=1)).isoformat()
    m = re.search(r"\b(two|three|\d+) days ago\b", sentence, re.I)
    if m:
        n = {"two": 2, "three": 3}.get(m.group(1).lower()) or int(m.group(1))
        return (d - timedelta(days=n)).isoformat()
    if _FUTURE.search(sentence):
        return f"After {day}"
    if _PAST.search(sentence):
        return f"Before {day}"
    return day


def _key(sentence: str, speaker: str) -> str:
    names = [c for c in _CAPITAL.findall(sentence) if c.lower() not in _SMALL and c != speaker]
    words = content_words(sentence)
    parts = (names[:1] + [w for w in words if w not in " ".join(names).lower()])[:3]
    return " ".join(parts) or "conversation"


def fragments_for(turns: list[dict[str, str]]) -> list[dict[str, Any]]:
    out = []
    for i, t in enumerate(turns):
        speaker = t["speaker"].strip()
        asked = i > 0 and turns[i - 1]["text"].rstrip().endswith("?")
        for sentence in _SENTENCE_RE.findall(t["text"]):
            if sentence.strip().endswith("?") or len(content_words(sentence)) < 2:
                continue
            out.append(
                {
                    "category": _category(sentence),
                    "key": _key(sentence, speaker),
                    "content": third_person(speaker, sentence),
                    "turn_ids": ([turns[i - 1]["id"]] if asked else []) + [t["id"]],
                    "time": _time(sentence, t["date"]),
                }
            )
    return out


def realistic_fragment_responder() -> Responder:
    def respond(messages: list[BaseMessage]) -> str:
        return json.dumps({"fragments": fragments_for(parse_turn_lines(task_text(messages)))})

    return respond


def parse_pairs(prompt: str) -> list[dict[str, Any]]:
    """The pairs of a premem_reasoning prompt: number, dates and earlier / later fragment lines."""
    marks = list(_PAIR_RE.finditer(prompt))
    pairs = []
    for k, m in enumerate(marks):
        block = prompt[m.end() : marks[k + 1].start() if k + 1 < len(marks) else len(prompt)]
        lines = [x.groupdict() for x in _FRAG_LINE_RE.finditer(block)]
        pairs.append(
            {
                "n": int(m["n"]),
                "d1": m["d1"],
                "d2": m["d2"],
                "earlier": [x for x in lines if x["side"] == "earlier"],
                "later": [x for x in lines if x["side"] == "later"],
            }
        )
    return pairs


def _person(lines: list[dict[str, str]]) -> str:
    for x in lines:
        m = re.search(r":\s*([A-Z][a-z]+)\b", x["text"])  # "key: Ana adopts ..." / "key: Ana: I ..."
        if m:
            return m.group(1)
    return "The speaker"


def insights_for(pair: dict[str, Any]) -> list[dict[str, Any]]:
    early, late = pair["earlier"], pair["later"]
    if not early or not late:
        return []
    person = _person(late) or _person(early)
    names = {w.lower() for x in early + late for w in _CAPITAL.findall(x["text"].split(": ", 1)[-1])[:1]}

    def words(lines: list[dict[str, str]]) -> set[str]:  # content words, people and possessives aside
        return {w for w in content_words(" ".join(x["text"] for x in lines)) if w not in names and "'" not in w}

    shared = sorted(words(early) & words(late))
    old_key, new_key = early[0]["text"].split(":")[0], late[0]["text"].split(":")[0]
    span = f"{pair['d1']} to {pair['d2']}"
    out = [
        {
            "pair": pair["n"],
            "pattern": "accumulation" if shared else "connection",
            "key": " ".join(shared[:2]) if shared else f"{old_key} and {new_key}"[:40],
            "content": (
                f"{person} keeps returning to {', '.join(shared[:3])} from {pair['d1']} to {pair['d2']}"
                if shared
                else f"{person}'s {new_key} follows from {old_key}"
            ),
            "time": span,
        }
    ]
    if {x["cat"] for x in early} != {x["cat"] for x in late}:
        out.append(
            {
                "pair": f"Pair {pair['n']}",
                "pattern": "Transformation",
                "key": f"{new_key} change",
                "content": f"{person} moves from {old_key} on {pair['d1']} to {new_key} on {pair['d2']}",
                "time": span,
            }
        )
    return out


def realistic_reasoning_responder() -> Responder:
    def respond(messages: list[BaseMessage]) -> str:
        pairs = parse_pairs(task_text(messages))
        return json.dumps({"insights": [i for p in pairs for i in insights_for(p)]})

    return respond


def premem_responder(fragments: Responder | None = None, reasoning: Responder | None = None) -> Responder:
    """A whole LLM ingest with the premem layer: the fakes above plus events / relations / fusion."""
    return route_responder(
        {
            FRAGMENTS_MARKER: fragments or realistic_fragment_responder(),
            REASONING_MARKER: reasoning or realistic_reasoning_responder(),
        },
        default=ingest_responder(),
    )


# --------------------------------------------------------------------------- test data and queries

SPEC = "fake:premem"
TIME_RE = re.compile(
    r"^(on|before|after) (\d{4}-\d{2}-\d{2}|\d{4}-\d{2}|\d{4}|the week of \d{4}-\d{2}-\d{2})$"
    r"|^from \S+ to \S+$"
)
CATEGORIES = {"factual", "experiential", "subjective"}

PIXEL = [
    ("Ana", "My beagle puppy Pixel goes to puppy training class at the dog school."),
    ("Ben", "Pixel the beagle puppy loves the puppy training class at the dog school."),
    ("Ana", "Pixel the beagle puppy learned to sit in puppy training class at the dog school yesterday."),
]
TAXES = [
    ("Ben", "I filed my quarterly tax return with the accountant on Monday."),
    ("Ana", "Quarterly tax returns and invoices with an accountant sound stressful."),
    ("Ben", "The accountant found deductions for invoices on my quarterly tax return."),
]


def link_conversation() -> Conversation:
    """S1, S2 and S4 about Pixel's training (one cluster each, near-identical vocabulary), S3
    about taxes: S2 must link to S1, S3 to nothing, and S4 to S2 (S1 left the pool when S2
    matched it)."""
    scripts = [PIXEL, PIXEL[::-1], TAXES, PIXEL[1:] + PIXEL[:1]]
    sessions = []
    for s, script in enumerate(scripts, start=1):
        turns = [Turn(id=f"D{s}:{i}", speaker=sp, text=tx) for i, (sp, tx) in enumerate(script, start=1)]
        sessions.append(Session(id=f"S{s}", date=datetime(2024, s, 10, 12, 0), turns=turns))
    return Conversation(id="links", sessions=sessions, speakers=["Ana", "Ben"])


def premem(settings, **update):
    return settings.model_copy(update={"preset": "premem", **update})


use_model = partial(register_model, SPEC)


def links(store):
    return {(e.src, e.dst) for e in edges(store, "link")}


def premem_notes(report):
    """The layer's own notes (the event layer notes fusions of these near-identical sessions)."""
    return [n for n in report.notes if "premem" in n]
