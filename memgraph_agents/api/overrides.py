"""Validated per-run options: settings overrides, ``k``, the retriever name, the relevance
floor.

Everything a caller passes per call goes through here, so a bad value is one
``ConfigError`` naming the option (never a silently accepted ``k=-5``).
"""

from __future__ import annotations

from typing import Any

from memgraph_agents.config import Settings
from memgraph_agents.errors import ConfigError
from memgraph_agents.presets import DEFAULT_PRESET, get_preset


def settings_with(base: Settings | None, **overrides: Any) -> Settings:
    """``base`` (default: the environment) with ``overrides``, validated; the retriever too."""
    settings = (base or Settings.load()).override(**overrides)
    check_retriever(settings.retriever)
    return settings


def check_retriever(name: Any) -> str:
    """``name`` when it is a registered retriever or a preset; else a ``ConfigError`` listing them."""
    from memgraph_agents.retrievers import get_retriever, retriever_names

    if not isinstance(name, str) or not name.strip():
        raise ConfigError(f"invalid retriever {name!r}: choose from {', '.join(retriever_names())}")
    try:
        get_retriever(name)
    except ValueError:
        raise ConfigError(f"unknown retriever {name!r}: choose from {', '.join(retriever_names())}") from None
    return name


def check_k(k: Any, default: int) -> int:
    """``k`` (``None``: ``default``) as a positive integer, else a ``ConfigError``."""
    if k is None:
        return default
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= 200:
        raise ConfigError(f"invalid k={k!r}: must be an integer from 1 to 200")
    return k


def default_retriever(settings: Settings) -> str:
    """The retriever a run uses when none is named: the preset's, else ``settings.retriever``."""
    if settings.preset != DEFAULT_PRESET:
        return get_preset(settings.preset).name  # a preset name is a retriever name (its retriever)
    return settings.retriever


def is_navigator(name: str) -> bool:
    """Whether ``name`` runs the navigator (itself, or a preset whose retriever it is)."""
    if name == "navigator":
        return True
    try:
        return name != DEFAULT_PRESET and get_preset(name).retriever == "navigator"
    except ValueError:
        return False


def check_min_score(value: Any) -> float | None:
    """A relevance floor in [0, 1] (``None``: the settings' default); ``InputError`` otherwise."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= float(value) <= 1.0:
        raise ConfigError(f"min_score must be a number in [0, 1], got {value!r}")
    return float(value)
