"""Per-question retrieval scores and their averages (metric definitions: ``bench.metrics``)."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from memgraph_agents.bench import metrics
from memgraph_agents.model.evidence import Evidence, flatten_turns


def evidence_prefix(evidence: Sequence[Evidence], k: int) -> list[Evidence]:
    """The ranked evidence up to (and including) the item that brings the k-th distinct turn."""
    seen: set[str] = set()
    for i, ev in enumerate(evidence):
        seen.update(ev.turn_ids)
        if len(seen) >= k:
            return list(evidence[: i + 1])
    return list(evidence)


def session_from_id(turn_id: str) -> str | None:
    m = re.fullmatch(r"D(\d+):\d+", turn_id)
    return f"S{m[1]}" if m else None


def nanmean(values: Sequence[float]) -> float | None:
    x = np.asarray(values, dtype=np.float64)
    x = x[~np.isnan(x)] if x.size else x
    return round(float(x.mean()), 4) if x.size else None


def clean(value: Any) -> Any:
    """NaN / inf -> None, recursively (results.json must be valid JSON)."""
    if isinstance(value, float):
        return None if math.isnan(value) or math.isinf(value) else value
    if isinstance(value, dict):
        return {k: clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [clean(v) for v in value]
    return value


def metric_names(ks: Sequence[int]) -> list[str]:
    names = [f"turn_recall@{k}" for k in ks]
    for stem in ("hit", "ndcg", "session_recall", "answer_recall", "context_tokens"):
        names += [f"{stem}@{k}" for k in ks]
    return [*names, "hit_any@1"]


def score_question(
    evidence: Sequence[Evidence], gold: Sequence[str], answer: str, ks: Sequence[int], turn_session: dict[str, str]
) -> dict[str, float]:
    """Every retrieval metric of one question (``nan`` where undefined)."""
    ranked = flatten_turns(list(evidence))
    out: dict[str, float] = {"hit_any@1": metrics.first_hit(ranked, gold)}
    for k in ks:
        out[f"turn_recall@{k}"] = metrics.turn_recall_at_k(ranked, gold, k)
        out[f"hit@{k}"] = metrics.hit_at_k(ranked, gold, k)
        out[f"ndcg@{k}"] = metrics.ndcg_at_k(ranked, gold, k)
        out[f"session_recall@{k}"] = metrics.session_recall_at_k(ranked, gold, k, turn_session)
        texts = [ev.text for ev in evidence_prefix(evidence, k)]
        out[f"answer_recall@{k}"] = metrics.answer_recall_at_k(texts, answer)
        out[f"context_tokens@{k}"] = float(metrics.context_tokens(texts))
    return out


def fmt_ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f} ms"


def aggregate(rows: Sequence[dict[str, float]], names: Sequence[str]) -> dict[str, float | None]:
    return {n: nanmean([r[n] for r in rows]) for n in names}
