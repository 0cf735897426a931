"""Namespace names and where each namespace lives on disk.

A namespace is a hard tenant boundary: its own SQLite file and its own Chroma collection.
Names are validated strictly because they become paths and collection names.
"""

from __future__ import annotations

import re
from pathlib import Path

from memgraph_agents.errors import NamespaceError

_NAME = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9_-]{0,62}[A-Za-z0-9])?$")


def validate_namespace(name: str) -> str:
    if not isinstance(name, str) or not _NAME.match(name):
        raise NamespaceError(
            f"invalid namespace {name!r}: use 1-64 letters, digits, '-' or '_', "
            "starting and ending with a letter or digit"
        )
    return name


def namespace_for_id(conversation_id: str, suffix: str = "") -> str:
    """A valid namespace named after a conversation id (``conv-26``, ``conv-26-premem`` with a
    suffix): odd characters become ``-``, the name is cut to fit 64 characters."""
    base = re.sub(r"[^A-Za-z0-9_-]+", "-", conversation_id).strip("-_")
    room = 64 - (len(suffix) + 1 if suffix else 0)
    base = base[:room].rstrip("-_") or "default"
    return f"{base}-{suffix}" if suffix else base


def namespace_dir(data_dir: Path, name: str) -> Path:
    return Path(data_dir) / "namespaces" / validate_namespace(name)


def collection_name(data_dir: Path, name: str) -> str:
    """Chroma collection of a new namespace: scoped by the data dir's store id (``storage.identity``)."""
    from memgraph_agents.storage.identity import scoped_collection_name, store_id

    return scoped_collection_name(store_id(data_dir), validate_namespace(name))


def list_namespaces(data_dir: Path) -> list[str]:
    root = Path(data_dir) / "namespaces"
    if not root.is_dir():
        return []
    return sorted(p.name for p in root.iterdir() if p.is_dir() and _NAME.match(p.name) and (p / "graph.sqlite").exists())
