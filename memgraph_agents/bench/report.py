"""Render benchmark results: ``results.md`` (tables), ``recall.png`` (recall@k curves), and the
rows of the terminal tables. Everything here reads the ``results.json`` document only."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

__all__ = [
    "CATEGORY_NAMES",
    "CATEGORY_NOTE",
    "overall_rows",
    "category_rows",
    "qa_rows",
    "ingest_rows",
    "write_results",
    "write_markdown",
    "write_recall_png",
    "fmt",
    "seed_delta_rows",
    "seed_delta_columns",
]

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
    kmax = max(ks)
    rows = []
    for name, r in results["retrievers"].items():
        rows.append(
            [name]
            + [fmt(r.get(f"turn_recall@{k}")) for k in ks]
            + [
                fmt(r.get(f"hit@{kmax}")),
                fmt(r.get(f"session_recall@{kmax}")),
                fmt(r.get(f"answer_recall@{kmax}")),
                fmt(r.get(f"context_tokens@{kmax}"), 0),
                fmt(r.get("latency_ms_p50"), 1),
                fmt(r.get("latency_ms_p95"), 1),
            ]
        )
    return rows


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


def _md_table(columns: list[str], rows: list[list[str]]) -> str:
    head = "| " + " | ".join(columns) + " |"
    sep = "|" + "|".join(["---"] + ["--:"] * (len(columns) - 1)) + "|"
    body = ["| " + " | ".join(str(x).replace("|", "\\|") for x in r) + " |" for r in rows]
    return "\n".join([head, sep, *body])


def _machine_line(m: dict[str, Any]) -> str:
    ram = f"{m['ram_gb']} GB RAM" if m.get("ram_gb") is not None else "RAM unknown"
    load = ""
    if m.get("loadavg_start") or m.get("loadavg"):
        fmt_load = lambda xs: "/".join(f"{x:.1f}" for x in xs) if xs else "?"  # noqa: E731
        load = f"; load average (1/5/15 min) {fmt_load(m.get('loadavg_start'))} at start, {fmt_load(m.get('loadavg'))} at end"
    return f"{m.get('nproc')} CPUs ({m.get('cpu')}), {ram}; Python {m.get('python')}; {m.get('platform')}{load}"


def write_markdown(results: dict[str, Any], path: Path) -> Path:
    ks = results["ks"]
    kmax = max(ks)
    ing = results["ingest"]
    lines = [
        "# LoCoMo benchmark",
        "",
        f"- data: `{results['data']}` ({', '.join(results['conversations'])})",
        f"- questions: {results['questions']} in categories {', '.join(map(str, results['categories']))}; "
        f"{results['skipped_questions']} without resolvable evidence are left out of the retrieval averages",
        f"- builder: {results['builder']}; LLM: {results['llm']}; embeddings: {results['embeddings']}; "
        f"each retriever asked for {results['retrieve_k']} items",
        f"- command: `{results['command']}`",
        f"- machine: {_machine_line(results['machine'])}",
        f"- date: {results['date']}",
        "",
        "Turn recall@k (R@k): ranked evidence flattened into provenance turns (first occurrence wins), first k "
        "turns, |gold ∩ top-k| / |gold|. hit@k: all gold turns in the top k. Session recall: the same over "
        "sessions in order of first appearance. Answer recall / context words: gold-answer tokens found in, and "
        "words of, the ranked evidence prefix that yields the first k turns. Latency: wall time of one "
        "retrieve call as a user meets it: every query-side text (the question, its mentions, the navigator's "
        "subgoals) is embedded afresh in the timed call (the in-process query vectors are forgotten before each "
        "call; stored memory's vectors are read, never computed), after one warm-up "
        "query per namespace; retrievers take turns question by question. p50/p95 over the questions. "
        "Latencies depend on the machine's load: see the load averages above. `navigator_kept`: the navigator's "
        "ranking restricted to the turns of the events its search kept, scored from the same calls (its latency "
        "is the navigator's).",
        "",
        "## Retrieval, all categories",
        "",
        _md_table(overall_columns(results), overall_rows(results)),
        "",
        f"## Turn recall@{kmax} per category",
        "",
        _md_table(category_columns(results, f"turn_recall@{kmax}"), category_rows(results, f"turn_recall@{kmax}")),
        "",
    ]
    delta = seed_delta_rows(results)
    if delta:
        lines += [
            "## Navigator against its seed (`oneshot`: its localize node, the ranking it starts from)",
            "",
            _md_table(seed_delta_columns(results), delta),
            "",
        ]
    for c in results["categories"]:
        cols = (
            ["retriever", "questions"]
            + [f"R@{k}" for k in ks]
            + [f"hit@{kmax}", f"sess R@{kmax}", f"ans R@{kmax}", f"ctx words@{kmax}"]
        )
        rows = []
        for name, r in results["retrievers"].items():
            s = r.get("per_category", {}).get(str(c), {})
            rows.append(
                [name, fmt(s.get("questions"))]
                + [fmt(s.get(f"turn_recall@{k}")) for k in ks]
                + [
                    fmt(s.get(f"hit@{kmax}")),
                    fmt(s.get(f"session_recall@{kmax}")),
                    fmt(s.get(f"answer_recall@{kmax}")),
                    fmt(s.get(f"context_tokens@{kmax}"), 0),
                ]
            )
        lines += [f"### Category {_category_label(c)}", "", _md_table(cols, rows), ""]
    metric_names = [
        m
        for stem in ("turn_recall", "hit", "session_recall", "answer_recall", "context_tokens")
        for m in (f"{stem}@{k}" for k in ks)
    ]
    all_rows = [
        [name] + [fmt(r.get(m), 0 if m.startswith("context") else 3) for m in metric_names]
        for name, r in results["retrievers"].items()
    ]
    lines += ["## Every metric at every k", "", _md_table(["retriever"] + metric_names, all_rows), ""]
    extra = [
        [
            name,
            fmt(r.get("latency_ms_mean"), 1),
            fmt(r.get("warmup_ms"), 1),
            fmt(r.get("items_per_query"), 1),
            fmt(r.get("turns_per_query"), 1),
            fmt(r.get("short_queries")),
            fmt(r.get("errors")),
        ]
        for name, r in results["retrievers"].items()
    ]
    lines += [
        "## Retriever behaviour",
        "",
        _md_table(
            [
                "retriever",
                "mean ms",
                "warm-up ms",
                "items/query",
                "turns/query",
                f"queries with < {kmax} turns",
                "errors",
            ],
            extra,
        ),
        "",
    ]
    qrows = qa_rows(results)
    if qrows:
        judge = results.get("judge") or {}
        lines += [
            "## QA (answers from the top-10 evidence, LLM judge)",
            "",
            f"Judge: {judge.get('criteria', 'strict')} criteria, model {judge.get('llm', results['llm'])} "
            "(strict: the project's own judge; mem0: the lenient criteria of mem0's published judge, "
            "comparable with papers that use it). " + CATEGORY_NOTE,
            "",
            _md_table(QA_COLUMNS, qrows),
            "",
        ]
        fb = [
            [
                name,
                r["qa"].get("answered_by", "one-shot answer prompt"),
                fmt((r["qa"].get("fallbacks") or {}).get("navigator_questions")),
                fmt((r["qa"].get("navigator") or {}).get("max_llm_calls_per_question")),
                fmt(r["qa"].get("llm_failures")),
            ]
            for name, r in results["retrievers"].items()
            if r.get("qa")
        ]
        lines += [
            _md_table(
                [
                    "retriever",
                    "answered by",
                    "questions with a navigator fallback",
                    "max navigator calls/question",
                    "QA LLM failures",
                ],
                fb,
            ),
            "",
        ]
        usage = [
            [
                name,
                fmt(r["qa"]["llm"]["calls"]),
                fmt(r["qa"]["llm"]["input_tokens"]),
                fmt(r["qa"]["llm"]["output_tokens"]),
                fmt(r["qa"]["llm"]["calls_per_question"]),
                fmt(r["qa"]["llm"]["tokens_per_question"], 0),
            ]
            for name, r in results["retrievers"].items()
            if r.get("qa")
        ]
        lines += [
            _md_table(
                ["retriever", "LLM calls", "input tokens", "output tokens", "calls/question", "tokens/question"], usage
            ),
            "",
        ]
    lines += [
        "## Ingest",
        "",
        f"{ing['seconds']:.1f} s in total this run ({ing['state']}), {ing['turns']} turns "
        f"({ing['turns_new']} newly ingested), {ing['vectors']} vectors, "
        f"{ing['graph_bytes'] / 1e6:.1f} MB on disk; embedding model load {fmt(ing.get('embedding_model_load_seconds'), 1)} s "
        "(not counted). cold: vectors computed; warm: every vector computed already (in this process, or stored in the namespace); reused: already in memory. "
        "Last cold / warm: the latest full build of that kind recorded in this data dir (`bench/ingest_times.json`).",
        "",
        _md_table(INGEST_COLUMNS, ingest_rows(results)),
        "",
        "Nodes: " + ", ".join(f"{k} {v}" for k, v in ing["nodes"].items()),
        "",
        "Edges: " + ", ".join(f"{k} {v}" for k, v in ing["edges"].items()),
        "",
    ]
    per_session = ing.get("llm_per_session") or {}
    if per_session:
        lines += [
            f"LLM at ingest (preset {ing.get('preset', 'base')}), per newly built session: "
            + ", ".join(f"{k} {v}" for k, v in per_session.items()),
            "",
        ]
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


# --------------------------------------------------------------------------- plot


def write_recall_png(results: dict[str, Any], path: Path) -> Path:
    from memgraph_agents.extras import require

    matplotlib = require("matplotlib", "bench", "a benchmark's plot")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ks = results["ks"]
    fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharex=True)
    for ax, stem, title in ((axes[0], "turn_recall", "turn recall@k"), (axes[1], "session_recall", "session recall@k")):
        for name, r in results["retrievers"].items():
            ys = [r.get(f"{stem}@{k}") for k in ks]
            ys = [float("nan") if y is None else y for y in ys]
            ax.plot(ks, ys, marker="o", label=name)
        ax.set_title(title)
        ax.set_xlabel("k")
        ax.set_xticks(ks)
        ax.set_ylim(0, 1)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("recall")
    axes[0].legend(loc="lower right", fontsize="small")
    cats = ",".join(map(str, results["categories"]))
    fig.suptitle(
        f"LoCoMo ({len(results['conversations'])} conversations, categories {cats}, "
        f"{results['questions'] - results['skipped_questions']} questions), builder {results['builder']}"
    )
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def write_results(results: dict[str, Any], out: Path) -> dict[str, Path]:
    """``results.json``, ``results.md`` and ``recall.png`` in ``out`` (created)."""
    out.mkdir(parents=True, exist_ok=True)
    js = out / "results.json"
    js.write_text(json.dumps(results, indent=2, allow_nan=False) + "\n", encoding="utf-8")
    return {
        "json": js,
        "md": write_markdown(results, out / "results.md"),
        "png": write_recall_png(results, out / "recall.png"),
    }
