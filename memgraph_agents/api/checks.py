"""Argument checks of ``Memory``'s verbs that are not filters, limits or settings: flags are
``bool`` (``replace="yes"`` or ``rebuild=2`` is refused, never read as true), and a list of
namespaces names each one (``None`` in it is refused, never the default namespace)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from memgraph_agents.errors import InputError


def check_flag(value: Any, name: str) -> bool:
    """``value`` if it is a ``bool``, else an ``InputError`` naming ``name``."""
    if not isinstance(value, bool):
        raise InputError(f"{name} must be True or False, got {value!r}")
    return value


def check_names(value: Any, name: str = "namespaces") -> list[str]:
    """A non-empty list of names (strings), else an ``InputError``; each is validated by the caller."""
    if isinstance(value, str) or not isinstance(value, Sequence) or not value:
        raise InputError(f"{name} must be a non-empty list of namespace names, got {value!r}")
    bad = [n for n in value if not isinstance(n, str)]
    if bad:
        raise InputError(f"{name} lists {bad[0]!r}: every entry must be a namespace name")
    return list(value)
