"""``close()`` releases everything a ``Memory`` opened (connections, files, the data dir's
lock), and so does collecting one that was never closed: the process then holds no file
under its data dir. Counted from the process's own descriptors (``/proc/self/fd``)."""

from __future__ import annotations

import gc
import os
import time
from pathlib import Path

import pytest

from memgraph_agents import Memory
from memgraph_agents.resources import MemoryClosedError

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="counts descriptors in /proc/self/fd"),
]


def files_under(root: Path) -> list[str]:
    root_s = str(root.resolve())
    out = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if target.startswith(root_s):
            out.append(target)
    return sorted(out)


def use(mem: Memory, i: int) -> None:
    mem.add(f"Note {i}: the red kettle is in cupboard {i}.")
    mem.add(f"Note {i}b: the blue kettle is on shelf {i}.", namespace="other")
    assert mem.search("kettle", k=2, retriever="dense")
    assert mem.list().items and mem.stats()["sessions"] >= 1


def test_closing_twenty_memories_leaves_no_file_open_under_their_data_dirs(tmp_path):
    mems = [Memory(tmp_path / f"d{i % 5}", embeddings="hash", namespace=f"n{i}") for i in range(20)]
    for i, mem in enumerate(mems):
        use(mem, i)
    assert files_under(tmp_path)  # open while in use: the count can see them
    for mem in mems:
        mem.close()
    assert files_under(tmp_path) == []
    with pytest.raises(MemoryClosedError):  # closed means closed: nothing reopens behind it
        mems[0].search("kettle")
    assert files_under(tmp_path) == []


def test_a_memory_collected_without_close_leaves_no_file_open(tmp_path):
    # Namespaces below the Chroma threshold (the default): nothing of it outlives the collection.
    for i in range(5):
        mem = Memory(tmp_path / "d", embeddings="hash", namespace=f"n{i}", chroma_index_nodes=100_000)
        use(mem, i)
        mem.cycle = mem  # only the cyclic GC frees it
        del mem
    gc.collect()
    assert files_under(tmp_path / "d") == []
    # Indexed in embedded Chroma: the collected store's GC callback takes no lock, it queues the
    # client's release, done by this process's next store access.
    for i in range(3):
        mem = Memory(tmp_path / "e", embeddings="hash", namespace=f"n{i}", chroma_index_nodes=0)
        use(mem, i)
        mem.cycle = mem
        del mem
    other = Memory(tmp_path / "other", embeddings="hash")
    other.add("Another memory's note.")
    for _ in range(100):  # a worker thread may still be unwinding the last call's frames
        gc.collect()
        other.list()  # a store access: releases what the collection queued
        if not files_under(tmp_path / "e"):
            break
        time.sleep(0.05)
    assert files_under(tmp_path / "e") == []
    other.close()
