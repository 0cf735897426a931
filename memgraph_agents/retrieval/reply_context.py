"""Context for short replies: the question a reply answers, shown with it.

A chat answer often leans on the question before it: "April 2." means nothing without "When
do you start?". ``with_context`` sets ``Evidence.context`` on a turn item whose turn

* follows, in the same session, a turn by another speaker that ends on a question, and
* opens on a fragment: its first sentence has at most ``SHORT_WORDS`` words ("April 2.",
  "Yep.", "Honestly? Draining.").

The asking turn is context, not an item: the ranking keeps its length and order. ``finish``
calls this, so every door (``Memory.search``, the CLI, the tools, MCP, the graphs) gets it.
"""

from __future__ import annotations

import re
from functools import lru_cache

from memgraph_agents.construct.sentences import split_sentences
from memgraph_agents.model.evidence import Evidence, TurnContext
from memgraph_agents.storage.snapshot import KIND_CODE, GraphSnapshot

SHORT_WORDS = 6  # a first sentence this short leans on the question before it ("September 14, at a vineyard.")
_WORD = re.compile(r"[A-Za-z0-9']+")
_TURN = KIND_CODE["turn"]


def _body(text: str) -> str:
    return text.split(": ", 1)[1] if ": " in text else text


def _positions(snap: GraphSnapshot) -> dict[tuple[str, int], int]:
    """(session, turn index) -> the turn's node, built once per snapshot."""

    def build() -> dict[tuple[str, int], int]:
        out: dict[tuple[str, int], int] = {}
        for i in snap.indices_of("turn"):
            index = snap.attrs[i].get("index")
            if isinstance(index, int):
                out[(str(snap.owner[i]), index)] = int(i)
        return out

    return snap.derived("turn_positions", build)


@lru_cache(maxsize=1 << 16)  # a turn's text, the same at every query: split once per process
def _leans_on_question(body: str) -> bool:
    sentences = split_sentences(body)
    return bool(sentences) and len(_WORD.findall(sentences[0])) <= SHORT_WORDS


def asking_turn(snap: GraphSnapshot, turn_id: str) -> TurnContext | None:
    """The question ``turn_id`` answers (module docstring), else ``None``."""
    i = snap.index.get(f"turn:{turn_id}")
    if i is None or int(snap.kind[i]) != _TURN:
        return None
    index = snap.attrs[i].get("index")
    if not isinstance(index, int) or index < 1 or not _leans_on_question(_body(snap.text[i])):
        return None
    j = _positions(snap).get((str(snap.owner[i]), index - 1))
    if j is None or snap.attrs[j].get("speaker") == snap.attrs[i].get("speaker"):
        return None
    asked = snap.text[j]
    if not _body(asked).rstrip().endswith("?"):
        return None
    return TurnContext(turn_id=str(snap.attrs[j].get("turn_id")), text=asked)


def with_context(snap: GraphSnapshot, evidence: list[Evidence]) -> list[Evidence]:
    """``evidence`` with ``context`` set on the turn items that answer the turn before them."""
    out = []
    for ev in evidence:
        ctx = asking_turn(snap, ev.turn_ids[0]) if ev.kind in ("turn", "sentence") and ev.turn_ids else None
        out.append(ev if ctx == ev.context else ev.model_copy(update={"context": ctx}))
    return out
