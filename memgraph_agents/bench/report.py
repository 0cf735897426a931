"""Render benchmark results: ``results.md`` (tables), ``recall.png`` (recall@k curves), and the
rows of the terminal tables. Everything here reads the ``results.json`` document only."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from memgraph_agents.bench.report_markdown import write_markdown
from memgraph_agents.bench.report_tables import (
    CATEGORY_NAMES,
    CATEGORY_NOTE,
    category_rows,
    fmt,
    ingest_rows,
    overall_rows,
    qa_rows,
    seed_delta_columns,
    seed_delta_rows,
)

__all__ = [
    "CATEGORY_NAMES",
    "CATEGORY_NOTE",
    "overall_rows",
    "category_rows",
    "qa_rows",
    "ingest_rows",
    "write_results",
    "write_markdown",
    "write_recall_png",
    "fmt",
    "seed_delta_rows",
    "seed_delta_columns",
]

# --------------------------------------------------------------------------- plot


def write_recall_png(results: dict[str, Any], path: Path) -> Path:
    from memgraph_agents.extras import require

    matplotlib = require("matplotlib", "bench", "a benchmark's plot")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ks = results["ks"]
    fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharex=True)
    for ax, stem, title in ((axes[0], "turn_recall", "turn recall@k"), (axes[1], "session_recall", "session recall@k")):
        for name, r in results["retrievers"].items():
            ys = [r.get(f"{stem}@{k}") for k in ks]
            ys = [float("nan") if y is None else y for y in ys]
            ax.plot(ks, ys, marker="o", label=name)
        ax.set_title(title)
        ax.set_xlabel("k")
        ax.set_xticks(ks)
        ax.set_ylim(0, 1)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("recall")
    axes[0].legend(loc="lower right", fontsize="small")
    cats = ",".join(map(str, results["categories"]))
    fig.suptitle(
        f"LoCoMo ({len(results['conversations'])} conversations, categories {cats}, "
        f"{results['questions'] - results['skipped_questions']} questions), builder {results['builder']}"
    )
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def write_results(results: dict[str, Any], out: Path) -> dict[str, Path]:
    """``results.json``, ``results.md`` and ``recall.png`` in ``out`` (created)."""
    out.mkdir(parents=True, exist_ok=True)
    js = out / "results.json"
    js.write_text(json.dumps(results, indent=2, allow_nan=False) + "\n", encoding="utf-8")
    return {
        "json": js,
        "md": write_markdown(results, out / "results.md"),
        "png": write_recall_png(results, out / "recall.png"),
    }
