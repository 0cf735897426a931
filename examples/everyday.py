"""The everyday verbs of ``Memory``: add with metadata, list, get, update, history, filtered
search, two namespaces at once, forget.

    python examples/everyday.py                  # a fresh memory in a temporary folder
    python examples/everyday.py --data-dir /tmp/mem

Offline (no LLM). After ``pip install``: ``python -m memgraph_agents.examples.everyday``.
"""

from __future__ import annotations

import argparse
import tempfile
from datetime import datetime
from pathlib import Path

CONVERSATION = Path(__file__).with_name("conversation.json")  # shipped with the package


def main(data_dir: str | None = None) -> dict:
    from memgraph_agents import Memory

    mem = Memory(data_dir or tempfile.mkdtemp(prefix="memgraph-everyday-"), namespace="maya")
    mem.add(CONVERSATION, metadata={"source": "chat"})  # every session gets the metadata
    bike = mem.add(
        "Maya is saving for a cargo bike", when=datetime(2024, 6, 1), speaker="Maya", metadata={"kind": "goal"}
    )
    race = mem.add("Maya's next race is in Porto", when=datetime(2024, 6, 3), speaker="Maya", metadata={"kind": "plan"})
    note = bike.note_ids[0]

    print("Stored, newest first:")
    for item in mem.list(limit=4).items:
        print(f"  {item.date[:10]}  {item.kind:8} {item.id:40} {item.metadata}")

    item = mem.get(note)
    print(f"\nget: {item.text!r} by {item.speaker}, {len(item.neighbours)} graph neighbours")
    mem.update(note, "Maya bought a cargo bike in June")
    history = mem.history(note)
    print("history:", " -> ".join(repr(v.text) for v in history.versions))

    print("\nWhat did Jonas say in April about moving day, in the chat sessions?")
    found = mem.search(
        "the van on moving day", k=3, speaker="Jonas", since="2024-04-01", until="2024-05-01", filter={"source": "chat"}
    )
    for ev in found:
        print("  ", ev.cite())

    jonas = mem.user("jonas")  # a user's own namespace, as the agent tools name it
    jonas.add("Jonas wants to show Maya the Voltwerk workshop", speaker="Jonas")
    both = mem.search("a visit to the Voltwerk workshop", namespaces=["maya", jonas.settings.namespace], k=4)
    print("\nBoth namespaces:")
    for ev in both:
        print(f"  [{'maya' if ev.namespace == 'maya' else 'jonas'}] {ev.text[:80]}")

    mem.forget(note=race.note_ids[0])
    print(f"\nAfter forgetting a note: {[i.id for i in mem.list(kind='note').items]}")
    return {"versions": len(history.versions), "found": found, "both": both, "notes": mem.list(kind="note").items}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", help="memory folder (default: a new temporary one)")
    main(parser.parse_args().data_dir)
