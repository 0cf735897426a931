"""Context for replies that need it: the question a reply answers, shown with it.

A chat answer often leans on the question before it: "April 2." means nothing without "When
do you start?". ``with_context`` sets ``Evidence.context`` on a turn item whose turn

* follows, in the same session, a turn by another speaker that asks (one of its sentences ends
  on a question mark, not only its last), and
* needs it: it opens on an answer word, an anaphor, a quotation or a fragment with no verb of
  its own ("April 2.", "Yep.", "Honestly? Draining.", "It's 0176 now.", "Supply chain lead for
  a bike startup."), whatever its length (``reply_needs.needs_question``); a reply opening on a
  clause of its own ("I'm halfway through the book.") stands alone.

The asking turn is context, not an item: the ranking keeps its length and order. ``finish``
calls this, so every door (``Memory.search``, the CLI, the tools, MCP, the graphs) gets it.
"""

from __future__ import annotations

import re

from memgraph_agents.model.evidence import Evidence, TurnContext
from memgraph_agents.retrieval.reply_needs import needs_question
from memgraph_agents.storage.snapshot import KIND_CODE, GraphSnapshot

_TURN = KIND_CODE["turn"]
# a sentence ending on a question mark, from the text's start or the end of the sentence before
_QUESTION = re.compile(r"(?:^|(?<=[.?!]\s))([^.?!]+)\?(?=\s)")


def _body(text: str) -> str:
    return text.split(": ", 1)[1] if ": " in text else text


def turn_asks(body: str) -> bool:
    """``body`` asks: it ends on a question, or one of its sentences of two words or more does
    ("How are the legs? I followed your plan." asks; "Honestly? Draining." is a tag, not a question)."""
    if body.rstrip().endswith("?"):
        return True
    return any(len(q.split()) >= 2 for q in _QUESTION.findall(body))


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


def asking_turn(snap: GraphSnapshot, turn_id: str) -> TurnContext | None:
    """The question ``turn_id`` answers (module docstring), else ``None``."""
    i = snap.index.get(f"turn:{turn_id}")
    if i is None or int(snap.kind[i]) != _TURN:
        return None
    index = snap.attrs[i].get("index")
    if not isinstance(index, int) or index < 1 or not needs_question(_body(snap.text[i])):
        return None
    j = _positions(snap).get((str(snap.owner[i]), index - 1))
    if j is None or snap.attrs[j].get("speaker") == snap.attrs[i].get("speaker"):
        return None
    asked = snap.text[j]
    if not turn_asks(_body(asked)):
        return None
    return TurnContext(turn_id=str(snap.attrs[j].get("turn_id")), text=asked)


def with_context(snap: GraphSnapshot, evidence: list[Evidence]) -> list[Evidence]:
    """``evidence`` with ``context`` set on the turn items that answer the turn before them."""
    out = []
    for ev in evidence:
        ctx = asking_turn(snap, ev.turn_ids[0]) if ev.kind in ("turn", "sentence") and ev.turn_ids else None
        out.append(ev if ctx == ev.context else ev.model_copy(update={"context": ctx}))
    return out
