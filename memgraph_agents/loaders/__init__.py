"""Loaders: files and message lists -> ``Conversation`` objects; every user error is an ``InputError``.

Names load lazily (PEP 562): a caller that needs dates or JSON files does not pay for the
message loaders' LangChain imports.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the real names, for type checkers
    from memgraph_agents.loaders.dates import parse_session_date
    from memgraph_agents.loaders.errors import InputError
    from memgraph_agents.loaders.jsonconv import Format, clean_text, load_conversations
    from memgraph_agents.loaders.locomo import (
        DEFAULT_CATEGORIES,
        LocomoQuestion,
        LocomoSample,
        iter_locomo_questions,
        load_locomo,
    )
    from memgraph_agents.loaders.messages import DEFAULT_SESSION_GAP, conversation_from_messages

_WHERE = {
    "InputError": "errors",
    "parse_session_date": "dates",
    "Format": "jsonconv",
    "load_conversations": "jsonconv",
    "clean_text": "jsonconv",
    "LocomoQuestion": "locomo",
    "LocomoSample": "locomo",
    "load_locomo": "locomo",
    "iter_locomo_questions": "locomo",
    "DEFAULT_CATEGORIES": "locomo",
    "conversation_from_messages": "messages",
    "DEFAULT_SESSION_GAP": "messages",
}
__all__ = [
    "InputError",
    "parse_session_date",
    "Format",
    "load_conversations",
    "clean_text",
    "LocomoQuestion",
    "LocomoSample",
    "load_locomo",
    "iter_locomo_questions",
    "DEFAULT_CATEGORIES",
    "conversation_from_messages",
    "DEFAULT_SESSION_GAP",
]


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'memgraph_agents.loaders' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"memgraph_agents.loaders.{module}"), name)
    globals()[name] = value
    return value
