"""The relevance floor against questions memory cannot answer at all (BENCHMARKS.md).

    python docs/bench-locomo/offtopic.py --data-dir MEM [--retriever oneshot] [--k 10]

LoCoMo's category 5 asks about things never said, in the conversation's own words (someone
else's trip): the best match's relevance cannot tell those apart (the AUROC of ``bench
locomo``). A floor is for the other kind: a question on a topic the memory never touched. For
every namespace of ``MEM`` this asks the general-knowledge questions below (invented for this
script, on no conversation's topic) with no floor and prints the distribution of the best
relevance among the top ``k`` and, per floor, the share of those questions a floor would
answer "nothing relevant in memory".
"""

from __future__ import annotations

import argparse

import numpy as np

from memgraph_agents import Memory

OFF_TOPIC = (
    "What is the boiling point of mercury in kelvin?",
    "How many moons does Jupiter have?",
    "What is the capital of Peru?",
    "Which year did the Berlin Wall fall?",
    "How do I reset my router password?",
    "What is the square root of 1764?",
    "Which enzyme breaks down starch?",
    "What is the torque spec for a bicycle stem bolt?",
    "How does a heat pump defrost cycle work?",
    "Who designed the Eiffel Tower?",
    "What is the half-life of carbon-14?",
    "How do I convert a CSV file to Parquet?",
)
FLOORS = (0.1, 0.15, 0.2, 0.25, 0.3)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", required=True)
    ap.add_argument("--retriever", default="oneshot")
    ap.add_argument("--k", type=int, default=10)
    args = ap.parse_args()
    mem = Memory(args.data_dir, llm="none")
    best = []
    for ns in mem.namespaces():
        for q in OFF_TOPIC:
            out = mem.ask(q, namespace=ns, retriever=args.retriever, k=args.k, min_score=0)
            if out.best_relevance is not None:
                best.append(out.best_relevance)
    x = np.array(best)
    print(f"{len(x)} off-topic questions over {len(mem.namespaces())} namespaces ({args.retriever}, k = {args.k})")
    p50, p90 = np.median(x), np.percentile(x, 90)
    print(f"best relevance: min {x.min():.3f}  p50 {p50:.3f}  p90 {p90:.3f}  max {x.max():.3f}")
    for f in FLOORS:
        print(f"  floor {f:.2f}: nothing relevant for {np.mean(x < f):.1%}")


if __name__ == "__main__":
    main()
