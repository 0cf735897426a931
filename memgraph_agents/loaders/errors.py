"""``InputError`` and the helpers that turn low-level failures into it.

Every loader failure a user can cause (bad path, bad bytes, bad JSON, bad shape, bad value)
surfaces as one ``InputError`` with a one-line message that names the file and the place:
``conv.json: session 'S2' turn 4: missing 'speaker'``. Programming errors stay ordinary
exceptions.
"""

from __future__ import annotations

import json
import os
import stat
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from memgraph_agents.errors import InputError, LimitExceededError

__all__ = [
    "InputError",
    "read_text",
    "parse_json",
    "json_type",
    "validation_message",
    "build",
    "over_limit",
    "load_json",
]

_LIMIT_WORDS = {
    "max_file_bytes": ("file size", "bytes"),
    "max_turn_chars": ("turn length", "characters"),
    "max_turns_per_session": ("turns in one session", "turns"),
    "max_sessions": ("sessions", "sessions"),
    "max_speaker_chars": ("speaker name length", "characters"),
    "max_metadata_bytes": ("size", "bytes"),
}


def over_limit(where: str, field: str, got: int | str, limit: int) -> LimitExceededError:
    """The one-line error for an input over a limit: names the limit and its setting."""
    what, unit = _LIMIT_WORDS[field]
    return LimitExceededError(
        f"{where}: {what} {got} over the limit of {limit} {unit} (setting {field}, env MEMGRAPH_{field.upper()})"
    )


M = TypeVar("M", bound=BaseModel)


def read_text(path: str | os.PathLike[str], max_bytes: int | None = None) -> str:
    """Read a UTF-8 file strictly (bytes, then decode) so bad bytes are reported, not replaced.

    Only regular files are read: a directory, FIFO, socket or device (``/dev/zero``) is
    refused before anything is opened, and at most ``max_bytes`` are read (a larger file is a
    ``LimitExceededError``), so no input can hang the reader or fill the memory.
    """
    try:
        st = os.stat(path)
    except FileNotFoundError as e:
        raise InputError(f"{path}: file not found") from e
    except OSError as e:
        raise InputError(f"{path}: cannot read file: {e.strerror or e}") from e
    if stat.S_ISDIR(st.st_mode):
        raise InputError(f"{path}: is a directory, expected a file")
    if not stat.S_ISREG(st.st_mode):
        kind = (
            "a FIFO (named pipe)"
            if stat.S_ISFIFO(st.st_mode)
            else "a device"
            if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode)
            else "a socket"
            if stat.S_ISSOCK(st.st_mode)
            else "not a regular file"
        )
        raise InputError(f"{path}: is {kind}, expected a regular file")
    if max_bytes is not None and st.st_size > max_bytes:
        raise over_limit(str(path), "max_file_bytes", st.st_size, max_bytes)
    try:
        # O_NONBLOCK: should the path have been swapped for a FIFO since the stat, open does not hang.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                raise InputError(f"{path}: not a regular file")
            data = f.read(-1 if max_bytes is None else max_bytes + 1)
    except OSError as e:
        raise InputError(f"{path}: cannot read file: {e.strerror or e}") from e
    if max_bytes is not None and len(data) > max_bytes:  # it grew while we read
        raise over_limit(str(path), "max_file_bytes", f"> {max_bytes}", max_bytes)
    try:
        # utf-8-sig: a leading byte-order mark (common from Windows editors) is not an error.
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise InputError(f"{path}: not valid UTF-8 (byte {data[e.start]:#04x} at offset {e.start}, line {line})") from e


def parse_json(text: str, where: str) -> Any:
    """``json.loads`` with a one-line error giving line and column, and saying when it is truncated."""
    try:
        return load_json(text, where)
    except json.JSONDecodeError as e:
        if not text.strip():
            raise InputError(f"{where}: empty file, expected JSON") from e
        if not text[e.pos :].strip():
            raise InputError(
                f"{where}: truncated JSON (unexpected end of file at line {e.lineno} column {e.colno})"
            ) from e
        hint = ""
        if e.msg == "Extra data" and e.colno == 1:
            hint = " (this looks like JSONL, one object per line: use a .jsonl file or format='jsonl')"
        raise InputError(f"{where}: malformed JSON at line {e.lineno} column {e.colno}: {e.msg}{hint}") from e


def load_json(text: str, where: str) -> Any:
    """``json.loads``; nesting and oversized numbers are ``InputError``s naming ``where``
    (malformed JSON stays a ``JSONDecodeError`` for the caller to describe)."""
    try:
        return json.loads(text)
    except RecursionError as e:  # "[[[[..." a hundred thousand deep: not a conversation
        raise InputError(f"{where}: JSON nested too deeply") from e
    except json.JSONDecodeError:
        raise
    except ValueError as e:  # a 5,000-digit integer: over Python's int-conversion limit
        raise InputError(f"{where}: a number in the JSON has too many digits ({str(e).split(';')[0]})") from e


def json_type(value: Any) -> str:
    """The JSON name of a Python value's type, for messages such as "got array"."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def validation_message(err: ValidationError) -> str:
    """The first problem of a pydantic ``ValidationError`` as one short phrase.

    The loaders check structure themselves, so what reaches pydantic are value rules of the data
    model (id syntax, empty speaker, duplicate ids); its location ("sessions.1.turns.3.id") is
    rewritten in the words the file uses.
    """
    problems = err.errors(include_url=False)
    if not problems:  # pragma: no cover - pydantic always reports at least one
        return str(err)
    first = problems[0]
    msg = str(first.get("msg", "invalid value"))
    for prefix in ("Value error, ", "Assertion failed, "):
        if msg.startswith(prefix):
            msg = msg[len(prefix) :]
    loc = _describe_loc(first.get("loc", ()))
    more = f" (and {len(problems) - 1} more problem{'s' if len(problems) > 2 else ''})" if len(problems) > 1 else ""
    return f"{loc + ': ' if loc else ''}{msg}{more}"


def _describe_loc(loc: tuple[Any, ...]) -> str:
    words: list[str] = []
    i = 0
    while i < len(loc):
        part = loc[i]
        nxt = loc[i + 1] if i + 1 < len(loc) else None
        if part in ("sessions", "turns") and isinstance(nxt, int):
            words.append(f"{part[:-1]} {nxt + 1}")
            i += 2
            continue
        words.append(f"'{part}'" if isinstance(part, str) else str(part))
        i += 1
    return " ".join(words)


def build(model: type[M], where: str, **fields: Any) -> M:
    """Construct a data-model object; its validation errors become a one-line ``InputError``."""
    try:
        return model(**fields)
    except ValidationError as e:
        raise InputError(f"{where}: {validation_message(e)}") from e
