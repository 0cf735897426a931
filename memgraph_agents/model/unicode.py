"""Text that can be stored: valid Unicode, i.e. no unpaired surrogate (``"\\ud800"``, which
JSON and Python strings can carry but UTF-8, SQLite and every model tokenizer cannot)."""

from __future__ import annotations

import re

from memgraph_agents.errors import InputError

SURROGATE = re.compile(r"[\ud800-\udfff]")


def check_unicode(text: str, where: str) -> str:
    """``text`` unchanged, or an ``InputError`` naming ``where`` for an unpaired surrogate."""
    if SURROGATE.search(text):
        raise InputError(f"{where}: text holds an unpaired surrogate (not valid Unicode)")
    return text
