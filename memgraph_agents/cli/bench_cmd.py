"""``memgraph bench locomo``: ingest LoCoMo, run every question through each retriever, score.

    memgraph bench locomo --data FILE [--conversations ID,...] [--builder offline|llm]
        [--retrievers dense,bm25,...] [--k 3,5,10] [--categories 1,2,3,4] [--data-dir DIR]
        [--qa] [--llm SPEC] --out DIR

Writes ``OUT/results.json``, ``OUT/results.md``, ``OUT/recall.png`` and
``OUT/questions.jsonl`` (one row per question and retriever).

``memgraph bench scale``: retrieval latency and memory on synthetic graphs
(``memgraph_agents.bench.scale``); writes ``OUT/scale.json`` and ``OUT/scale.png``. With
``--tenants N [--cache-namespaces C]``: N small namespaces in one process
(``memgraph_agents.bench.tenants``); writes ``OUT/tenants.json``. With ``--growth TURNS``: ingest
cost per session against what is stored (``memgraph_agents.bench.growth``); writes
``OUT/growth.json`` and ``OUT/growth.png``. With ``--real-stores [--nodes 1e4,1e5]``: the real
stores of each ``--tenant-backends`` backend on the same synthetic graphs
(``memgraph_agents.bench.real_stores``); writes ``OUT/real_stores.json``. ``--tenant-backends``
(``sqlite``, ``sqlite+chroma-server``, ``postgres``) takes the servers from ``MEMGRAPH_GRAPH_URL``
/ ``MEMGRAPH_CHROMA_HOST`` / ``MEMGRAPH_CHROMA_PORT``; the bench starts none.

``memgraph bench chat --turns N --out DIR``: a chat thread written turn by turn vs ingested at
once (``memgraph_agents.bench.chat``); writes ``OUT/chat.json``.
"""

from __future__ import annotations

import argparse
import json
import shlex
from pathlib import Path

from memgraph_agents.cli.bench_scale_cmd import cmd_bench_scale, typed_command
from memgraph_agents.cli.bench_write_cmd import cmd_bench_chat, cmd_bench_ingest
from memgraph_agents.config import Settings


