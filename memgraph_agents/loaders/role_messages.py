"""Chat messages as plain dicts, ``{"role": ..., "content": ...}`` (the OpenAI / mem0 shape), as
LangChain messages for ``conversation_from_messages``.

Roles map to speakers: ``user`` (or ``human``) → ``user``, ``assistant`` (or ``ai``) →
``assistant``, ``system`` → ``system``; ``tool`` and ``function`` results are not conversation
and are skipped, as the LangChain path skips them. ``name`` (optional) names the speaker;
``timestamp`` (optional: ISO string, unix seconds or ``datetime``) dates the message. Anything
else is refused with an ``InputError`` naming the message and what is wrong: a bad shape is an
error, never a quietly different memory.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, ChatMessage, HumanMessage

from memgraph_agents.loaders.errors import InputError

__all__ = ["is_role_message_list", "messages_from_role_dicts"]

_ROLES = {"user": "user", "human": "user", "assistant": "assistant", "ai": "assistant", "system": "system"}
_SKIPPED = {"tool", "function"}
_KEYS = {"role", "content", "name", "timestamp"}


def is_role_message_list(source: Any) -> bool:
    """Whether ``source`` is a non-empty list of dicts that has a ``role`` key (a dict list without
    one is the conversation format; a list mixing both is refused in ``messages_from_role_dicts``)."""
    return (
        isinstance(source, Sequence)
        and not isinstance(source, (str, bytes))
        and bool(source)
        and all(isinstance(m, dict) for m in source)
        and any("role" in m for m in source)
    )


def messages_from_role_dicts(items: Sequence[dict[str, Any]]) -> list[BaseMessage]:
    """``items`` as LangChain messages (``tool`` / ``function`` ones left out)."""
    out: list[BaseMessage] = []
    for i, m in enumerate(items):
        where = f"messages[{i}]"
        if "role" not in m:
            raise InputError(
                f"{where}: no 'role': a list of messages needs {{'role', 'content'}} in every item "
                "(a list of conversations is in the conversation format instead)"
            )
        extra = sorted(set(m) - _KEYS)
        if extra:
            raise InputError(f"{where}: unknown key(s) {extra}; a message takes {sorted(_KEYS)}")
        role = m["role"]
        if not isinstance(role, str) or (role.lower() not in _ROLES and role.lower() not in _SKIPPED):
            raise InputError(f"{where}: role {role!r} is not one of {sorted({*_ROLES, *_SKIPPED})}")
        content = m.get("content")
        if not isinstance(content, str) and not _is_blocks(content):
            raise InputError(f"{where}: 'content' must be a string (or a list of text blocks), got {content!r:.60}")
        name = m.get("name")
        if name is not None and (not isinstance(name, str) or not name.strip()):
            raise InputError(f"{where}: 'name' must be a non-empty string, got {name!r}")
        role = role.lower()
        if role in _SKIPPED:
            continue
        kwargs: dict[str, Any] = {"content": content, "name": name}
        if m.get("timestamp") is not None:
            kwargs["additional_kwargs"] = {"timestamp": m["timestamp"]}
        speaker = _ROLES[role]
        if speaker == "user":
            out.append(HumanMessage(**kwargs))
        elif speaker == "assistant":
            out.append(AIMessage(**kwargs))
        else:
            out.append(ChatMessage(role=speaker, **kwargs))
    return out


def _is_blocks(content: Any) -> bool:
    return isinstance(content, list) and all(isinstance(b, (str, dict)) for b in content)
