"""Whose fact a question asks about: its subject, and the turns in which the subject speaks.

A question naming one participant ("What did Ana adopt?") is about that participant, and in a
conversation what a person says about themselves is first-hand: "I adopted a greyhound" is
the fact, "Did Ana ever adopt?" from the other speaker is a mention. The seed ranking cannot
tell them apart: relevance leaves the speakers out of the question (``retrieval.relevance``,
or every turn of a speaker would match), and both turns share the topic. So::

    subject(q) = the one participant q names (full or first name, any case, possessive),
                 None when it names none or several
    own(t, q)  = 1 when turn t is spoken by subject(q), else 0

Pure functions; the ranking weighs ``own`` (``retrieval.oneshot``, the subject term).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from memgraph_agents.retrieval.seeds import mentioned_speakers
from memgraph_agents.storage.snapshot import GraphSnapshot


def subject_of(question: str, snap: GraphSnapshot) -> str | None:
    """The one participant of the conversation ``question`` names, else ``None``."""
    named = mentioned_speakers(question, snap)
    return next(iter(named)) if len(named) == 1 else None


def own(attrs: Mapping[str, Any], subject: str | None) -> bool:
    """Whether the turn (its attributes) is spoken by ``subject``."""
    return subject is not None and attrs.get("speaker") == subject
