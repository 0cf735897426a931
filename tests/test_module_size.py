"""Small rooms: no package module over 400 lines (split by job, one module each, instead of
growing one). The storage modules below are the last over it and may only shrink."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE_DIRS = [ROOT / "memgraph_agents", ROOT / "graphs", ROOT / "integrations"]
MAX_LINES = 400
# Not split yet (crash-safety code: split with its tests, not in passing); their size today is a ceiling.
STILL_OVER = {"memgraph_agents/storage/memory_store.py": 634, "memgraph_agents/storage/graph_db.py": 574}


def module_lines() -> dict[str, int]:
    return {
        str(path.relative_to(ROOT)): len(path.read_text(encoding="utf-8").splitlines())
        for folder in PACKAGE_DIRS
        if folder.is_dir()
        for path in sorted(folder.rglob("*.py"))
    }


def test_no_package_module_over_400_lines():
    sizes = module_lines()
    assert len(sizes) > 100  # the walk found the package
    over = {p: n for p, n in sizes.items() if n > MAX_LINES and n > STILL_OVER.get(p, 0)}
    assert not over, f"modules over {MAX_LINES} lines (split one job into a new module): {over}"


def test_the_exceptions_are_still_needed():
    sizes = module_lines()
    done = [p for p, n in STILL_OVER.items() if sizes.get(p, 0) <= MAX_LINES]
    assert not done, f"now within {MAX_LINES} lines: remove from STILL_OVER: {done}"
