"""Small rooms: no package module over 400 lines (split by job, one module each, instead of
growing one). No exception."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE_DIRS = [ROOT / "memgraph_agents", ROOT / "graphs", ROOT / "integrations"]
MAX_LINES = 400


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
    over = {p: n for p, n in sizes.items() if n > MAX_LINES}
    assert not over, f"modules over {MAX_LINES} lines (split one job into a new module): {over}"
