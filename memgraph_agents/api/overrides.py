"""Validated per-run options: settings overrides, ``k``, the retriever name, the relevance
floor.

Everything a caller passes per call goes through here, so a bad value is one
``ConfigError`` naming the option (never a silently accepted ``k=-5``).
"""

from __future__ import annotations

from typing import Any

from memgraph_agents.config import Settings
from memgraph_agents.errors import ConfigError
from memgraph_agents.registry import is_retriever, retriever_names


def settings_with(base: Settings | None, **overrides: Any) -> Settings:
    """``base`` (default: the environment) with ``overrides``, validated; the retriever too."""
    settings = (base or Settings.load()).override(**overrides)
    check_retriever(settings.retriever)
    return settings


def check_retriever(name: Any) -> str:
    """``name`` when it is a retriever or a preset with one; else a ``ConfigError`` listing them
    (nothing is imported: the registry is a table)."""

    if not isinstance(name, str) or not name.strip():
        raise ConfigError(f"invalid retriever {name!r}: choose from {', '.join(retriever_names())}")
    if not is_retriever(name):
        raise ConfigError(f"unknown retriever {name!r}: choose from {', '.join(retriever_names())}")
    return name


def check_k(k: Any, default: int) -> int:
    """``k`` (``None``: ``default``) as a positive integer, else a ``ConfigError``."""
    if k is None:
        return default
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= 200:
        raise ConfigError(f"invalid k={k!r}: must be an integer from 1 to 200")
    return k


def check_min_score(value: Any) -> float | None:
    """A relevance floor in [0, 1] (``None``: the settings' default); ``ConfigError`` otherwise."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= float(value) <= 1.0:
        raise ConfigError(f"min_score must be a number in [0, 1], got {value!r}")
    return float(value)