def add_parser(sub) -> None:
    bench = sub.add_parser("bench", help="benchmarks (locomo, scale)", description="Benchmarks.")
    bsub = bench.add_subparsers(dest="bench_command", required=True, metavar="BENCHMARK")
    s = bsub.add_parser(
        "locomo",
        help="retrieval (and QA) benchmark on a LoCoMo-format file",
        description="Ingest LoCoMo conversations (one namespace per sample_id, reusing memory already in the "
        "data dir), retrieve every question with each retriever and score turn/session recall, "
        "answer recall, context size and latency; with --qa also answer and judge with an LLM.",
    )
    s.add_argument("--data", type=Path, help="LoCoMo JSON file (required)")
    s.add_argument("--out", type=Path, help="output directory (required): results.json, results.md, recall.png")
    s.add_argument("--conversations", help="comma-separated sample ids (default: all in the file)")
    s.add_argument("--builder", default="offline", help="offline (default; no LLM at ingest) or llm")
    s.add_argument("--retrievers", help="comma-separated retriever names (default: every registered retriever)")
    s.add_argument("--k", default="3,5,10", help="comma-separated k values (default 3,5,10)")
    s.add_argument(
        "--categories",
        default="1,2,3,4",
        help="question categories: 1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop, "
        "5 adversarial (default 1,2,3,4)",
    )
    s.add_argument("--qa", action="store_true", help="also answer from the top-10 evidence and judge (needs an LLM)")
    s.add_argument(
        "--llm", help="'provider:model' for --qa / --builder llm (openai:MODEL: the [openai] extra; env MEMGRAPH_LLM)"
    )
    s.add_argument(
        "--judge",
        default="strict",
        choices=["strict", "mem0"],
        help="QA judge criteria: strict (the project's own, default) or mem0 (the lenient criteria of "
        "mem0's published judge: an answer touching the same fact or period counts)",
    )
    s.add_argument("--judge-llm", help="'provider:model' of the QA judge (default: the --llm model)")
    s.add_argument(
        "--preset",
        help="build each conversation as a seed paper's system (compassmem, emem, emem-g, "
        "sgmem, memorai, premem; own namespaces when it adds layers) and, without "
        "--retrievers, score the preset's retriever",
    )
    # Also accepted after the sub-command; SUPPRESS keeps the global option's value when absent.
    s.add_argument("--data-dir", type=Path, default=argparse.SUPPRESS, help="memory location (as the global option)")
    s.add_argument(
        "--embeddings", default=argparse.SUPPRESS, help="the embedding model, as the global option (default minilm)"
    )

    s = bsub.add_parser(
        "chat",
        help="a chat thread written turn by turn vs ingested at once",
        description="Write one synthetic chat thread into a fresh data dir turn by turn (as the chat "
        "writer does) and into another at once; report both times, their ratio and the "
        "Chroma sizes. Writes OUT/chat.json.",
    )
    s.add_argument("--turns", type=int, default=100, help="turns in the thread (default 100)")
    s.add_argument("--repeat", type=int, default=3, help="runs of both ways; medians reported (default 3)")
    s.add_argument("--out", type=Path, help="output directory (required)")
    s.add_argument(
        "--embeddings", default=argparse.SUPPRESS, help="the embedding model, as the global option (default minilm)"
    )
    from memgraph_agents.cli import bench_loop_cmd

    bench_loop_cmd.add_parser(bsub)
    s = bsub.add_parser(
        "ingest",
        help="a bulk ingest vs a plain Chroma collection of the same turns",
        description="Ingest a conversation file into a fresh data dir and, in another fresh process, "
        "embed the same turns with the same model into a plain Chroma collection; the two alternate "
        "--repeat times. Reports CPU seconds, wall seconds, peak RSS and disk of each and their "
        "ratios (goals: CPU and disk at most 3x). Writes OUT/ingest.json.",
    )
    s.add_argument("--data", type=Path, help="conversation file: LoCoMo, JSON or JSONL (required)")
    s.add_argument("--conversations", help="comma-separated conversation ids (default: all in the file)")
    s.add_argument("--repeat", type=int, default=1, help="runs of both sides, alternating; medians (default 1)")
    s.add_argument("--out", type=Path, help="output directory (required): ingest.json and the data dirs")
    s.add_argument(
        "--embeddings", default=argparse.SUPPRESS, help="the model of both sides, as the global option (default minilm)"
    )

    from memgraph_agents.cli.bench_query_cmd import add_query_parser

    add_query_parser(bsub)
    s = bsub.add_parser(
        "scale",
        help="retrieval latency and memory on synthetic graphs (1e3..1e6 nodes)",
        description="Synthetic event graphs of each size; per size: build seconds, peak RSS, "
        "p50/p95 latency of ppr, dwpr, sentence_hop and the offline navigator, and the "
        "PPR core against networkx / igraph. Writes OUT/scale.json and OUT/scale.png.",
    )
    s.add_argument(
        "--nodes", default=None, help="comma-separated sizes (default 1e3,1e4,1e5,1e6; with --real-stores 1e4,1e5)"
    )
    s.add_argument("--out", type=Path, help="output directory (required)")
    s.add_argument("--queries", type=int, default=30, help="timed questions per retriever (default 30)")
    s.add_argument("--nav-queries", type=int, default=10, help="timed questions for the navigator (default 10)")
    s.add_argument("--baseline-queries", type=int, default=3, help="questions for networkx / igraph (default 3)")
    s.add_argument(
        "--baseline-max-nodes", type=float, default=1e6, help="skip networkx / igraph above this size (default 1e6)"
    )
    s.add_argument("--dim", type=int, default=384, help="vector dimension (default 384, as all-MiniLM-L6-v2)")
    s.add_argument("--seed", type=int, default=0)
    s.add_argument(
        "--tenants",
        type=int,
        default=0,
        help="instead: N small namespaces (hash embeddings) in one process: cold/warm query, RSS, "
        "disk per namespace; writes OUT/tenants.json",
    )
    s.add_argument(
        "--growth",
        type=int,
        default=0,
        help="instead: ingest synthetic sessions one by one until N turns are stored (hash embeddings); "
        "per-session time vs stored turns in OUT/growth.json and OUT/growth.png",
    )
    s.add_argument(
        "--real-stores",
        action="store_true",
        help="instead: write the synthetic graph of each --nodes size into the real stores of each "
        "--tenant-backends (hash embeddings): ingest throughput, cold load, first and warm query, RSS; "
        "writes OUT/real_stores.json",
    )
    s.add_argument("--cache-namespaces", type=int, default=32, help="--tenants: stores kept open (LRU, default 32)")
    s.add_argument(
        "--tenant-backends",
        default="sqlite",
        help="--tenants, --real-stores: comma-separated; 'sqlite' (the graph in SQLite, vectors in "
        "embedded Chroma), 'sqlite+chroma-server' (vectors in the MEMGRAPH_CHROMA_HOST server), "
        "'postgres' (the graph in MEMGRAPH_GRAPH_URL, vectors in the MEMGRAPH_CHROMA_HOST server; "
        "both servers already running)",
    )


