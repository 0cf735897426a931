"""QA on top of retrieval (``memgraph bench locomo --qa``): answer from evidence, then judge.

An LLM answers each question from the top-10 evidence of a retriever
(``bench/prompts/answer_short.txt``: evidence lines with absolute dates and turn ids, a concise
answer in LoCoMo's style; the library's own prompt writes full answers), and a second call grades
the answer against the gold one (CORRECT / WRONG, as JSON) with one of two criteria: ``strict``,
the project's own (``bench/prompts/judge_answer.txt``: another day than the gold day is wrong), or
``mem0``, the lenient criteria of mem0's published judge in the project's words
(``bench/prompts/judge_answer_mem0.txt``: an answer touching the same fact or period counts), whose
accuracies compare with papers that use mem0's judge. Scores per category:
token F1 with LoCoMo's normalisation, set F1, BLEU-1 and the judge's accuracy, plus the LLM
calls and tokens spent. A failed LLM call never stops the run: the answer is empty (or the
verdict WRONG) and the failure is counted.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, Field, field_validator

from memgraph_agents.bench import metrics
from memgraph_agents.bench.prompts import BENCH_PROMPTS
from memgraph_agents.errors import LLMError
from memgraph_agents.llm.answer import ANSWER_EVIDENCE as QA_EVIDENCE
from memgraph_agents.llm.answer import evidence_lines
from memgraph_agents.llm.structured import ainvoke_json
from memgraph_agents.llm.usage import LLMUsage
from memgraph_agents.model.evidence import Evidence, human_date
from memgraph_agents.prompts import render_prompt

__all__ = [
    "Answer",
    "Verdict",
    "QAItem",
    "QAOutcome",
    "evidence_lines",
    "human_date",
    "arun_qa",
    "qa_scores",
    "QA_EVIDENCE",
]


class Answer(BaseModel):
    answer: str = Field(description="the concise answer: a few words, a date or a comma-separated list")


class Verdict(BaseModel):
    reasoning: str = Field("", description="one short sentence")
    label: Literal["CORRECT", "WRONG"] = Field(description="CORRECT or WRONG")

    @field_validator("label", mode="before")
    @classmethod
    def _upper(cls, v: Any) -> Any:
        return v.strip().upper() if isinstance(v, str) else v


@dataclass
class QAItem:
    """One question to answer, with the evidence one retriever returned for it."""

    qid: str
    category: int
    question: str
    gold: str
    evidence: list[Evidence]
    speakers: list[str] = field(default_factory=list)
    answer: str | None = None  # already answered (the navigator's Responder): only judged


@dataclass
class QAOutcome:
    qid: str
    category: int
    question: str
    gold: str
    answer: str = ""
    correct: bool = False
    reasoning: str = ""
    error: str = ""  # the LLM failure, if any
    f1: float = 0.0
    set_f1: float = 0.0
    bleu1: float = 0.0


def answer_prompt(item: QAItem) -> str:
    speakers = " and ".join(item.speakers) if item.speakers else "two people"
    return render_prompt(
        "answer_short",
        package=BENCH_PROMPTS,
        speakers=speakers,
        question=item.question,
        evidence=evidence_lines(item.evidence),
    )


JUDGES = {"strict": "judge_answer", "mem0": "judge_answer_mem0"}  # criteria -> prompt file


def judge_prompt(item: QAItem, answer: str, judge: str = "strict") -> str:
    if judge not in JUDGES:
        raise ValueError(f"unknown judge {judge!r}: one of {', '.join(JUDGES)}")
    return render_prompt(
        JUDGES[judge], package=BENCH_PROMPTS, question=item.question, gold=item.gold, answer=answer or "(no answer)"
    )


async def _one(
    model,
    item: QAItem,
    *,
    answer_usage: LLMUsage,
    judge_usage: LLMUsage,
    timeout: float,
    semaphore: Any,
    judge_model: Any,
    judge: str,
) -> QAOutcome:
    out = QAOutcome(qid=item.qid, category=item.category, question=item.question, gold=item.gold)
    if item.answer is not None:
        out.answer = " ".join(item.answer.split())
    else:
        try:
            got = await ainvoke_json(
                model,
                answer_prompt(item),
                Answer,
                usage=answer_usage,
                timeout=timeout,
                semaphore=semaphore,
                run_name="bench:answer",
            )
            out.answer = " ".join(got.answer.split())
        except LLMError as e:
            out.error = f"answer: {e}"
    if out.answer:
        try:
            verdict = await ainvoke_json(
                judge_model,
                judge_prompt(item, out.answer, judge),
                Verdict,
                usage=judge_usage,
                timeout=timeout,
                run_name="bench:judge",
            )
            out.correct, out.reasoning = verdict.label == "CORRECT", verdict.reasoning
        except LLMError as e:
            out.error = (out.error + "; " if out.error else "") + f"judge: {e}"
    out.f1 = metrics.f1_locomo(out.answer, item.gold, item.category)
    out.set_f1 = metrics.set_f1(out.answer, item.gold)
    out.bleu1 = metrics.bleu1(out.answer, item.gold)
    return out


async def arun_qa(
    model,
    items: Sequence[QAItem],
    *,
    timeout: float = 60,
    concurrency: int | None = None,
    on_done: Callable[[QAOutcome], None] | None = None,
    judge_model: Any = None,
    judge: str = "strict",
) -> tuple[list[QAOutcome], dict[str, dict]]:
    """Answer and judge every item, all questions in flight together: the answering model's
    process-wide limiter bounds its calls (``concurrency`` slots of its own when given), the
    judge's (``judge_model``, default ``model``) bounds the judgements.

    Returns the outcomes in input order and the LLM usage ``{"answer": {...}, "judge": {...}}``.
    """
    judge_prompt(QAItem("", 0, "", "", []), "", judge)  # an unknown judge fails before any call
    answer_usage, judge_usage = LLMUsage(), LLMUsage()
    semaphore = asyncio.Semaphore(concurrency) if concurrency else None

    async def run(item: QAItem) -> QAOutcome:
        o = await _one(
            model,
            item,
            answer_usage=answer_usage,
            judge_usage=judge_usage,
            timeout=timeout,
            semaphore=semaphore,
            judge_model=judge_model or model,
            judge=judge,
        )
        if on_done is not None:
            on_done(o)
        return o

    outcomes = await asyncio.gather(*(run(i) for i in items))
    return list(outcomes), {"answer": answer_usage.snapshot(), "judge": judge_usage.snapshot()}


def _mean(values: Sequence[float]) -> float:
    return round(sum(values) / len(values), 4) if values else 0.0


def _scores(outcomes: Sequence[QAOutcome]) -> dict[str, Any]:
    return {
        "questions": len(outcomes),
        "f1": _mean([o.f1 for o in outcomes]),
        "set_f1": _mean([o.set_f1 for o in outcomes]),
        "bleu1": _mean([o.bleu1 for o in outcomes]),
        "judge_accuracy": _mean([float(o.correct) for o in outcomes]),
        "llm_failures": sum(1 for o in outcomes if o.error),
    }


def qa_scores(outcomes: Sequence[QAOutcome], usage: dict[str, dict]) -> dict[str, Any]:
    """Overall and per-category QA scores, plus LLM calls and tokens."""
    out = _scores(outcomes)
    out["per_category"] = {
        str(c): _scores([o for o in outcomes if o.category == c]) for c in sorted({o.category for o in outcomes})
    }
    calls = sum(u.get("calls", 0) for u in usage.values())
    tokens_in = sum(u.get("input_tokens", 0) for u in usage.values())
    tokens_out = sum(u.get("output_tokens", 0) for u in usage.values())
    out["llm"] = {
        "calls": calls,
        "input_tokens": tokens_in,
        "output_tokens": tokens_out,
        "calls_per_question": round(calls / len(outcomes), 3) if outcomes else 0.0,
        "tokens_per_question": round((tokens_in + tokens_out) / len(outcomes), 1) if outcomes else 0.0,
        **{f"{k}_usage": v for k, v in usage.items()},
    }
    return out
