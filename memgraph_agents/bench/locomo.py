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

import asyncio
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np

from memgraph_agents.aio import run_sync
from memgraph_agents.bench import metrics
from memgraph_agents.bench.floor import ADVERSARIAL, floor_report
from memgraph_agents.bench.ingest_phase import check_builder, ingest_samples
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
    aggregate,
    clean,
    evidence_prefix,
    fmt_ms,
    metric_names,
    score_question,
    session_from_id,
)
from memgraph_agents.config import Settings
from memgraph_agents.loaders import DEFAULT_CATEGORIES, LocomoQuestion, LocomoSample, iter_locomo_questions, load_locomo
from memgraph_agents.model.evidence import Evidence, flatten_turns
from memgraph_agents.registry import is_navigator

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
WARMUP_QUERY = "What did we talk about the last time we met?"


# --------------------------------------------------------------------------- progress


class _NoProgress:
    def add_task(self, description: str, total: float | None = None, **_: Any) -> int:
        return 0

    def update(self, task: Any, **_: Any) -> None:
        pass


# --------------------------------------------------------------------------- timing


def _fresh_queries(store) -> None:
    """Forget every query-side vector before a timed call: the question, its mentions, subgoals
    and refinements are embedded afresh, as for a user asking them the first time (stored
    memory's vectors are read, as in normal use)."""
    forget = getattr(store.embedder, "forget_queries", None)
    if callable(forget):
        forget()


# --------------------------------------------------------------------------- scoring helpers


# --------------------------------------------------------------------------- the run


@dataclass
class _Question:
    sample: LocomoSample
    q: LocomoQuestion
    namespace: str