def _command_line(args: argparse.Namespace, settings: Settings) -> str:
    typed = typed_command()
    if typed:
        return typed
    parts = ["memgraph", "--data-dir", str(settings.data_dir)]
    if settings.embeddings != "minilm":
        parts += ["--embeddings", settings.embeddings]
    parts += ["bench", "locomo", "--data", str(args.data)]
    for opt in ("conversations", "retrievers", "k", "categories", "builder", "llm", "preset"):
        value = getattr(args, opt, None)
        if value:
            parts += [f"--{opt}", str(value)]
    if args.qa:
        parts.append("--qa")
    parts += ["--out", str(args.out)]
    return shlex.join(parts)


def _table(title: str, columns: list[str], rows: list[list[str]]):
    """``output.table`` with the name column never wrapped (names stay readable on 80 columns)."""
    from rich import box

    from memgraph_agents.cli.output import table

    t = table(title, columns, rows)
    t.box = box.SIMPLE_HEAD  # no vertical rules: room for the numbers on 80 columns
    t.columns[0].no_wrap = True
    t.columns[0].min_width = max([len(str(r[0])) for r in rows] + [len(columns[0])])
    for c in t.columns[1:]:
        c.min_width = max(len(str(r[t.columns.index(c)])) for r in rows) if rows else 0
    return t


def cmd_bench(args: argparse.Namespace, settings: Settings) -> int:
    from memgraph_agents.extras import require_extra

    require_extra("bench", "memgraph bench")  # before a long run, not at its end
    if getattr(args, "bench_command", None) == "scale":
        return cmd_bench_scale(args)
    if getattr(args, "bench_command", None) == "chat":
        return cmd_bench_chat(args, settings)
    if getattr(args, "bench_command", None) == "loop":
        from memgraph_agents.cli.bench_loop_cmd import cmd_bench_loop

        return cmd_bench_loop(args, settings)
    if getattr(args, "bench_command", None) == "ingest":
        return cmd_bench_ingest(args, settings)
    if getattr(args, "bench_command", None) == "query":
        from memgraph_agents.cli.bench_query_cmd import cmd_bench_query

        return cmd_bench_query(args, settings)
    if getattr(args, "bench_command", None) != "locomo":
        raise ValueError("usage: memgraph bench locomo --data FILE --out DIR")
    return cmd_bench_locomo(args, settings)


