"""docs/api.md is complete against the code: every public method of ``Memory`` has a row in its
table, each row's parameters are the method's (names, order, keyword-only marker, defaults),
and every verb's async twin is named in the text."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

from memgraph_agents import Memory

DOC = Path(__file__).resolve().parents[1] / "docs" / "api.md"


def _split(params: str) -> list[str]:
    """Top-level commas only (a default may hold brackets)."""
    out, depth, cur = [], 0, ""
    for ch in params:
        depth += ch in "([{"
        depth -= ch in ")]}"
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    return [p for p in [*out, cur.strip()] if p]


def documented() -> dict[str, list[str]]:
    """``name -> the parameters as written`` for every ``name(...)`` in the table's first column."""
    rows = {}
    for line in DOC.read_text(encoding="utf-8").splitlines():
        if not line.startswith("| `"):
            continue
        first = line.split(" | ")[0].removeprefix("| ")
        for name, params in re.findall(r"`(\w+)\((.*?)\)`", first):
            rows[name] = _split(params)
    return rows


def in_code(fn) -> list[str]:
    """The parameters as the docs write them: ``*`` before keyword-only ones, ``name=default``."""
    out: list[str] = []
    star = False
    for p in inspect.signature(fn).parameters.values():
        if p.name == "self":
            continue
        if p.kind is p.VAR_KEYWORD:
            out.append(f"**{p.name}")
            continue
        if p.kind is p.KEYWORD_ONLY and not star:
            out.append("*")
            star = True
        out.append(p.name if p.default is p.empty else f"{p.name}={p.default!r}".replace("'", '"'))
    return out


def public_methods() -> list[str]:
    names = [n for n in dir(Memory) if not n.startswith("_") and callable(getattr(Memory, n))]
    twins = {n for n in names if n.startswith("a") and n[1:] in names}
    return sorted(n for n in names if n not in twins)


def test_every_public_method_is_documented_with_its_parameters():
    rows = documented()
    rows["Memory"] = rows.pop("Memory")  # the constructor's row
    missing = [n for n in public_methods() if n not in rows]
    assert not missing, f"docs/api.md has no row for {missing}"
    for name in public_methods():
        assert rows[name] == in_code(getattr(Memory, name)), name
    assert rows["Memory"] == in_code(Memory.__init__)
    for needed in ("when=None", 'speaker="user"', "config=None"):  # the ones the docs once left out
        assert needed in rows["add"] + rows["search"], needed


def test_every_async_twin_is_named():
    text = DOC.read_text(encoding="utf-8")
    for name in public_methods():
        twin = "a" + name
        if hasattr(Memory, twin):
            assert f"`{twin}`" in text or name == "stream", twin
    assert "`astream(" in text


def test_the_checker_sees_a_wrong_row():
    """A row that drifted from the code fails: the comparison is not vacuous."""
    assert in_code(Memory.search) != [p for p in documented()["search"] if p != "config=None"]
    assert _split('a, b=("x", 1), *, c=None') == ["a", 'b=("x", 1)', "*", "c=None"]
