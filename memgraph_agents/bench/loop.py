"""``memgraph bench loop``: memory in the loop, as an agent meets it.

A conversation file's transcript is stored first (one namespace per conversation, as
``memgraph ingest`` does). Its questions are then asked twice:

* **transcript alone**: ``Memory.search`` over the stored transcript;
* **in the loop**: each question is a user message to a ``create_agent`` agent whose only
  middleware is ``MemoryMiddleware`` (the production path: the user's message and the agent's
  reply are written to memory after the turn), and the agent's ``recall`` is asked after the
  write, so memory holds the question itself, the reply and every earlier exchange. The agent's
  model is a deterministic fake whose reply echoes the question (``echo_reply``): the worst case
  for ranking, since it shares every word of the question.

Off-topic questions (``OFFTOPIC``, invented for this bench; every ``offtopic_every``-th message)
go through the same loop. Reported per conversation and overall: turn recall@k in the loop and
on the transcript alone (the same questions), the share of questions whose first 3 items hold
one of the agent's own turns (the loop's thread: its questions and replies), the share of
off-topic questions refused ("nothing relevant in memory") and the share of answerable ones
left empty.
"""

from __future__ import annotations

import math
import shutil
import statistics
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from memgraph_agents.bench.metrics import turn_recall_at_k
from memgraph_agents.config import Settings
from memgraph_agents.model.evidence import flatten_turns

THREAD = "loop"  # the chat thread of the loop: its sessions are "loop-s1", …; its turns "loop-s1:N"

# Questions no conversation of a memory answers, invented for this bench in many styles (general
# knowledge, tasks for an assistant, arithmetic, code, small talk, advice); none of them is in the
# relevance gate's calibration set (docs/bench-gate/chats_a.json).
OFFTOPIC = (
    "What is the capital of Australia?",
    "how do i convert a string to an int in rust",
    "Write a limerick about a sleepy owl.",
    "What is 48 divided by 6?",
    "Who painted The Starry Night?",
    "Can you recommend a thriller novel for a long flight?",
    "What's the difference between baking soda and baking powder?",
    "Translate 'see you tomorrow' into Italian.",
    "How many players are on a rugby union team?",
    "Explain what a black hole is to a child.",
    "what year did the first iphone come out",
    "Draft a polite reminder about an unpaid invoice.",
    "Which gas do plants absorb from the air?",
    "How do I descale a kettle?",
    "Tell me a fun fact about penguins.",
    "What is the longest river in South America?",
    "Suggest three names for a bakery.",
    "How does compound interest work?",
    "Is it safe to eat raw cookie dough?",
    "hi there, are you awake?",
)


def echo_reply(question: str) -> str:
    """The fake agent's reply: it repeats the question, as an assistant restating a request does."""
    return f"You asked: {question.strip()} Let me check what you told me before."


def echo_model():
    """A deterministic chat model replying ``echo_reply(last user message)`` (a real
    ``BaseChatModel``, so ``create_agent`` runs it as it runs a provider's)."""
    from langchain_core.language_models import BaseChatModel
    from langchain_core.messages import AIMessage, HumanMessage
    from langchain_core.outputs import ChatGeneration, ChatResult

    class EchoChatModel(BaseChatModel):
        @property
        def _llm_type(self) -> str:
            return "memgraph-bench-echo"

        def _generate(self, messages, stop=None, run_manager=None, **kwargs) -> ChatResult:
            asked = next((m.content for m in reversed(messages) if isinstance(m, HumanMessage)), "")
            return ChatResult(generations=[ChatGeneration(message=AIMessage(content=echo_reply(str(asked))))])

    return EchoChatModel()


def _recall(ranked: list[str], gold: list[str], k: int) -> float:
    return turn_recall_at_k(ranked, gold, k) if gold else math.nan


def _own(ranked: list[str], n: int = 3) -> bool:
    return any(t.startswith(f"{THREAD}-s") for t in ranked[:n])


def _mean(values: Sequence[float]) -> float:
    vals = [v for v in values if not math.isnan(v)]
    return statistics.fmean(vals) if vals else math.nan


