"""``memgraph bench loop``: memory in the loop (``memgraph_agents.bench.loop``).

    memgraph --data-dir MEM bench loop --data FILE --out DIR [--conversations ID,...] [--k 10]
        [--retriever NAME] [--offtopic-every 5] [--limit N]

``MEM`` must hold the file's transcripts (``memgraph --data-dir MEM ingest FILE --format
locomo``, or what ``memgraph bench locomo`` built); the loop writes into a copy of it at
``OUT/loop-mem``. Writes ``OUT/loop.json`` (figures and one row per question).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from memgraph_agents.config import Settings


def add_parser(bsub) -> None:
    s = bsub.add_parser(
        "loop",
        help="memory in the loop: questions asked through the agent middleware",
        description="Ask a LoCoMo-format file's questions of its stored transcripts twice: alone, and through "
        "a create_agent agent with MemoryMiddleware (the question and a fake reply echoing it are written "
        "before each recall). Reports turn recall@k in the loop and alone, the share of questions whose "
        "top 3 hold the agent's own turns, and the off-topic refusal rate. Writes OUT/loop.json.",
    )
    s.add_argument("--data", type=Path, help="LoCoMo JSON file whose transcripts the data dir holds (required)")
    s.add_argument("--out", type=Path, help="output directory (required)")
    s.add_argument("--conversations", help="comma-separated sample ids (default: all in the file)")
    s.add_argument("--k", type=int, default=10, help="evidence items per question (default 10)")
    s.add_argument("--retriever", help="retriever (default: the settings' default)")
    s.add_argument("--offtopic-every", type=int, default=5, help="an off-topic message after every N questions")
    s.add_argument("--limit", type=int, help="questions per conversation (default all)")
    s.add_argument(
        "--categories", default="1,2,3,4", help="question categories (default 1,2,3,4: adversarial left out)"
    )


def cmd_bench_loop(args: argparse.Namespace, settings: Settings) -> int:
    from memgraph_agents.bench.loop import run_loop
    from memgraph_agents.cli.output import console
    from memgraph_agents.loaders.locomo import load_locomo

    if args.data is None or args.out is None:
        raise ValueError("bench loop needs --data FILE and --out DIR")
    samples = load_locomo(args.data)
    if args.conversations:
        wanted = [c.strip() for c in args.conversations.split(",") if c.strip()]
        missing = sorted(set(wanted) - {s.sample_id for s in samples})
        if missing:
            raise ValueError(f"--conversations: {', '.join(missing)} not in {args.data}")
        samples = [s for s in samples if s.sample_id in wanted]
    cats = {int(c) for c in args.categories.split(",") if c.strip()}
    samples = [s.model_copy(update={"questions": [q for q in s.questions if q.category in cats]}) for s in samples]
    args.out.mkdir(parents=True, exist_ok=True)
    doc = run_loop(
        settings,
        args.out / "loop-mem",
        samples,
        k=args.k,
        retriever=args.retriever,
        offtopic_every=args.offtopic_every,
        limit=args.limit,
        progress=lambda line: console.print(line, markup=False),
    )
    (args.out / "loop.json").write_text(json.dumps(doc, indent=1, default=str), encoding="utf-8")
    o = doc["overall"]
    console.print(
        f"turn R@{doc['k']}: loop {o['recall_loop']:.4f} vs transcript alone {o['recall_alone']:.4f} "
        f"(drop {o['recall_drop']:+.4f}); own turns in the top 3: {o['own_in_top3']:.1%} of {o['questions']} "
        f"questions; off-topic refused: {o['offtopic_refused_loop']:.1%} of {o['offtopic']}; answerable "
        f"empty: {o['answerable_empty_loop']:.2%}",
        markup=False,
    )
    console.print(f"wrote {args.out / 'loop.json'}", markup=False)
    return 0
