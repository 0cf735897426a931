"""``memgraph ask`` and ``memgraph demo`` (the main job on the embedded default)."""

from __future__ import annotations

import argparse
import json
import time
from importlib import resources

from memgraph_agents.cli.filter_args import filter_kwargs
from memgraph_agents.cli.output import console, err_console, print_evidence
from memgraph_agents.config import Settings

DEMO_NAMESPACE = "demo"


class NothingToRead(RuntimeError):
    """The retriever reads layers this namespace does not have."""


def _load_model(store) -> None:
    """Load the embedding model before the clock starts: its one-time cost is not latency."""
    seconds = store.embedder.load()
    if seconds >= 0.05:
        console.print(f"model loaded in {seconds:.1f} s")


def _llm_report(usage: dict, fallbacks: int = 0) -> str | None:
    """One line on the LLM work of a question: calls, failures, fallbacks, retries.

    Every number is counted, none derived from another: a failed call that a retry recovered
    is a failure but no fallback, and ``fallbacks`` are the steps answered offline instead."""
    calls, failed = int(usage.get("calls", 0)), int(usage.get("failures", 0))
    fallbacks = max(fallbacks, int(usage.get("fallbacks", 0)))
    if not calls and not fallbacks:
        return None
    line = (
        f"LLM: {calls} calls attempted, {failed} failed, {fallbacks} fallback(s), "
        f"{int(usage.get('retries', 0))} retried"
    )
    if fallbacks:
        line += f"; fallback used ({fallbacks} step(s) answered offline)"
    return line


def check_layers(name: str, store) -> None:
    """Raise ``NothingToRead`` when ``name`` (a preset) reads layers the namespace lacks."""
    from memgraph_agents.presets import LAYER_KINDS, PRESETS

    preset = PRESETS.get(name)
    if preset is None or not preset.layers:
        return
    have = store.db.counts()[0]
    missing = [layer for layer in preset.layers if not any(have.get(k) for k in LAYER_KINDS[layer])]
    if missing:
        raise NothingToRead(
            f"retriever {name!r} reads the {', '.join(missing)} layer(s), which namespace "
            f"{store.namespace!r} does not have: ingest with `--preset {name}` first, or pick "
            "another retriever"
        )


def _print_navigation(question: str, r) -> None:
    """The navigator's header, its LLM report and its answer (LLM mode)."""
    c = r.counters
    console.print(
        f"[bold]{question}[/bold]  (navigator, {r.policy}, {c['wall_ms']:.0f} ms, {int(c['steps'])} steps, "
        f"{int(c['rounds'])} round(s), {int(c['llm_calls'])} LLM calls)"
    )
    usage = {"calls": c.get("llm_calls", 0), "failures": c.get("llm_failures", 0), "retries": c.get("llm_retries", 0)}
    report = _llm_report(usage, len(r.fallbacks))
    if report:
        console.print(f"  {report}", markup=False)
        for why in r.fallbacks:
            console.print(f"    fallback {why}", markup=False)
    if r.answer is not None:
        console.print(f"  answer: {r.answer}", markup=False)


