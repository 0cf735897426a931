"""Where the tests find data shared between worktrees (never committed to the repository)."""

from pathlib import Path

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
LOCOMO_DEV = SHARED / "data/locomo/locomo_dev.json"
