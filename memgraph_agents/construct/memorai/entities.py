"""Offline MemORAI entities: the arguments of the gated turns, with extractive descriptions.

MemORAI's LLM writes a one-or-two sentence description of each entity citing the turns it
comes from (§3.2). Offline, the entities are the offline arguments (``construct.arguments``:
names, proper nouns, dates, quantities and the top ``keyphrases`` keyphrases) of the turns the
gate kept, and a description is extractive: the entity's name followed by up to
``MAX_CONTEXT`` sentences that mention it, each as ``Speaker: sentence`` (dates resolved), in
conversation order. Speakers are entities only where a turn names them: the speaker of every
turn would be a hub linked to everything, which blurs a random walk rather than guiding it.

No triples offline: without a parser, subject-predicate-object is guesswork, and a wrong
relation edge misleads DW-PR more than a missing one (it still has mentions and segments).
"""

from __future__ import annotations

from memgraph_agents.construct.arguments import extract_arguments
from memgraph_agents.construct.memorai.plan import EntityPlan, TurnView
from memgraph_agents.construct.relate import argument_key
from memgraph_agents.construct.sentences import split_sentences

MAX_CONTEXT = 2  # sentences quoted in a description
MAX_DESCRIPTION = 400  # characters


def _mentioning_sentence(turn: TurnView, name: str) -> str:
    """The first sentence of the turn that contains ``name`` (any case), else the whole turn."""
    low = name.lower()
    for s in split_sentences(turn.body):
        if low in s.lower():
            return s.strip()
    return turn.body.strip()


def describe(name: str, contexts: list[str]) -> str:
    """``name: ctx1 ctx2`` capped at ``MAX_DESCRIPTION`` characters."""
    text = f"{name}: " + " ".join(contexts[:MAX_CONTEXT])
    return text if len(text) <= MAX_DESCRIPTION else text[: MAX_DESCRIPTION - 1].rstrip() + "…"


def offline_entities(turns: list[TurnView], speakers: list[str], keyphrases: int = 2) -> list[EntityPlan]:
    """Entities of ``turns`` (the gated ones), keyed like ``relate`` keys arguments, first seen first."""
    found: dict[str, dict] = {}
    for t in turns:
        for m in extract_arguments(t.body, speakers, max_keyphrases=keyphrases):
            key = argument_key(m.name)
            if not key:
                continue
            entry = found.setdefault(key, {"name": m.name, "kind": m.kind, "turns": [], "contexts": []})
            if t.id not in entry["turns"]:
                entry["turns"].append(t.id)
                sentence = _mentioning_sentence(t, m.name)
                entry["contexts"].append(f"{t.speaker}: {sentence}" if t.speaker else sentence)
    return [
        EntityPlan(name=e["name"], description=describe(e["name"], e["contexts"]), turn_ids=e["turns"], kind=e["kind"])
        for e in found.values()
    ]
