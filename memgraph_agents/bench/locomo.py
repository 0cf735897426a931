"""LoCoMo benchmark runner (docs/architecture.md, "Evaluation"): ingest, retrieve every question, score, optionally QA.

``run_locomo_bench`` is the whole benchmark as a function that returns a JSON-able dict (the
CLI writes it to ``results.json`` and renders ``results.md`` / ``recall.png`` from it):

1. **ingest** each chosen conversation into its own namespace (one per ``sample_id``, the same
   one ``memgraph ingest`` uses). Ingest is idempotent: sessions already in memory are skipped,
   so a second run reuses the memory. Per conversation it records the wall time, how many
   sessions were new, and the embedding model's hits / misses, from which the state of the run
   is named: ``cold`` (vectors computed), ``warm`` (every vector was computed already: in this
   process, or stored in the namespace) or ``reused`` (nothing to ingest).
2. **retrieve** every question of the chosen categories with each retriever, asking for
   ``max(k)`` items (10 at least with ``--qa``). Each retriever is warmed up with one
   unrelated query per namespace first, so model loading and per-namespace index building
   are not counted as query latency. The question's own embedding is always computed during
   the timed call (query vectors are forgotten before it), so latency includes it.
   Retrievers take turns question by question, so a busy spell on a shared machine slows
   them all alike.
3. **score** per question with ``memgraph_agents.bench.metrics``: turn recall / hit / session
   recall / answer recall / context tokens at every k. Turn metrics use the ranked evidence
   flattened into provenance turn ids (first occurrence wins); "answer recall@k" and
   "context tokens@k" use the text of the ranked evidence prefix that yields the first k
   turns. Averages run over questions with at least one resolvable gold evidence id; the
   others are counted as ``skipped_questions``.
4. with ``qa=True``, answer each question from the top-10 evidence and judge it
   (``memgraph_agents.bench.qa``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from memgraph_agents.bench.ingest_phase import check_builder, ingest_samples
from memgraph_agents.bench.locomo_qa import _run_qa
from memgraph_agents.bench.locomo_retrieve import WARMUP_QUERY, _Question, _retrieve_all
from memgraph_agents.bench.machine import loadavg, machine_info
from memgraph_agents.bench.options import (
    DEFAULT_KS,
    BenchOptions,
    check_options,
    namespace_for,
    parse_int_list,
    parse_name_list,
    select_samples,
)
from memgraph_agents.bench.scoring import (
    clean,
    evidence_prefix,
)
from memgraph_agents.config import Settings
from memgraph_agents.loaders import DEFAULT_CATEGORIES, LocomoSample, iter_locomo_questions, load_locomo

__all__ = [
    "BENCH_VERSION",
    "DEFAULT_KS",
    "WARMUP_QUERY",
    "BenchOptions",
    "run_locomo_bench",
    "parse_int_list",
    "parse_name_list",
    "check_options",
    "select_samples",
    "namespace_for",
    "machine_info",
    "evidence_prefix",
]

BENCH_VERSION = 1


# --------------------------------------------------------------------------- progress


class _NoProgress:
    def add_task(self, description: str, total: float | None = None, **_: Any) -> int:
        return 0

    def update(self, task: Any, **_: Any) -> None:
        pass


def run_locomo_bench(
    data: str | os.PathLike[str] | Sequence[LocomoSample],
    settings: Settings,
    *,
    retrievers: str | Sequence[str] | None = None,
    ks: str | Sequence[int] = DEFAULT_KS,
    categories: str | Sequence[int] = DEFAULT_CATEGORIES,
    conversations: str | Sequence[str] | None = None,
    builder: str = "offline",
    qa: bool = False,
    progress=None,
    command: str = "",
    records: list | None = None,
    on_ingested: Callable[[dict[str, Any]], None] | None = None,
    on_partial: Callable[[dict[str, Any], str], None] | None = None,
    judge: str = "strict",
    judge_llm: str | None = None,
) -> dict[str, Any]:
    """Run the LoCoMo benchmark; return the results (the ``results.json`` document).

    ``data``: a LoCoMo file or already loaded samples. ``progress``: anything with rich's
    ``add_task(description, total=)`` / ``update(task, advance=, completed=, description=)``.
    ``records``: when a list, per-question rows (retrieval and QA) are appended to it.
    ``on_partial(results, what)``: called with the results so far (``"partial": true``) after
    the ingest, the retrieval and each retriever's QA, so a long run leaves something behind.
    ``judge``: ``strict`` (the project's judge) or ``mem0`` (mem0's lenient criteria);
    ``judge_llm``: the judge's model spec (default: the answering model).
    """
    opts = check_options(
        settings,
        retrievers=retrievers,
        ks=ks,
        categories=categories,
        conversations=conversations,
        builder=builder,
        qa=qa,
    )
    progress = progress or _NoProgress()
    load_start = loadavg()
    if isinstance(data, (str, os.PathLike)):
        source = os.fspath(data)
        samples = load_locomo(source)
    else:
        source, samples = "(samples)", list(data)
    samples = select_samples(samples, opts.conversations, source)

    # Ingest: the offline builder never calls an LLM, whatever MEMGRAPH_LLM says.
    ingest_settings = settings.model_copy(update={"llm": "none"}) if opts.builder == "offline" else settings
    check_builder(samples, ingest_settings, opts.builder)
    ingest = ingest_samples(samples, ingest_settings, progress)
    if on_ingested is not None:
        on_ingested(ingest)

    from memgraph_agents.runtime import get_store

    namespaces = [namespace_for(s.sample_id, settings.preset) for s in samples]
    stores = {ns: get_store(settings, ns, create=False) for ns in namespaces}
    turn_sessions = {ns: dict(st.snapshot().turn_session) for ns, st in stores.items()}
    ns_of = dict(zip((s.sample_id for s in samples), namespaces))
    questions = [_Question(s, q, ns_of[s.sample_id]) for s, q in iter_locomo_questions(samples, opts.categories)]
    if not questions:
        raise ValueError(
            f"no question in categories {','.join(map(str, opts.categories))} for the chosen conversations"
        )
    skipped = sum(1 for x in questions if not x.q.evidence)

    results: dict[str, Any] = {
        "benchmark": "locomo",
        "version": BENCH_VERSION,
        "data": source,
        "conversations": [s.sample_id for s in samples],
        "categories": opts.categories,
        "ks": opts.ks,
        "builder": opts.builder,
        "preset": settings.preset,
        "llm": settings.llm if opts.qa else ingest_settings.llm,
        "ingest_llm": ingest_settings.llm,
        "embeddings": settings.embeddings,
        "retrieve_k": opts.retrieve_k,
        "questions": len(questions),
        "skipped_questions": skipped,
        "questions_per_category": {str(c): sum(1 for x in questions if x.q.category == c) for c in opts.categories},
        "retrievers": {},
    }
    if opts.qa:
        results["judge"] = {"criteria": judge, "llm": judge_llm or settings.llm}
    results["ingest"] = ingest
    results["command"] = command

    def partial(what: str) -> None:
        if on_partial is not None:
            on_partial(clean({**results, "partial": True, "done": what}), what)

    partial("ingest")
    runs = _retrieve_all(questions, stores, opts, turn_sessions, progress, settings.relevance_floor)
    for run in runs:
        results["retrievers"][run.name] = run.summary()
        if records is not None:
            records.extend(run.records)
    partial("retrieval")
    if opts.qa:
        for run in runs:
            if run.companion:  # the navigator's kept-only ranking: no answers of its own
                continue
            results["retrievers"][run.name]["qa"] = _run_qa(
                run.name, questions, run.evidence, settings, progress, records, stores, judge=judge, judge_llm=judge_llm
            )
            partial(f"qa {run.name}")
    results["machine"] = {**machine_info(), "loadavg_start": load_start}
    results["date"] = datetime.now().astimezone().isoformat(timespec="seconds")
    return clean(results)
