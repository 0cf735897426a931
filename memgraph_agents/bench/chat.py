"""``memgraph bench chat``: a chat thread written turn by turn vs ingested at once.

The same synthetic thread (invented, deterministic text) goes into two fresh data dirs:
once as one session, and once one turn per write, as the chat writer does (each write is the
whole transcript so far; only its new turn is built). Reported: total wall and CPU seconds of
each (medians over ``repeat`` runs), their ratios (goal: at most 2), write latency p50 / p95
/ max, the size of each Chroma directory (deleted vectors left behind by rewrites would show
up there), and the model calls, texts and characters the embedding model computed for each
(the part of the cost that does not depend on how busy the machine is).

The floor a write is held against: a LangGraph ``InMemoryStore.put`` of the same new turn,
indexed with the same embedding model (one model call on the turn's text, then a dict
insert), timed right after each write (or right before it, every other turn) in the same
run, so both see the same machine. Goal: write p50 at most 2x the put's p50.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from langgraph.store.memory import InMemoryStore

from memgraph_agents.bench.process import dir_bytes
from memgraph_agents.config import Settings
from memgraph_agents.ingest import ingest_conversation
from memgraph_agents.model.conversation import Conversation, Session, Turn

_TOPICS = [
    ("the garden", ["tomatoes are finally turning red", "the slugs ate half the lettuce", "I built a compost bin"]),
    ("the new job", ["my manager moved the launch to March", "the team uses a lot of Rust", "I commute by bike now"]),
    ("the trip to Norway", ["we booked a cabin near Bergen", "the ferry leaves at seven", "I packed rain gear"]),
    ("the piano lessons", ["my teacher assigned a Chopin nocturne", "I practise every evening", "the recital is soon"]),
    ("the dog", ["Biscuit learned to fetch the paper", "the vet said he needs a diet", "he hates thunderstorms"]),
]


def synthetic_thread(turns: int, thread: str = "bench") -> Conversation:
    """A ``turns``-long two-person chat that changes subject every few turns."""
    start = datetime(2025, 6, 2, 18, 0)
    out = []
    for i in range(turns):
        topic, facts = _TOPICS[(i // 6) % len(_TOPICS)]
        speaker = "Robin" if i % 2 == 0 else "Assistant"
        fact = facts[i % len(facts)]
        text = (
            f"About {topic}: {fact} (note {i + 1})."
            if speaker == "Robin"
            else f"Thanks for telling me about {topic}; noted that {fact}."
        )
        out.append(
            Turn(id=f"{thread}-s1:{i + 1}", speaker=speaker, text=text, timestamp=start + timedelta(seconds=30 * i))
        )
    session = Session(id=f"{thread}-s1", date=start, turns=out)
    return Conversation(id=thread, sessions=[session], speakers=["Robin", "Assistant"])


class _Tally:
    """Counts what an embedding model computes (calls, texts, characters) below its cache."""

    def __init__(self) -> None:
        self.calls = 0
        self.texts = 0
        self.chars = 0

    def watch(self, settings: Settings) -> Callable[[], None]:
        """Count ``settings``' model's computations until the returned function is called. The
        model is one per process (data dirs share it): its vectors in memory are dropped first,
        so each way of writing computes what a fresh process would."""
        from memgraph_agents.runtime import get_store

        model = get_store(settings).embedder
        model.forget()
        real = model._compute  # every text the model computes goes through it (below the cache)

        def compute(texts: list[str]):
            self.calls += 1
            self.texts += len(texts)
            self.chars += sum(len(t) for t in texts)
            return real(texts)

        model._compute = compute  # type: ignore[method-assign]
        return lambda: vars(model).pop("_compute", None)


def _floor_store(settings: Settings) -> tuple[InMemoryStore, int]:
    """An ``InMemoryStore`` indexed with the embedding model the writes use (its LangChain
    ``Embeddings``, without our cache), and how many puts warmed it up."""
    from memgraph_agents.runtime import get_store

    model = get_store(settings).embedder
    store = InMemoryStore(index={"dims": model.dim, "embed": model.inner, "fields": ["text"]})
    for i in range(3):  # the first calls of a model are slower (allocations): not the floor
        store.put(("warm-up",), str(i), {"text": f"warm-up turn {i}"})
    return store, 3


def _put(store: InMemoryStore, thread: str, n: int, text: str) -> float:
    t = time.perf_counter()
    store.put(("bench", thread), f"turn-{n}", {"text": text})
    return time.perf_counter() - t


@dataclass
class _Run:
    """One thread written both ways into fresh data dirs: wall and CPU seconds of each."""

    at_once: float
    cpu_at_once: float
    turn_by_turn: float
    cpu_turn_by_turn: float
    writes: list[float]
    puts: list[float]  # the InMemoryStore floor of each write, interleaved with them
    tally_once: _Tally
    tally_chat: _Tally


def _one_run(settings: Settings, full: Conversation, dirs: dict[str, Path]) -> _Run:
    once = settings.override(data_dir=dirs["at_once"], namespace="bench")
    tally_once, tally_chat = _Tally(), _Tally()
    unwatch = tally_once.watch(once)
    c0, t0 = time.process_time(), time.perf_counter()
    ingest_conversation(full, once)
    at_once, cpu_once = time.perf_counter() - t0, time.process_time() - c0
    unwatch()

    chat = settings.override(data_dir=dirs["turn_by_turn"], namespace="bench")
    unwatch = tally_chat.watch(chat)
    floor, _ = _floor_store(chat)
    writes: list[float] = []
    puts: list[float] = []
    session = full.sessions[0]
    cpu = 0.0
    for n in range(1, len(session.turns) + 1):
        part = full.model_copy(update={"sessions": [session.model_copy(update={"turns": session.turns[:n]})]})
        text = session.turns[n - 1].text
        if n % 2:  # the floor first every other turn: neither always runs on a cache the other warmed
            puts.append(_put(floor, dirs["turn_by_turn"].name, n, text))
        c0, t = time.process_time(), time.perf_counter()
        ingest_conversation(part, chat)
        writes.append(time.perf_counter() - t)
        cpu += time.process_time() - c0
        if not n % 2:
            puts.append(_put(floor, dirs["turn_by_turn"].name, n, text))
    unwatch()
    return _Run(at_once, cpu_once, sum(writes), cpu, writes, puts, tally_once, tally_chat)


def run_chat_bench(
    settings: Settings,
    turns: int,
    out: Path,
    command: str | None = None,
    repeat: int = 1,
    progress: Callable[[int, int], None] | None = None,
) -> dict:
    """Write the thread both ways ``repeat`` times; totals are the medians of the runs (the
    machine's load moves single runs by 2x here: the CPU seconds move less)."""
    out.mkdir(parents=True, exist_ok=True)
    full = synthetic_thread(turns)

    # Warm-up (imports, model load, graph compile) so that neither timing pays for it.
    warm = out / "data-warm-up"
    shutil.rmtree(warm, ignore_errors=True)
    ingest_conversation(synthetic_thread(4, "warm"), settings.override(data_dir=warm, namespace="bench"))
    shutil.rmtree(warm, ignore_errors=True)

    runs: list[_Run] = []
    for i in range(repeat):
        # Fresh data dirs per run (nothing cached from a previous one); a deleted dir is never
        # reused in one process (its embedded Chroma client stays open); the last run's dirs stay.
        dirs = {"at_once": out / f"data-at-once-{i + 1}", "turn_by_turn": out / f"data-turn-by-turn-{i + 1}"}
        for d in dirs.values():
            shutil.rmtree(d, ignore_errors=True)
        runs.append(_one_run(settings, full, dirs))
        if i:
            for d in (out / f"data-at-once-{i}", out / f"data-turn-by-turn-{i}"):
                shutil.rmtree(d, ignore_errors=True)
        if progress:
            progress(i + 1, repeat)
    median = statistics.median
    at_once = median(r.at_once for r in runs)
    by_turn = median(r.turn_by_turn for r in runs)
    cpu_once = median(r.cpu_at_once for r in runs)
    cpu_turn = median(r.cpu_turn_by_turn for r in runs)
    writes = [w for r in runs for w in r.writes]
    puts = [p for r in runs for p in r.puts]
    last = runs[-1]
    doc = {
        "command": command,
        "turns": turns,
        "embeddings": settings.embeddings,
        "repeat": repeat,
        "seconds_at_once": round(at_once, 4),
        "seconds_turn_by_turn": round(by_turn, 4),
        "ratio": round(by_turn / at_once, 3) if at_once else None,
        "goal_ratio": 2.0,
        "cpu_seconds_at_once": round(cpu_once, 4),
        "cpu_seconds_turn_by_turn": round(cpu_turn, 4),
        "cpu_ratio": round(cpu_turn / cpu_once, 3) if cpu_once else None,
        "runs": [
            {
                "seconds_at_once": round(r.at_once, 4),
                "seconds_turn_by_turn": round(r.turn_by_turn, 4),
                "cpu_seconds_at_once": round(r.cpu_at_once, 4),
                "cpu_seconds_turn_by_turn": round(r.cpu_turn_by_turn, 4),
            }
            for r in runs
        ],
        "write_p50_ms": round(1000 * median(writes), 1),
        "write_p95_ms": round(1000 * sorted(writes)[int(0.95 * (len(writes) - 1))], 1),
        "write_max_ms": round(1000 * max(writes), 1),
        "store_put_p50_ms": round(1000 * median(puts), 1),
        "write_to_put_p50": round(median(writes) / median(puts), 2),
        "goal_write_to_put": 2.0,
        "chroma_bytes_at_once": dir_bytes(dirs["at_once"] / "chroma"),
        "chroma_bytes_turn_by_turn": dir_bytes(dirs["turn_by_turn"] / "chroma"),
        "model_calls_at_once": last.tally_once.calls,
        "model_calls_turn_by_turn": last.tally_chat.calls,
        "texts_embedded_at_once": last.tally_once.texts,
        "texts_embedded_turn_by_turn": last.tally_chat.texts,
        "chars_embedded_at_once": last.tally_once.chars,
        "chars_embedded_turn_by_turn": last.tally_chat.chars,
        "load_average_1m": round(os.getloadavg()[0], 2),
    }
    (out / "chat.json").write_text(json.dumps(doc, indent=2) + "\n")
    return doc
