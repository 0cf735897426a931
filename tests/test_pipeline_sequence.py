"""The ingest pipeline is one step table and one runner (``pipeline.sequence``): every door that
writes reaches it, and the table it runs is the one ``describe`` draws."""

from __future__ import annotations

import pytest

from memgraph_agents.config import Settings
from memgraph_agents.construct.pipeline import sequence
from memgraph_agents.ingest import ingest_conversation
from tests.workloads import chat_thread


def test_an_unchanged_session_ends_after_the_check(tmp_path):
    s = Settings(data_dir=tmp_path / "m", namespace="t", embeddings="hash")
    ingest_conversation(chat_thread(3), s)
    r = ingest_conversation(chat_thread(3), s)
    assert (r.sessions_unchanged, r.sessions_new) == (1, 0)


def test_the_drawing_is_the_table_it_runs():
    drawn = [line.split(" --> ")[1] for line in sequence.describe().splitlines() if " --> " in line]
    assert drawn == [*sequence.STEPS, "done"]
    assert list(sequence.NODES) == ["check", *sequence.STEPS]


def test_every_step_is_called_with_the_state_and_the_run_context(tmp_path, monkeypatch):
    """One calling convention (no signature sniffing, no runtime object): a run calls each step
    once, in the table's order, with the run's own ``MemoryContext``."""
    calls: list[tuple[str, object]] = []

    def spy(name, fn):
        if name in sequence._ASYNC:

            async def run_async(state, context):
                calls.append((name, context))
                return await fn(state, context)

            return run_async

        def run(state, context):
            calls.append((name, context))
            return fn(state, context)

        return run

    for name, fn in list(sequence.NODES.items()):
        monkeypatch.setitem(sequence.NODES, name, spy(name, fn))
    ingest_conversation(chat_thread(2), Settings(data_dir=tmp_path / "m", namespace="t", embeddings="hash"))
    assert [n for n, _ in calls] == ["check", *sequence.STEPS]
    assert len({id(c) for _, c in calls}) == 1 and type(calls[0][1]).__name__ == "MemoryContext"


@pytest.mark.parametrize("key", ["notes", "usage"])
def test_merged_keys_are_the_reducers(key):
    from memgraph_agents.construct.pipeline.state import REDUCERS

    state = {"notes": ["a"], "usage": {"calls": 1.0}}
    sequence._apply(state, {key: ["b"] if key == "notes" else {"calls": 2.0}})
    assert state[key] == (["a", "b"] if key == "notes" else {"calls": 3.0}) and key in REDUCERS
