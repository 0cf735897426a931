"""Turn R@10 (and Hit@1, NDCG@5) of a ``memgraph bench locomo`` run on two parts of the
development split: the conversations a choice was tuned on and the others (BENCHMARKS.md).

    python docs/bench-locomo/split.py OUT/questions.jsonl --tune conv-26,conv-30,conv-41

Reads the per-question rows the bench writes (``questions.jsonl``); categories 1-4, questions
with resolvable gold turns; prints per retriever and part the overall figures and R@10 by
category.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict

import numpy as np

CATEGORIES = (1, 2, 3, 4)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("questions")
    ap.add_argument("--tune", required=True, help="conversation ids the choice was tuned on")
    ap.add_argument("--k", type=int, default=10)
    args = ap.parse_args()
    tune = set(args.tune.split(","))
    rows: dict[tuple[str, str], list[dict]] = defaultdict(list)
    with open(args.questions, encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            if r.get("qa") or r["category"] not in CATEGORIES or not r.get("scores"):
                continue
            part = "tune" if r["qid"].split(":")[0] in tune else "check"  # qid: "conv-26:q7"
            rows[(r["retriever"], part)].append(r)
    k = args.k
    print(f"retriever | part | questions | R@{k} | Hit@1 | NDCG@5 | " + " | ".join(f"cat {c}" for c in CATEGORIES))
    for (name, part), rs in sorted(rows.items()):

        def mean(key, sel=rs):
            vals = [r["scores"].get(key) for r in sel if r["scores"].get(key) is not None]
            return f"{np.mean(vals):.3f}" if vals else "-"

        cats = [mean(f"turn_recall@{k}", [r for r in rs if r["category"] == c]) for c in CATEGORIES]
        print(
            f"{name} | {part} | {len(rs)} | {mean(f'turn_recall@{k}')} | {mean('hit_any@1')} | {mean('ndcg@5')} | "
            + " | ".join(cats)
        )


if __name__ == "__main__":
    main()
