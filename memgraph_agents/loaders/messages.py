"""LangChain message lists -> ``Conversation`` (for agents that remember their own threads).

Human and AI messages become turns (and a ``ChatMessage`` whose role is user, assistant or
system); system prompts (``SystemMessage``), tool and function messages are not conversation
and are skipped, as are messages without text (e.g. an AI message that only calls tools).
Timestamps come from ``additional_kwargs["timestamp"]`` or ``response_metadata["timestamp"]``
(ISO string, unix seconds or ``datetime``); a gap longer than ``session_gap`` between two
consecutive timestamps starts a new session.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, ChatMessage, HumanMessage

from memgraph_agents.loaders.dates import parse_session_date
from memgraph_agents.loaders.errors import InputError, build
from memgraph_agents.loaders.jsonconv import clean_text
from memgraph_agents.model.conversation import Conversation, Session, Turn

__all__ = ["conversation_from_messages", "message_text", "DEFAULT_SESSION_GAP"]

DEFAULT_SESSION_GAP = timedelta(hours=6)

# A ``ChatMessage`` with role "system" is a turn by "system" (what a plain ``{"role": "system"}``
# message becomes, see ``role_messages``); a ``SystemMessage`` (an agent's prompt) is not.
_ROLE_ALIASES = {"human": "user", "user": "user", "ai": "assistant", "assistant": "assistant", "system": "system"}


def conversation_from_messages(
    messages: Sequence[BaseMessage],
    *,
    conversation_id: str,
    session_id: str | None = None,
    session_date: datetime | None = None,
    speaker_names: dict[str, str] | None = None,
    session_gap: timedelta = DEFAULT_SESSION_GAP,
) -> Conversation:
    """Build a conversation from a LangChain message list.

    - speaker: ``message.name`` when set, else ``speaker_names["user"|"assistant"]`` (keys
      ``"human"``/``"ai"`` work too), else ``"user"``/``"assistant"``;
    - sessions: ``S1``, ``S2``, ... or, with ``session_id``, ``<session_id>1``, ``<session_id>2``,
      ...: ``session_id`` is the prefix that replaces ``S``; turn ids are ``<session>:<n>``;
    - a session's date is its first message timestamp; for the first session, when none of its
      messages has one, ``session_date``; with neither it is an ``InputError``.
    """
    if not isinstance(conversation_id, str) or not conversation_id.strip():
        raise InputError("messages: 'conversation_id' must be a non-empty string")
    if session_gap <= timedelta(0):
        raise InputError(f"messages: 'session_gap' must be positive, got {session_gap}")
    names = {_ROLE_ALIASES.get(k.lower(), k): v for k, v in (speaker_names or {}).items()}
    prefix = "S" if session_id is None else session_id

    # Group into sessions first: (messages' (index, role, text, timestamp)) per session.
    groups: list[list[tuple[int, str, str, str, datetime | None]]] = []
    last_ts: datetime | None = None
    for i, msg in enumerate(messages):
        role = _role(msg)
        if role is None:
            continue
        text = clean_text(_text(msg.content))
        if not text.strip():
            continue
        ts = _timestamp(msg, f"messages[{i}]")
        if not groups or (ts is not None and last_ts is not None and ts - last_ts > session_gap):
            groups.append([])
        if ts is not None:
            last_ts = ts
        speaker = _speaker(msg, role, names)
        groups[-1].append((i, role, speaker, text, ts))
    if not groups:
        raise InputError(f"messages: conversation {conversation_id!r} has no human or AI message with text")

    sessions: list[Session] = []
    for n, group in enumerate(groups, start=1):
        sid = f"{prefix}{n}"
        where = f"messages: session {sid!r}"
        date = next((ts for *_, ts in group if ts is not None), None)
        if date is None:
            # Only the first session can lack timestamps: later ones start at a timestamp gap.
            if session_date is None:
                raise InputError(
                    f"{where}: no message has a timestamp (additional_kwargs['timestamp']) "
                    "and no session_date was given"
                )
            date = parse_session_date(session_date, where=f"{where}: session_date")
        turns = [
            build(
                Turn,
                f"messages[{i}]",
                id=f"{sid}:{k}",
                speaker=speaker,
                text=text,
                timestamp=ts,
                role=role_ if role_ in ("user", "assistant") else None,
            )
            for k, (i, role_, speaker, text, ts) in enumerate(group, start=1)
        ]
        participants = list(dict.fromkeys(t.speaker for t in turns))
        sessions.append(build(Session, where, id=sid, date=date, turns=turns, participants=participants))
    speakers = list(dict.fromkeys(p for s in sessions for p in s.participants))
    return build(
        Conversation,
        f"messages: conversation {conversation_id!r}",
        id=conversation_id,
        sessions=sessions,
        speakers=speakers,
    )


def message_text(msg: BaseMessage) -> str:
    """The text a message becomes as a turn (its text blocks, control characters removed)."""
    return clean_text(_text(msg.content))


def _role(msg: BaseMessage) -> str | None:
    """``"user"``/``"assistant"``/``"system"`` for conversational messages; ``None`` for the rest."""
    if isinstance(msg, HumanMessage):  # also HumanMessageChunk
        return "user"
    if isinstance(msg, AIMessage):  # also AIMessageChunk
        return "assistant"
    if isinstance(msg, ChatMessage):
        return _ROLE_ALIASES.get(msg.role.lower())
    return None  # SystemMessage, ToolMessage, FunctionMessage, RemoveMessage, ...


def _speaker(msg: BaseMessage, role: str, names: dict[str, str]) -> str:
    if isinstance(msg.name, str) and msg.name.strip():
        return msg.name.strip()
    return names.get(role, role)


def _text(content: Any) -> str:
    """A message's text: a string as is; from a list of blocks, the text blocks joined."""
    if isinstance(content, str):
        return content
    parts: list[str] = []
    for block in content if isinstance(content, list) else []:
        if isinstance(block, str):
            parts.append(block)
        elif isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str):
            parts.append(block["text"])
        # image, tool_use, reasoning blocks... carry no conversational text
    return "\n".join(p for p in parts if p.strip())


def _timestamp(msg: BaseMessage, where: str) -> datetime | None:
    for source, meta in (("additional_kwargs", msg.additional_kwargs), ("response_metadata", msg.response_metadata)):
        value = (meta or {}).get("timestamp")
        if value is not None:
            return parse_session_date(value, where=f"{where}.{source}['timestamp']")
    return None
