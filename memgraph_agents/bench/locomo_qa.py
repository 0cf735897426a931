"""The QA phase of the LoCoMo bench (``--qa``): answers from each retriever's evidence, or the
navigator's own Responder, scored against the gold answers (``run_locomo_bench`` drives it)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from memgraph_agents.aio import run_sync
from memgraph_agents.bench.locomo_retrieve import _Question
from memgraph_agents.config import Settings
from memgraph_agents.model.evidence import Evidence
from memgraph_agents.registry import is_navigator


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
