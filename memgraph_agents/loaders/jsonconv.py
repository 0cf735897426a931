"""The user conversation format, JSON and JSONL (documented in ``docs/conversation-format.md``).

JSON: one conversation object, or an array of them::

    {"id": "alice-chat", "speakers": ["Alice", "Bot"],
     "sessions": [{"id": "S1", "date": "2024-03-01T18:30:00",
                   "turns": [{"id": "S1:1", "speaker": "Alice", "text": "Hi!"}]}]}

JSONL: one turn per line, grouped into sessions by ``session`` (in order of first appearance)::

    {"session": "S1", "date": "2024-03-01T18:30:00", "speaker": "Alice", "text": "Hi!"}

Parsing is strict: unknown keys, wrong types, empty sessions, duplicate ids and unparseable
dates are ``InputError``s naming the file and the place. Text is kept as is (it is data, never
instructions), except that control characters other than newline and tab are removed.
"""

from __future__ import annotations

import difflib
import json
import os
import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Literal, get_args

from memgraph_agents.config import InputLimits
from memgraph_agents.loaders.dates import parse_session_date
from memgraph_agents.loaders.errors import InputError, build, json_type, load_json, parse_json, read_text
from memgraph_agents.loaders.limits import check_limits
from memgraph_agents.loaders.locomo import looks_like_locomo, samples_from_data
from memgraph_agents.model.conversation import Conversation, Session, Turn, clean_name
from memgraph_agents.model.metadata import check_metadata

__all__ = [
    "Format",
    "load_conversations",
    "conversations_from_json",
    "conversations_from_jsonl",
    "detect_format",
    "clean_text",
]

Format = Literal["json", "jsonl", "locomo"]

_CONVERSATION_KEYS = ("id", "speakers", "sessions", "metadata")
_SESSION_KEYS = ("id", "date", "turns", "metadata")
_TURN_KEYS = ("id", "speaker", "text", "image_caption", "timestamp", "role")
ROLES = ("user", "assistant")  # a turn of a chat with an agent: who spoke (``Turn.role``)
_LINE_KEYS = ("conversation", "session", "date", *_TURN_KEYS)

# C0 and C1 control characters and DEL, except tab and newline (carriage returns are turned
# into newlines first). Format characters such as the zero-width joiner are left alone: they
# are part of emoji and scripts.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def clean_text(text: str) -> str:
    """Remove control characters except ``\\n`` and ``\\t``; everything else is kept verbatim."""
    return _CONTROL.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))


def load_conversations(
    path: str | os.PathLike[str], format: Format | None = None, *, limits: InputLimits | None = None
) -> list[Conversation]:
    """Load conversations from a JSON, JSONL or LoCoMo file.

    ``format=None`` detects it: ``.jsonl``/``.ndjson`` -> JSONL; otherwise the content decides
    (a LoCoMo file is an array of objects with ``conversation`` and ``sample_id``). Only a
    regular file is read, and the file and what it holds must be within ``limits`` (default:
    ``InputLimits()``, from ``MEMGRAPH_MAX_*``), else ``LimitExceededError``.
    """
    source = os.fspath(path)
    limits = limits or InputLimits()
    if format is not None and format not in get_args(Format):
        raise InputError(f"{source}: unknown format {format!r} (expected one of: json, jsonl, locomo)")
    text = read_text(path, limits.max_file_bytes)
    out = _parse(source, text, format)
    check_limits(out, limits, source)
    return out


def _parse(source: str, text: str, format: Format | None) -> list[Conversation]:
    fmt, data = detect_format(source, text) if format is None else (format, None)
    if fmt == "jsonl":
        return conversations_from_jsonl(text, source)
    if data is None:
        data = parse_json(text, source)
    if fmt == "locomo":
        return [s.conversation for s in samples_from_data(data, source)]
    if looks_like_locomo(data):
        raise InputError(f"{source}: this is a LoCoMo file, not the conversation format: use format='locomo'")
    return conversations_from_json(data, source)


def detect_format(source: str, text: str) -> tuple[Format, Any]:
    """The format of ``text`` (and the parsed JSON when it had to be parsed to decide)."""
    suffix = Path(source).suffix.lower()
    if suffix in (".jsonl", ".ndjson"):
        return "jsonl", None
    try:
        data = load_json(text, source)
    except json.JSONDecodeError:
        if suffix != ".json" and _first_line_is_object(text):
            return "jsonl", None
        parse_json(text, source)  # raises the InputError with line and column
        raise  # pragma: no cover - parse_json always raises here
    return ("locomo" if looks_like_locomo(data) else "json"), data


def conversations_from_json(data: Any, source: str) -> list[Conversation]:
    """Conversations from parsed JSON: one conversation object or an array of them."""
    if isinstance(data, dict):
        return [_json_conversation(data, source)]
    if not isinstance(data, list):
        raise InputError(f"{source}: expected a conversation object or an array of them, got {json_type(data)}")
    if not data:
        raise InputError(f"{source}: no conversations (empty array)")
    out: list[Conversation] = []
    for i, item in enumerate(data):
        where = f"{source}: conversation {i + 1}"
        if isinstance(item, dict) and isinstance(item.get("id"), str):
            where = f"{source}: conversation {item['id']!r}"
        out.append(_json_conversation(item, where))
    _check_unique_conversations(out, source)
    return out


