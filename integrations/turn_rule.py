"""Which chat messages the turn writer stores: conversation, not chatter.

A message is **not** written when (``TurnRule``, every part configurable):

1. it is not a human or AI message (tool results, system prompts), or flagged
   ``additional_kwargs["memgraph_skip"]``, or has no text;
2. ``skip_tool_calls``: it is an AI message that calls tools (the model talking to its tools,
   "let me check my memory…", not to the user);
3. ``skip_acknowledgements``: its whole text is an acknowledgement — at most
   ``max_ack_words`` words, all of them in ``ack_words`` ("ok", "noted", "thanks", "got it",
   "will do"…): it says nothing to remember and would come back as evidence;
4. a ``remember`` note of the same turn already holds it: a human message whose content words
   are covered by a note the model stored in that turn (at least ``note_overlap`` of them, a
   containment ratio ``|words(msg) ∩ words(note)| / |words(msg)|``) is not stored again as a
   chat turn — the note stands for it.

``rule.keep(message)`` answers 1–3; ``remembered_humans`` answers 4 (the remember tool's
name: ``AgentMemory.remember_tools``). Pass
``MemoryMiddleware(turn_rule=TurnRule(...))`` / ``AgentMemory(turn_rule=...)`` to change it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import AIMessage, ChatMessage, HumanMessage

SKIP_FLAG = "memgraph_skip"  # additional_kwargs flag: this message is not written to memory

ACK_WORDS = frozenset(
    "ok okay k kk sure yes yeah yep no nope noted thanks thank you thx ty got it will do done great "
    "cool nice perfect alright right fine understood sounds good sgtm cheers ack roger awesome "
    "of course np welcome you're anytime problem glad happy to help".split()
)
# Words a request to remember adds around the fact itself ("please remember that …").
FILLER = frozenset("please remember note save that this the a an to and of my i me for it is".split())
WORD = re.compile(r"[\w']+")


def message_words(text: str) -> list[str]:
    return [w.lower().strip("'") for w in WORD.findall(text)]


def message_text(m: Any) -> str:
    content = getattr(m, "content", "")
    if isinstance(content, str):
        return content
    return " ".join(
        b if isinstance(b, str) else str(b.get("text", ""))
        for b in content or []
        if isinstance(b, str) or (isinstance(b, dict) and b.get("type") == "text")
    )


@dataclass(frozen=True)
class TurnRule:
    """The turn writer's rule (module docstring)."""

    skip_tool_calls: bool = True
    skip_acknowledgements: bool = True
    ack_words: frozenset[str] = field(default=ACK_WORDS)
    max_ack_words: int = 4
    skip_remembered: bool = True
    note_overlap: float = 0.8

    def keep(self, m: Any) -> bool:
        """Whether ``m`` is conversation worth storing (parts 1–3)."""

        if not isinstance(m, (HumanMessage, AIMessage, ChatMessage)):
            return False
        if (m.additional_kwargs or {}).get(SKIP_FLAG):
            return False
        text = message_text(m)
        if not text.strip():
            return False
        if self.skip_tool_calls and isinstance(m, AIMessage) and m.tool_calls:
            return False
        words = message_words(text)
        return not (
            self.skip_acknowledgements and 0 < len(words) <= self.max_ack_words and set(words) <= self.ack_words
        )

    def covered_by_notes(self, m: Any, notes: Sequence[str]) -> bool:
        """Whether a human message says nothing a note of its turn does not (part 4)."""

        if not self.skip_remembered or not notes or not isinstance(m, HumanMessage):
            return False
        words = set(message_words(message_text(m))) - FILLER
        if not words:
            return False
        return any(len(words & set(message_words(n))) / len(words) >= self.note_overlap for n in notes)


def remembered_humans(messages: Sequence[Any], rule: TurnRule, tool_names: Iterable[str]) -> set[int]:
    """Positions in ``messages`` of the human messages a ``remember`` call of their own turn (the
    tool calls after them, before the next human message) already holds (part 4)."""

    names, out = set(tool_names), set()
    human: int | None = None
    notes: list[str] = []

    def close() -> None:
        if human is not None and rule.covered_by_notes(messages[human], notes):
            out.add(human)

    for i, m in enumerate(messages):
        if isinstance(m, HumanMessage):
            close()
            human, notes = i, []
            continue
        for call in getattr(m, "tool_calls", None) or []:
            text = (call.get("args") or {}).get("text")
            if call.get("name") in names and isinstance(text, str):
                notes.append(text)
    close()
    return out
