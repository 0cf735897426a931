"""LLM robustness at ingest scale, with scripted fake chat models.

``tests/test_llm_structured.py`` checks one request (timeout, retry, repair, a semaphore);
``tests/test_ingest_llm.py`` a three-session ingest per failure mode. Here:

* a hundred-session ingest where single sessions time out, get 429s, get a permanent 400,
  or get garbage: the bad ones are built offline (and say why), the rest by the LLM, all
  hundred are stored, rate-limited requests are retried with exponential backoff;
* call / token accounting: the ingest report, the per-session records and the model's own
  count of requests agree, tokens included;
* a bound on concurrent LLM calls for the whole process, across asyncio tasks and threads
  that ingest into many namespaces at once.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections import defaultdict
from datetime import datetime, timedelta

import pytest

import memgraph_agents.llm.structured as structured
from memgraph_agents.ingest import aingest_conversation, ingest_conversation
from memgraph_agents.llm.limits import call_limiter
from memgraph_agents.model import Conversation, Session, Turn
from memgraph_agents.runtime import get_store, register_chat_model
from tests.fakes import (
    EVENTS_MARKER,
    RELATIONS_MARKER,
    FakeBadRequestError,
    FakeRateLimitError,
    FakeServerError,
    Reply,
    ScriptedChatModel,
    always_malformed,
    ingest_responder,
    parse_turn_lines,
    task_text,
)
from tests.workloads import conversation

pytestmark = pytest.mark.slow  # seconds per test: left out of the fast subset (-m "not slow")

SPEC = "fake:robust"


def many_sessions(n: int, cid: str = "long") -> Conversation:
    topics = [
        "a pottery class",
        "a trip to Porto",
        "the new puppy",
        "a chess match",
        "the library job",
        "a marathon",
        "a birthday party",
        "the garden",
        "a concert",
        "a job interview",
    ]
    sessions = []
    for s in range(1, n + 1):
        t = topics[s % len(topics)]
        lines = [
            ("Ana", f"Session {s}: yesterday I went to {t} with Ben number {s}."),
            ("Ben", f"Nice! How was {t}? I remember day {s} well."),
            ("Ana", f"It was great. Next week I start {topics[(s + 3) % len(topics)]}."),
            ("Ben", "Tell me all about it when you are back."),
        ]
        n_turns = 4 if s % 10 == 2 else 2  # two events, so a relations call, in every tenth session
        sessions.append(
            Session(
                id=f"S{s}",
                date=datetime(2023, 1, 1, 9) + timedelta(days=3 * s),
                turns=[
                    Turn(id=f"D{s}:{i}", speaker=sp, text=tx) for i, (sp, tx) in enumerate(lines[:n_turns], start=1)
                ],
            )
        )
    return Conversation(id=cid, sessions=sessions, speakers=["Ana", "Ben"])


def session_of(messages) -> str:
    """``S7`` for a prompt that lists turns ``D7:*`` (events) or cites them (relations)."""
    text = task_text(messages)
    ids = [t["id"] for t in parse_turn_lines(text)]
    if not ids:
        import re

        ids = re.findall(r"\bD(\d+):\d+", text)
        return f"S{ids[0]}" if ids else ""
    return "S" + ids[0].split(":")[0][1:]


BAD = {
    "S13": "garbage",
    "S37": "timeout",
    "S51": "rate_limited_then_ok",
    "S64": "bad_request",
    "S80": "overloaded_then_ok",
    "S92": "relations_garbage",
}


def faulty_responder(log: dict[str, list[float]]):
    good = ingest_responder()
    broken = always_malformed()
    seen: dict[tuple[str, str], int] = defaultdict(int)
    lock = threading.Lock()

    def respond(messages):
        sid, task = session_of(messages), task_text(messages)
        kind = "events" if EVENTS_MARKER in task else "relations" if RELATIONS_MARKER in task else "other"
        with lock:
            seen[(sid, kind)] += 1
            n = seen[(sid, kind)]
            log[f"{sid}:{kind}"].append(time.perf_counter())
        mode = BAD.get(sid)
        if kind == "events":
            if mode == "garbage":
                return broken(messages)
            if mode == "timeout":
                return Reply(text=good(messages), delay=2.0)
            if mode == "rate_limited_then_ok" and n <= 2:
                return FakeRateLimitError()
            if mode == "overloaded_then_ok" and n <= 1:
                return FakeServerError()
            if mode == "bad_request":
                return FakeBadRequestError()
        if kind == "relations" and mode == "relations_garbage":
            return "I think they are related, but I cannot say how."
        return good(messages)

    return respond


def test_a_hundred_sessions_with_failing_ones_all_stored_and_accounted(settings, monkeypatch):
    monkeypatch.setattr(structured, "DEFAULT_BACKOFF_BASE", 0.05)
    log: dict[str, list[float]] = defaultdict(list)
    model = ScriptedChatModel(responder=faulty_responder(log))
    register_chat_model(SPEC, model)
    conv = many_sessions(100)
    s = settings.model_copy(update={"llm": SPEC, "llm_timeout": 0.3})
    t0 = time.perf_counter()
    report = ingest_conversation(conv, s)
    seconds = time.perf_counter() - t0

    store = get_store(s)
    records = {r["id"]: r for r in store.sessions()}
    assert report.sessions_new == 100 and len(records) == 100  # one bad session stops nothing
    turns = {r[0] for r in store.db.raw_nodes() if r[1] == "turn"}
    assert turns == {f"turn:{t.id}" for x in conv.sessions for t in x.turns}

    # The bad sessions were built offline and say why; everything else came from the LLM.
    why = {"S13": "LLMOutputError", "S37": "LLMTimeoutError", "S64": "LLMCallError"}
    for sid, record in records.items():
        notes = " ".join(record["info"]["notes"])
        if sid in why:
            assert record["builder"] == "offline" and why[sid] in notes and "offline fallback" in notes, (sid, notes)
        else:
            assert record["builder"] == "llm", (sid, notes)
    assert "relations: LLM failed (LLMOutputError)" in " ".join(records["S92"]["info"]["notes"])
    assert {n.split(":", 1)[0] for n in report.notes} >= {"S13", "S37", "S64", "S92"}

    # Transient errors were retried with exponential backoff (base 0.05 s, doubling, +0-25% jitter).
    s51 = log["S51:events"]
    assert len(s51) == 3 and s51[1] - s51[0] >= 0.05 and s51[2] - s51[1] >= 0.1
    assert len(log["S80:events"]) == 2 and len(log["S64:events"]) == 1  # 503 retried; 400 not
    # A timeout is not retried and does not wait for the slow reply.
    assert len(log["S37:events"]) == 1
    assert seconds < 60

    # Accounting: report = sum of the per-session records = what the model saw.
    u = report.llm_usage
    assert u["calls"] == len(model.calls)
    per_session = defaultdict(float)
    for r in records.values():
        for k, v in r["info"]["usage"].items():
            per_session[k] += v
    for k in ("calls", "failures", "retries", "input_tokens", "output_tokens", "total_tokens"):
        assert per_session[k] == pytest.approx(u[k]), k
    assert u["total_tokens"] == u["input_tokens"] + u["output_tokens"] > 0
    assert u["retries"] >= 2 + 1 + 1  # S51's two retries, S80's one, S13's repair turn
    assert u["failures"] >= 2 + 1 + 1 + 1 + 1
    s1 = records["S1"]["info"]["usage"]
    assert s1["calls"] >= 1 and s1["failures"] == 0 and s1["input_tokens"] > 0 and s1["output_tokens"] > 0


class CountingModel(ScriptedChatModel):
    """Counts requests in flight (across threads and event loops) and the most at once."""

    active: int = 0
    peak: int = 0
    lock: object = None

    def model_post_init(self, __context) -> None:
        self.lock = threading.Lock()

    async def _agenerate(self, messages, stop=None, run_manager=None, **kwargs):
        with self.lock:
            self.active += 1
            self.peak = max(self.peak, self.active)
        try:
            return await super()._agenerate(messages, stop, run_manager, **kwargs)
        finally:
            with self.lock:
                self.active -= 1


@pytest.mark.parametrize("limit", [1, 3])
def test_concurrent_llm_calls_are_bounded_for_the_whole_process(settings, limit):
    spec = f"fake:bounded-{limit}"
    model = CountingModel(responder=ingest_responder(), delay=0.03)
    register_chat_model(spec, model)
    s = settings.model_copy(update={"llm": spec, "llm_max_concurrency": limit})
    convs = [conversation(f"c{i}", 2, tag=f"c{i}", turns=3) for i in range(8)]

    async def tasks():  # five namespaces from asyncio tasks on one loop
        return await asyncio.gather(
            *(aingest_conversation(c, s, namespace=f"task{i}") for i, c in enumerate(convs[:5]))
        )

    reports = []
    threads = [
        threading.Thread(target=lambda c=c, i=i: reports.append(ingest_conversation(c, s, namespace=f"thr{i}")))
        for i, c in enumerate(convs[5:])
    ]  # three more from threads, each with its own loop
    for t in threads:
        t.start()
    reports += asyncio.run(tasks())
    for t in threads:
        t.join(120)
    assert len(reports) == 8 and all(r.sessions_new == 2 for r in reports)
    assert all(r.llm_usage["failures"] == 0 for r in reports)  # waiting for a slot is not a timeout
    assert model.peak <= limit
    assert model.peak == limit  # and the bound is reached: the ingests really ran side by side
    limiter = call_limiter(spec, limit)
    assert limiter.peak == model.peak and limiter.active == 0
    assert sum(r.llm_usage["calls"] for r in reports) == len(model.calls)