def conversations_from_jsonl(text: str, source: str) -> list[Conversation]:
    """Conversations from JSONL text: one turn per line; blank lines are ignored."""
    default_conv = Path(source).stem or "conversation"
    convs: dict[str, dict[str, _Draft]] = {}
    uses_conv_key: bool | None = None
    # split("\n"), not splitlines(): the latter also breaks at U+2028, U+0085, \x1c..., which
    # may legally appear unescaped inside a JSON string.
    for n, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        where = f"{source}: line {n}"
        try:
            raw = load_json(line, where)
        except json.JSONDecodeError as e:
            raise InputError(f"{where}: malformed JSON at column {e.colno}: {e.msg}") from e
        if not isinstance(raw, dict):
            raise InputError(f"{where}: expected a JSON object (one turn), got {json_type(raw)}")
        _check_keys(raw, _LINE_KEYS, where)

        has_conv = "conversation" in raw
        if uses_conv_key is not None and has_conv != uses_conv_key:
            raise InputError(
                f"{where}: 'conversation' must be given on every line or on none (earlier lines "
                f"{'do' if uses_conv_key else 'do not'})"
            )
        uses_conv_key = has_conv
        conv_id = _nonempty(raw, "conversation", where) if has_conv else default_conv
        sid = _nonempty(raw, "session", where)

        sessions = convs.setdefault(conv_id, {})
        draft = sessions.get(sid)
        if draft is None:
            if "date" not in raw:
                raise InputError(f"{where}: session {sid!r} starts here without a 'date'")
            date = parse_session_date(raw["date"], where=f"{where}: 'date'")
            s_where = f"{source}: {f'conversation {conv_id!r} ' if has_conv else ''}session {sid!r}"
            draft = sessions[sid] = _Draft(sid, date, where=s_where, first_line=n)
        elif "date" in raw:
            date = parse_session_date(raw["date"], where=f"{where}: 'date'")
            if date != draft.date:
                raise InputError(
                    f"{where}: 'date' {raw['date']!r} differs from the date of session {sid!r} "
                    f"given on line {draft.first_line}"
                )
        turn_fields = {k: v for k, v in raw.items() if k in _TURN_KEYS}
        draft.turns.append(_turn(turn_fields, f"{sid}:{len(draft.turns) + 1}", where))

    if not convs:
        raise InputError(f"{source}: no turns (the file has no non-blank lines)")
    out = []
    for conv_id, sessions in convs.items():
        where = source if len(convs) == 1 else f"{source}: conversation {conv_id!r}"
        out.append(_conversation(conv_id, list(sessions.values()), None, where))
    return out


# --------------------------------------------------------------------------- internals


@dataclass
class _Draft:
    """A session being assembled, before the data model validates it."""

    id: str
    date: datetime
    where: str
    first_line: int = 0
    turns: list[tuple[Turn, str]] = field(default_factory=list)  # (turn, where it came from)
    metadata: dict[str, Any] = field(default_factory=dict)


def _json_conversation(raw: Any, where: str) -> Conversation:
    if not isinstance(raw, dict):
        raise InputError(f"{where}: expected a conversation object, got {json_type(raw)}")
    _check_keys(raw, _CONVERSATION_KEYS, where)
    conv_id = _nonempty(raw, "id", where)
    speakers = raw.get("speakers")
    if speakers is not None:
        if not isinstance(speakers, list) or not all(isinstance(s, str) and s.strip() for s in speakers):
            raise InputError(f"{where}: 'speakers' must be an array of non-empty strings")
        speakers = list(dict.fromkeys(clean_name(s) for s in speakers)) or None  # one line each
    sessions_raw = raw.get("sessions")
    if not isinstance(sessions_raw, list):
        if "sessions" not in raw:
            raise InputError(f"{where}: missing 'sessions'")
        raise InputError(f"{where}: 'sessions' must be an array, got {json_type(sessions_raw)}")
    if not sessions_raw:
        raise InputError(f"{where}: 'sessions' is empty")

    drafts: list[_Draft] = []
    for i, s in enumerate(sessions_raw, start=1):
        s_where = f"{where}: session {i}"
        if not isinstance(s, dict):
            raise InputError(f"{s_where}: expected a session object, got {json_type(s)}")
        _check_keys(s, _SESSION_KEYS, s_where)
        sid = _nonempty(s, "id", s_where) if "id" in s else f"S{i}"
        s_where = f"{where}: session {sid!r}"
        if "date" not in s:
            raise InputError(f"{s_where}: missing 'date'")
        date = parse_session_date(s["date"], where=f"{s_where}: 'date'")
        turns_raw = s.get("turns")
        if not isinstance(turns_raw, list):
            if "turns" not in s:
                raise InputError(f"{s_where}: missing 'turns'")
            raise InputError(f"{s_where}: 'turns' must be an array, got {json_type(turns_raw)}")
        if not turns_raw:
            raise InputError(f"{s_where}: session has no turns")
        draft = _Draft(sid, date, where=s_where, metadata=check_metadata(s.get("metadata"), f"{s_where}: 'metadata'"))
        for k, t in enumerate(turns_raw, start=1):
            t_where = f"{s_where} turn {k}"
            if not isinstance(t, dict):
                raise InputError(f"{t_where}: expected a turn object, got {json_type(t)}")
            _check_keys(t, _TURN_KEYS, t_where)
            draft.turns.append(_turn(t, f"{sid}:{k}", t_where))
        drafts.append(draft)
    metadata = check_metadata(raw.get("metadata"), f"{where}: 'metadata'")
    return _conversation(conv_id, drafts, speakers, where, metadata)


