"""The relevance floor on a benchmark run: can the best match tell "memory has nothing on this"?

LoCoMo's category 5 asks about things never said (an adversarial premise: someone else's
trip, an event that did not happen). For one retriever's run over answerable questions
(categories 1-4) and category 5, per question ``top`` is the highest ``Evidence.relevance``
among its first ``k`` items (``retrieval.relevance``: comparable across questions). Reported:

* ``auroc`` — how well ``top`` separates answerable questions (positives) from category 5
  (``bench.metrics.auroc``; 0.5 is chance);
* for each floor ``f`` of ``FLOORS`` (and the configured default): answerable turn recall@k
  when items below ``f`` are dropped (as ``Memory.search(min_score=f)`` drops them), the recall
  lost against no floor, and the share of answerable and of category-5 questions left with
  nothing (the "nothing relevant in memory" outcome).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from memgraph_agents.bench import metrics
from memgraph_agents.model.evidence import Evidence, flatten_turns

ADVERSARIAL = 5
FLOORS = (0.0, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4)


def _top(evidence: Sequence[Evidence], k: int) -> float | None:
    rel = [ev.relevance for ev in evidence[:k] if ev.relevance is not None]
    return max(rel) if rel else None


def floor_report(
    evidence: Mapping[str, list[Evidence]],
    questions: Sequence[tuple[str, int, list[str]]],
    k: int,
    default: float,
) -> dict[str, Any] | None:
    """``questions``: ``(qid, category, gold turn ids)``; ``None`` unless both answerable and
    category-5 questions are present."""
    pos = [(qid, gold) for qid, c, gold in questions if c != ADVERSARIAL]
    neg = [qid for qid, c, _ in questions if c == ADVERSARIAL]
    if not pos or not neg:
        return None
    top_pos = [_top(evidence.get(q, []), k) for q, _ in pos]
    top_neg = [_top(evidence.get(q, []), k) for q in neg]
    out: dict[str, Any] = {
        "k": k,
        "answerable": len(pos),
        "adversarial": len(neg),
        "auroc": _r(metrics.auroc([t for t in top_pos if t is not None], [t for t in top_neg if t is not None])),
        "top_relevance_answerable_p05_p50": _pcts(top_pos),
        "top_relevance_adversarial_p05_p50": _pcts(top_neg),
    }
    base = _recall(evidence, pos, k, 0.0)
    rows = []
    for f in sorted({*FLOORS, default}):
        r = _recall(evidence, pos, k, f)
        rows.append(
            {
                "floor": f,
                "default": f == default,
                f"turn_recall@{k}": _r(r),
                "recall_lost": _r(base - r),
                "answerable_nothing": _r(_share_nothing(evidence, [q for q, _ in pos], k, f)),
                "adversarial_nothing": _r(_share_nothing(evidence, neg, k, f)),
            }
        )
    out["floors"] = rows
    return out


def _kept(evidence: Sequence[Evidence], k: int, floor: float) -> list[Evidence]:
    return [ev for ev in evidence[:k] if ev.relevance is None or ev.relevance >= floor]


def _recall(evidence: Mapping[str, list[Evidence]], pos: Sequence[tuple[str, list[str]]], k: int, f: float) -> float:
    vals = [
        metrics.turn_recall_at_k(flatten_turns(_kept(evidence.get(q, []), k, f)), gold, k) for q, gold in pos if gold
    ]
    vals = [v for v in vals if not math.isnan(v)]
    return float(np.mean(vals)) if vals else math.nan


def _share_nothing(evidence: Mapping[str, list[Evidence]], qids: Sequence[str], k: int, f: float) -> float:
    return float(np.mean([not _kept(evidence.get(q, []), k, f) for q in qids])) if qids else math.nan


def _pcts(values: Sequence[float | None]) -> list[float | None]:
    x = [v for v in values if v is not None]
    return [_r(metrics.percentile(x, 5)), _r(metrics.percentile(x, 50))] if x else [None, None]


def _r(v: float | None) -> float | None:
    return None if v is None or math.isnan(v) else round(float(v), 4)
