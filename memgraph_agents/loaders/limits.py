"""The input limits (``config.InputLimits``) checked on loaded conversations.

One check for every entry point: the file loaders call it on what a file holds (the file
size itself is checked before reading), the ingest API on every conversation it is given.
"""

from __future__ import annotations

from collections.abc import Sequence

from memgraph_agents.config import InputLimits
from memgraph_agents.loaders.errors import over_limit
from memgraph_agents.model.conversation import Conversation
from memgraph_agents.model.metadata import metadata_bytes

__all__ = ["check_limits"]


def check_limits(conversations: Sequence[Conversation], limits: InputLimits, where: str) -> None:
    """``LimitExceededError`` for the first thing over a limit; ``where`` names the file or input."""
    total = sum(len(c.sessions) for c in conversations)
    if total > limits.max_sessions:
        raise over_limit(where, "max_sessions", total, limits.max_sessions)
    for conv in conversations:
        for s in conv.sessions:
            s_where = f"{where}: conversation {conv.id!r} session {s.id!r}"
            size = metadata_bytes(s.metadata)
            if size > limits.max_metadata_bytes:
                raise over_limit(f"{s_where} metadata", "max_metadata_bytes", size, limits.max_metadata_bytes)
            if len(s.turns) > limits.max_turns_per_session:
                raise over_limit(s_where, "max_turns_per_session", len(s.turns), limits.max_turns_per_session)
            for t in s.turns:
                if len(t.speaker) > limits.max_speaker_chars:
                    where_t = f"{s_where} turn {t.id!r}"
                    raise over_limit(where_t, "max_speaker_chars", len(t.speaker), limits.max_speaker_chars)
                size = len(t.text) + len(t.image_caption or "")
                if size > limits.max_turn_chars:
                    raise over_limit(f"{s_where} turn {t.id!r}", "max_turn_chars", size, limits.max_turn_chars)
