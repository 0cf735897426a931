"""What an ingest will do, decided before anything is written: each conversation validated
(checked, its relative times resolved, within the input limits) and sorted into new, replaced,
appended or unchanged sessions against what the namespace holds."""

import functools
import json
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from memgraph_agents.config import InputLimits, Settings
from memgraph_agents.construct.timeparse import TimeOutOfRangeError, find_time_mentions
from memgraph_agents.loaders.errors import InputError, build
from memgraph_agents.loaders.jsonconv import clean_text
from memgraph_agents.loaders.limits import check_limits
from memgraph_agents.model.conversation import Conversation
from memgraph_agents.model.identity_memo import IdentityMemo
from memgraph_agents.model.unicode import SURROGATE
from memgraph_agents.storage.graph_store import namespace_exists, namespace_meta
from memgraph_agents.storage.namespaces import namespace_for_id, validate_stored_name


def validated_conversation(conversation: Any, limits: InputLimits | None = None) -> Conversation:
    """Everything checked before anything is written: text (``checked_conversation``), the
    input limits, and every relative time expression resolved against its turn's date (one
    that falls outside the calendar is an ``InputError`` naming the turn)."""
    conv = checked_conversation(conversation)
    check_limits([conv], limits or InputLimits(), "input")
    for session in conv.sessions:
        for turn in session.turns:
            ref = turn.timestamp or session.date
            if _VALID.get(turn) == ref:
                continue
            try:
                _check_times(turn.text, ref)
            except TimeOutOfRangeError as e:
                raise InputError(f"conversation {conv.id!r} session {session.id!r} turn {turn.id!r}: {e}") from e
            _VALID.put(turn, ref)
    return conv


# Turn objects found valid: clean text and times that resolve against the date held. A chat
# writer passes the whole transcript on every write, the earlier turns as the same (frozen)
# objects: only its new turns are read again.
_VALID: IdentityMemo[datetime] = IdentityMemo()


@functools.lru_cache(maxsize=8192)
def _check_times(text: str, ref: datetime) -> None:
    """Raises ``TimeOutOfRangeError`` for a time expression outside the calendar. Cached: a chat
    writer may pass the whole transcript as new objects on every write (only successes are cached)."""
    find_time_mentions(text, ref, strict=True)


def plan_ingest(
    conversations: Sequence[Conversation], settings: Settings, namespace: str | None = None, *, source: str = "input"
) -> list[tuple[Conversation, str]]:
    """Validate every conversation and choose its namespace, before anything is written.

    With ``namespace`` every conversation goes there (``""`` is refused, not a default);
    without, each goes to ``namespace_for_id(conversation.id)``, and two conversations that
    map to one name (``team a`` and ``team-a``), or one that maps onto an existing namespace
    holding other conversations, are refused rather than merged.
    """
    checked = [validated_conversation(c, settings.limits) for c in conversations]
    check_limits(checked, settings.limits, source)
    if namespace is not None:
        ns = validate_stored_name(namespace)
        return [(c, ns) for c in checked]
    plan: list[tuple[Conversation, str]] = []
    owner: dict[str, str] = {}
    for c in checked:
        ns = namespace_for_id(c.id)
        if ns in owner:
            raise InputError(
                f"{source}: conversations {owner[ns]!r} and {c.id!r} both map to namespace {ns!r}: "
                "rename one, or give a namespace to put both in one memory"
            )
        owner[ns] = c.id
        held = stored_conversations(settings, ns)
        if held is not None and c.id not in held and (held or ns != c.id):
            which = ", ".join(repr(x) for x in sorted(held)) or "other data"
            raise InputError(
                f"{source}: conversation {c.id!r} maps to namespace {ns!r}, which already holds "
                f"{which}: give a namespace to add it there on purpose"
            )
        plan.append((c, ns))
    return plan


def stored_conversations(settings: Settings, namespace: str) -> set[str] | None:
    """The conversation ids recorded in a stored namespace; ``None`` when it does not exist
    (read-only: never creates anything)."""
    if not namespace_exists(settings, namespace):
        return None
    value = namespace_meta(Path(settings.data_dir), namespace, "conversations", settings.graph_url, settings.store_id)
    return set(json.loads(value)) if value else set()


def checked_conversation(conversation: Any) -> Conversation:
    """``conversation`` ready to store, or a clear error before anything is written.

    Control characters (other than newline and tab) are removed from every string, as the
    file loaders do; an unpaired surrogate (``"\\ud800"`` in JSON) cannot be stored as text
    and is an ``InputError``.
    """
    if not isinstance(conversation, Conversation):
        raise TypeError(
            f"ingest needs a memgraph_agents.model.Conversation (load files with "
            f"memgraph_agents.loaders.load_conversations), got {type(conversation).__name__}"
        )
    changed = False

    def clean(value: Any, where: str) -> Any:
        nonlocal changed
        if isinstance(value, str):
            if SURROGATE.search(value):
                raise InputError(
                    f"conversation {conversation.id!r}: {where}: text holds an unpaired surrogate (not valid Unicode)"
                )
            out = clean_text(value)
            changed |= out != value
            return out
        if isinstance(value, list):
            return [clean(v, where) for v in value]
        if isinstance(value, dict):
            return {k: clean(v, where) for k, v in value.items()}
        return value

    # First only look, in order, skipping turns found valid before (nothing of theirs changes).
    clean(conversation.id, "id")
    clean(list(conversation.speakers), "speakers")
    for s in conversation.sessions:
        clean(list(s.participants), f"session {s.id!r}")
        for t in s.turns:
            if _VALID.get(t) is None:
                clean(t.model_dump(), f"session {s.id!r} turn {t.id!r}")
    if not changed:
        return conversation
    data = conversation.model_dump()
    data["id"] = clean(data["id"], "id")
    data["speakers"] = clean(data["speakers"], "speakers")
    for s in data["sessions"]:
        s["participants"] = clean(s["participants"], f"session {s['id']!r}")
        s["turns"] = [clean(t, f"session {s['id']!r} turn {t['id']!r}") for t in s["turns"]]
    return build(Conversation, f"conversation {conversation.id!r}", **data)
