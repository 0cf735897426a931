"""The rows and columns of a LoCoMo bench's tables (terminal and ``results.md``), read from the
``results.json`` document only."""

from __future__ import annotations

from typing import Any

CATEGORY_NAMES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
# The numbers are the ``category`` field of LoCoMo's data file. mem0's paper (and papers reusing
# its evaluation) label the same questions by name in another order: compare per category by name.
CATEGORY_NOTE = (
    "Categories are LoCoMo's own numbers (the data file's `category`: 1 multi-hop, 2 temporal, "
    "3 open-domain, 4 single-hop, 5 adversarial); mem0's paper numbers and orders them differently, "
    "so compare with it by category name, not number."
)


def fmt(value: Any, digits: int = 3) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if abs(value) >= 100:
            return f"{value:.0f}"
        return f"{value:.{digits}f}"
    return str(value)


def _category_label(c: str | int) -> str:
    return f"{c} {CATEGORY_NAMES.get(int(c), '')}".strip()


# --------------------------------------------------------------------------- table rows


def overall_columns(results: dict[str, Any]) -> list[str]:
    ks = results["ks"]
    kmax = max(ks)
    return (
        ["retriever"]
        + [f"R@{k}" for k in ks]
        + [f"hit@{kmax}", f"sess R@{kmax}", f"ans R@{kmax}", f"ctx words@{kmax}", "p50 ms", "p95 ms"]
    )


def overall_rows(results: dict[str, Any]) -> list[list[str]]:
    ks = results["ks"]
    return [
        [name, *recall_cells(r, ks), fmt(r.get("latency_ms_p50"), 1), fmt(r.get("latency_ms_p95"), 1)]
        for name, r in results["retrievers"].items()
    ]


def recall_cells(stats: dict[str, Any], ks: list[int]) -> list[str]:
    """One row's R@k for each k, then hit, session and answer recall and context words at the largest k."""
    kmax = max(ks)
    return [fmt(stats.get(f"turn_recall@{k}")) for k in ks] + [
        fmt(stats.get(f"hit@{kmax}")),
        fmt(stats.get(f"session_recall@{kmax}")),
        fmt(stats.get(f"answer_recall@{kmax}")),
        fmt(stats.get(f"context_tokens@{kmax}"), 0),
    ]


def category_columns(results: dict[str, Any], metric: str) -> list[str]:
    cols = ["retriever"]
    for c in results["categories"]:
        n = results.get("questions_per_category", {}).get(str(c))
        cols.append(f"{_category_label(c)}" + (f" ({n})" if n is not None else ""))
    return cols


def category_rows(results: dict[str, Any], metric: str) -> list[list[str]]:
    rows = []
    for name, r in results["retrievers"].items():
        per = r.get("per_category", {})
        rows.append([name] + [fmt(per.get(str(c), {}).get(metric)) for c in results["categories"]])
    return rows


QA_COLUMNS = ["retriever", "category", "questions", "F1", "set F1", "BLEU-1", "judge acc", "LLM fails"]


def qa_rows(results: dict[str, Any]) -> list[list[str]]:
    rows = []
    for name, r in results["retrievers"].items():
        qa = r.get("qa")
        if not qa:
            continue
        for label, s in [("all", qa)] + [(_category_label(c), s) for c, s in qa.get("per_category", {}).items()]:
            rows.append(
                [
                    name,
                    label,
                    fmt(s.get("questions")),
                    fmt(s.get("f1")),
                    fmt(s.get("set_f1")),
                    fmt(s.get("bleu1")),
                    fmt(s.get("judge_accuracy")),
                    fmt(s.get("llm_failures")),
                ]
            )
    return rows


INGEST_COLUMNS = [
    "conversation",
    "state",
    "seconds",
    "sessions new/total",
    "turns",
    "emb cache hit/miss",
    "nodes",
    "edges",
    "last cold s",
    "last warm s",
]


def ingest_rows(results: dict[str, Any]) -> list[list[str]]:
    rows = []
    for cid, p in results["ingest"]["per_conversation"].items():
        cache = p.get("embedding_cache", {})
        hist = p.get("history") or {}
        rows.append(
            [
                cid,
                p["state"],
                fmt(p["seconds"], 1),
                f"{p['sessions_new']}/{p['sessions']}",
                fmt(p["turns"]),
                f"{cache.get('hits', 0)}/{cache.get('misses', 0)}",
                fmt(p["nodes"]),
                fmt(p["edges"]),
                fmt((hist.get("cold") or {}).get("seconds"), 1),
                fmt((hist.get("warm") or {}).get("seconds"), 1),
            ]
        )
    return rows


def seed_delta_rows(results: dict[str, Any], navigator: str = "navigator", seed: str = "oneshot") -> list[list[str]]:
    """Rows of ``navigator − seed`` turn recall per k and per category at max k (both must be
    in the results; empty otherwise): what the navigator's search adds to the ranking it starts from."""
    rs = results["retrievers"]
    if navigator not in rs or seed not in rs:
        return []
    kmax = max(results["ks"])
    rows = []
    for name in (navigator, f"{navigator}_kept"):
        if name not in rs:
            continue
        a, b = rs[name], rs[seed]
        row = [f"{name} − {seed}"] + [
            _delta(a.get(f"turn_recall@{k}"), b.get(f"turn_recall@{k}")) for k in results["ks"]
        ]
        row += [
            _delta(
                a.get("per_category", {}).get(str(c), {}).get(f"turn_recall@{kmax}"),
                b.get("per_category", {}).get(str(c), {}).get(f"turn_recall@{kmax}"),
            )
            for c in results["categories"]
        ]
        rows.append(row)
    return rows


def seed_delta_columns(results: dict[str, Any]) -> list[str]:
    kmax = max(results["ks"])
    return (
        ["difference"]
        + [f"R@{k}" for k in results["ks"]]
        + [f"R@{kmax} {_category_label(c)}" for c in results["categories"]]
    )


def _delta(a: float | None, b: float | None) -> str:
    return "-" if a is None or b is None else f"{a - b:+.3f}"


# --------------------------------------------------------------------------- markdown
