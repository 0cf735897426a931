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
    from memgraph_agents.aio import background
    from memgraph_agents.api.ops import navigation
    from memgraph_agents.runtime import get_chat_model

    llm = None if offline else get_chat_model(settings)
    r = background.run(navigation(settings, store, question, k, llm))
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
    from memgraph_agents.api import Memory
    from memgraph_agents.api.ops import open_store
    from memgraph_agents.api.overrides import check_k, check_retriever, default_retriever, is_navigator

    ns = args.namespace or settings.namespace
    store = open_store(settings, ns)  # a missing namespace is an error here, not "no evidence"
    # --retriever, else the preset's retriever, else MEMGRAPH_RETRIEVER / the default (navigator)
    name = check_retriever(args.retriever) if args.retriever else default_retriever(settings)
    k = check_k(args.top_k, settings.top_k)
    if is_navigator(name):
        _navigate(args.question, store, settings, k, trace=args.trace)
        return 0
    t0 = time.perf_counter()
    # With an LLM configured, retrievers that have optional LLM steps use them (ppr, dense on events).
    evidence = Memory(settings=settings).search(args.question, namespace=ns, k=k, retriever=name)
    console.print(f"[bold]{args.question}[/bold]  ({name}, {1000 * (time.perf_counter() - t0):.0f} ms)")
    print_evidence(evidence, k)
    if args.trace:
        for ev in evidence[:k]:
            console.print(f"  path {ev.node_id}: {' -> '.join(ev.path)}", markup=False)
    return 0


def demo_files():
    root = resources.files("memgraph_agents.examples")
    return root.joinpath("conversation.json"), root.joinpath("questions.json")


def cmd_demo(args: argparse.Namespace, settings: Settings) -> int:
    from memgraph_agents.api import Memory
    from memgraph_agents.api.ops import open_store

    memory = Memory(settings=settings)
    conv_file, q_file = demo_files()
    console.print(f"memgraph demo: offline mode, memory in {settings.data_dir} (namespace {DEMO_NAMESPACE!r})")
    with resources.as_file(conv_file) as path:
        report = memory.add(path, namespace=DEMO_NAMESPACE, format="json")
    console.print(f"ingested {report.conversations[0]}: {report.sessions_added + report.sessions_replaced + report.sessions_unchanged} "
                  f"sessions ({report.sessions_added + report.sessions_replaced} new, {report.sessions_unchanged} "
                  f"already stored) in {report.seconds:.1f}s")
    store = open_store(settings, DEMO_NAMESPACE)
    name = args.retriever or DEMO_RETRIEVER
    questions = json.loads(q_file.read_text(encoding="utf-8"))
    for q in questions:
        if name == "navigator":
            console.print(f"\nexpected: {q['answer']}")
            _navigate(q["question"], store, settings, 5, trace=False, offline=True, shown=3)
            continue
        t0 = time.perf_counter()
        evidence = memory.search(q["question"], namespace=DEMO_NAMESPACE, k=5, retriever=name)
        ms = 1000 * (time.perf_counter() - t0)
        console.print(f"\n[bold]Q: {q['question']}[/bold]  ({name}, {ms:.0f} ms; expected: {q['answer']})")
        print_evidence(evidence, 3)
    return 0
