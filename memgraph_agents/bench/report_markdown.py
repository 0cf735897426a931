"""``results.md``: a LoCoMo bench's tables and notes in Markdown, read from the ``results.json``
document only."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memgraph_agents.bench.report_tables import (
    CATEGORY_NOTE,
    INGEST_COLUMNS,
    QA_COLUMNS,
    _category_label,
    category_columns,
    category_rows,
    fmt,
    ingest_rows,
    overall_columns,
    overall_rows,
    qa_rows,
    recall_cells,
    seed_delta_columns,
    seed_delta_rows,
)


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
            rows.append([name, fmt(s.get("questions")), *recall_cells(s, ks)])
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
