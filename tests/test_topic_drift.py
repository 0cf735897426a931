"""Topic layer between re-clusterings: new events are assigned online and only the
touched topic rows are written; k-means re-runs on a tick of ``topic_recluster_every`` and only
once the memory drifted (``topic_drift``). Membership stays exact: every event in one topic."""

from __future__ import annotations

import pytest

from memgraph_agents.construct.topic_layer import recluster_due
from memgraph_agents.ingest import ingest_conversation
from memgraph_agents.model.graph import NodeKind
from memgraph_agents.runtime import get_store
from tests.workloads import conversation

pytestmark = pytest.mark.slow  # seconds per test: left out of the fast subset (-m "not slow")


@pytest.mark.parametrize(
    "n_events,clustered,opened,seq,due",
    [
        (100, 10, 0, 3, False),  # not a tick: never, however far it drifted
        (100, 10, 0, 4, True),  # a tick, grown tenfold
        (12, 10, 0, 4, False),  # a tick, grown by 20 % < 25 %
        (13, 10, 0, 8, True),  # grown by 30 %
        (12, 10, 2, 4, True),  # both new events opened topics of their own
        (12, 10, 1, 4, False),  # one of two opened a topic: not more than half
        (10, 10, 5, 4, False),  # nothing added since the clustering
        (3, 0, 0, 4, True),  # never clustered
    ],
)
def test_recluster_due(n_events, clustered, opened, seq, due):
    assert recluster_due(n_events, clustered, opened, seq, every=4, drift=0.25) is due


def topic_state(store) -> tuple[dict[str, list[str]], list[str], int]:
    """(topic -> members, events, clustered_events of the current topic row)."""
    snap = store.snapshot()
    members: dict[str, list[str]] = {}
    for i, t in snap.event_topic.items():
        members.setdefault(snap.ids[t], []).append(snap.ids[i])
    events = sorted(snap.ids[i] for i in snap.indices_of(NodeKind.EVENT))
    topics = list(snap.indices_of(NodeKind.TOPIC))
    state = max((snap.attrs[i] for i in topics), key=lambda a: int(a.get("events_seen", 0)))
    return members, events, int(state["clustered_events"])


def test_online_assignment_keeps_every_event_in_one_topic(settings):
    conv = conversation("drift", 10, turns=6)
    store = get_store(settings, "drift")
    clusterings = []
    for n, session in enumerate(conv.sessions, start=1):
        ingest_conversation(conv.model_copy(update={"sessions": [session]}), settings, namespace="drift")
        members, events, clustered = topic_state(store)
        assert sorted(e for m in members.values() for e in m) == events  # each event exactly once
        if not clusterings or clustered != clusterings[-1][1]:
            clusterings.append((n, clustered))
    # Re-clustered at the first session and then only on ticks of every 4 sessions.
    assert clusterings[0][0] == 1
    assert all(n % 4 == 0 for n, _ in clusterings[1:]), clusterings
    # Deleting a session keeps the membership exact (its events leave their topics).
    store.delete_session(conv.sessions[1].id)
    members, events, _ = topic_state(store)
    assert sorted(e for m in members.values() for e in m) == events
