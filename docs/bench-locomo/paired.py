"""Turn R@10 of one retriever against another, paired by question: two ``memgraph bench locomo``
runs (before / after a change) or two retrievers of one run (BENCHMARKS.md).

    python docs/bench-locomo/paired.py BEFORE/questions.jsonl:oneshot AFTER/questions.jsonl:oneshot \
        [--tune conv-26,conv-30,conv-41]

For every category (1-4) and overall, over the questions both runs scored: the mean of
``after − before``, how many questions got better / worse, and a 95 % percentile bootstrap
interval of the mean (10,000 resamples of the questions, seeded: the same input prints the
same figures). An interval that holds 0 is a difference within noise. With ``--tune`` each
part (the tuned conversations, the others) is reported on its own too.
"""

from __future__ import annotations

import argparse
import json

import numpy as np

CATEGORIES = (1, 2, 3, 4)
RESAMPLES = 10_000


def recalls(spec: str, k: int, metric: str = "") -> dict[str, tuple[int, float]]:
    """``{qid: (category, turn R@k)}`` of one retriever in a ``questions.jsonl`` (``FILE:RETRIEVER``);
    ``metric`` names another per-question score instead (``hit_any@1``, ``ndcg@5``)."""
    path, _, name = spec.rpartition(":")
    out = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            if r["retriever"] == name and not r.get("qa") and r["category"] in CATEGORIES and r.get("scores"):
                out[r["qid"]] = (r["category"], r["scores"][metric or f"turn_recall@{k}"])
    if not out:
        raise SystemExit(f"no scored questions of {name!r} in {path}")
    return out


def line(label: str, diffs: np.ndarray, rng: np.random.Generator) -> str:
    if not len(diffs):
        return f"{label} | 0 | - | - | - | -"
    boots = diffs[rng.integers(0, len(diffs), size=(RESAMPLES, len(diffs)))].mean(axis=1)
    lo, hi = np.percentile(boots, [2.5, 97.5])
    noise = "within noise" if lo <= 0 <= hi else ("better" if lo > 0 else "worse")
    return (
        f"{label} | {len(diffs)} | {diffs.mean():+.4f} | {int((diffs > 0).sum())} / {int((diffs < 0).sum())} | "
        f"[{lo:+.4f}, {hi:+.4f}] | {noise}"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("before", help="FILE:RETRIEVER")
    ap.add_argument("after", help="FILE:RETRIEVER")
    ap.add_argument("--tune", default="", help="conversation ids a choice was tuned on (reported apart)")
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--metric", default="", help="another per-question score: hit_any@1, ndcg@5 (default turn R@k)")
    args = ap.parse_args()
    before, after = recalls(args.before, args.k, args.metric), recalls(args.after, args.k, args.metric)
    qids = sorted(set(before) & set(after))
    tune = set(filter(None, args.tune.split(",")))
    parts = [("all", qids)]
    if tune:
        parts += [
            ("tuned on", [q for q in qids if q.split(":")[0] in tune]),
            ("checked on", [q for q in qids if q.split(":")[0] not in tune]),
        ]
    label = args.metric or f"R@{args.k}"
    print(f"part | category | questions | mean after − before {label} | better / worse | 95 % interval | reading")
    for part, sel in parts:
        rng = np.random.default_rng(0)
        for c in (*CATEGORIES, None):
            chosen = [q for q in sel if c is None or before[q][0] == c]
            diffs = np.array([after[q][1] - before[q][1] for q in chosen])
            print(f"{part} | " + line("1-4" if c is None else str(c), diffs, rng))


if __name__ == "__main__":
    main()
