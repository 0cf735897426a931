"""Time `memgraph ui`'s pages on a 10,000-turn namespace (100 sessions of 100 turns, invented
text, hash embeddings: the pages read the graph, not the model).

    python docs/bench-ui/timeline.py --data-dir /tmp/ui-bench

Builds the namespace once (reused on the next run), starts the real `memgraph ui` on a free
port, and times each page over HTTP: the first request (cold: the server opens the namespace)
and the median of 5 more.
"""

from __future__ import annotations

import argparse
import os
import random
import socket
import statistics
import subprocess
import sys
import time
from datetime import datetime, timedelta
from pathlib import Path

import httpx

WORDS = (
    "train bike garden recipe concert budget trip museum puppy novel marathon office coffee rain river piano".split()
)


def build(data_dir: Path) -> None:
    from memgraph_agents import Memory
    from memgraph_agents.model.conversation import Conversation, Session, Turn

    mem = Memory(data_dir, embeddings="hash")
    if "big" in mem.namespaces():
        return
    rng = random.Random(7)
    sessions = []
    for s in range(100):
        turns = [
            Turn(
                id=f"S{s + 1}:{i + 1}",
                speaker=("Ana", "Ben")[i % 2],
                text=f"Turn {i} of day {s}: the {rng.choice(WORDS)} and the {rng.choice(WORDS)} near the {rng.choice(WORDS)}.",
            )
            for i in range(100)
        ]
        sessions.append(Session(id=f"S{s + 1}", date=datetime(2024, 1, 1) + timedelta(days=s), turns=turns))
    t0 = time.perf_counter()
    mem.add(Conversation(id="big", sessions=sessions), namespace="big")
    print(f"built {mem.stats('big')['turns']} turns in {time.perf_counter() - t0:.0f} s")


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--data-dir", type=Path, required=True)
    args = p.parse_args()
    build(args.data_dir)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "MEMGRAPH_EMBEDDINGS": "hash"}
    cmd = [
        sys.executable,
        "-m",
        "memgraph_agents.cli.main",
        "--data-dir",
        str(args.data_dir),
        "ui",
        "--port",
        str(port),
    ]
    server = subprocess.Popen(cmd, env=env)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                httpx.get(base + "/assets/ui.css", timeout=2)
                break
            except httpx.HTTPError:
                time.sleep(0.1)
        pages = ["/ns/big", "/ns/big?since=2024-03-01&speaker=Ana", "/ns/big/session/S50", "/ns/big/item/S50:7", "/"]
        for page in pages:
            times = []
            for _ in range(6):
                t0 = time.perf_counter()
                r = httpx.get(base + page, timeout=120)
                times.append(time.perf_counter() - t0)
                assert r.status_code == 200, (page, r.status_code)
            print(
                f"{page:40} first {times[0] * 1000:7.0f} ms   median of 5 more {statistics.median(times[1:]) * 1000:6.0f} ms"
            )
    finally:
        server.terminate()
        server.wait(timeout=30)


if __name__ == "__main__":
    main()
