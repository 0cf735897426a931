"""``memgraph trace "question" --out trace.html``: the navigator's path as a self-contained page."""

from __future__ import annotations

import argparse

from memgraph_agents.cli.output import console
from memgraph_agents.config import Settings


def add_parser(sub, common) -> argparse.ArgumentParser:
    from memgraph_agents.cli.argtypes import positive_int

    p = sub.add_parser(
        "trace", parents=[common], help="run the navigator and write its path as one self-contained HTML page"
    )
    p.add_argument("question")
    p.add_argument("--namespace")
    p.add_argument("--out", default="trace.html", help="HTML file to write (default trace.html)")
    p.add_argument(
        "-k", "--top-k", type=positive_int, default=None, help="evidence items (env MEMGRAPH_TOP_K; default 10)"
    )
    p.add_argument(
        "--policy",
        choices=["auto", "llm", "offline"],
        default="auto",
        help="navigator policy (auto: the LLM when MEMGRAPH_LLM / --llm names one)",
    )
    p.add_argument("--llm", help="'none' (offline) or 'openai:MODEL' (the [openai] extra; env MEMGRAPH_LLM)")
    p.add_argument("--max-nodes", type=int, default=300, help="events drawn around the path (default 300)")
    return p


def cmd_trace(args: argparse.Namespace, settings: Settings) -> int:
    from pathlib import Path

    from memgraph_agents.aio import background
    from memgraph_agents.api import ops
    from memgraph_agents.debug.trace_html import trace_page
    from memgraph_agents.runtime import get_chat_model

    ns = settings.namespace if args.namespace is None else args.namespace
    run = settings.override(namespace=ns)
    store = ops.open_store(run, ns)  # missing: an error listing the others
    llm = None if args.policy == "offline" else get_chat_model(run)
    if args.policy == "llm" and llm is None:
        raise ValueError("--policy llm needs a chat model: set MEMGRAPH_LLM or pass --llm provider:model")
    k = args.top_k or run.top_k
    # the navigator as every door runs it (its parameters from the settings), the LLM policy with a model
    result = background.run(ops.navigation(run, store, args.question, k, llm))
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(trace_page(result, store, max_nodes=args.max_nodes), encoding="utf-8")
    c = result.counters
    console.print(
        f"[bold]{args.question}[/bold]  (navigator, {result.policy}, {int(c.get('steps', 0))} steps, "
        f"{int(c.get('llm_calls', 0))} LLM calls)"
    )
    if result.answer is not None:
        console.print(f"  answer: {result.answer}", markup=False)
    path = " → ".join(e["node"] for e in result.trace if e.get("type") == "decision")
    console.print(f"  path: {path or '(no step)'}", markup=False)
    console.print(f"  wrote {out} — open it in any browser: file://{out.resolve()}", markup=False)
    return 0
