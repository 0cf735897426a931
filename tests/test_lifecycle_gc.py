"""No lock from a finalizer: ``Memory`` objects given model objects and dropped in reference
cycles, collected by a GC that runs all the time, while other threads open stores. Before,
a GC callback released the dropped Memory's model by taking the store cache's lock, which the
collecting thread itself held while opening a store: the process hung for good."""

from __future__ import annotations

import gc
import hashlib
import subprocess
import sys
import textwrap
import threading

import pytest

from memgraph_agents import Memory


class Emb:
    """A LangChain ``Embeddings`` of the user's: deterministic, 32 dimensions."""

    def __init__(self, name: str) -> None:
        self.model = name

    def _v(self, t: str) -> list[float]:
        return [b / 255.0 for b in hashlib.sha256(t.encode()).digest()[:32]]

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self._v(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self._v(text)


@pytest.mark.slow
@pytest.mark.timeout(240)
def test_memories_dropped_in_cycles_under_an_aggressive_gc_while_threads_open_stores(tmp_path):
    errors: list[BaseException] = []
    done = threading.Event()
    old = gc.get_threshold()

    def churn(worker: int) -> None:
        try:
            for i in range(12):
                m = Memory(tmp_path / f"d{worker}", embeddings=Emb(f"e-{i % 3}"), namespace=f"ns{i % 3}")
                m.cycle = m  # only the cyclic GC frees it, on whichever thread it runs
                m.add(f"Note {worker}-{i}: the kettle is in cupboard {i}.")
                assert m.search(f"cupboard {i}", k=1, retriever="dense")
                del m
        except BaseException as e:  # noqa: BLE001 - reported by the main thread
            errors.append(e)

    gc.set_threshold(1, 1, 1)
    try:
        threads = [threading.Thread(target=churn, args=(w,), daemon=True) for w in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(200)
        done.set()
        assert not any(t.is_alive() for t in threads), "a thread hung (a lock taken from a GC callback?)"
    finally:
        gc.set_threshold(*old)
    assert not errors, errors
    # Every note landed, in each data dir (12 per worker, 4 per namespace).
    for w in range(3):
        for n in range(3):
            with Memory(tmp_path / f"d{w}", embeddings=Emb(f"e-{n}"), namespace=f"ns{n}") as mem:
                assert len(mem.list().items) == 4


@pytest.mark.slow
@pytest.mark.timeout(240)
def test_a_script_discarding_300_memories_in_cycles_finishes(tmp_path):
    """The acceptance script, in its own process (its GC settings and threads its own)."""
    script = textwrap.dedent(
        """
        import gc, hashlib, sys
        from memgraph_agents import Memory
        class Emb:
            def __init__(self, name): self.model = name
            def _v(self, t): return [b / 255.0 for b in hashlib.sha256(t.encode()).digest()[:32]]
            def embed_documents(self, texts): return [self._v(t) for t in texts]
            def embed_query(self, text): return self._v(text)
        gc.set_threshold(1, 1, 1)
        for i in range(300):
            m = Memory(sys.argv[1], embeddings=Emb(f"probe-{i % 3}"), namespace=f"ns{i % 3}")
            m.cycle = m
            m.add(f"Note {i}: the kettle is in cupboard {i}.")
            del m
        print("finished")
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "mem")], capture_output=True, text=True, timeout=220
    )
    assert done.returncode == 0 and done.stdout.strip() == "finished", done.stderr[-2000:]
