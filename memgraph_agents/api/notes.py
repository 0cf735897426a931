"""``Memory.update`` and ``Memory.history``: correct a note, and see its versions.

An update replaces the note's one-turn session in one commit (the ingest's ``replace`` path:
readers see the old note or the new one, never neither), keeping its id, date, speaker and,
unless new metadata is given, its metadata. The store records each distinct (text, metadata)
of a note as a version in the commit that stores it (``storage.commit``); forgetting the note
deletes its history with it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from memgraph_agents.api.items import NoteHistory, NoteVersion
from memgraph_agents.api.ops import open_store
from memgraph_agents.config import Settings
from memgraph_agents.errors import InputError
from memgraph_agents.model.conversation import Conversation, Session, Turn
from memgraph_agents.model.metadata import check_metadata
from memgraph_agents.model.notes import is_note_id


def check_note_id(note_id: Any) -> str:
    if not is_note_id(note_id):
        raise InputError(f"{note_id!r} is not a note id (note ids start with 'note-')")
    return note_id


def _stored_note(settings: Settings, namespace: str, note_id: str) -> tuple[Any, dict, tuple[str, dict]]:
    """(store, session record, (turn id, turn data)) of a stored note, else an ``InputError``."""

    store = open_store(settings, namespace)
    record = store.session(note_id)
    turns = store.db.session_turns(note_id) if record is not None else []
    if record is None or not turns:
        raise InputError(f"no note {note_id!r} in namespace {namespace!r}")
    tid, _, data = turns[0]
    return store, record, (tid, data)


def updated_note(settings: Settings, namespace: str, note_id: str, text: Any, metadata: Any) -> Conversation:
    """The note's next version as a conversation to ingest with ``replace``; checked first."""
    check_note_id(note_id)
    if not isinstance(text, str):
        raise InputError(f"the note text must be a string, got {type(text).__name__}")
    text = " ".join(text.split())  # as ``note_conversation`` stores a note
    if not text:
        raise InputError("nothing to remember: the note is empty")
    _, record, (tid, data) = _stored_note(settings, namespace, note_id)
    meta = dict(record.get("metadata") or {}) if metadata is None else check_metadata(metadata)
    stamp = data.get("timestamp")
    turn = Turn(id=tid, speaker=data["speaker"], text=text, timestamp=datetime.fromisoformat(stamp) if stamp else None)
    session = Session(id=note_id, date=datetime.fromisoformat(record["date"]), turns=[turn], metadata=meta)
    return Conversation(id=note_id, sessions=[session], speakers=[turn.speaker])


def note_history(settings: Settings, namespace: str, note_id: str) -> NoteHistory:
    """Every stored version of the note, oldest first."""
    store, _, _ = _stored_note(settings, namespace, check_note_id(note_id))
    versions = [NoteVersion(**v) for v in store.note_versions(note_id)]
    return NoteHistory(note_id=note_id, namespace=namespace, versions=versions)
