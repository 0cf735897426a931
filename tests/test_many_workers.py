"""Many workers, no shared folder: one PostgreSQL, one Chroma server, four worker
processes, each with its own empty data dir and the same store id.

Workers 0-2 ingest the same conversation into ``shared`` at once, then one of their own each;
worker 3 is SIGKILLed mid-commit (vectors written, graph not committed). While workers 0-2 are
still writing, PostgreSQL and then the Chroma server are restarted (they retry); a
replacement worker finishes worker 3's conversation. Every worker reads ``shared`` between its
writes. Afterwards every session is wholly present or absent (its turns all there, its
vectors exactly the embedded nodes), nothing is duplicated or pending, no reader ever saw a
torn session, and every worker's own view (sessions, graph, answers) is identical.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psycopg
import pytest

from tests.chroma_server import ChromaServer, chroma_executable
from tests.pg_server import PostgresServer, unusable
from tests.pg_worker import expected_turns

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(unusable() is not None, reason=f"no PostgreSQL: {unusable()}"),
    pytest.mark.skipif(chroma_executable() is None, reason="the `chroma` CLI (installed with chromadb) is missing"),
    pytest.mark.timeout(300),
]
ROOT = Path(__file__).resolve().parents[1]
SHARED = "shared:shared:5:"
OWN = {i: f"own-{i}:own{i}:4:w{i}" for i in range(4)}
SPECS = {"shared": SHARED, **{f"own-{i}": OWN[i] for i in range(4)}}


def start(env: dict, run_dir: Path, name: str, *specs: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "tests.pg_worker", str(run_dir), name, *specs],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_for(path: Path, procs: list[subprocess.Popen], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        for p in procs:
            assert p.poll() is None, p.communicate()[1][-3000:]
        assert time.monotonic() < deadline, f"{path.name} did not appear"
        time.sleep(0.05)


def count(views: list[dict]) -> dict[str, int]:
    """Sessions written, lost (absent), torn (partly present) and duplicated, over one view."""
    c = {"written": 0, "lost": 0, "torn": 0, "duplicated": 0}
    for v in views:
        for sid, turns in expected_turns(SPECS[v["namespace"]]).items():
            have = {t for t in v["turns"] if v["turn_owner"][t] == sid}
            c["written" if have == turns else "lost" if not have else "torn"] += 1
        c["duplicated"] += len(v["turns"]) - len(set(v["turns"])) + len(v["sessions"]) - len(set(v["sessions"]))
        c["duplicated"] += len(v["vectors"]) - len(set(v["vectors"])) + (not v["node_ids_unique"])
    return c


def test_four_workers_a_kill_and_both_servers_restarted(tmp_path):
    t0 = time.monotonic()
    pg = PostgresServer().start()
    chroma = ChromaServer(tmp_path / "chroma").start()
    procs: list[subprocess.Popen] = []
    try:
        env = {
            **os.environ,
            "MEMGRAPH_GRAPH_URL": pg.url,
            "MEMGRAPH_STORE_ID": "many",
            "MEMGRAPH_CHROMA_HOST": chroma.host,
            "MEMGRAPH_CHROMA_PORT": str(chroma.port),
            "MEMGRAPH_EMBEDDINGS": "hash",
            "MEMGRAPH_CHROMA_INDEX_NODES": "0",  # every commit writes Chroma: its restart is in play
            "ANONYMIZED_TELEMETRY": "False",
            "HF_HUB_OFFLINE": "1",
        }
        run = tmp_path / "run"
        run.mkdir()
        procs = [start(env, run, f"w{i}", SHARED, OWN[i]) for i in range(3)]
        victim = start(env, run, "w3", OWN[3], "--victim")
        wait_for(run / "victim-in-commit", [*procs, victim], 120)
        victim.send_signal(signal.SIGKILL)  # by pid: the worker this test started
        victim.wait(10)
        with psycopg.connect(pg.url) as conn:  # what the dead worker left: its write, unfinished
            left = conn.execute(
                "SELECT s.status, w.kind FROM mg_sessions s JOIN mg_writes w USING (store_id, namespace) "
                "WHERE s.namespace='own-3' AND w.session_id = s.id"
            ).fetchall()
        assert left == [("pending", "new")]
        # Both servers go away while the others write (they must still be running).
        assert all(p.poll() is None for p in procs), "the workers finished before the restarts"
        pg.restart()
        time.sleep(0.3)
        chroma.restart()
        procs.append(start(env, run, "w3b", OWN[3]))  # finishes the dead worker's conversation
        names = ["w0", "w1", "w2", "w3b"]
        for name in names:
            wait_for(run / f"{name}.done", procs, 180)
        (run / "verify").write_text(json.dumps(list(SPECS)))
        outs = []
        for p in procs:
            out, err = p.communicate(timeout=120)
            assert p.returncode == 0, err[-3000:]
            outs.append((out, err))
        retries = sum(err.count("retry ") for _, err in outs)
        rows = [json.loads(line) for out, _ in outs for line in out.splitlines() if line.startswith("{")]
        torn_reads = sum(r["torn_reads"] for r in rows if "torn_reads" in r)
        views = {
            n: [
                {k: x for k, x in r.items() if k != "worker"} for r in rows if r.get("worker") == n and "namespace" in r
            ]
            for n in names
        }
        assert all(len(v) == len(SPECS) for v in views.values())
        c = count(views["w0"])
        print(
            f"sessions written {c['written']}, lost {c['lost']}, torn {c['torn']}, duplicated {c['duplicated']}; "
            f"torn reads {torn_reads}; retries {retries}; {time.monotonic() - t0:.0f} s"
        )
        assert (c["written"], c["lost"], c["torn"], c["duplicated"]) == (5 + 4 * 4, 0, 0, 0)
        assert torn_reads == 0
        for v in views["w0"]:
            assert v["statuses"] == ["committed"] and v["pending_writes"] == [] and v["garbage"] == []
            assert v["vectors"] == v["embedded"]  # no orphan vector, none missing
            assert v["answer"]
        assert all(views[n] == views["w0"] for n in names)  # every worker sees the same memory
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()  # by pid: only workers this test started
        chroma.stop()
        pg.cleanup()
