"""``memgraph bench query``: its arguments and its command (``bench.query_cost``)."""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from memgraph_agents.config import Settings


def add_query_parser(bsub) -> None:
    s = bsub.add_parser(
        "query",
        help="the CPU of a default query vs an InMemoryStore search with the same model",
        description="Ask every question of a LoCoMo file (categories 1-4) of the memory in the data dir "
        "(ingested first when missing) and of a LangGraph InMemoryStore holding the same turns, "
        "indexed with the same embedding model, alternating; report the median CPU and wall per "
        "query of each, their ratios (goal: CPU at most 2x) and each side's turn recall@k. "
        "Writes OUT/query.json.",
    )
    s.add_argument("--data", type=Path, help="LoCoMo JSON file (required)")
    s.add_argument("--out", type=Path, help="output directory (required): query.json")
    s.add_argument("--conversations", help="comma-separated sample ids (default: all in the file)")
    s.add_argument("--retriever", help="memgraph's retriever (default: the settings' default)")
    s.add_argument("--k", type=int, default=10, help="items per query, and the recall's k (default 10)")
    s.add_argument("--max-questions", type=int, help="questions per conversation (default: all)")
    s.add_argument("--data-dir", type=Path, default=argparse.SUPPRESS, help="memory location (as the global option)")
    s.add_argument(
        "--embeddings", default=argparse.SUPPRESS, help="the model of both sides, as the global option (default minilm)"
    )


def cmd_bench_query(args: argparse.Namespace, settings: Settings) -> int:
    from memgraph_agents.bench.query_cost import run_query_bench
    from memgraph_agents.cli.output import console

    if args.data is None or args.out is None:
        raise ValueError("usage: memgraph bench query --data FILE --out DIR [--conversations IDS] [--max-questions N]")
    if args.k < 1 or (args.max_questions is not None and args.max_questions < 1):
        raise ValueError("--k and --max-questions must be at least 1")
    convs = [c.strip() for c in args.conversations.split(",") if c.strip()] if args.conversations else None
    typed = shlex.join(["memgraph", *sys.argv[1:]]) if Path(sys.argv[0]).name == "memgraph" else None
    doc = run_query_bench(
        args.data,
        settings,
        args.out,
        conversations=convs,
        retriever=args.retriever,
        k=args.k,
        max_questions=args.max_questions,
        command=typed,
        progress=lambda line: console.print(line, markup=False),
    )
    console.print(
        f"{doc['questions']} questions, {doc['retriever']} (median per query): memgraph {doc['memgraph_cpu_ms']:.1f} ms "
        f"CPU, {doc['memgraph_wall_ms']:.1f} ms wall, recall@{doc['k']} {doc['memgraph_recall_at_k']:.3f}; "
        f"InMemoryStore {doc['plain_cpu_ms']:.1f} ms CPU, {doc['plain_wall_ms']:.1f} ms wall, recall@{doc['k']} "
        f"{doc['plain_recall_at_k']:.3f}; CPU x{doc['cpu_ratio']:.2f} (goal x{doc['goal_cpu_ratio']}), wall "
        f"x{doc['wall_ratio']:.2f}; the navigator graph with trivial nodes {doc['bare_graph_cpu_ms']:.1f} ms CPU "
        f"(x{doc['bare_graph_to_plain_cpu']:.2f} the InMemoryStore search) (load average {doc['load_average_1m']})",
        markup=False,
    )
    console.print(f"wrote {args.out / 'query.json'}", markup=False)
    return 0
