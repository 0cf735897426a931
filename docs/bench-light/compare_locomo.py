"""Two `memgraph bench locomo` runs side by side: turn recall@10 per retriever and the difference.

    python docs/bench-light/compare_locomo.py OUT_TORCH OUT_ONNX

Prints a Markdown table (turn R@3 / R@10 of each run, the R@10 difference, p50 latency) and
whether every retriever's R@10 is within 0.005 of the first run's.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def main(a: Path, b: Path) -> None:
    ra = json.loads((a / "results.json").read_text())["retrievers"]
    rb = json.loads((b / "results.json").read_text())["retrievers"]
    print("| retriever | R@3 A | R@3 B | R@10 A | R@10 B | R@10 B − A | p50 ms A / B |")
    print("|---|--:|--:|--:|--:|--:|--:|")
    worst = 0.0
    for name in ra:
        if name not in rb or "turn_recall@10" not in ra[name] or "turn_recall@10" not in rb[name]:
            continue
        x, y = ra[name], rb[name]
        d = y["turn_recall@10"] - x["turn_recall@10"]
        worst = min(worst, d)
        print(
            f"| {name} | {x['turn_recall@3']:.3f} | {y['turn_recall@3']:.3f} | {x['turn_recall@10']:.3f} | "
            f"{y['turn_recall@10']:.3f} | {d:+.4f} | {x['latency_ms_p50']:.0f} / {y['latency_ms_p50']:.0f} |"
        )
    print(f"\nlargest drop of B against A: {worst:+.4f} ({'within' if worst >= -0.005 else 'NOT within'} 0.005)")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