def run_loop(
    settings: Settings,
    work: Path,
    samples: list,
    *,
    k: int = 10,
    retriever: str | None = None,
    offtopic_every: int = 5,
    limit: int | None = None,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """The bench over ``samples`` (``LocomoSample``s whose transcripts ``settings.data_dir``
    holds, one namespace per sample id): the transcript side read from there, the loop written
    into a copy of it at ``work`` (offline, whatever ``settings.llm`` says). Returns
    ``{"k": k, "conversations": {...}, "overall": {...}, "rows": [...]}``."""
    from langchain.agents import create_agent
    from langchain_core.messages import HumanMessage

    from memgraph_agents.api import Memory
    from memgraph_agents.integrations.agent_memory import AgentMemory
    from memgraph_agents.integrations.hooks import MemoryMiddleware

    if work.exists():
        shutil.rmtree(work)
    shutil.copytree(settings.data_dir, work)
    base = settings.override(llm="none")
    looped = settings.override(data_dir=work, llm="none")
    transcript = Memory(settings=base)
    rows: list[dict[str, Any]] = []
    for sample in samples:
        ns = sample.sample_id
        questions = list(sample.questions)[:limit] if limit else list(sample.questions)
        memory = AgentMemory(looped, retriever=retriever, k=k, default_namespace=ns, read_wait=120)
        agent = create_agent(echo_model(), tools=[], middleware=[MemoryMiddleware(memory)])
        config: Any = {"configurable": {"thread_id": THREAD}}
        asked: list[tuple[str, Any]] = []
        for i, q in enumerate(questions):
            asked.append((q.question, q))
            if offtopic_every and (i + 1) % offtopic_every == 0:
                asked.append((OFFTOPIC[(len(rows) + i) % len(OFFTOPIC)], None))
        t0 = time.perf_counter()
        for text, q in asked:
            alone = transcript.search(text, namespace=ns, k=k, retriever=retriever)
            agent.invoke({"messages": [HumanMessage(content=text)]}, config=config)
            memory.flush()
            res = memory.recall(text, config=config)
            loop_ids, alone_ids = flatten_turns(res.evidence), flatten_turns(list(alone))
            gold = list(q.evidence) if q is not None else []
            rows.append(
                {
                    "conversation": ns,
                    "question": text,
                    "category": q.category if q is not None else None,
                    "offtopic": q is None,
                    "alone": alone_ids[:k],
                    "loop": loop_ids[:k],
                    "alone_recall": _recall(alone_ids, gold, k),
                    "loop_recall": _recall(loop_ids, gold, k),
                    "own_top3": _own(loop_ids),
                    "alone_empty": not alone_ids,
                    "loop_empty": not loop_ids,
                    "loop_reason": str(res.reason) if res.reason is not None else None,
                }
            )
        memory.writer.close()
        if progress:
            progress(f"{ns}: {len(asked)} messages in {time.perf_counter() - t0:.0f} s")
    return {"k": k, "conversations": summarise_by(rows), "overall": summarise(rows), "rows": rows}


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The bench's figures over ``rows``."""
    ans = [r for r in rows if not r["offtopic"]]
    off = [r for r in rows if r["offtopic"]]
    alone = _mean([r["alone_recall"] for r in ans])
    loop = _mean([r["loop_recall"] for r in ans])
    return {
        "questions": len(ans),
        "offtopic": len(off),
        "recall_alone": alone,
        "recall_loop": loop,
        "recall_drop": alone - loop,
        "own_in_top3": _mean([float(r["own_top3"]) for r in ans]),
        "offtopic_refused_loop": _mean([float(r["loop_empty"]) for r in off]),
        "offtopic_refused_alone": _mean([float(r["alone_empty"]) for r in off]),
        "answerable_empty_loop": _mean([float(r["loop_empty"]) for r in ans]),
        "answerable_empty_alone": _mean([float(r["alone_empty"]) for r in ans]),
    }


def summarise_by(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    names = list(dict.fromkeys(r["conversation"] for r in rows))
    return {n: summarise([r for r in rows if r["conversation"] == n]) for n in names}