def cmd_bench_locomo(args: argparse.Namespace, settings: Settings) -> int:
    from memgraph_agents.bench.locomo import check_options, run_locomo_bench
    from memgraph_agents.bench.report import write_results
    from memgraph_agents.bench.report_tables import (
        CATEGORY_NOTE,
        INGEST_COLUMNS,
        QA_COLUMNS,
        category_columns,
        category_rows,
        ingest_rows,
        overall_columns,
        overall_rows,
        qa_rows,
    )
    from memgraph_agents.cli.output import console, progress_bar

    # Everything that can be checked is checked before any work starts.
    check_options(
        settings,
        retrievers=args.retrievers,
        ks=args.k,
        categories=args.categories,
        conversations=args.conversations,
        builder=args.builder,
        qa=args.qa,
    )
    if args.data is None:
        raise ValueError("bench locomo needs --data FILE (a LoCoMo JSON file)")
    if not args.data.is_file():
        raise FileNotFoundError(f"--data {args.data}: {'is a directory' if args.data.is_dir() else 'file not found'}")
    if args.out is None:
        raise ValueError("bench locomo needs --out DIR (where results.json, results.md and recall.png go)")
    if args.out.exists() and not args.out.is_dir():
        raise ValueError(f"--out {args.out}: exists and is not a directory")

    records: list[dict] = []
    console.print(
        f"memgraph bench locomo: memory in {settings.data_dir}, embeddings {settings.embeddings}, "
        f"builder {args.builder}"
    )
    if args.judge_llm:
        Settings(llm=args.judge_llm)  # a malformed spec fails here, before any work

    def partial(results: dict, what: str) -> None:  # a long run leaves its results so far behind
        args.out.mkdir(parents=True, exist_ok=True)
        tmp = args.out / "results.json.tmp"
        tmp.write_text(json.dumps(results, indent=2, ensure_ascii=False), encoding="utf-8")
        tmp.replace(args.out / "results.json")
        console.print(f"{what} done: partial results in {args.out / 'results.json'}", markup=False)

    with progress_bar() as p:
        results = run_locomo_bench(
            args.data,
            settings,
            retrievers=args.retrievers,
            ks=args.k,
            categories=args.categories,
            conversations=args.conversations,
            builder=args.builder,
            qa=args.qa,
            progress=p,
            command=_command_line(args, settings),
            records=records,
            on_partial=partial,
            judge=getattr(args, "judge", "strict"),
            judge_llm=getattr(args, "judge_llm", None),
        )
    paths = write_results(results, args.out)
    with (args.out / "questions.jsonl").open("w", encoding="utf-8") as f:
        for r in records:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")

    kmax = max(results["ks"])
    ing = results["ingest"]
    console.print(_table(f"Ingest ({ing['state']}, {ing['seconds']:.1f} s)", INGEST_COLUMNS, ingest_rows(results)))
    console.print(
        _table(
            f"LoCoMo retrieval: {results['questions'] - results['skipped_questions']} questions "
            f"({results['skipped_questions']} skipped: no resolvable evidence)",
            overall_columns(results),
            overall_rows(results),
        )
    )
    console.print(
        _table(
            f"Turn recall@{kmax} per category",
            category_columns(results, f"turn_recall@{kmax}"),
            category_rows(results, f"turn_recall@{kmax}"),
        )
    )
    qrows = qa_rows(results)
    if qrows:
        judge = results.get("judge") or {}
        console.print(
            _table(
                f"QA with {results['llm']} (judge: {judge.get('criteria', 'strict')}, "
                f"{judge.get('llm', results['llm'])})",
                QA_COLUMNS,
                qrows,
            )
        )
        console.print(CATEGORY_NOTE, markup=False)
        for name, r in results["retrievers"].items():
            qa = r.get("qa") or {}
            if qa:
                fb = qa.get("fallbacks") or {}
                nav = qa.get("navigator") or {}
                console.print(
                    f"{name}: answered by {qa.get('answered_by', 'one-shot answer prompt')}; "
                    f"{fb.get('navigator_questions', 0)} question(s) with a navigator fallback, "
                    f"{fb.get('qa_llm_failures', 0)} QA LLM failure(s)"
                    + (f"; at most {nav['max_llm_calls_per_question']} navigator LLM calls a question" if nav else ""),
                    markup=False,
                )
    for name, r in results["retrievers"].items():
        if r.get("error_examples"):
            what = "every question" if r.get("failed") else f"{r['errors']} question(s)"
            console.print(f"warning: {name} raised on {what}, e.g. {r['error_examples'][0]}", markup=False)
    console.print(
        f"wrote {paths['json']}, {paths['md']}, {paths['png']} and {args.out / 'questions.jsonl'}", markup=False
    )
    return 0
