"""Offline selective memory gate (MemORAI §3.1): which turns carry user-specific information.

MemORAI asks an LLM to keep the messages that reveal something about a participant: personal
facts, preferences, plans, relationships, and the exchanges that clarify them; it skips
generic knowledge, greetings and backchannel. Without an LLM we keep a turn when it is both

* **anchored** to a person: it speaks in the first person ("I", "my", "we"...), names a
  participant or another proper noun ("Pixel", "Riverside Library"), or answers a question
  the other speaker addressed to its speaker (previous turn by someone else, with "you" /
  "your" and a "?": "Are you training?" -> "Four times a week, long runs on Sunday");
* **informative**: at least ``min_content`` content words (not stopwords, chat filler or
  names), or a date or quantity (``construct.arguments``).

So "Hi Ben!", "Congrats! What do you do there?" and "Ha, maybe once he stops chewing books."
are dropped, "I adopted a puppy yesterday, a beagle called Pixel." is kept. The gate only
flags turns (``attrs["user_specific"]``): every turn stays stored and retrievable; entities
are extracted from the kept turns, as MemORAI builds its graph from the filtered messages.
"""

from __future__ import annotations

import re

from memgraph_agents.construct.arguments import FILLER, STOPWORDS, ArgumentMention, extract_arguments
from memgraph_agents.construct.memorai.plan import GateVerdict, TurnView

FIRST_PERSON = frozenset(
    "i i'm i've i'd i'll me my mine myself we we're we've we'd we'll us our ours ourselves".split()
)
SECOND_PERSON = frozenset("you you're you've you'd you'll your yours yourself".split())
_WORD_RE = re.compile(r"[a-z][a-z'’]*")


def _words(text: str) -> list[str]:
    return [w.replace("’", "'") for w in _WORD_RE.findall(text.lower())]


def asks_the_other(previous: TurnView | None, turn: TurnView) -> bool:
    """Whether ``previous`` is another speaker's question addressed to ``turn``'s speaker."""
    if previous is None or previous.speaker == turn.speaker or "?" not in previous.body:
        return False
    return any(w in SECOND_PERSON for w in _words(previous.body))


def session_names(mentions: list[list[ArgumentMention]], speakers: list[str]) -> frozenset[str]:
    """Lower-cased words of the names found anywhere in the session (``mentions``: each turn's
    arguments) and of the speakers' names.

    A name capitalised mid-sentence in one turn ("a beagle called Pixel") is recognised at the
    start of another ("Pixel passed his class"), where a lone capital proves nothing."""
    names = {w for s in speakers for w in _words(s)}
    for found in mentions:
        for m in found:
            if m.kind in ("person", "proper"):
                names.update(_words(m.name))
    return frozenset(names)


def gate_turn(
    turn: TurnView,
    previous: TurnView | None,
    mentions: list[ArgumentMention],
    min_content: int = 2,
    known_names: frozenset[str] = frozenset(),
) -> GateVerdict:
    """The gate's verdict on one turn (module doc), with the reason in a few words.
    ``mentions``: the turn's arguments (``extract_arguments``, no keyphrases)."""
    words = _words(turn.body)
    found = {m.name for m in mentions if m.kind in ("person", "proper")}
    names = {w for n in found for w in _words(n)}
    named = sorted(found | {w.capitalize() for w in words if w in known_names and w not in names})
    names |= {w for w in words if w in known_names}
    anchors = []
    if any(w in FIRST_PERSON for w in words):
        anchors.append("first person")
    if named:
        anchors.append("names " + ", ".join(named[:3]))
    if asks_the_other(previous, turn):
        anchors.append("answers a question about the speaker")
    content = [
        w
        for w in words
        if len(w) > 2
        and w not in STOPWORDS
        and w not in FILLER
        and w not in names
        and w not in FIRST_PERSON
        and w not in SECOND_PERSON
    ]
    values = [m.name for m in mentions if m.kind in ("date", "number")]
    informative = len(content) >= min_content or bool(values)
    if anchors and informative:
        detail = f"{len(content)} content words" + (f", {', '.join(values[:2])}" if values else "")
        return GateVerdict(keep=True, reason=f"{'; '.join(anchors)}; {detail}")
    if not anchors:
        return GateVerdict(keep=False, reason="not about a participant or a named thing")
    return GateVerdict(keep=False, reason="no content beyond greeting or backchannel")


def offline_gate(
    turns: list[TurnView], speakers: list[str], min_content: int = 2, known_names: frozenset[str] = frozenset()
) -> dict[str, GateVerdict]:
    """Verdict per turn id, in order. ``known_names``: name words from earlier sessions."""
    mentions = [extract_arguments(t.body, speakers, max_keyphrases=0) for t in turns]
    known = session_names(mentions, speakers) | known_names
    return {
        t.id: gate_turn(t, turns[i - 1] if i else None, mentions[i], min_content, known) for i, t in enumerate(turns)
    }
