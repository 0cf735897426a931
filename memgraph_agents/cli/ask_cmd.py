"""``memgraph ask`` and ``memgraph demo`` (the main job on the embedded default)."""

from __future__ import annotations

import argparse
import json
import time
from importlib import resources

from memgraph_agents.cli.output import console, print_evidence
from memgraph_agents.config import Settings

DEMO_NAMESPACE = "demo"
DEMO_RETRIEVER = "navigator"


def _navigate(question: str, store, settings: Settings, k: int, *, trace: bool, offline: bool = False,
              shown: int | None = None) -> None:
    """The navigator: its answer (LLM mode) or kept evidence, and with ``trace`` the path taken."""
    from memgraph_agents.navigator import NavigatorContext, navigate
    from memgraph_agents.runtime import get_chat_model

    llm = None if offline else get_chat_model(settings)
    ctx = NavigatorContext.from_settings(settings, policy="offline" if llm is None else "llm")
    r = navigate(question, store, context=ctx, llm=llm, k=k)
    c = r.counters
    console.print(f"[bold]{question}[/bold]  (navigator, {r.policy}, {c['wall_ms']:.0f} ms, {int(c['steps'])} steps, "
                  f"{int(c['rounds'])} round(s), {int(c['llm_calls'])} LLM calls)")
    if r.answer is not None:
        console.print(f"  answer: {r.answer}", markup=False)
    print_evidence(r.evidence, shown or k)
    if trace:
        console.print("  path:")
        for line in r.trace_lines():
            console.print(f"    {line}", markup=False)


def cmd_ask(args: argparse.Namespace, settings: Settings) -> int:
    from memgraph_agents.presets import DEFAULT_PRESET, PRESETS
    from memgraph_agents.retrieval.registry import retrieve
    from memgraph_agents.runtime import get_store

    store = get_store(settings, settings.namespace if args.namespace is None else args.namespace, create=False)
    # --retriever, else the preset's retriever, else MEMGRAPH_RETRIEVER / the default (ppr)
    name = args.retriever or (settings.preset if settings.preset != DEFAULT_PRESET else settings.retriever)
    if name == "navigator" or (name in PRESETS and PRESETS[name].retriever == "navigator"):
        _navigate(args.question, store, settings, args.top_k, trace=args.trace)
        return 0
    t0 = time.perf_counter()
    from memgraph_agents.runtime import get_chat_model

    # With an LLM configured, retrievers that have optional LLM steps use them (ppr, dense on events).
    evidence = retrieve(name, args.question, store, k=args.top_k, llm=get_chat_model(settings),
                        llm_timeout=settings.llm_timeout)
    console.print(f"[bold]{args.question}[/bold]  ({name}, {1000 * (time.perf_counter() - t0):.0f} ms)")
    print_evidence(evidence, args.top_k)
    if args.trace:
        for ev in evidence[: args.top_k]:
            console.print(f"  path {ev.node_id}: {' -> '.join(ev.path)}", markup=False)
    return 0


def demo_files():
    root = resources.files("memgraph_agents.examples")
    return root.joinpath("conversation.json"), root.joinpath("questions.json")


def cmd_demo(args: argparse.Namespace, settings: Settings) -> int:
    from memgraph_agents.ingest import ingest_conversation
    from memgraph_agents.loaders import load_conversations
    from memgraph_agents.retrieval.registry import retrieve
    from memgraph_agents.runtime import get_store

    conv_file, q_file = demo_files()
    with resources.as_file(conv_file) as path:
        conversation = load_conversations(path, "json")[0]
    console.print(f"memgraph demo: offline mode, memory in {settings.data_dir} (namespace {DEMO_NAMESPACE!r})")
    report = ingest_conversation(conversation, settings, namespace=DEMO_NAMESPACE)
    console.print(f"ingested {conversation.id}: {len(conversation.sessions)} sessions "
                  f"({report.sessions_new} new, {report.sessions_unchanged} already stored) in {report.seconds:.1f}s")
    store = get_store(settings, DEMO_NAMESPACE)
    name = args.retriever or DEMO_RETRIEVER
    questions = json.loads(q_file.read_text(encoding="utf-8"))
    for q in questions:
        if name == "navigator":
            console.print(f"\nexpected: {q['answer']}")
            _navigate(q["question"], store, settings, 5, trace=False, offline=True, shown=3)
            continue
        t0 = time.perf_counter()
        evidence = retrieve(name, q["question"], store, k=5)
        ms = 1000 * (time.perf_counter() - t0)
        console.print(f"\n[bold]Q: {q['question']}[/bold]  ({name}, {ms:.0f} ms; expected: {q['answer']})")
        print_evidence(evidence, 3)
    return 0
