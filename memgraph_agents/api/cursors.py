"""``Memory.list``'s page cursors: opaque, versioned and bound to the listing that made them.

A cursor is ``base64url(JSON ["v1", date, id, binding])``: the last listed item's key
(``date``, a naive UTC ISO datetime, and ``id``) and ``binding``, a digest of the namespace,
the kind and the filter of the listing. It pages only that listing: a cursor from another
namespace or filter, one from an older version, or anything else (an integer, a date with a
time zone, garbage) is one ``InputError``, never a traceback and never a page of something
else.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from datetime import datetime
from typing import Any

from memgraph_agents.errors import InputError

VERSION = "v1"
MAX_CURSOR_CHARS = 2048
_AGAIN = "list again without a cursor and pass the cursor that listing returns"


def binding(namespace: str, kind: str | None, filter_key: str) -> str:
    """The digest a cursor carries: which listing (namespace, kind, filter) it pages."""
    raw = json.dumps([namespace, kind, filter_key], sort_keys=True).encode()
    return hashlib.blake2b(raw, digest_size=12).hexdigest()


def encode_cursor(date: str, item_id: str, bound: str) -> str:
    raw = json.dumps([VERSION, date, item_id, bound], separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: Any, bound: str) -> tuple[datetime, str]:
    """The ``(date, id)`` key of a cursor this listing (``bound``) made; else an ``InputError``."""
    if not isinstance(cursor, str):
        raise InputError(f"invalid cursor: a cursor is the text a previous list returned, got {type(cursor).__name__}")
    shown = repr(cursor[:40])
    if not cursor or len(cursor) > MAX_CURSOR_CHARS:
        raise InputError(f"invalid cursor {shown}: {_AGAIN}")
    try:
        raw = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
    except (ValueError, TypeError, binascii.Error, UnicodeDecodeError):
        raise InputError(f"invalid cursor {shown}: {_AGAIN}") from None
    if not (isinstance(raw, list) and len(raw) == 4 and raw[0] == VERSION):
        raise InputError(f"invalid cursor {shown} (not one this version makes): {_AGAIN}")
    _, date, item_id, their = raw
    if not (isinstance(date, str) and isinstance(item_id, str) and isinstance(their, str)):
        raise InputError(f"invalid cursor {shown}: {_AGAIN}")
    try:
        when = datetime.fromisoformat(date)
    except ValueError:
        raise InputError(f"invalid cursor {shown}: {_AGAIN}") from None
    if when.tzinfo is not None:  # stored dates are naive UTC: an aware one was not made here
        raise InputError(f"invalid cursor {shown} (its date has a time zone): {_AGAIN}")
    if their != bound:
        raise InputError(f"this cursor pages another listing (namespace, kind or filter): {_AGAIN}")
    return when, item_id
