"""Metadata filters written as text, ``KEY=VALUE`` (the command line's ``--filter``, the browser's
filter box): each VALUE is read as JSON when it is JSON (``year=2024``, ``done=true``,
``tag='"a,b"'``, ``year='{"$gte": 2024}'``), else as text; text with commas is any of its parts
(``tag=a,b`` is ``{"$in": ["a", "b"]}``). Every given key must hold.
"""

from __future__ import annotations

import json
from typing import Any

from memgraph_agents.errors import InputError


def filter_value(text: str) -> Any:
    """One ``--filter`` VALUE (module docstring)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        pass
    except ValueError:  # an integer of more digits than Python converts: out of range anyway
        raise InputError(f"--filter value {text[:40]!r}…: a number out of range") from None
    parts = [p.strip() for p in text.split(",")]
    if len(parts) > 1:
        if not all(parts):
            raise InputError(f"--filter value {text!r} has an empty part between commas")
        return {"$in": parts}
    return text


def metadata_filter(items: list[str] | None) -> dict[str, Any] | None:
    """The ``--filter`` options as one filter object (``None`` when none was given)."""
    if not items:
        return None
    out: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise InputError(f"--filter takes KEY=VALUE, got {item!r}")
        if key in out:
            raise InputError(f'--filter names {key!r} twice (use one KEY={{"$in": [...]}} or a,b)')
        out[key] = filter_value(value)
    return out
