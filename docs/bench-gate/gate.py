"""The relevance gate against questions memory cannot answer (BENCHMARKS.md, "The relevance gate").

    python docs/bench-gate/gate.py --data-dir MEM --answerable RUN/questions.jsonl [--own] [--k 10]

``MEM`` is a memory (e.g. the one ``memgraph bench locomo`` built); ``RUN/questions.jsonl`` the
per-question file of a ``memgraph bench locomo`` run over it (the answerable side: categories
1-4, their best relevance among the first ``k`` items and their turn recall@k). The off-topic
side is generated here from ``docs/bench-gate/offtopic.json`` (written for this study; it names
no benchmark content): for every namespace of ``MEM`` the speaker templates filled with its
speakers (facts nobody states in such a chat), the absent-person templates filled with invented
names its turns never mention, and general-knowledge questions, rotated so that namespaces get
different ones. ``--own`` adds the same recipe over chats invented for this project (the demo
chat and the knowledge-update chats of ``tests/``), stored in a temporary memory.

Every off-topic question is asked as a user asks it, with the gate off (``min_score=0``):
``Memory.ask(...).best_relevance``. Printed: the AUROC of the best relevance (answerable
against off-topic), and per threshold the share of off-topic questions refused, the share of
answerable questions left empty, and the answerable turn recall@k lost (a refused question
loses all of its recall), next to a per-item floor at the same value for comparison.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

import numpy as np

from memgraph_agents import Memory
from memgraph_agents.api import ops
from memgraph_agents.bench.metrics import auroc
from memgraph_agents.retrieval.seeds import speaker_patterns

HERE = Path(__file__).resolve().parent
THRESHOLDS = (0.15, 0.2, 0.22, 0.25, 0.28, 0.3, 0.35, 0.4)
TUNED = ("conv-26", "conv-30", "conv-41")  # the conversations the default ranking was tuned on


def offtopic_questions(recipe: dict, speakers: list[str], texts: list[str], offset: int) -> list[str]:
    """The recipe's questions for one conversation (``texts``: its turns, to keep absent people absent)."""
    n = recipe["per_conversation"]
    tpl, absent, general = recipe["speaker"], recipe["absent"], recipe["general"]
    said = " ".join(texts).lower()
    people = [p for p in recipe["people"] if not any(w.lower() in said for w in p.split())]
    out = []
    for i in range(n["speaker"] * max(1, min(2, len(speakers)))):
        out.append(tpl[(offset + i) % len(tpl)].format(speaker=speakers[i % len(speakers)]))
    for i in range(n["absent"]):
        out.append(absent[(offset + i) % len(absent)].format(person=people[(offset + i) % len(people)]))
    for i in range(n["general"]):
        out.append(general[(offset * n["general"] + i) % len(general)])
    return out


def best_relevance(mem: Memory, questions: dict[str, list[str]], k: int) -> list[tuple[str, float]]:
    """``[(namespace, best relevance)]`` of every question, asked with the gate off."""
    best = []
    for ns, qs in questions.items():
        for q in qs:
            out = mem.ask(q, namespace=ns, k=k, min_score=0)
            best.append((ns, out.best_relevance if out.best_relevance is not None else 0.0))
    return best


def questions_of(mem: Memory, recipe: dict, start: int = 0) -> dict[str, list[str]]:
    out = {}
    for n, ns in enumerate(mem.namespaces()):
        snap = ops.open_store(mem.settings, ns).snapshot()
        speakers = sorted(speaker_patterns(snap))
        texts = [snap.text[i] for i in snap.indices_of("turn")]
        out[ns] = offtopic_questions(recipe, speakers, texts, start + n)
    return out


