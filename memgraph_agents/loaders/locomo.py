"""LoCoMo loader (``locomo10.json`` layout; see ``shared/data/locomo/README.md``).

Only the dialogue and the QA items are read. ``event_summary``, ``observation`` and
``session_summary`` are annotations/LLM output that contain the answers: they are never read,
so nothing derived from them can reach a memory system under evaluation.

Quirks handled:

- sessions come from ``session_N`` keys (sorted numerically); ``session_N_date_time`` keys are
  only looked up for those sessions, since one conversation has more date keys than sessions;
- an empty session (a list without turns) is skipped; a session without a date is an error;
- answers may be ints (cast to str); category 5 items carry ``adversarial_answer``;
- evidence strings may hold several ids (``"D3:12; D5:2"``, ``"D6:7 D2:10"``), a stray colon
  (``"D:11:26"``) or ids that do not exist: they are split, repaired, filtered, deduplicated.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict

from memgraph_agents.config import InputLimits
from memgraph_agents.loaders.dates import parse_session_date
from memgraph_agents.loaders.errors import InputError, build, json_type, parse_json, read_text
from memgraph_agents.loaders.limits import check_limits
from memgraph_agents.model.conversation import Conversation, Session, Turn

__all__ = [
    "LocomoQuestion",
    "LocomoSample",
    "load_locomo",
    "samples_from_data",
    "looks_like_locomo",
    "iter_locomo_questions",
    "clean_evidence",
    "DEFAULT_CATEGORIES",
]

#: 1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop; 5 (adversarial) is left out of scores.
DEFAULT_CATEGORIES: tuple[int, ...] = (1, 2, 3, 4)

_SESSION_KEY = re.compile(r"session_(\d+)")
_EVIDENCE_SPLIT = re.compile(r"[;,\s]+")
# "D11:26", and the malformed "D:11:26" / "D11::26".
_EVIDENCE_ID = re.compile(r"D:?(\d+):+(\d+)")


class LocomoQuestion(BaseModel):
    """One QA item. ``evidence`` is cleaned (existing turn ids, in order, once each)."""

    model_config = ConfigDict(frozen=True)

    sample_id: str
    index: int  # position in the sample's ``qa`` list, 0-based
    question: str
    answer: str
    category: int
    evidence: list[str]
    raw_evidence: list[str]  # as in the file, for reference

    @property
    def id(self) -> str:
        return f"{self.sample_id}:q{self.index}"


class LocomoSample(BaseModel):
    model_config = ConfigDict(frozen=True)

    conversation: Conversation
    questions: list[LocomoQuestion]

    @property
    def sample_id(self) -> str:
        return self.conversation.id


def load_locomo(path: str | os.PathLike[str], *, limits: InputLimits | None = None) -> list[LocomoSample]:
    """Load a LoCoMo file (a JSON list of samples); every problem is an ``InputError``
    (``LimitExceededError`` for one over ``limits``, default ``InputLimits()``)."""

    source = os.fspath(path)
    limits = limits or InputLimits()
    samples = samples_from_data(parse_json(read_text(path, limits.max_file_bytes), source), source)
    check_limits([s.conversation for s in samples], limits, source)
    return samples


def looks_like_locomo(data: Any) -> bool:
    """True for a non-empty list of objects that each have ``conversation`` and ``sample_id``."""
    return (
        isinstance(data, list)
        and bool(data)
        and all(isinstance(x, dict) and "conversation" in x and "sample_id" in x for x in data)
    )


def samples_from_data(data: Any, source: str) -> list[LocomoSample]:
    """Build samples from already parsed JSON; ``source`` names the file in messages."""
    if not isinstance(data, list):
        raise InputError(f"{source}: expected a JSON array of LoCoMo samples, got {json_type(data)}")
    if not data:
        raise InputError(f"{source}: no LoCoMo samples (empty array)")
    samples: list[LocomoSample] = []
    seen: set[str] = set()
    for i, item in enumerate(data):
        sample = _sample(item, f"{source}: item {i + 1}", source)
        if sample.sample_id in seen:
            raise InputError(f"{source}: duplicate sample_id {sample.sample_id!r}")
        seen.add(sample.sample_id)
        samples.append(sample)
    return samples


def iter_locomo_questions(
    samples: Iterable[LocomoSample], categories: Iterable[int] | None = DEFAULT_CATEGORIES
) -> Iterator[tuple[LocomoSample, LocomoQuestion]]:
    """``(sample, question)`` pairs in file order, for the given categories (``None``: all)."""
    wanted = None if categories is None else frozenset(categories)
    for sample in samples:
        for q in sample.questions:
            if wanted is None or q.category in wanted:
                yield sample, q


def clean_evidence(raw: Iterable[str], known_ids: set[str] | frozenset[str]) -> list[str]:
    """Split, repair, keep only ``known_ids``, dedupe, keep order."""
    out: list[str] = []
    for entry in raw:
        for token in _EVIDENCE_SPLIT.split(entry.strip()):
            m = _EVIDENCE_ID.fullmatch(token)
            if not m:
                continue  # e.g. a bare "D"
            tid = f"D{int(m[1])}:{int(m[2])}"
            if tid in known_ids and tid not in out:
                out.append(tid)
    return out


# --------------------------------------------------------------------------- internals


def _sample(item: Any, where: str, source: str) -> LocomoSample:
    if not isinstance(item, dict):
        raise InputError(f"{where}: expected an object, got {json_type(item)}")
    sample_id = _require(item, "sample_id", str, where)
    if not sample_id.strip():
        raise InputError(f"{where}: empty 'sample_id'")
    where = f"{source}: sample {sample_id!r}"
    conv = _require(item, "conversation", dict, where)
    qa = _require(item, "qa", list, where)
    # event_summary / observation / session_summary are deliberately never touched.
    conversation = _conversation(sample_id, conv, where)
    known = frozenset(conversation.turn_index())
    questions = [_question(sample_id, i, q, known, f"{where} qa {i + 1}") for i, q in enumerate(qa)]
    return LocomoSample(conversation=conversation, questions=questions)


def _conversation(sample_id: str, conv: dict[str, Any], where: str) -> Conversation:
    speakers = [_require(conv, key, str, f"{where} conversation") for key in ("speaker_a", "speaker_b")]
    numbers = sorted(int(m[1]) for key in conv if (m := _SESSION_KEY.fullmatch(key)))
    sessions: list[Session] = []
    for n in numbers:
        key = f"session_{n}"
        s_where = f"{where} {key}"
        turns_raw = conv[key]
        if not isinstance(turns_raw, list):
            raise InputError(f"{s_where}: expected an array of turns, got {json_type(turns_raw)}")
        if not turns_raw:
            continue  # empty sessions exist in the wild and carry nothing
        date_key = f"{key}_date_time"
        if date_key not in conv:
            raise InputError(f"{s_where}: missing '{date_key}'")
        date = parse_session_date(conv[date_key], where=f"{where} '{date_key}'")
        turns = [_turn(t, date, f"{s_where} turn {k + 1}") for k, t in enumerate(turns_raw)]
        participants = list(dict.fromkeys(t.speaker for t in turns))
        sessions.append(build(Session, s_where, id=f"S{n}", date=date, turns=turns, participants=participants))
    if not sessions:
        raise InputError(f"{where}: conversation has no sessions with turns")
    return build(Conversation, where, id=sample_id, sessions=sessions, speakers=speakers)


def _turn(raw: Any, date: datetime, where: str) -> Turn:
    if not isinstance(raw, dict):
        raise InputError(f"{where}: expected an object, got {json_type(raw)}")
    speaker = _require(raw, "speaker", str, where)
    dia_id = _require(raw, "dia_id", str, where)
    text = _require(raw, "text", str, where)
    caption = raw.get("blip_caption")
    if caption is not None and not isinstance(caption, str):
        raise InputError(f"{where}: 'blip_caption' must be a string, got {json_type(caption)}")
    return build(
        Turn,
        f"{where} ({dia_id})",
        id=dia_id,
        speaker=speaker,
        text=text,
        image_caption=caption or None,
        timestamp=date,
    )


def _question(sample_id: str, index: int, raw: Any, known: frozenset[str], where: str) -> LocomoQuestion:
    if not isinstance(raw, dict):
        raise InputError(f"{where}: expected an object, got {json_type(raw)}")
    question = _require(raw, "question", str, where)
    category = raw.get("category")
    if isinstance(category, bool) or not isinstance(category, int):
        if "category" not in raw:
            raise InputError(f"{where}: missing 'category'")
        raise InputError(f"{where}: 'category' must be an integer, got {json_type(category)}")
    # Category 5 (adversarial) items carry ``adversarial_answer``; two also carry an ``answer``.
    answer_key = "adversarial_answer" if category == 5 and "adversarial_answer" in raw else "answer"
    answer = raw.get(answer_key)
    if answer_key not in raw:
        raise InputError(f"{where}: missing 'answer'")
    if isinstance(answer, bool) or not isinstance(answer, (str, int, float)):
        raise InputError(f"{where}: '{answer_key}' must be a string or number, got {json_type(answer)}")
    raw_evidence = raw.get("evidence", [])
    if not isinstance(raw_evidence, list) or not all(isinstance(e, str) for e in raw_evidence):
        raise InputError(f"{where}: 'evidence' must be an array of strings")
    return LocomoQuestion(
        sample_id=sample_id,
        index=index,
        question=question,
        answer=str(answer),
        category=category,
        evidence=clean_evidence(raw_evidence, known),
        raw_evidence=list(raw_evidence),
    )


def _require(obj: dict[str, Any], key: str, kind: type, where: str) -> Any:
    if key not in obj:
        raise InputError(f"{where}: missing '{key}'")
    value = obj[key]
    if not isinstance(value, kind) or isinstance(value, bool):
        raise InputError(f"{where}: '{key}' must be {_KIND_NAMES[kind]}, got {json_type(value)}")
    return value


_KIND_NAMES: dict[type, str] = {str: "a string", dict: "an object", list: "an array"}