class _RetrieverRun:
    """One retriever's pass over the questions: evidence, per-question scores, latencies."""

    def __init__(
        self,
        name: str,
        opts: BenchOptions,
        questions: Sequence[_Question],
        turn_sessions: dict[str, dict[str, str]],
        progress,
        min_score: float = 0.0,
    ) -> None:
        self.name, self.opts, self.questions, self.turn_sessions = name, opts, questions, turn_sessions
        self.progress = progress
        self.task = progress.add_task(f"retrieve {name}", total=len(questions))
        self.warm_ms: list[float] = []
        self.errors: list[str] = []
        self.failures = 0
        self.latencies: list[float] = []
        self.rows: list[dict[str, float]] = []
        self.row_cats: list[int] = []
        self.n_items: list[int] = []
        self.n_turns: list[int] = []
        self.evidence: dict[str, list[Evidence]] = {}
        self.records: list[dict] = []
        # the navigator's kept-only ranking, scored from the same calls (``navigator_kept``)
        self.kept: _RetrieverRun | None = None
        self.companion = False  # fed by another run: no timing of its own
        self.min_score = min_score  # the default relevance floor, reported by ``floor_report``

    def warm_up(self, stores: dict[str, Any]) -> None:
        """One unrelated query per namespace: model loading and index building are not latency."""
        from memgraph_agents.registry import retrieve

        for ns, store in stores.items():
            t0 = time.perf_counter()
            try:
                retrieve(self.name, WARMUP_QUERY, store, k=self.opts.retrieve_k)
            except Exception as e:  # reported with the question errors; the questions still run
                self.errors.append(f"warm-up on {ns}: {type(e).__name__}: {' '.join(str(e).split())}")
            self.warm_ms.append(1000 * (time.perf_counter() - t0))

    def run(self, item: _Question, store) -> None:
        from memgraph_agents.registry import retrieve

        _fresh_queries(store)
        t0 = time.perf_counter()
        kept: list[Evidence] | None = None
        try:
            if self.kept is not None:  # the navigator: its ranking and, untimed, its kept-only part
                evidence, kept = self._navigate(item.q.question, store)
            else:
                evidence = retrieve(self.name, item.q.question, store, k=self.opts.retrieve_k)
        except Exception as e:  # one failing question must not lose a long run: counted, reported
            evidence = []
            self.failures += 1
            self.errors.append(f"{item.q.id}: {type(e).__name__}: {' '.join(str(e).split())}")
        latency = 1000 * (time.perf_counter() - t0)
        self.record(item, evidence, latency)
        if self.kept is not None:
            self.kept.record(item, kept or [], latency)

    def _navigate(self, question: str, store) -> tuple[list[Evidence], list[Evidence]]:
        from memgraph_agents.navigator.run import navigate
        from memgraph_agents.registry import options_for

        r = navigate(question, store, context=options_for(self.name, policy="offline"), k=self.opts.retrieve_k)
        k = self.opts.retrieve_k
        return r.ranking[:k], r.kept_ranking[:k]

    def record(self, item: _Question, evidence: list[Evidence], latency: float) -> None:
        q, opts = item.q, self.opts
        self.latencies.append(latency)
        self.evidence[q.id] = evidence
        ranked = flatten_turns(evidence)
        self.n_items.append(len(evidence))
        self.n_turns.append(len(ranked))
        ts = self.turn_sessions[item.namespace]
        gold = list(q.evidence)
        scores = score_question(evidence, gold, q.answer, opts.ks, ts) if gold else None
        if scores is not None:
            self.rows.append(scores)
            self.row_cats.append(q.category)
        self.records.append(
            {
                "retriever": self.name,
                "qid": q.id,
                "category": q.category,
                "question": q.question,
                "answer": q.answer,
                "gold": gold,
                "gold_sessions": sorted({ts.get(t) or session_from_id(t) or "?" for t in gold}),
                "turns": ranked[: max(opts.ks)],
                "items": [ev.node_id for ev in evidence],
                "item_scores": [round(ev.score, 6) for ev in evidence],
                "item_relevance": [ev.relevance for ev in evidence],
                "latency_ms": round(latency, 2),
                "scores": clean({n: round(v, 4) for n, v in scores.items()}) if scores else None,
            }
        )
        self.progress.update(self.task, advance=1)

    def summary(self) -> dict[str, Any]:
        opts, names, lat = self.opts, metric_names(self.opts.ks), self.latencies
        n_q = len(self.questions)
        out: dict[str, Any] = {"questions": len(self.rows), "skipped_questions": n_q - len(self.rows)}
        # A retriever that raised on every question scores 0 everywhere: flag it instead of
        # letting it pass for a weak retriever.
        out["failed"] = self.failures == n_q
        # Category 5 (adversarial) asks what was never said: its "evidence" answers nothing, so
        # the overall figures are those of the answerable categories when there are any; it is
        # scored on its own (per category, and by the relevance floor below).
        answerable = [r for r, c in zip(self.rows, self.row_cats) if c != ADVERSARIAL]
        out["overall_categories"] = sorted({c for c in self.row_cats if c != ADVERSARIAL} or set(self.row_cats))
        out.update(aggregate(answerable or self.rows, names))
        out["latency_ms_p50"] = round(metrics.percentile(lat, 50), 2) if lat else None
        out["latency_ms_p95"] = round(metrics.percentile(lat, 95), 2) if lat else None
        out["latency_ms_mean"] = round(float(np.mean(lat)), 2) if lat else None
        out["warmup_ms"] = round(float(np.mean(self.warm_ms)), 1) if self.warm_ms else None
        out["items_per_query"] = round(float(np.mean(self.n_items)), 2) if self.n_items else 0.0
        out["turns_per_query"] = round(float(np.mean(self.n_turns)), 2) if self.n_turns else 0.0
        out["short_queries"] = sum(1 for n in self.n_turns if n < max(opts.ks))  # fewer than max k turns
        out["errors"] = self.failures
        if self.companion:  # scored from another retriever's calls: its latency is that call's
            out["ranking_of"] = self.name.removesuffix("_kept")
        if self.errors:
            out["error_examples"] = self.errors[:5]
        per_cat: dict[str, Any] = {}
        for c in opts.categories:
            sel = [r for r, rc in zip(self.rows, self.row_cats) if rc == c]
            total = sum(1 for x in self.questions if x.q.category == c)
            per_cat[str(c)] = {"questions": len(sel), "skipped_questions": total - len(sel), **aggregate(sel, names)}
        out["per_category"] = per_cat
        floor = floor_report(
            self.evidence,
            [(x.q.id, x.q.category, list(x.q.evidence)) for x in self.questions],
            max(opts.ks),
            self.min_score,
        )
        if floor is not None:
            out["relevance_floor"] = floor
        self.progress.update(self.task, description=f"retrieve {self.name} p50 {fmt_ms(out['latency_ms_p50'])}")
        return out


def _retrieve_all(
    questions: Sequence[_Question],
    stores: dict[str, Any],
    opts: BenchOptions,
    turn_sessions: dict[str, dict[str, str]],
    progress,
    min_score: float = 0.0,
) -> list[_RetrieverRun]:
    """Every retriever on every question, interleaved question by question (the retriever order
    rotating), so that load from other processes on a shared machine hits every retriever's
    latency alike instead of whichever retriever happened to run during a busy minute."""
    runs = [_RetrieverRun(name, opts, questions, turn_sessions, progress, min_score) for name in opts.retrievers]
    for run in runs:
        run.warm_up(stores)
        if is_navigator(run.name):
            run.kept = _RetrieverRun(f"{run.name}_kept", opts, questions, turn_sessions, progress, min_score)
            run.kept.companion = True
    for i, item in enumerate(questions):
        store = stores[item.namespace]
        for j in range(len(runs)):
            runs[(i + j) % len(runs)].run(item, store)
    return [r for run in runs for r in (run, run.kept) if r is not None]


