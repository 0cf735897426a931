"""What ``MemgraphStore`` keeps of a value, and what its note says.

A value comes back from ``get`` / ``search`` exactly as it was put, so a put refuses what JSON
cannot keep (``check_value``): a key that is not a string (``{1: "x"}`` would come back as
``{"1": "x"}``), a non-finite float, an integer outside the signed 64-bit range, an object
that is not JSON. A tuple is kept as a JSON array (a list), as every JSON store keeps it.

``PutOp.index`` says what is searchable, as in ``InMemoryStore``: ``None`` — the value's
``content`` / ``text`` / ``memory`` string, else its JSON; a list of field paths (``"a"``,
``"a.b"``) — those fields; ``False`` — nothing: no note is written, and a query search lists
the item unscored, after the scored ones.
"""

from __future__ import annotations

import json
from typing import Any

from memgraph_agents.errors import InputError
from memgraph_agents.model.metadata import json_value

Index = list[str] | bool | None  # PutOp.index: None (the default fields), False (none), or field paths
MAX_VALUE_DEPTH = 64


def check_value(value: Any) -> dict[str, Any]:
    """``value`` as stored (a JSON object), else an ``InputError`` naming the bad part."""
    if not isinstance(value, dict):
        raise InputError(f"a store value must be a dict, got {type(value).__name__}")
    return json_value(value, "value", max_depth=MAX_VALUE_DEPTH)


def check_index(index: Any) -> Index:
    if index is None or index is False:
        return index
    if isinstance(index, list) and all(isinstance(p, str) and p for p in index):
        return list(index)
    raise InputError(f"index must be False, None or a list of field paths, got {index!r}")


def encode_index(index: Index) -> str | None:
    return None if index is None else json.dumps(index)


def decode_index(text: str | None) -> Index:
    return None if text is None else json.loads(text)


def _field(value: Any, path: str) -> Any:
    for part in path.split("."):
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return value


def note_text(value: dict[str, Any], index: Index = None) -> str:
    """What a value says for search: see the module docstring (``""``: nothing to index)."""
    if index is False:
        return ""
    if isinstance(index, list):
        parts = [_field(value, p) for p in index]
        return " ".join(p if isinstance(p, str) else json.dumps(p, ensure_ascii=False) for p in parts if p is not None)
    for field in ("content", "text", "memory"):
        if isinstance(value.get(field), str) and value[field].strip():
            return value[field]
    return json.dumps(value, ensure_ascii=False, sort_keys=True)
