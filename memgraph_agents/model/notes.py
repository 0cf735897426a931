"""Notes: a text remembered on its own, stored as a one-turn session whose id says it is one.

``note-<time>-<hash>`` (``api.sources.note_id``); the store keeps every version of a note's
text and metadata (``Memory.update`` / ``Memory.history``), which it does for no other session.
"""

from __future__ import annotations

NOTE_PREFIX = "note-"


def is_note_id(value: object) -> bool:
    return isinstance(value, str) and value.startswith(NOTE_PREFIX)
