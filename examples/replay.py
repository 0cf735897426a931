"""Replay a multi-session conversation into memory, then ask questions with every retriever
side by side.

    python examples/replay.py                                   # the shipped example, offline
    python examples/replay.py --retrievers ppr,navigator -k 3
    python examples/replay.py --conversation my_chat.json --questions my_questions.json

Each question gets one row per retriever: its top-k turn ids (✓ marks a turn of the
question's gold evidence, when the questions file has an ``evidence`` list), recall@k and
latency. A summary table compares the retrievers at the end. Memory goes to a temporary
directory unless ``--data-dir`` is given (re-running on the same directory adds nothing).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description="Ingest a conversation and compare retrievers on questions.")
    p.add_argument("--conversation", type=Path, help="conversation file (default: the shipped example)")
    p.add_argument("--questions", type=Path, help="questions JSON: [{question, answer?, evidence?: [turn ids]}]")
    p.add_argument("--data-dir", type=Path, help="memory location (default: a temporary directory)")
    p.add_argument("--namespace", default="replay")
    p.add_argument("--embeddings", help="embedding model: 'minilm' (default), 'minilm-torch', 'hash' (tests only)…")
    p.add_argument("--retrievers", help="comma-separated (default: every registered retriever)")
    p.add_argument("-k", "--top-k", type=int, help="evidence items (default: MEMGRAPH_TOP_K, 10)")
    return p.parse_args(argv)


def main(argv: list[str] | None = None, *, out=None) -> dict[str, dict[str, float]]:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
    args = parse_args(argv)
    from importlib import resources

    from rich.console import Console
    from rich.table import Table

    from memgraph_agents import Memory
    from memgraph_agents.bench.metrics import turn_recall_at_k
    from memgraph_agents.loaders import load_conversations
    from memgraph_agents.model.evidence import flatten_turns
    from memgraph_agents.registry import RETRIEVERS

    console = Console(file=out, highlight=False, width=160 if out is not None or not sys.stdout.isatty() else None)
    examples = resources.files("memgraph_agents.examples")
    with resources.as_file(args.conversation or examples.joinpath("conversation.json")) as path:
        conversation = load_conversations(path)[0]
    with resources.as_file(args.questions or examples.joinpath("questions.json")) as path:
        questions = json.loads(Path(path).read_text(encoding="utf-8"))
    names = [n.strip() for n in args.retrievers.split(",")] if args.retrievers else list(RETRIEVERS)
    for n in names:
        if n not in RETRIEVERS:
            raise SystemExit(f"unknown retriever {n!r}: choose from {', '.join(RETRIEVERS)}")

    tmp = None
    data_dir = args.data_dir
    if data_dir is None:
        tmp = tempfile.TemporaryDirectory(prefix="memgraph-replay-")
        data_dir = Path(tmp.name)
    memory = Memory(data_dir, namespace=args.namespace, **({"embeddings": args.embeddings} if args.embeddings else {}))
    args.top_k = args.top_k or memory.settings.top_k  # every door's default k

    console.print(
        f"[bold]replay[/bold] {conversation.id}: {len(conversation.sessions)} sessions, "
        f"{sum(len(s.turns) for s in conversation.sessions)} turns → {data_dir} (namespace {args.namespace})"
    )
    t0 = time.perf_counter()
    report = memory.add(conversation, progress=lambda sid, i, n: console.print(f"  ingested {sid} ({i}/{n})"))
    console.print(
        f"  {report.sessions_added + report.sessions_replaced} new, {report.sessions_unchanged} unchanged "
        f"sessions in {time.perf_counter() - t0:.1f} s"
    )

    totals: dict[str, dict[str, float]] = {n: {"recall": 0.0, "ms": 0.0, "scored": 0} for n in names}
    for q in questions:
        gold = set(q.get("evidence") or [])
        table = Table(
            title=f"{q.get('id', '')} {q['question']}",
            title_justify="left",
            caption=f"expected: {q['answer']}" if q.get("answer") else None,
            caption_justify="left",
        )
        table.add_column("retriever")
        table.add_column(f"top-{args.top_k} turns (✓ = gold evidence)")
        table.add_column("recall", justify="right")
        table.add_column("ms", justify="right")
        table.add_column("best evidence")
        for name in names:
            t1 = time.perf_counter()
            evidence = memory.search(q["question"], k=args.top_k, retriever=name)
            ms = 1000 * (time.perf_counter() - t1)
            turns = flatten_turns(evidence, args.top_k)
            marked = " ".join(f"{t}✓" if t in gold else t for t in turns)
            recall = turn_recall_at_k(turns, gold, args.top_k)  # nan without gold
            best = " ".join(evidence[0].text.split())[:70] if evidence else ""
            table.add_row(name, marked, "—" if not gold else f"{recall:.2f}", f"{ms:.0f}", best)
            totals[name]["ms"] += ms
            if gold:
                totals[name]["recall"] += recall
                totals[name]["scored"] += 1
        console.print(table)

    summary = Table(title=f"summary over {len(questions)} questions (k = {args.top_k})", title_justify="left")
    for col in ("retriever", f"mean recall@{args.top_k}", "mean ms"):
        summary.add_column(col, justify="left" if col == "retriever" else "right")
    result: dict[str, dict[str, float]] = {}
    for name in names:
        t = totals[name]
        mean_recall = t["recall"] / t["scored"] if t["scored"] else float("nan")
        result[name] = {"recall": mean_recall, "ms": t["ms"] / max(1, len(questions))}
        summary.add_row(name, f"{mean_recall:.2f}", f"{result[name]['ms']:.0f}")
    console.print(summary)
    if tmp is not None:
        from memgraph_agents.runtime import forget_store

        forget_store(memory.settings, args.namespace)
        tmp.cleanup()
    return result


if __name__ == "__main__":
    main()