def own_memory(recipe: dict, start: int) -> tuple[Memory, dict[str, list[str]]]:
    """The demo chat and the knowledge-update chats (invented for this project), one namespace each."""
    sys.path.insert(0, str(HERE.parents[1]))
    from tests.knowledge_updates import CASES, conversation

    mem = Memory(tempfile.mkdtemp(prefix="gate-own-"), llm="none")
    mem.add(HERE.parents[1] / "examples" / "conversation.json", namespace="demo")
    for i in range(min(12, len(CASES))):
        mem.add(conversation(i), namespace=f"updates-{i}")
    return mem, questions_of(mem, recipe, start)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", required=True)
    ap.add_argument("--answerable", required=True, type=Path, help="questions.jsonl of a bench locomo run")
    ap.add_argument("--retriever", default="oneshot", help="the run's retriever to read (default oneshot)")
    ap.add_argument("--own", action="store_true", help="add the project's own invented chats")
    ap.add_argument("--k", type=int, default=10)
    args = ap.parse_args()
    recipe = json.loads((HERE / "offtopic.json").read_text())
    mem = Memory(args.data_dir, llm="none")
    asked = questions_of(mem, recipe)
    off = best_relevance(mem, asked, args.k)
    n_dev = len(off)
    if args.own:
        own, own_asked = own_memory(recipe, len(asked))
        off += best_relevance(own, own_asked, args.k)
    rows = [json.loads(line) for line in args.answerable.read_text().splitlines() if line.strip()]
    ans = [r for r in rows if r["retriever"] == args.retriever and r["category"] in (1, 2, 3, 4) and r["gold"]]
    top = np.array([max(r["item_relevance"][: args.k], default=0.0) for r in ans])
    recall = np.array([r["scores"][f"turn_recall@{args.k}"] for r in ans])
    per_item = [(np.array(r["item_relevance"][: args.k]), r) for r in ans]
    x = np.array([b for _, b in off])
    held = np.array([b for ns, b in off if ns not in TUNED])
    top_held = np.array([t for t, r in zip(top, ans) if not r["qid"].startswith(TUNED)])
    print(
        f"off-topic: {len(x)} questions ({n_dev} over {len(asked)} namespaces of {args.data_dir}, {len(x) - n_dev} own)"
    )
    print(f"answerable: {len(ans)} questions of {args.answerable} ({args.retriever}), R@{args.k} {recall.mean():.4f}")
    print(f"best relevance, off-topic: p50 {np.median(x):.3f} p90 {np.percentile(x, 90):.3f} max {x.max():.3f}")
    print(f"best relevance, answerable: p10 {np.percentile(top, 10):.3f} p50 {np.median(top):.3f}")
    print(f"AUROC (answerable vs off-topic): {auroc(top.tolist(), x.tolist()):.3f}")
    print(f"held-out (not {', '.join(TUNED)}): {len(held)} off-topic, {len(top_held)} answerable")
    print(
        "| threshold | off-topic refused | answerable empty | R@k lost (gate) | R@k lost (per-item floor) "
        "| held-out refused | held-out empty |"
    )
    print("|--:|--:|--:|--:|--:|--:|--:|")
    for t in THRESHOLDS:
        lost_gate = float((recall * (top < t)).sum() / len(ans))
        lost_floor = float(np.mean([_floored_loss(rel, r, t, args.k) for rel, r in per_item]))
        print(
            f"| {t:.2f} | {np.mean(x < t):.1%} | {np.mean(top < t):.2%} | {lost_gate:.4f} | {lost_floor:.4f} "
            f"| {np.mean(held < t):.1%} | {np.mean(top_held < t):.2%} |"
        )


def _floored_loss(rel: np.ndarray, row: dict, t: float, k: int) -> float:
    """Turn recall@k lost when items below ``t`` are dropped (each item's turns, first occurrence)."""
    gold = set(row["gold"])
    kept = [turn for turn, r in zip(row["turns"][:k], rel) if r >= t] if len(row["turns"]) == len(rel) else None
    if kept is None:  # events spanning several turns: count by item
        return 0.0
    return row["scores"][f"turn_recall@{k}"] - len(gold & set(kept)) / len(gold)


if __name__ == "__main__":
    main()
