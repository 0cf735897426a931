"""What ``Memory.add`` accepts, turned into ``Conversation`` objects.

- a ``Conversation``;
- a file, given as a ``pathlib.Path`` (any ``os.PathLike``): JSON, JSONL or LoCoMo, as
  ``memgraph ingest`` reads it; a missing file is an error. A ``str`` is never a path: text
  from a user, a model or an MCP client must not be able to open a server-side file, so
  ``"export.json"`` is a note like any other text;
- a conversation ``dict`` in the JSON format of docs/conversation-format.md, or a list of them;
- a list of LangChain messages (a chat thread; untimed messages are dated now);
- a list of ``{"role", "content"}`` message dicts (the OpenAI / mem0 shape, ``loaders.role_messages``):
  roles become speakers; each call is its own dated exchange (``chat-<time>-<hash>``) unless
  ``conversation_id`` names the thread;
- any other ``str``: a **note**, one dated turn in a session of its own whose id
  (``note-…``) is returned so ``forget(note=id)`` deletes exactly it.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from memgraph_agents.errors import InputError
from memgraph_agents.loaders.dates import to_naive_utc
from memgraph_agents.loaders.jsonconv import conversations_from_json, load_conversations
from memgraph_agents.model.conversation import Conversation, Session, Turn
from memgraph_agents.model.notes import NOTE_PREFIX, is_note_id
from memgraph_agents.model.unicode import check_unicode

__all__ = [
    "NOTE_PREFIX",
    "conversations_from",
    "is_note_id",
    "note_conversation",
    "note_id",
    "now_utc",
]


def now_utc() -> datetime:
    """Naive UTC now: the stored dates are naive (a conversation's own clock)."""
    return datetime.now(UTC).replace(tzinfo=None)


def note_id(text: str, when: datetime) -> str:
    """``note-<time>-<hash>``: the same text noted at the same instant is the same note."""
    digest = hashlib.sha1(text.encode("utf-8")).hexdigest()[:8]
    return f"{NOTE_PREFIX}{when:%Y%m%dT%H%M%S%f}-{digest}"


def note_conversation(text: str, *, speaker: str = "user", when: datetime | None = None) -> Conversation:
    """A plain-text note as a one-turn session dated ``when`` (default: now, UTC)."""
    text = check_unicode(" ".join(str(text).split()), "the note")
    if isinstance(speaker, str):
        check_unicode(speaker, "the speaker")
    if not text:
        raise InputError("nothing to remember: the note is empty")
    when = _utc(when) or now_utc()
    sid = note_id(text, when)
    turn = Turn(id=f"{sid}:1", speaker=speaker, text=text, timestamp=when)
    return Conversation(id=sid, sessions=[Session(id=sid, date=when, turns=[turn])], speakers=[speaker])


def _exchange_id(messages: Sequence[Any], when: datetime) -> str:
    """``chat-<time>-<hash>``: each ``add`` of a message list is its own exchange (as each note is its
    own session), so a second call with other messages is never a conflict with the first."""
    digest = hashlib.sha1("\n".join(f"{m.type}:{m.content}" for m in messages).encode("utf-8")).hexdigest()[:8]
    return f"chat-{when:%Y%m%dT%H%M%S%f}-{digest}"


def _utc(when: datetime | None) -> datetime | None:
    """``when`` as naive UTC, like every stored date; ``InputError`` for one that leaves years
    1-9999 once converted (``9999-12-31T23:00-14:00``), not an ``OverflowError`` traceback."""
    if when is None:
        return None

    try:
        return to_naive_utc(when)
    except ValueError as e:
        raise InputError(f"when: {e}") from e


def _is_file(source: Any) -> bool:
    # Only a path object names a file: a ``str`` comes from a user, a model or a client (MCP,
    # agent tools, ``memgraph note add``) and is text; reading it as a path leaked files.
    return isinstance(source, os.PathLike)


def _is_messages(source: Any) -> bool:
    if isinstance(source, (str, bytes)) or not isinstance(source, Sequence) or not source:
        return False
    # lazy: LangChain's messages: only when messages are given
    from langchain_core.messages import BaseMessage

    return all(isinstance(m, BaseMessage) for m in source)


def conversations_from(
    source: Any,
    *,
    format: str | None = None,
    conversation_id: str | None = None,
    speaker: str = "user",
    speaker_names: dict[str, str] | None = None,
    when: datetime | None = None,
) -> list[Conversation]:
    """``source`` (see the module docstring) as conversations, fully checked before any write."""
    when = _utc(when)
    if isinstance(source, Conversation):
        return [source]
    if _is_file(source):
        return load_conversations(Path(source), format)  # type: ignore[arg-type]
    # lazy: the message loaders import LangChain: only when role messages are given
    from memgraph_agents.loaders.role_messages import is_role_message_list, messages_from_role_dicts

    if is_role_message_list(source):
        messages = messages_from_role_dicts(source)
        if not messages:
            raise InputError("messages: nothing to remember: no user, assistant or system message")
        when = when or now_utc()
        cid = conversation_id or _exchange_id(messages, when)
        # lazy: the message loaders import LangChain: only when messages are given
        from memgraph_agents.loaders.messages import conversation_from_messages

        return [conversation_from_messages(messages, conversation_id=cid, session_id=f"{cid}-s", session_date=when)]
    if isinstance(source, dict) or (isinstance(source, list) and source and all(isinstance(c, dict) for c in source)):
        return conversations_from_json(source, "input")
    if _is_messages(source):
        # lazy: the message loaders import LangChain: only when messages are given
        from memgraph_agents.loaders.messages import conversation_from_messages

        cid = conversation_id or "chat"
        return [
            conversation_from_messages(
                source,
                conversation_id=cid,
                session_id=f"{cid}-s",
                session_date=when or now_utc(),
                speaker_names=speaker_names,
            )
        ]
    if isinstance(source, str):
        return [note_conversation(source, speaker=speaker, when=when)]
    raise InputError(
        f"cannot add a {type(source).__name__}: pass a conversation file as a pathlib.Path, a Conversation, "
        "a conversation dict (or a list of them), a list of LangChain messages or of {'role', 'content'} dicts, "
        "or a text note"
    )
