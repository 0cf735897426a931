"""Prompt files (``*.txt``) with ``{named}`` placeholders, shipped as package data.

The library's prompts live here; ``package=`` reads another package's prompt files (the
benchmark's LoCoMo-style prompts live in ``memgraph_agents.bench.prompts``).
"""

from __future__ import annotations

from functools import cache
from importlib import resources


@cache
def load_prompt(name: str, package: str | None = None) -> str:
    """Return the text of ``<package>/<name>.txt`` (``name`` may be ``"package:name"``); raise
    ``KeyError`` naming it when missing."""
    if package is None and ":" in name:
        package, name = name.rsplit(":", 1)
    pkg = package or __name__
    path = resources.files(pkg).joinpath(f"{name}.txt")
    if not path.is_file():
        raise KeyError(f"no prompt file named {name!r} in {pkg}")
    return path.read_text(encoding="utf-8")


def render_prompt(name: str, package: str | None = None, **values: object) -> str:
    """Fill a prompt's ``{placeholders}``; a missing value raises ``KeyError`` naming it."""
    return load_prompt(name, package).format(**values)
