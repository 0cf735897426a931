"""What ingesting a session does to the stored one: add, skip, append, replace or refuse.

A session's identity is its content (``session_hash``: id, date and turns) plus how it was
built (the builder, ``offline`` or ``llm``, and the preset). Against the stored version:

* not stored -> ``new``;
* same content, same builder and preset -> ``unchanged`` (re-running an ingest adds nothing);
* same content, another builder or preset -> rebuilt (``replace``) only when asked
  (``replace=True``, or ``rebuild=True``: the CLI sets it when ``--llm`` or ``--preset`` is
  given explicitly); otherwise ``unchanged``, with a note saying how to rebuild;
* the stored turns are a prefix of the given ones, same date and metadata -> ``append`` (a chat thread
  that grew: the normal chat path, never a conflict); with a preset that builds per-session
  generated memory, or a rebuild asked for, the session is rebuilt whole instead;
* anything else (edited or removed turns, another date or metadata) -> ``SessionConflictError`` unless
  ``replace=True``, which replaces the stored version in one commit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from memgraph_agents.construct.build import session_hash, turn_digest
from memgraph_agents.errors import SessionConflictError
from memgraph_agents.model.conversation import Session
from memgraph_agents.presets import get_preset

Status = Literal["new", "unchanged", "replace", "append"]


@dataclass(frozen=True)
class WritePlan:
    status: Status
    n_stored: int = 0  # stored turns (an append builds the rest)
    note: str = ""


def build_identity(offline: bool, preset: str) -> dict[str, str]:
    return {"builder": "offline" if offline else "llm", "preset": get_preset(preset).name}


def stored_identity(record: dict) -> dict[str, str]:
    info = record.get("info") or {}
    if isinstance(info.get("identity"), dict):  # a renamed preset is the same preset
        return {**info["identity"], "preset": get_preset(info["identity"].get("preset")).name}
    # Sessions stored before identities: the builder that produced them and their preset.
    return {"builder": record.get("builder", "offline"), "preset": get_preset(info.get("preset")).name}


def _same_content(record: dict, session: Session) -> bool:
    if record.get("n_turns") not in (None, len(session.turns)):  # every hash covers every turn
        return False
    stored = record["content_hash"]
    if stored == session_hash(session):
        return True
    # Hashes stored before identities included the preset's layers.
    layers = get_preset((record.get("info") or {}).get("preset")).layers
    return bool(layers) and stored == session_hash(session, layers)


def holds(record: dict | None, session: Session) -> bool:
    """Whether the stored ``record`` holds exactly ``session``'s content (id, date, turns),
    whichever builder and layers built it: how a two-store write learns, after a crash,
    whether its graph commit happened."""
    if record is None:
        return False
    layers = get_preset((record.get("info") or {}).get("preset")).layers
    variants = {session_hash(session, lay, llm_built=llm) for lay in ((), layers) for llm in (False, True)}
    return record["content_hash"] in variants


def plan_write(
    namespace: str,
    record: dict | None,
    stored_digests: list[str],
    session: Session,
    identity: dict[str, str],
    *,
    replace: bool = False,
    rebuild: bool = False,
) -> WritePlan:
    """The plan for ``session`` given its stored ``record`` (None: not stored); see the module doc."""
    if record is None:
        return WritePlan("new")
    old_identity = stored_identity(record)
    rebuild_asked = replace or rebuild
    if _same_content(record, session):
        if old_identity == identity:
            return WritePlan("unchanged")
        if rebuild_asked:
            return WritePlan("replace")
        if old_identity["preset"] == identity["preset"]:
            # The builder alone differs: an LLM ingest wants an LLM-built session (and retries one
            # that fell back); an offline ingest keeps an LLM build as it is.
            return WritePlan("replace" if identity["builder"] == "llm" else "unchanged")
        return WritePlan(
            "unchanged",
            note=(
                f"stored as built by {old_identity['builder']} with preset {old_identity['preset']}; "
                "pass replace=True (CLI: --replace, --llm or --preset) to rebuild it"
            ),
        )
    n = len(stored_digests)
    digests = [turn_digest(t) for t in session.turns]
    same_date = record["date"] == session.date.isoformat()
    same_metadata = (record.get("metadata") or {}) == session.metadata
    if 0 < n < len(digests) and same_date and same_metadata and digests[:n] == stored_digests:
        if get_preset(identity["preset"]).layers or (rebuild_asked and old_identity != identity):
            return WritePlan("replace")  # generated memory is per session: build it whole
        return WritePlan("append", n_stored=n)
    if replace:
        return WritePlan("replace")
    raise SessionConflictError(
        f"session {session.id!r} in namespace {namespace!r} differs from the stored one "
        f"({record['n_turns']} turns stored, {len(session.turns)} given, not an append of new turns): "
        "pass replace=True (CLI: memgraph ingest --replace) to replace it"
    )
