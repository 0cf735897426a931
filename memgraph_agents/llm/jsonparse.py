"""Tolerant JSON extraction from chat-model replies (pure functions, no model calls).

Replies from real servers are rarely bare JSON: they come fenced in Markdown, wrapped in
chatter, preceded by ``<think>`` blocks, with ``//`` comments or trailing commas, sometimes
cut off mid-object. ``extract_json`` finds the first JSON object in such text (a bare array
only as a last resort), ``parse_reply`` validates it against a pydantic schema after
forgiving two harmless shape slips, and ``describe_error`` / ``format_validation_error``
turn a failure into a message a model can act on in a repair turn (see
``memgraph_agents.llm.structured.ainvoke_json``).
"""

from __future__ import annotations

import json
import re
from typing import Any, TypeVar, get_origin

from pydantic import BaseModel, ValidationError

__all__ = ["describe_error", "extract_json", "format_validation_error", "parse_reply", "relax_json"]

T = TypeVar("T", bound=BaseModel)

_THINK_RE = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)  # reasoning models on local servers
_FENCE_RE = re.compile(r"```[A-Za-z]*[ \t]*\n?(.*?)(?:```|\Z)", re.DOTALL)
_MAX_OPENERS = 25  # how many bracketed spans to try in a chatty reply
_OPENER_RE = re.compile(r"[{\[]")


class _Truncated(ValueError):
    """The reply ends inside an unclosed bracket (the model ran out of tokens)."""


def _string_step(c: str, escaped: bool) -> tuple[bool, bool]:
    """Inside a JSON string, after its character ``c``: (still inside, next character escaped)."""
    if escaped:
        return True, False
    if c == "\\":
        return True, True
    return c != '"', False


def _balanced_end(text: str, start: int) -> int | None:
    """Index just past the bracket closing ``text[start]``; None when the text ends first.

    Brackets inside JSON strings (with backslash escapes) are ignored.
    """
    depth = 0
    in_str = escaped = False
    for i in range(start, len(text)):
        c = text[i]
        if in_str:
            in_str, escaped = _string_step(c, escaped)
        elif c == '"':
            in_str = True
        elif c in "{[":
            depth += 1
        elif c in "}]":
            depth -= 1
            if depth == 0:
                return i + 1
    return None


def relax_json(text: str) -> str:
    """Drop // and /* */ comments and trailing commas outside strings (common LLM slips)."""
    out: list[str] = []
    i, n = 0, len(text)
    in_str = escaped = False
    while i < n:
        c = text[i]
        if in_str:
            out.append(c)
            in_str, escaped = _string_step(c, escaped)
            i += 1
            continue
        if c == '"':
            in_str = True
        elif text.startswith("//", i):
            while i < n and text[i] != "\n":
                i += 1
            continue
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = n if end < 0 else end + 2
            continue
        elif c == ",":
            j = i + 1
            while j < n and text[j].isspace():
                j += 1
            if j < n and text[j] in "}]":
                i += 1
                continue
        out.append(c)
        i += 1
    return "".join(out)


def _loads(text: str) -> Any:
    """``json.loads``, then again on ``relax_json(text)``; ``ValueError`` naming the first error."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as first:
        try:
            return json.loads(relax_json(text))
        except json.JSONDecodeError:
            raise ValueError(f"invalid JSON: {first.msg} at line {first.lineno} column {first.colno}") from None


def extract_json(text: str) -> Any:
    """The first JSON object in a reply (plain, fenced, or wrapped in chatter); a bare JSON
    array only when no object parses.

    Fenced blocks are tried before the whole reply, and at most ``_MAX_OPENERS`` bracketed
    spans per candidate. Raises ``ValueError`` with a reason a model can act on (empty reply,
    truncated JSON, the first JSON syntax error, or no JSON at all).
    """
    cleaned = _THINK_RE.sub("", text).strip()
    if not cleaned:
        raise ValueError("the reply was empty")
    candidates = [m.group(1) for m in _FENCE_RE.finditer(cleaned) if m.group(1).strip()]
    candidates.append(cleaned)
    first_error: ValueError | None = None
    fallback: Any = None
    for candidate in candidates:
        pos = 0
        for _ in range(_MAX_OPENERS):
            match = _OPENER_RE.search(candidate, pos)
            if match is None:
                break
            start = match.start()
            end = _balanced_end(candidate, start)
            if end is None:
                # everything after an unclosed bracket is nested inside it: stop here rather
                # than return an inner fragment that would produce a misleading error
                first_error = first_error or _Truncated(
                    "the JSON is incomplete: the reply stops before its closing brackets"
                )
                break
            pos = end  # later openers inside this span are its parts, not other answers
            try:
                value = _loads(candidate[start:end])
            except ValueError as e:
                first_error = first_error or e
                continue
            if isinstance(value, dict):
                return value
            fallback = value if fallback is None else fallback  # e.g. "[1]" in prose: last resort
    if fallback is not None and not isinstance(first_error, _Truncated):
        return fallback
    raise first_error or ValueError("the reply contains no JSON object")


def _coerce_shape(value: Any, schema: type[BaseModel]) -> Any:
    """Forgive two harmless shape slips: a bare list for a one-list-field schema, and the
    object wrapped in a single extra key (``{"result": {...}}``)."""
    fields = schema.model_fields
    if isinstance(value, list):
        list_fields = [n for n, f in fields.items() if get_origin(f.annotation) is list]
        if len(fields) == 1 and list_fields:
            return {list_fields[0]: value}
    if isinstance(value, dict) and len(value) == 1 and not (value.keys() & fields.keys()):
        (inner,) = value.values()
        if isinstance(inner, dict) and inner.keys() & fields.keys():
            return inner
    return value


def format_validation_error(err: ValidationError, limit: int = 8) -> str:
    """One ``- location: message (got value)`` line per pydantic error, at most ``limit``."""
    lines: list[str] = []
    for item in err.errors()[:limit]:
        loc = ".".join(str(p) for p in item["loc"]) or "(top level)"
        got = repr(item.get("input"))
        got = got if len(got) <= 80 else got[:77] + "..."
        lines.append(f"- {loc}: {item['msg']} (got {got})")
    if err.error_count() > limit:
        lines.append(f"- ... and {err.error_count() - limit} more")
    return "\n".join(lines)


def parse_reply(text: str, schema: type[T]) -> T:
    """Reply text -> validated ``schema`` instance; ``ValueError`` (incl. pydantic's) otherwise."""
    return schema.model_validate(_coerce_shape(extract_json(text), schema))


def describe_error(err: Exception) -> str:
    """What went wrong with a reply, phrased for the model's repair turn."""
    if isinstance(err, ValidationError):
        return "the JSON does not match the required shape:\n" + format_validation_error(err)
    return str(err) or type(err).__name__
