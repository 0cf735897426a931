"""Prompt files (``*.txt``) with ``{named}`` placeholders, shipped as package data."""

from __future__ import annotations

from functools import cache
from importlib import resources


@cache
def load_prompt(name: str) -> str:
    """Return the text of ``prompts/<name>.txt``; raise ``KeyError`` naming it when missing."""
    path = resources.files(__name__).joinpath(f"{name}.txt")
    if not path.is_file():
        raise KeyError(f"no prompt file named {name!r} in memgraph_agents.prompts")
    return path.read_text(encoding="utf-8")


def render_prompt(name: str, **values: object) -> str:
    """Fill a prompt's ``{placeholders}``; a missing value raises ``KeyError`` naming it."""
    return load_prompt(name).format(**values)
