"""User metadata on sessions and notes, and the filters that select by it.

Metadata is a JSON object: keys of 1-64 letters, digits and ``_.-`` (not starting with ``.``,
``-`` or ``$``: ``$`` starts a filter operator), values any JSON value (nesting at most
``MAX_DEPTH`` deep) whose numbers every store keeps exactly: finite floats and integers in
``[MIN_INT, MAX_INT]`` (a signed 64-bit integer, SQLite's and PostgreSQL's ``bigint``). A filter's
operands obey the same bounds; anything else is an ``InputError`` naming the key. Its size is bounded by ``InputLimits.max_metadata_bytes`` (the
loaders' ``check_limits``), measured as ``metadata_bytes``.

A filter is LangGraph's store filter (``langgraph.store.memory.InMemoryStore``): every
top-level key must match; a plain value matches by equality (a list: same length, items
equal; an object: each of its keys matches, recursively); an object whose keys start with
``$`` applies operators, all of which must hold: ``$eq``, ``$ne``, ``$gt``, ``$gte``, ``$lt``,
``$lte`` (numbers, and strings that read as one, compared exactly) and, beyond InMemoryStore,
``$in`` (the stored value equals one of a list). Matching is total: where InMemoryStore raises
(``$gt`` on a missing or non-numeric value, a number too large for a float) the item simply
does not match.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

from memgraph_agents.errors import InputError
from memgraph_agents.model.unicode import check_unicode

KEY_RE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-]{0,63}\Z")
MAX_DEPTH = 8
MIN_INT, MAX_INT = -(2**63), 2**63 - 1  # what SQLite's INTEGER and PostgreSQL's bigint hold
COMPARISONS = ("$gt", "$gte", "$lt", "$lte")
OPERATORS = ("$eq", "$ne", "$in", *COMPARISONS)

Metadata = dict[str, Any]


def check_key(key: Any, where: str) -> str:
    if not isinstance(key, str) or not KEY_RE.match(key):
        raise InputError(
            f"{where}: invalid key {key!r}: 1-64 letters, digits and '_.-', not starting with '.', '-' or '$'"
        )
    return key


def json_value(value: Any, where: str, *, max_depth: int = MAX_DEPTH) -> Any:
    """``value`` as JSON keeps it (tuples as lists), else an ``InputError`` naming the bad part:
    a key that is not a string, a number out of range (see the module docstring), a non-JSON
    object, nesting deeper than ``max_depth``."""
    return _json_value(value, where, 0, max_depth)


def _json_value(value: Any, where: str, depth: int, max_depth: int = MAX_DEPTH) -> Any:
    if depth > max_depth:
        raise InputError(f"{where}: nested more than {max_depth} levels deep")
    if isinstance(value, str):
        return check_unicode(value, where)
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int):
        if not MIN_INT <= value <= MAX_INT:
            raise InputError(f"{where}: the integer {_short(value)} is outside the range -2**63 .. 2**63-1")
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InputError(f"{where}: {value!r} is not a JSON number")
        return value
    if isinstance(value, (list, tuple)):
        return [_json_value(v, f"{where}[{i}]", depth + 1, max_depth) for i, v in enumerate(value)]
    if isinstance(value, Mapping):
        out = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise InputError(f"{where}: key {k!r} is not a string")
            out[check_unicode(k, f"{where}: a key")] = _json_value(v, f"{where}.{k}", depth + 1, max_depth)
        return out
    raise InputError(f"{where}: a {type(value).__name__} is not a JSON value")


def _short(n: int) -> str:
    """An integer for a message: a huge one as its digit count (``str`` would refuse it)."""
    digits = n.bit_length() * 0.30103  # about the decimal digits, without str()
    return str(n) if digits < 40 else f"of about {int(digits)} digits"


def check_metadata(value: Any, where: str = "metadata") -> Metadata:
    """``value`` as metadata (``None``: empty), else an ``InputError`` naming the bad part."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise InputError(f"{where} must be an object of key: JSON value, got {type(value).__name__}")
    return {check_key(k, where): _json_value(v, f"{where}.{k}", 1) for k, v in value.items()}


