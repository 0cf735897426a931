"""Turn R@10 and Hit@1 of one retriever under several option settings, on chosen LoCoMo
conversations: how ``oneshot``'s constants were chosen on the tune conversations
(BENCHMARKS.md, "The default ranking").

    python docs/bench-locomo/sweep.py --data-dir MEM --conversations conv-26,conv-30,conv-41 \\
        --retriever oneshot '{}' '{"asking": 0.8}' '{"asking": 0.7}' [--out DIR]

``MEM`` is a memory ``memgraph bench locomo`` (or ``memgraph ingest FILE --format locomo``)
built; each argument is a JSON object of retriever options (``{}``: the defaults). Categories
1-4, questions with resolvable gold turns; the same rankings as ``bench locomo`` (the
registry's ``retrieve``: the retriever, then the finishing step), without its latency protocol.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict

import numpy as np

from memgraph_agents.bench.metrics import first_hit, turn_recall_at_k
from memgraph_agents.bench.options import namespace_for
from memgraph_agents.config import Settings
from memgraph_agents.loaders.locomo import iter_locomo_questions, load_locomo
from memgraph_agents.model.evidence import flatten_turns
from memgraph_agents.registry import retrieve
from memgraph_agents.runtime import get_store


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("settings", nargs="+", help="JSON objects of retriever options")
    ap.add_argument("--data-dir", required=True)
    ap.add_argument("--data", default="../shared/data/locomo/locomo_dev.json")
    ap.add_argument("--conversations", required=True, help="comma-separated sample ids")
    ap.add_argument("--retriever", default="oneshot")
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument(
        "--out", help="directory: one questions file per setting (N.jsonl, N = its position), for paired.py"
    )
    args = ap.parse_args()
    wanted = set(args.conversations.split(","))
    settings = Settings(data_dir=args.data_dir, llm="none")
    samples = [s for s in load_locomo(args.data) if s.sample_id in wanted]
    questions = [(s, q) for s, q in iter_locomo_questions(samples, (1, 2, 3, 4)) if q.evidence]
    stores = {s.sample_id: get_store(settings, namespace_for(s.sample_id), create=False) for s in samples}
    print(f"settings | questions | R@{args.k} | Hit@1 | " + " | ".join(f"cat {c}" for c in (1, 2, 3, 4)))
    for n, spec in enumerate(args.settings):
        params = json.loads(spec)
        recall, hit, by_cat, rows = [], [], defaultdict(list), []
        for sample, q in questions:
            ranked = flatten_turns(retrieve(args.retriever, q.question, stores[sample.sample_id], k=args.k, **params))
            recall.append(turn_recall_at_k(ranked, q.evidence, args.k))
            hit.append(first_hit(ranked, q.evidence))
            by_cat[q.category].append(recall[-1])
            scores = {f"turn_recall@{args.k}": recall[-1], "hit_any@1": hit[-1]}
            rows.append({"retriever": args.retriever, "qid": q.id, "category": q.category, "scores": scores})
        if args.out:
            with open(f"{args.out}/{n}.jsonl", "w", encoding="utf-8") as f:
                f.writelines(json.dumps(r) + "\n" for r in rows)
        cats = " | ".join(f"{np.mean(by_cat[c]):.3f}" if by_cat[c] else "-" for c in (1, 2, 3, 4))
        print(f"{spec} | {len(questions)} | {np.mean(recall):.4f} | {np.mean(hit):.4f} | {cats}", flush=True)


if __name__ == "__main__":
    main()
