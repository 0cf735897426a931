"""The retrieval phase of the LoCoMo bench: every retriever on every question, interleaved,
with per-question scores and latencies (``run_locomo_bench`` drives it)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from memgraph_agents.bench import metrics
from memgraph_agents.bench.floor import ADVERSARIAL, floor_report
from memgraph_agents.bench.options import (
    BenchOptions,
)
from memgraph_agents.bench.scoring import (
    aggregate,
    clean,
    fmt_ms,
    metric_names,
    score_question,
    session_from_id,
)
from memgraph_agents.loaders import LocomoQuestion, LocomoSample
from memgraph_agents.model.evidence import Evidence, flatten_turns
from memgraph_agents.registry import is_navigator

WARMUP_QUERY = "What did we talk about the last time we met?"


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
