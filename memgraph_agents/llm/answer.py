"""Answer a question from ranked evidence with a chat model (``Memory.ask``; the benchmark too).

The evidence is shown as ``[14 March 2027 | S1:3,S1:4] text`` lines, best first. The prompt is a
file: the library's (``prompts/answer_question.txt``) writes a full answer with dates and turn
citations for an agent user; the benchmark passes its own short-answer prompt.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, Field

from memgraph_agents.llm.structured import ainvoke_json
from memgraph_agents.llm.usage import LLMUsage
from memgraph_agents.model.evidence import Evidence
from memgraph_agents.prompts import render_prompt

ANSWER_EVIDENCE = 10  # evidence items shown to the answering model
_MAX_ITEM_CHARS = 4000  # a session-sized evidence item is cut here in the prompt


class WrittenAnswer(BaseModel):
    answer: str = Field(description="the answer to the question")
    turn_ids: list[str] = Field(default_factory=list, description="ids of the turns the answer rests on")


def evidence_lines(evidence: Sequence[Evidence], limit: int = ANSWER_EVIDENCE) -> str:
    """``[14 March 2027 | D1:3,D1:4] text`` lines, best first (``Evidence.cite``): a statement a
    later one replaced says so, ``(superseded on 2 May 2027 by D5:1)``."""
    lines = [ev.cite(human=True, max_turns=8, max_chars=_MAX_ITEM_CHARS) for ev in evidence[:limit]]
    return "\n".join(lines) if lines else "(no excerpt was found)"


def speakers_of(evidence: Sequence[Evidence]) -> str:
    """Who talks in the evidence (``Name: text`` turns), for the prompt's first line."""
    names = list(
        dict.fromkeys(ev.text.split(":", 1)[0].strip() for ev in evidence if ev.kind == "turn" and ":" in ev.text[:60])
    )
    return " and ".join(names[:4]) if names else "the user and the assistant"


async def aanswer(
    model: Any,
    question: str,
    evidence: Sequence[Evidence],
    *,
    speakers: str | None = None,
    prompt: str = "answer_question",
    prompt_package: str | None = None,
    usage: LLMUsage | None = None,
    timeout: float = 60.0,
    semaphore: Any = None,
) -> WrittenAnswer:
    """One structured call; raises ``LLMError`` when the model fails (the caller decides)."""
    text = render_prompt(
        prompt,
        package=prompt_package,
        speakers=speakers or speakers_of(evidence),
        question=question,
        evidence=evidence_lines(evidence),
    )
    return await ainvoke_json(
        model, text, WrittenAnswer, usage=usage, timeout=timeout, semaphore=semaphore, run_name="memgraph:answer"
    )
