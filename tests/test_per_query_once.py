"""Work a query does once per settings object or snapshot is redone when what it reads changes."""

from __future__ import annotations

import gc
import weakref
from pathlib import Path

import pytest

from memgraph_agents.api.run_context import navigator_context
from memgraph_agents.config import Settings
from memgraph_agents.ingest import ingest_conversation
from memgraph_agents.retrieval.evidence import provenance, shared_evidence, to_evidence
from memgraph_agents.runtime import get_store
from tests.conftest import make_conversation


def test_the_run_context_is_made_once_per_settings_and_namespace_and_again_after_a_change(tmp_path: Path):
    s = Settings(data_dir=tmp_path / "mem", embeddings="hash")
    a = navigator_context(s, "alice", "offline", {})
    assert navigator_context(s, "alice", "offline", {}) is a  # the same settings and namespace: kept
    assert a.namespace == "alice" and a.seed_retriever == s.localize
    bob = navigator_context(s, "bob", "offline", {})
    assert bob is not a and bob.namespace == "bob"
    assert navigator_context(s, "alice", "offline", {"max_refinements": 0}) is not a  # a preset's parameters
    s.localize = "dense"  # a field assigned: the context follows
    changed = navigator_context(s, "alice", "offline", {})
    assert changed is not a and changed.seed_retriever == "dense"
    twin = Settings(data_dir=tmp_path / "mem", embeddings="hash")  # equal values, another object
    assert navigator_context(twin, "alice", "offline", {}) is a
    gone = weakref.ref(twin)
    del twin
    gc.collect()
    assert gone() is None  # the kept contexts hold no settings (nor a Memory's models and stores)


@pytest.mark.slow  # ingests a session
def test_evidence_handed_out_is_a_copy_of_what_the_snapshot_shares(tmp_path: Path):
    s = Settings(data_dir=tmp_path / "mem", embeddings="hash", namespace="n")
    ingest_conversation(make_conversation("c", 1), s)
    snap = get_store(s).snapshot()
    i = next(j for j, nid in enumerate(snap.ids) if nid.startswith("event:"))
    first = to_evidence(snap, i, 0.5, retriever="x")
    assert first.turn_ids == provenance(snap, i) and first.score == 0.5 and first.retriever == "x"
    first.turn_ids.append("changed")
    first.metadata["k"] = "v"
    first.path.append("p")
    again = to_evidence(snap, i, 0.25, retriever="y", path=["a", "b"])
    assert again.turn_ids == provenance(snap, i) and "k" not in again.metadata and again.path == ["a", "b"]
    shared = shared_evidence(snap, i)
    assert shared.turn_ids == provenance(snap, i) and shared.score == 0.0 and shared.retriever == ""
    assert again.model_dump(exclude={"score", "retriever", "path"}) == shared.model_dump(
        exclude={"score", "retriever", "path"}
    )
