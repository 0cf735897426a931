"""Chat threads as memory: which messages are conversation, what a thread already stored, and
the transcript a thread has said so far (append-only, with the time each message was seen).

A thread becomes sessions ``<thread>-s1``, ``-s2`` … (``loaders.messages``). A thread resumed
after a restart continues what is stored: its stored turns are read back once with their
original dates, and a history replayed by a checkpointer is recognised and not written twice.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage

from memgraph_agents.config import Settings
from memgraph_agents.integrations.turn_rule import SKIP_FLAG, TurnRule, remembered_humans
from memgraph_agents.loaders.messages import message_text
from memgraph_agents.runtime import get_store
from memgraph_agents.storage.namespaces import NamespaceError

DEFAULT_RULE = TurnRule()
__all__ = ["DEFAULT_RULE", "SKIP_FLAG", "Transcript", "clean_id", "stored_thread"]


@dataclass
class Transcript:
    """What a chat thread has said so far (append-only), with the time each message was seen.

    ``stored``: the thread's turns already in memory when this process first saw the thread
    (after a restart), as messages with their original timestamps; a checkpointer replaying
    that history is recognised (``replayed`` of them matched so far) and not written again."""

    seen: set[str] = field(default_factory=set)  # ids of the messages that had one
    anonymous: list[str] = field(default_factory=list)  # (role, text) keys of those without, in order
    messages: list[Any] = field(default_factory=list)
    stored: list[Any] = field(default_factory=list)
    replayed: int = 0

    def add(
        self, messages: Sequence[Any], now: datetime, rule: TurnRule = DEFAULT_RULE, remember_tools: Sequence[str] = ()
    ) -> int:
        """Append the new messages of ``messages`` that ``rule`` keeps (``integrations.turn_rule``);
        returns how many were new. A message with an id is new once. Without ids, a call that
        starts with every id-less kept message of the thread so far and goes on is the history
        passed again: only what follows is new; otherwise each is new (a message said twice is
        stored twice). Messages replaying the stored history keep their date."""
        added = 0
        remembered = remembered_humans(messages, rule, remember_tools)
        said = [(i, m) for i, m in enumerate(messages) if rule.keep(m)]
        anonymous = [_said(m) for _i, m in said if not m.id]
        n = len(self.anonymous)
        history = n if len(anonymous) > n and anonymous[:n] == self.anonymous else 0
        for i, m in said:
            if m.id:
                if m.id in self.seen:
                    continue
                self.seen.add(m.id)
            else:
                if history:
                    history -= 1
                    continue
                self.anonymous.append(_said(m))
            if i in remembered:
                continue  # a remember note of its turn holds it (after the history bookkeeping)
            if self.replayed < len(self.stored) and same_turn(m, self.stored[self.replayed]):
                self.replayed += 1  # history replayed by a checkpointer: stored already, keeps its date
                continue
            self.replayed = len(self.stored)  # past the replayed history, every message is new
            stamp = (m.additional_kwargs or {}).get("timestamp") or (m.response_metadata or {}).get("timestamp")
            kwargs = {**(m.additional_kwargs or {}), "timestamp": stamp or now.isoformat()}
            self.messages.append(m.model_copy(update={"additional_kwargs": kwargs}))
            added += 1
        return added


def stored_thread(settings: Settings, ns: str, thread: str) -> list[Any]:
    """The turns of ``thread`` already in memory, as messages with their stored timestamps."""

    try:
        store = get_store(settings, ns, create=False)
    except NamespaceError:
        return []
    pattern = re.compile(rf"{re.escape(thread)}-s(\d+)")
    numbered = [(int(m.group(1)), s) for s in store.sessions() if (m := pattern.fullmatch(s["id"]))]
    out = []
    for _n, s in sorted(numbered, key=lambda x: x[0]):
        for _turn_id, _digest, data in store.db.session_turns(s["id"]):
            # ``name`` carries the stored speaker exactly; the timestamp keeps the turn's date.
            # the agent's own turns come back as its messages, so the rebuilt turns keep their role
            kind = AIMessage if data.get("role") == "assistant" else HumanMessage
            out.append(
                kind(
                    content=data["text"],
                    name=data["speaker"],
                    additional_kwargs={"timestamp": data["timestamp"] or s["date"]},
                )
            )
    return out


def same_turn(message: Any, stored: Any) -> bool:
    return message_text(message) == stored.content


def _said(message: Any) -> str:
    """What an id-less message said, by whom: how a history passed again is recognised."""
    return f"{type(message).__name__}:{getattr(message, 'name', None)}:{hashlib.sha1(str(message.content).encode()).hexdigest()}"


_CLEAN_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:-]{0,79}\Z")


def clean_id(value: Any) -> str:
    """A thread id usable in session ids, one per thread: an id that already is one (letters,
    digits, ``_.:-``, at most 80, no ``..``) is kept; any other becomes a readable part and
    ``..`` plus a hash of the whole id, so ``chat 1`` and ``chat-1`` stay two threads (a kept
    id never holds ``..``, so no kept id equals a hashed one)."""
    raw = str(value)
    if _CLEAN_ID.match(raw) and ".." not in raw:
        return raw
    readable = re.sub(r"[^A-Za-z0-9_:-]+", "-", raw).strip("-_:")[:40].rstrip("-_:") or "chat"
    return f"{readable}..{hashlib.sha256(raw.encode('utf-8', 'surrogatepass')).hexdigest()[:24]}"
