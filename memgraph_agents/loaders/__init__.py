"""Loaders: files and message lists -> ``Conversation`` objects; every user error is an ``InputError``."""

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
