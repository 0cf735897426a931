"""The reply that answers a matching question: an asking turn passes its match on.

In a chat the turn that matches a question best is often another question ("When is the
wedding?"), and the answer is the reply after it ("Next June, at the lake."), which shares
few of the question's words. So a turn that asks (it has a question mark) hands a share of
its own match to the reply that follows it::

    gain(r) = max over asking turns a with reply(a) = r of  rel(a) / max rel
    reply(a) = the next turn of a's session when another speaker says it

with ``rel`` the question's relevance of the asking turn (``retrieval.relevance``). The
ranking adds ``reply · gain(r)`` (``retrieval.oneshot``, the reply term); a reply the seed
pool did not hold can enter it this way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from memgraph_agents.retrieval.priors import _body
from memgraph_agents.retrieval.reply_context import _positions
from memgraph_agents.storage.snapshot import GraphSnapshot


def reply_of(snap: GraphSnapshot, i: int) -> int | None:
    """The turn after turn ``i`` in its session when another speaker says it, else ``None``."""
    index = snap.attrs[i].get("index")
    if not isinstance(index, int):
        return None
    j = _positions(snap).get((str(snap.owner[i]), index + 1))
    if j is None or snap.attrs[j].get("speaker") == snap.attrs[i].get("speaker"):
        return None
    return j


def asks(text: str, speaker: str | None) -> bool:
    """Whether a turn asks something (a question mark in what it says)."""
    return "?" in _body(text, speaker)


def reply_gains(snap: GraphSnapshot, turns: Iterable[int], rel: Callable[[int], float]) -> dict[int, float]:
    """``{reply node: gain}`` (module doc) over the asking turns among ``turns``; ``rel(i)`` is a
    turn's relevance, already divided by the best one's."""
    out: dict[int, float] = {}
    for i in turns:
        if not asks(snap.text[i], snap.attrs[i].get("speaker")):
            continue
        j = reply_of(snap, i)
        if j is not None:
            out[j] = max(out.get(j, 0.0), rel(i))
    return out
