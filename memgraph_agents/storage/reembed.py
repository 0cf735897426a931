"""Re-embedding a namespace with another model (``memgraph reembed``), atomic and crash-safe.

The store is opened with the new model and the mark check off (``MemoryStore(check_model=
False)``); everything below runs under the namespace's ingest and writer locks:

1. A namespace with a Chroma index has it turned off first (meta ``chroma_index`` = ``off``,
   one transaction): from then on Chroma is neither read nor written, so what it holds of the
   old model can never be mixed into an answer. What a crash interrupted earlier is then
   finished or rolled back as ``MemoryStore.recover`` does (with the index off, recovery never
   embeds).
2. Every embedded node's committed text is embedded with the new model, in chunks (the
   progress bar). A run killed here loses nothing but time: nothing is written before step 3,
   and the next run embeds again.
3. ONE transaction: every node's vector replaced, meta ``embedding_model`` = the new model.
   Before it commits, the namespace is wholly the old model's; after, wholly the new one's.
4. The Chroma index, when the namespace had one (or is past the threshold): the collection is
   dropped and built again from the new vectors, then marked ``on``. A crash here leaves the
   index off: dense queries are then exact, and the next commit (or ``reembed`` again) builds it.
   A failure here (a Chroma server gone) is not a failed re-embed: the result's ``note`` says it.

Running it again on a namespace already re-embedded only finishes step 4 if it is due.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from memgraph_agents.embeddings.calibration import calibrate
from memgraph_agents.storage import chroma_index
from memgraph_agents.storage.embedding_mark import CALIBRATION_META, MODEL_META
from memgraph_agents.storage.memory_store import MemoryStore
from memgraph_agents.storage.vector_rows import vector_rows

log = logging.getLogger(__name__)
CHUNK = 256  # texts per embedding call between progress updates (and crash points)
Progress = Callable[[int, int], None]  # (texts done, texts in all)


@dataclass
class ReembedResult:
    namespace: str
    old_model: str
    new_model: str
    vectors: int  # vectors written (0: the namespace already held the new model's)
    indexed: bool  # whether its Chroma index was rebuilt
    seconds: float
    note: str = ""  # what did not happen although the vectors are committed (the index rebuild failed)


def reembed_store(store: MemoryStore, progress: Progress | None = None, fault: Callable[[str], None] | None = None):
    """Re-embed ``store``'s namespace with ``store.embedder`` (see the module docstring).
    ``fault``: tests' crash points, called with the step just done."""
    t0 = time.perf_counter()
    new = store.embedder.name
    with store.ingest_lock.hold(timeout=600), store.own_data_dir(), store._thread_lock, store.lock:
        old = store.db.get_meta(MODEL_META) or new
        written = 0
        was_indexed = store.indexed()
        if old != new:
            if was_indexed:  # 1. Chroma out of the picture until step 4
                with store.db.write() as t:
                    t.set_meta(chroma_index.INDEX_META, chroma_index.OFF)
                store._indexed = False
                if fault:
                    fault("index_off")
            store.recover()
            written = _replace_vectors(store, new, progress, fault)
        store._forget_cached()
        store.calibration_cached = None
        store.model_matches = True
        # The vectors are the new model's now, committed: a failure from here on is not the
        # re-embed's, and saying it was abandoned would be false. It is said as what it is.
        indexed, note = False, ""
        try:
            indexed = _rebuild_index(store, was_indexed and old != new)
        except Exception as exc:  # noqa: BLE001 - reported in the result, never silent
            note = (
                f"the vectors are {new}'s (committed), but rebuilding the Chroma index failed "
                f"({type(exc).__name__}: {' '.join(str(exc).split())[:200]}): dense search is exact until "
                "`memgraph reembed` runs again"
            )
            log.warning("memgraph reembed %s: %s", store.namespace, note)
    return ReembedResult(store.namespace, old, new, written, indexed, round(time.perf_counter() - t0, 3), note)


def _replace_vectors(store: MemoryStore, model: str, progress: Progress | None, fault) -> int:
    """Steps 2 and 3: the new vectors of every embedded node, and the mark, in one transaction."""
    nodes = [r for r in store.db.raw_nodes() if r[6]]  # (id, kind, text, owner, ..., embed)
    text = {r[0]: r[2] for r in nodes}
    unique = list(dict.fromkeys(text.values()))
    vec: dict[str, np.ndarray] = {}
    for i in range(0, len(unique), CHUNK):
        chunk = unique[i : i + CHUNK]
        vec.update(zip(chunk, store.embedder.embed(chunk)))
        if progress:
            progress(min(i + CHUNK, len(unique)), len(unique))
        if fault:
            fault("chunk")
    if progress and not unique:
        progress(0, 0)
    calibration = calibrate(store.embedder)  # the new model's scale, recorded with its mark
    with store.db.write() as t:
        t.put_vectors(vector_rows({i: vec[s] for i, s in text.items()}, text))
        t.set_meta(MODEL_META, model)
        t.set_meta(CALIBRATION_META, calibration.to_json())
    if fault:
        fault("committed")
    return len(text)


def _rebuild_index(store: MemoryStore, was_indexed: bool) -> bool:
    """Step 4, when the namespace had an index or has grown past the threshold."""
    if store.indexed() or not (was_indexed or store._index_to_build(0)):
        return False
    store.vectors.drop()  # the old model's collection: built again, with the new model recorded
    chroma_index.build_index(store.db, store.vectors, store.embedder)
    with store.db.write() as t:
        t.set_meta(chroma_index.INDEX_META, chroma_index.ON)
    store._indexed = True
    return True
