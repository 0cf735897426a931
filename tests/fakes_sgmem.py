"""Scripted replies to the SGMem memory prompt (``prompts/sgmem_memory.txt``).

``realistic_sgmem_responder`` reads the prompt's own turn lines and answers like a careful
model: a summary naming the speakers, one third-person fact per first-person statement with
relative dates made absolute, citing its turn, and one insight per speaker with two or more
facts, citing the first by its ``"F<n>"`` id and the others by bare number (models mix them).
``orphans=True`` adds the mistakes real models make with provenance: a fact citing an
unknown turn whose words do match one turn (repairable), a made-up fact citing an unknown
turn (dropped), and an insight resting only on that made-up fact (dropped).
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from typing import Any

from langchain_core.messages import BaseMessage

from memgraph_agents.construct.timeparse import find_time_mentions
from tests.fakes import FIRST_PERSON_RE, Responder, ingest_routes, parse_turn_lines, route_responder, task_text

SGMEM_MARKER = "TASK: SESSION MEMORY"
_WORD_RE = re.compile(r"[A-Za-z]{5,}")
INVENTED_FACT = "Zebulon collects antique typewriters from Patagonia."


def _human(iso: str) -> str:
    d = datetime.strptime(iso, "%Y-%m-%d")
    return f"{d.day} {d:%B %Y}"


def _absolute(text: str, iso: str) -> tuple[str, str | None]:
    """Relative time expressions replaced by their absolute label, and the first one's date."""
    mentions = find_time_mentions(text, datetime.strptime(iso, "%Y-%m-%d"))
    for m in reversed(mentions):
        lead = {"day": "on ", "week": "during ", "weekend": "on "}.get(m.granularity, "in ")
        text = text[: m.start] + lead + m.label + text[m.end :]
    return text, (mentions[0].date.isoformat() if mentions else None)


def _third_person(speaker: str, text: str) -> str:
    text = re.sub(r"\[image: (.*?)\]", r"(shared a picture of \1)", text)
    text = re.sub(r"^(?:[^\s.!?]+\s?){1,3}!\s+", "", text.strip())  # drop an opening "Hi Ben!"
    for pattern, repl in (
        (r"\bI'm\b", f"{speaker} is"),
        (r"\bI've\b", f"{speaker} has"),
        (r"\bI\b", speaker),
        (r"\b[Mm]y\b", f"{speaker}'s"),
        (r"\b[Ww]e\b", f"{speaker} and others"),
        (r"\b[Oo]ur\b", "their"),
    ):
        text = re.sub(pattern, repl, text)
    return text.rstrip(".!? ") + "."


def sgmem_memory(prompt: str, *, orphans: bool = False) -> dict[str, Any]:
    """The reply object for one sgmem_memory prompt (see the module docstring)."""
    turns = parse_turn_lines(prompt)
    speakers = list(dict.fromkeys(t["speaker"] for t in turns))
    date = turns[0]["date"] if turns else "2024-01-01"
    facts: list[dict[str, Any]] = []
    for t in turns:
        if t["text"].rstrip().endswith("?") or not FIRST_PERSON_RE.search(t["text"]):
            continue
        text, time = _absolute(_third_person(t["speaker"], t["text"]), t["date"])
        facts.append(
            {"id": f"F{len(facts) + 1}", "text": text, "turn_ids": [t["id"]], "subject": t["speaker"], "time": time}
        )
    insights = []
    for speaker in speakers:
        own = [i for i, f in enumerate(facts, start=1) if f["subject"] == speaker]
        if len(own) < 2:
            continue
        topics = [w.lower() for f in own[:2] for w in _WORD_RE.findall(facts[f - 1]["text"]) if w != speaker][:2]
        refs: list[Any] = [f"F{own[0]}", *own[1:]]  # an id, then bare numbers: models mix them
        insights.append(
            {
                "text": f"{speaker} often talks about {' and '.join(topics)} in their daily life.",
                "facts": refs,
                "subject": speaker,
            }
        )
    if orphans and turns:
        donor = max(turns, key=lambda t: len(t["text"]))
        facts.append(
            {
                "id": f"F{len(facts) + 1}",
                "text": _third_person(donor["speaker"], donor["text"]),
                "turn_ids": ["D99:1"],
                "subject": donor["speaker"],
                "time": None,
            }
        )
        facts.append(
            {"id": f"F{len(facts) + 1}", "text": INVENTED_FACT, "turn_ids": ["X:0"], "subject": "Zebulon", "time": None}
        )
        insights.append({"text": "Zebulon loves old machines.", "facts": [f"F{len(facts)}"], "subject": "Zebulon"})
    highlights = " ".join(
        f"{t['speaker']} mentioned {' '.join(_absolute(t['text'], t['date'])[0].split()[:8])}." for t in turns[:4]
    )
    return {
        "summary": {"text": f"On {_human(date)}, {' and '.join(speakers)} talked. {highlights}", "turn_ids": []},
        "facts": facts,
        "insights": insights,
    }


def realistic_sgmem_responder(*, orphans: bool = False) -> Responder:
    def respond(messages: list[BaseMessage]) -> str:
        return json.dumps(sgmem_memory(task_text(messages), orphans=orphans))

    return respond


def sgmem_ingest_responder(sgmem: Responder | None = None) -> Responder:
    """A whole LLM ingest with the sgmem layer: events, relations, fusion and session memory."""
    return route_responder(
        {
            **ingest_routes(),
            SGMEM_MARKER: sgmem or realistic_sgmem_responder(),
        }
    )
