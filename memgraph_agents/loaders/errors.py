"""``InputError`` and the helpers that turn low-level failures into it.

Every loader failure a user can cause (bad path, bad bytes, bad JSON, bad shape, bad value)
surfaces as one ``InputError`` with a one-line message that names the file and the place:
``conv.json: session 'S2' turn 4: missing 'speaker'``. Programming errors stay ordinary
exceptions.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from memgraph_agents.errors import InputError

__all__ = ["InputError", "read_text", "parse_json", "json_type", "validation_message", "build"]

M = TypeVar("M", bound=BaseModel)




def read_text(path: str | os.PathLike[str]) -> str:
    """Read a UTF-8 file strictly (bytes, then decode) so bad bytes are reported, not replaced."""
    p = Path(path)
    if not p.exists():
        raise InputError(f"{path}: file not found")
    if p.is_dir():
        raise InputError(f"{path}: is a directory, expected a file")
    try:
        data = p.read_bytes()
    except OSError as e:
        raise InputError(f"{path}: cannot read file: {e.strerror or e}") from e
    try:
        # utf-8-sig: a leading byte-order mark (common from Windows editors) is not an error.
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise InputError(
            f"{path}: not valid UTF-8 (byte {data[e.start]:#04x} at offset {e.start}, line {line})"
        ) from e


def parse_json(text: str, where: str) -> Any:
    """``json.loads`` with a one-line error giving line and column, and saying when it is truncated."""
    try:
        return json.loads(text)
    except RecursionError as e:  # "[[[[..." a hundred thousand deep: not a conversation
        raise InputError(f"{where}: JSON nested too deeply") from e
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