def cmd_ask(args: argparse.Namespace, settings: Settings) -> int:
    """Evidence for a question through the engine's one path (``api.ops.retrieval``), printed
    with what it cost: ``-k`` (else ``MEMGRAPH_TOP_K``), ``--retriever`` (else the preset's, else
    ``MEMGRAPH_RETRIEVER``), the settings' chat model."""
    from memgraph_agents.aio import background
    from memgraph_agents.api import ops
    from memgraph_agents.api.filters import memory_filter
    from memgraph_agents.api.overrides import check_k, check_retriever
    from memgraph_agents.api.request import search_request

    k = check_k(args.top_k, settings.top_k)
    # an unknown name or a bad filter fails before any model loads
    name = check_retriever(args.retriever) if args.retriever else settings.default_retriever
    filters = filter_kwargs(args)
    f = memory_filter(**filters)
    settings.limits.check_query(args.question, "question")  # before any store or model is opened
    namespaces = args.namespace or [settings.namespace]  # "" is refused, not defaulted
    if len(namespaces) > 1:
        return _ask_many(args, settings, namespaces, k, name, filters)
    ns = namespaces[0]
    store = ops.open_store(settings, ns)  # missing: an error listing the others
    try:
        check_layers(name, store)
        _load_model(store)
        t0 = time.perf_counter()
        req = search_request(query=args.question, namespaces=(ns,), k=k, retriever=name, filter=f)
        found = background.run(ops.retrieval(settings, req))
        ms = 1000 * (time.perf_counter() - t0)
        if found.navigation is not None:
            _print_navigation(args.question, found.navigation)
        else:
            console.print(f"[bold]{args.question}[/bold]  ({name}, {ms:.0f} ms)")
            report = _llm_report(found.usage, len(found.notes))
            if report:
                console.print(f"  {report}", markup=False)
                for note in found.notes:
                    console.print(f"    fallback {note}", markup=False)
        evidence = found.evidence
        if found.reason is not None and found.reason.irrelevant:  # ranked, judged irrelevant
            console.print(
                f"  nothing relevant in memory: {found.why(ns)} (MEMGRAPH_MIN_SCORE=0 shows every item)", markup=False
            )
            return 0
        if not evidence:
            raise NothingToRead(found.why(ns) or f"retriever {name!r} found nothing to read in namespace {ns!r}")
    except NothingToRead as exc:
        err_console.print(f"error: {exc}", markup=False)
        return 1
    # Every item the retriever returned: a preset may add generated items (summaries, facts) after the k turns.
    print_evidence(evidence, len(evidence))
    if args.trace:
        if found.navigation is not None:
            console.print("  path:")
            for line in found.navigation.trace_lines():
                console.print(f"    {line}", markup=False)
        else:
            for ev in evidence:
                console.print(f"  path {ev.node_id}: {' -> '.join(ev.path)}", markup=False)
    return 0


def _ask_many(args: argparse.Namespace, settings: Settings, namespaces: list[str], k: int, name: str, filters) -> int:
    """``ask`` over several namespaces: one ranking (``Memory.search(namespaces=...)``), each
    item printed with the namespace it came from."""
    from memgraph_agents.api import Memory
    from memgraph_agents.api.ops import open_store

    for ns in namespaces:
        open_store(settings, ns)  # each must exist: a misspelt one is an error, not a smaller search
    t0 = time.perf_counter()
    evidence = Memory(settings=settings).search(args.question, namespaces=namespaces, k=k, retriever=name, **filters)
    ms = 1000 * (time.perf_counter() - t0)
    console.print(f"[bold]{args.question}[/bold]  ({name}, {len(namespaces)} namespaces, {ms:.0f} ms)")
    if evidence.reason is not None and evidence.reason.irrelevant:
        console.print(f"  nothing relevant in memory ({evidence.why})", markup=False)
        return 0
    if not evidence:
        err_console.print(
            f"error: nothing in namespaces {', '.join(namespaces)} to read ({evidence.why})", markup=False
        )
        return 1
    print_evidence(evidence, len(evidence), with_namespace=True)
    return 0


def demo_files():
    root = resources.files("memgraph_agents.examples")
    return root.joinpath("conversation.json"), root.joinpath("questions.json")


def cmd_demo(args: argparse.Namespace, settings: Settings) -> int:
    from memgraph_agents.api import Memory
    from memgraph_agents.api.ops import open_store
    from memgraph_agents.cli.demo_view import show_question

    settings = settings.override(llm="none")  # the demo is the offline default, whatever MEMGRAPH_LLM says
    memory = Memory(settings=settings)
    conv_file, q_file = demo_files()
    console.print(f"memgraph demo: offline mode, memory in {settings.data_dir} (namespace {DEMO_NAMESPACE!r})")
    with resources.as_file(conv_file) as path:
        report = memory.add(path, namespace=DEMO_NAMESPACE, format="json")
    console.print(
        f"ingested {report.conversations[0]}: {report.sessions_added + report.sessions_replaced + report.sessions_unchanged} "
        f"sessions ({report.sessions_added + report.sessions_replaced} new, {report.sessions_unchanged} "
        f"already stored) in {report.seconds:.1f}s"
    )
    store = open_store(settings, DEMO_NAMESPACE)
    _load_model(store)
    # The defaults of every door: --retriever, else the preset's, else MEMGRAPH_RETRIEVER (navigator); MEMGRAPH_TOP_K (10).
    name = args.retriever or settings.default_retriever
    questions = json.loads(q_file.read_text(encoding="utf-8"))
    visible = 0
    for q in questions:
        t0 = time.perf_counter()
        evidence = memory.search(q["question"], namespace=DEMO_NAMESPACE, retriever=name)
        visible += show_question(q, store, evidence, name, 1000 * (time.perf_counter() - t0))
    console.print(f"\nanswer visible for {visible} of {len(questions)}")
    return 0