def _answers_by_navigator(
    name: str, questions: Sequence[_Question], stores: dict[str, Any], model, settings: Settings, progress
) -> tuple[dict[str, str | None], dict[str, float], dict[str, Any]]:
    """The navigator answers through its own Responder (LLM policy): ``{qid: answer}`` (None
    where the Responder fell back), the summed navigator counters (LLM calls, tokens, steps),
    and what fell back: questions with a fallback, the most calls one question used."""
    from memgraph_agents.bench.prompts import NAV_ANSWER_SHORT
    from memgraph_agents.bench.qa import QA_EVIDENCE
    from memgraph_agents.navigator.run import anavigate
    from memgraph_agents.registry import options_for

    task = progress.add_task(f"navigate {name} (llm)", total=len(questions))
    # searches run side by side; their LLM calls share the model's process-wide limiter
    searches = asyncio.Semaphore(4 * settings.llm_max_concurrency)
    totals: dict[str, float] = {}
    info: dict[str, Any] = {"questions_with_fallback": 0, "max_llm_calls_per_question": 0, "fallback_examples": []}

    async def one(x: _Question) -> tuple[str, str | None]:
        async with searches:
            r = await anavigate(
                x.q.question,
                stores[x.namespace],
                llm=model,
                k=QA_EVIDENCE,
                context=options_for(name, policy="llm", answer_prompt=NAV_ANSWER_SHORT),
            )
        for key, v in r.counters.items():
            if isinstance(v, (int, float)):
                totals[key] = totals.get(key, 0) + v
        info["max_llm_calls_per_question"] = max(info["max_llm_calls_per_question"], int(r.counters["llm_calls"]))
        if r.fallbacks:
            info["questions_with_fallback"] += 1
            if len(info["fallback_examples"]) < 5:
                info["fallback_examples"].append(f"{x.q.id}: {r.fallbacks[0]}")
        progress.update(task, advance=1)
        return x.q.id, r.answer

    async def all_() -> dict[str, str | None]:
        return dict(await asyncio.gather(*(one(x) for x in questions)))

    answers = run_sync(all_())
    totals["calls"] = totals.pop("llm_calls", 0)  # the name qa_scores sums
    return answers, totals, info


def _run_qa(
    name: str,
    questions: Sequence[_Question],
    evidence_by_q: dict[str, list[Evidence]],
    settings: Settings,
    progress,
    records: list | None,
    stores: dict[str, Any] | None = None,
    *,
    judge: str = "strict",
    judge_llm: str | None = None,
) -> dict[str, Any]:
    from memgraph_agents.bench.qa import QA_EVIDENCE, QAItem, arun_qa, qa_scores
    from memgraph_agents.runtime import get_chat_model

    model = get_chat_model(settings)
    if model is None:
        raise ValueError("--qa needs an LLM: set MEMGRAPH_LLM (e.g. openai:gpt-4o-mini) or pass --llm")
    judge_model = get_chat_model(settings.model_copy(update={"llm": judge_llm})) if judge_llm else model
    answers: dict[str, str | None] = {}
    nav_usage: dict[str, float] = {}
    nav_info: dict[str, Any] = {}
    if stores is not None and is_navigator(name):
        answers, nav_usage, nav_info = _answers_by_navigator(name, questions, stores, model, settings, progress)
    items = [
        QAItem(
            qid=x.q.id,
            category=x.q.category,
            question=x.q.question,
            gold=x.q.answer,
            evidence=evidence_by_q.get(x.q.id, [])[:QA_EVIDENCE],
            speakers=list(x.sample.conversation.speakers),
            answer=answers.get(x.q.id),
        )  # None (no navigator answer): answered from the evidence
        for x in questions
    ]
    task = progress.add_task(f"qa {name}", total=len(items))
    outcomes, usage = run_sync(
        arun_qa(
            model,
            items,
            timeout=settings.llm_timeout,
            judge_model=judge_model,
            judge=judge,
            on_done=lambda o: progress.update(task, advance=1),
        )
    )
    if nav_usage:
        usage["navigator"] = nav_usage
    scores = qa_scores(outcomes, usage)
    fell_back = sum(1 for x in items if nav_usage and x.answer is None)
    if nav_usage:
        # only the questions the Responder answered count as its answers: say how many fell back
        scores["answered_by"] = (
            "navigator responder"
            if not fell_back
            else f"navigator responder ({len(items) - fell_back}), one-shot answer prompt "
            f"after a Responder fallback ({fell_back})"
        )
        scores["navigator"] = {**nav_info, "responder_fallbacks": fell_back}
    scores["fallbacks"] = {
        "navigator_questions": nav_info.get("questions_with_fallback", 0),
        "qa_llm_failures": scores["llm_failures"],
    }
    scores["judge"] = {"criteria": judge, "llm": judge_llm or settings.llm}
    progress.update(task, description=f"qa {name} judge {scores['judge_accuracy']:.3f}")
    if records is not None:
        for o in outcomes:
            by = "one-shot" if not nav_usage or answers.get(o.qid) is None else "navigator responder"
            records.append(
                {
                    "retriever": name,
                    "qid": o.qid,
                    "category": o.category,
                    "question": o.question,
                    "gold": o.gold,
                    "answer": o.answer,
                    "correct": o.correct,
                    "f1": round(o.f1, 4),
                    "reasoning": o.reasoning,
                    "error": o.error,
                    "qa": True,
                    "answered_by": by,
                }
            )
    return scores


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
