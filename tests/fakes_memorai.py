"""Scripted LLM replies for the MemORAI layer, built from the turns of the actual prompt.

* ``segments_responder``: topic segments (a new one at a topic-shift phrase or after 4
  turns), a title and a third-person summary per segment, and the gate (first-person turns
  of 5+ words, and statements naming something), each with a reason;
* ``entities_responder``: entities (the speakers and capitalised names of the listed
  turns) with descriptions quoting the turns that mention them, and triples from first-person
  statements ("I adopted a puppy" -> Ana | adopted | puppy), citing their turns;
* ``memorai_ingest_responder``: the whole LLM ingest (events, relations, fusion, both
  MemORAI calls), with optional wrappers for the MemORAI calls (malformed, always broken...).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from tests.fakes import FIRST_PERSON_RE, Responder, ingest_routes, parse_turn_lines, route_responder, task_text

SEGMENTS_MARKER = "TASK: MEMORAI SEGMENTS"
ENTITIES_MARKER = "TASK: MEMORAI ENTITIES"

_SHIFT_RE = re.compile(r"\b(speaking of|by the way|on a different note|anyway)\b", re.I)
_NAME_RE = re.compile(r"\b[A-Z][a-z]+(?:[ \t]+[A-Z][a-z]+)*\b")
_NOT_NAMES = set(
    "I A An The It This That What When Where Why How Who Yes No Oh Hey Hi Hello Thanks Wow And But So "
    "My We You He She They Did Do Does Are Is Was Very Good Have Had Congrats Ha Maybe Four No Way "
    "Speaking Lisbon's Sounds That's Was".split()
)
_CLAIM_RE = re.compile(r"\bI (?:have |'ve )?(\w+(?: up for| to| at| in)?) (?:a |an |the |my |his |her )?([^,.!?]+)")
_STOP_OBJECT = set(
    "yesterday today tonight tomorrow last next this at in on with for along and but since already every".split()
)


def names_in(text: str, speakers: set[str] = frozenset()) -> list[str]:
    """Capitalised names of ``text`` (leading filler dropped), speakers excluded, in order."""
    out: list[str] = []
    for run in _NAME_RE.findall(text):
        words = run.split()
        while words and words[0] in _NOT_NAMES:
            words.pop(0)
        name = " ".join(words)
        if name and name not in speakers and name not in out:
            out.append(name)
    return out


def _segments(turns: list[dict]) -> list[list[dict]]:
    groups: list[list[dict]] = []
    for t in turns:
        if not groups or len(groups[-1]) >= 4 or (_SHIFT_RE.search(t["text"]) and len(groups[-1]) >= 2):
            groups.append([])
        groups[-1].append(t)
    return groups


def _summary(group: list[dict], title: str) -> str:
    speakers = " and ".join(dict.fromkeys(t["speaker"] for t in group))
    said = "; ".join(f'{t["speaker"]} said "{t["text"].rstrip(".!?")}"' for t in group[:2])
    return f"{speakers} talked about {title} on {group[0]['date']}. {said}."


def segments_reply(prompt: str) -> dict:
    """The reply a careful model gives to a memorai_segments prompt."""
    turns = parse_turn_lines(prompt)
    speakers = {t["speaker"] for t in turns}
    segments = []
    for group in _segments(turns):
        names = [n for t in group for n in names_in(t["text"], speakers)]
        title = names[0] if names else "small talk"
        segments.append({"turn_ids": [t["id"] for t in group], "title": title, "summary": _summary(group, title)})
    gate = []
    for t in turns:
        named = names_in(t["text"], speakers)
        personal = FIRST_PERSON_RE.search(t["text"]) and len(t["text"].split()) >= 5
        if personal or (named and "?" not in t["text"]):
            gate.append({"turn_id": t["id"], "reason": f"{t['speaker']} shares " + (named[0] if named else "a detail")})
    return {"segments": segments, "user_specific": gate}


def _object(phrase: str) -> str:
    names = names_in(phrase)
    if names and phrase.startswith(names[0]):
        return names[0]
    words = []
    for w in phrase.split():
        if w.lower() in _STOP_OBJECT:
            break
        words.append(w)
    return " ".join(words[:3])


def entities_reply(prompt: str) -> dict:
    """The reply a careful model gives to a memorai_entities prompt (only listed turns cited)."""
    turns = parse_turn_lines(prompt)
    cited: dict[str, list[dict]] = {}
    for t in turns:
        cited.setdefault(t["speaker"], []).append(t)
        for name in names_in(t["text"], {t["speaker"]}):
            cited.setdefault(name, []).append(t)
    entities = [
        {
            "name": name,
            "description": f"{name}: " + " ".join(f"{t['speaker']} said on {t['date']}: {t['text']}" for t in ts[:2]),
            "turn_ids": [t["id"] for t in ts],
        }
        for name, ts in cited.items()
    ]
    triples = []
    for t in turns:
        for verb, rest in _CLAIM_RE.findall(t["text"]):
            obj = _object(rest.strip())
            if obj:
                triples.append({"subject": t["speaker"], "predicate": verb, "object": obj, "turn_ids": [t["id"]]})
    return {"entities": entities, "triples": triples}


def segments_responder() -> Responder:
    return lambda messages: json.dumps(segments_reply(task_text(messages)))


def entities_responder() -> Responder:
    return lambda messages: json.dumps(entities_reply(task_text(messages)))


Wrap = Callable[[Responder], Responder]


def memorai_ingest_responder(
    *, segments: Wrap | None = None, entities: Wrap | None = None, entities_base: Responder | None = None
) -> Responder:
    """Every call of an LLM ingest with the memorai preset; ``segments`` / ``entities`` wrap
    the MemORAI responders (e.g. ``malformed_then_valid``), ``entities_base`` replaces one."""
    seg = segments_responder()
    ent = entities_base or entities_responder()
    return route_responder(
        {
            **ingest_routes(),
            SEGMENTS_MARKER: segments(seg) if segments else seg,
            ENTITIES_MARKER: entities(ent) if entities else ent,
        }
    )
