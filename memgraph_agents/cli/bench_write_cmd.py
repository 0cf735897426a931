"""``memgraph bench chat`` (a chat thread written turn by turn vs ingested at once) and
``memgraph bench ingest`` (the cost of writing a memory): the benches of writes (the options are
``bench_cmd.add_parser``'s)."""

from __future__ import annotations

import argparse

from memgraph_agents.cli.bench_scale_cmd import typed_command
from memgraph_agents.config import Settings

# A chat bench writes one commit per turn on each run: a day's run at most, not a typo's week.
MAX_CHAT_TURNS = 10_000


def cmd_bench_chat(args: argparse.Namespace, settings: Settings) -> int:
    from memgraph_agents.bench.chat import run_chat_bench
    from memgraph_agents.cli.output import console

    if args.out is None:
        raise ValueError("bench chat needs --out DIR (where chat.json and the two data dirs go)")
    if not 2 <= args.turns <= MAX_CHAT_TURNS:
        raise ValueError(f"--turns must be between 2 and {MAX_CHAT_TURNS}, got {args.turns}")
    if args.repeat < 1:
        raise ValueError("--repeat must be at least 1")

    def progress(done: int, total: int) -> None:
        console.print(f"run {done}/{total} done", markup=False)

    doc = run_chat_bench(settings, args.turns, args.out, command=typed_command(), repeat=args.repeat, progress=progress)
    console.print(
        f"{doc['turns']} turns ({doc['embeddings']}, median of {doc['repeat']}): at once "
        f"{doc['seconds_at_once']:.2f} s, turn by turn {doc['seconds_turn_by_turn']:.2f} s "
        f"(x{doc['ratio']:.2f}; goal x{doc['goal_ratio']}); CPU {doc['cpu_seconds_at_once']:.2f} s vs "
        f"{doc['cpu_seconds_turn_by_turn']:.2f} s (x{doc['cpu_ratio']:.2f}); write p50 {doc['write_p50_ms']:.1f} ms vs "
        f"InMemoryStore.put p50 {doc['store_put_p50_ms']:.1f} ms (x{doc['write_to_put_p50']:.2f}; goal "
        f"x{doc['goal_write_to_put']}); "
        f"model calls {doc['model_calls_at_once']} vs {doc['model_calls_turn_by_turn']}; Chroma "
        f"{doc['chroma_bytes_at_once'] / 1e6:.1f} MB vs {doc['chroma_bytes_turn_by_turn'] / 1e6:.1f} MB; embedded "
        f"{doc['chars_embedded_at_once']} vs {doc['chars_embedded_turn_by_turn']} characters "
        f"(load average {doc['load_average_1m']})",
        markup=False,
    )
    console.print(f"wrote {args.out / 'chat.json'}", markup=False)
    return 0


def cmd_bench_ingest(args: argparse.Namespace, settings: Settings) -> int:
    from memgraph_agents.bench.ingest_cost import run_ingest_bench
    from memgraph_agents.cli.output import console

    if args.data is None or args.out is None:
        raise ValueError("usage: memgraph bench ingest --data FILE --out DIR [--conversations IDS] [--repeat N]")
    if args.repeat < 1:
        raise ValueError("--repeat must be at least 1")
    convs = [c.strip() for c in args.conversations.split(",") if c.strip()] if args.conversations else None
    doc = run_ingest_bench(
        args.data,
        args.out,
        conversations=convs,
        embeddings=settings.embeddings,
        repeat=args.repeat,
        command=typed_command(),
        progress=lambda line: console.print(line, markup=False),
    )
    console.print(
        f"{doc['turns']} turns (median of {doc['repeat']}): memgraph {doc['memgraph_cpu_seconds']:.1f} CPU-s, "
        f"{doc['memgraph_wall_seconds']:.1f} s, {doc['memgraph_peak_rss_mb']:.0f} MB peak, "
        f"{doc['memgraph_disk_bytes'] / 1e6:.1f} MB on disk; plain Chroma {doc['chroma_cpu_seconds']:.1f} CPU-s, "
        f"{doc['chroma_wall_seconds']:.1f} s, {doc['chroma_peak_rss_mb']:.0f} MB, "
        f"{doc['chroma_disk_bytes'] / 1e6:.1f} MB; CPU x{doc['cpu_ratio']:.2f} (goal x{doc['goal_cpu_ratio']}), "
        f"disk x{doc['disk_ratio']:.2f} (goal x{doc['goal_disk_ratio']}), peak RSS x{doc['rss_ratio']:.2f} "
        f"(load average {doc['load_average_1m']})",
        markup=False,
    )
    console.print(f"wrote {args.out / 'ingest.json'}", markup=False)
    return 0
