"""``memgraph bench chat``: a chat thread written turn by turn vs ingested at once.

The same synthetic thread (invented, deterministic text) goes into two fresh data dirs:
once as one session, and once one turn per write, as the chat writer does (each write is the
whole transcript so far; only its new turn is built). Reported: total seconds of each, their
ratio (goal: at most 1.5), write latency p50 / max, the size of each Chroma directory
(deleted vectors left behind by rewrites would show up there), and the texts and characters
the embedding model computed for each (the part of the cost that does not depend on how
busy the machine is).
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import time
from datetime import datetime, timedelta
from pathlib import Path

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
    """Counts what an embedding model computes (texts, characters) below its cache."""

    def __init__(self) -> None:
        self.texts = 0
        self.chars = 0

    def watch(self, settings: Settings) -> None:
        from memgraph_agents.runtime import get_store

        inner = get_store(settings).embedder.inner
        real = inner.embed_documents

        def embed_documents(texts: list[str]) -> list[list[float]]:
            self.texts += len(texts)
            self.chars += sum(len(t) for t in texts)
            return real(texts)

        inner.embed_documents = embed_documents  # type: ignore[method-assign]


def _dir_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) if path.exists() else 0


def run_chat_bench(settings: Settings, turns: int, out: Path, command: str | None = None) -> dict:
    out.mkdir(parents=True, exist_ok=True)
    full = synthetic_thread(turns)
    dirs = {"at_once": out / "data-at-once", "turn_by_turn": out / "data-turn-by-turn"}
    for d in dirs.values():
        shutil.rmtree(d, ignore_errors=True)  # fresh data dirs: nothing cached from a previous run

    # Warm-up (imports, model load, graph compile) so that neither timing pays for it.
    warm = out / "data-warm-up"
    shutil.rmtree(warm, ignore_errors=True)
    ingest_conversation(
        synthetic_thread(4, "warm"), settings.model_copy(update={"data_dir": warm, "namespace": "bench"})
    )
    shutil.rmtree(warm, ignore_errors=True)

    once = settings.model_copy(update={"data_dir": dirs["at_once"], "namespace": "bench"})
    tally_once, tally_chat = _Tally(), _Tally()
    tally_once.watch(once)
    t0 = time.perf_counter()
    ingest_conversation(full, once)
    at_once = time.perf_counter() - t0

    chat = settings.model_copy(update={"data_dir": dirs["turn_by_turn"], "namespace": "bench"})
    tally_chat.watch(chat)
    writes: list[float] = []
    session = full.sessions[0]
    for n in range(1, turns + 1):
        part = full.model_copy(update={"sessions": [session.model_copy(update={"turns": session.turns[:n]})]})
        t = time.perf_counter()
        ingest_conversation(part, chat)
        writes.append(time.perf_counter() - t)
    turn_by_turn = sum(writes)

    doc = {
        "command": command,
        "turns": turns,
        "embeddings": settings.embeddings,
        "seconds_at_once": round(at_once, 3),
        "seconds_turn_by_turn": round(turn_by_turn, 3),
        "ratio": round(turn_by_turn / at_once, 3) if at_once else None,
        "goal_ratio": 1.5,
        "write_p50_ms": round(1000 * statistics.median(writes), 1),
        "write_max_ms": round(1000 * max(writes), 1),
        "chroma_bytes_at_once": _dir_bytes(dirs["at_once"] / "chroma"),
        "chroma_bytes_turn_by_turn": _dir_bytes(dirs["turn_by_turn"] / "chroma"),
        "texts_embedded_at_once": tally_once.texts,
        "texts_embedded_turn_by_turn": tally_chat.texts,
        "chars_embedded_at_once": tally_once.chars,
        "chars_embedded_turn_by_turn": tally_chat.chars,
        "load_average_1m": round(os.getloadavg()[0], 2),
    }
    (out / "chat.json").write_text(json.dumps(doc, indent=2) + "\n")
    return doc