def _turn(raw: dict[str, Any], default_id: str, where: str) -> tuple[Turn, str]:
    tid = _nonempty(raw, "id", where) if "id" in raw else default_id
    speaker = clean_name(_string(raw, "speaker", where))  # no line breaks: names reach prompts
    if not speaker:
        raise InputError(f"{where}: empty 'speaker'")
    caption = raw.get("image_caption")
    if caption is not None:
        caption = clean_text(_string(raw, "image_caption", where)).strip() or None
    # "text" may be left out of a turn that only shares an image.
    text = clean_text(_string(raw, "text", where)) if "text" in raw or caption is None else ""
    timestamp = raw.get("timestamp")
    if timestamp is not None:
        timestamp = parse_session_date(timestamp, where=f"{where}: 'timestamp'")
    if not text.strip() and caption is None:
        raise InputError(f"{where}: empty 'text' and no 'image_caption'")
    role = raw.get("role")
    if role is not None and role not in ROLES:
        raise InputError(f"{where}: 'role' must be one of {', '.join(ROLES)} or null, got {str(role)[:40]!r}")
    turn = build(Turn, where, id=tid, speaker=speaker, text=text, image_caption=caption, timestamp=timestamp, role=role)
    return turn, where


def _conversation(
    conv_id: str, drafts: list[_Draft], speakers: list[str] | None, where: str, metadata: dict[str, Any] | None = None
) -> Conversation:
    # Duplicates are checked here, not left to the data model, so the message can point at both places.
    session_at: dict[str, str] = {}
    turn_at: dict[str, str] = {}
    for d in drafts:
        if d.id in session_at:
            raise InputError(f"{d.where}: duplicate session id {d.id!r}")
        session_at[d.id] = d.where
        for turn, t_where in d.turns:
            if turn.id in turn_at:
                first = _strip_source(turn_at[turn.id])
                raise InputError(f"{t_where}: duplicate turn id {turn.id!r} (first used at {first})")
            turn_at[turn.id] = t_where
            if speakers is not None and turn.speaker not in speakers:
                raise InputError(f"{t_where}: speaker {turn.speaker!r} is not one of 'speakers' {speakers}")
    sessions = []
    for d in drafts:
        turns = [t for t, _ in d.turns]
        participants = list(dict.fromkeys(t.speaker for t in turns))
        sessions.append(
            build(Session, d.where, id=d.id, date=d.date, turns=turns, participants=participants, metadata=d.metadata)
        )
    if speakers is None:
        speakers = list(dict.fromkeys(p for s in sessions for p in s.participants))
    return build(Conversation, where, id=conv_id, sessions=sessions, speakers=speakers, metadata=metadata or {})


def _check_unique_conversations(convs: list[Conversation], source: str) -> None:
    seen: set[str] = set()
    for c in convs:
        if c.id in seen:
            raise InputError(f"{source}: duplicate conversation id {c.id!r}")
        seen.add(c.id)


def _check_keys(raw: dict[str, Any], allowed: tuple[str, ...], where: str) -> None:
    # Unknown keys are errors: a typo such as "speeker" or "timestmap" would otherwise drop data silently.
    for key in raw:
        if key not in allowed:
            close = difflib.get_close_matches(str(key), allowed, n=1)
            hint = f"did you mean '{close[0]}'?" if close else f"expected: {', '.join(allowed)}"
            raise InputError(f"{where}: unknown key {key!r} ({hint})")


def _string(raw: dict[str, Any], key: str, where: str) -> str:
    if key not in raw:
        raise InputError(f"{where}: missing '{key}'")
    value = raw[key]
    if not isinstance(value, str):
        raise InputError(f"{where}: '{key}' must be a string, got {json_type(value)}")
    return value


def _nonempty(raw: dict[str, Any], key: str, where: str) -> str:
    value = _string(raw, key, where).strip()
    if not value:
        raise InputError(f"{where}: empty '{key}'")
    return value


def _strip_source(where: str) -> str:
    return where.split(": ", 1)[1] if ": " in where else where


def _first_line_is_object(text: str) -> bool:
    for line in text.split("\n"):
        if line.strip():
            try:
                return isinstance(json.loads(line), dict)
            except (ValueError, RecursionError):  # JSONDecodeError is a ValueError
                return False
    return False