def metadata_bytes(metadata: Metadata) -> int:
    """Size counted against ``max_metadata_bytes``: the compact UTF-8 JSON encoding."""
    return len(json.dumps(metadata, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))


# -- filters ---------------------------------------------------------------------------------
def _check_condition(cond: Any, where: str, depth: int) -> None:
    if depth > MAX_DEPTH:
        raise InputError(f"{where}: nested more than {MAX_DEPTH} levels deep")
    if isinstance(cond, Mapping) and any(isinstance(k, str) and k.startswith("$") for k in cond):
        for op, operand in cond.items():
            if op not in OPERATORS:
                raise InputError(f"{where}: unknown operator {op!r} (use {', '.join(OPERATORS)})")
            if op == "$in" and not isinstance(operand, (list, tuple)):
                raise InputError(f"{where}: '$in' takes a list of values")
            if op in COMPARISONS and (isinstance(operand, bool) or not isinstance(operand, (int, float))):
                raise InputError(f"{where}: {op!r} takes a number, got {operand!r}")
            _json_value(operand, f"{where}.{op}", depth + 1)
    elif isinstance(cond, Mapping):
        for k, v in cond.items():
            if not isinstance(k, str):
                raise InputError(f"{where}: key {k!r} is not a string")
            check_unicode(k, f"{where}: a key")
            _check_condition(v, f"{where}.{k}", depth + 1)
    else:
        _json_value(cond, where, depth)


def check_filter(value: Any, where: str = "filter", *, any_key: bool = False) -> Metadata:
    """``value`` as a metadata filter (``None``: match all), else an ``InputError``.
    ``any_key``: top-level keys are any non-empty string (``MemgraphStore``'s value fields),
    not only metadata keys."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise InputError(f"{where} must be an object of key: value or {{operator: value}}, got {type(value).__name__}")
    for k, v in value.items():
        if any_key and (not isinstance(k, str) or not k or k.startswith("$")):
            raise InputError(f"{where}: invalid key {k!r}: a field name, not empty and not starting with '$'")
        if any_key:
            check_unicode(k, f"{where}: a key")
        if not any_key:
            check_key(k, where)
        _check_condition(v, f"{where}.{k}", 1)
    return dict(value)


def matches(metadata: Mapping[str, Any], filter: Mapping[str, Any]) -> bool:
    """Whether ``metadata`` passes ``filter`` (see the module docstring; ``{}`` passes all)."""
    return all(_compare(metadata.get(k), v) for k, v in filter.items())


def _compare(value: Any, cond: Any) -> bool:
    if isinstance(cond, Mapping):
        if any(isinstance(k, str) and k.startswith("$") for k in cond):
            return all(_apply(value, op, operand) for op, operand in cond.items())
        return isinstance(value, Mapping) and all(_compare(value.get(k), v) for k, v in cond.items())
    if isinstance(cond, (list, tuple)):
        return (
            isinstance(value, (list, tuple))
            and len(value) == len(cond)
            and all(_compare(a, b) for a, b in zip(value, cond, strict=True))
        )
    return bool(value == cond)


def _apply(value: Any, op: str, operand: Any) -> bool:
    if op == "$eq":
        return bool(value == operand)
    if op == "$ne":
        return bool(value != operand)
    if op == "$in":
        return any(value == x for x in operand)
    a, b = _number(value), _number(operand)
    if a is None or b is None:
        return False
    # Python compares ints and floats exactly and never raises (no float() of a huge int).
    return {"$gt": a > b, "$gte": a >= b, "$lt": a < b, "$lte": a <= b}[op]


def _number(value: Any) -> int | float | None:
    """A comparable number: an int or float as it is (a bool as 0/1, as ``float()`` reads it),
    a string that reads as a float; else ``None`` (no match)."""
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, str) and len(value) <= 400:
        try:
            return float(value)
        except ValueError:
            return None
    return None
