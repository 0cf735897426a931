"""Link precision and recall, and the ranking checks, on the shapes sets (BENCHMARKS.md).

    python docs/bench-updates/shapes.py --data-dir /tmp/shapes --retrievers oneshot,dense
    python docs/bench-updates/shapes.py --set relayed --data-dir /tmp/relayed --retrievers oneshot,dense
    python docs/bench-updates/shapes.py --set new --data-dir /tmp/new --retrievers oneshot,dense

Sets: ``shapes`` (``tests/knowledge_updates_shapes.py``), ``relayed`` (someone else's words and
self-corrections, ``tests/knowledge_updates_relayed.py``), ``new`` (updates and near misses in
new shapes, ``tests/knowledge_updates_new_shapes.py``), ``later`` (more new shapes, written
before the rules the ``new`` set led to, ``tests/knowledge_updates_later.py``). Ingests each chat of the set into its own
namespace (offline, MiniLM), then prints the ``supersedes`` links construction made against the ones each chat
names (precision: right links / links made; recall: right links / links named), per shape,
and, per retriever, for how many update chats a question about the present ranks the current
statement first among the two (or marks the old one replaced) and a question about the past
finds the earlier statement in the top 5; for a near miss that names the person's fact
(``old`` without ``new``), whether a question about the present finds that fact unmarked, and
first among the person's turns it ranks. Run from the repository root.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from memgraph_agents import Memory  # noqa: E402
from memgraph_agents.api.ops import open_store  # noqa: E402
from tests import knowledge_updates_later, knowledge_updates_new_shapes, knowledge_updates_relayed  # noqa: E402
from tests.helpers import edges  # noqa: E402
from tests.knowledge_updates_shapes import CHATS as SHAPES  # noqa: E402
from tests.knowledge_updates_shapes import conversation  # noqa: E402

SETS = {
    "shapes": SHAPES,
    "relayed": knowledge_updates_relayed.CHATS,
    "new": knowledge_updates_new_shapes.CHATS,
    "later": knowledge_updates_later.CHATS,
}


def rank_of(evidence, turn: str) -> int | None:
    return next((r for r, ev in enumerate(evidence) if ev.turn_ids[:1] == [turn]), None)


def links_of(mem: Memory, ns: str) -> set[tuple[str, str]]:
    return {
        (e.src.removeprefix("turn:"), e.dst.removeprefix("turn:"))
        for e in edges(open_store(mem.settings, ns), "supersedes")
    }


def present_ok(ev, new: str, old: str) -> bool:
    n, o = rank_of(ev, new), rank_of(ev, old)
    return (n is not None and (o is None or n < o)) or (o is not None and not ev[o].current)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set", choices=sorted(SETS), default="shapes")
    ap.add_argument("--data-dir", required=True)
    ap.add_argument("--retrievers", default="oneshot,dense")
    ap.add_argument("--k", type=int, default=10)
    args = ap.parse_args()
    chats = SETS[args.set]
    mem = Memory(args.data_dir, llm="none")
    for i in range(len(chats)):
        mem.add(conversation(i, chats), namespace=f"s{i:02d}")
    made = right = named = 0
    wrong, missed = [], []
    per_shape: Counter[str] = Counter()
    for i, c in enumerate(chats):
        got = links_of(mem, f"s{i:02d}")
        made += len(got)
        right += len(got & c.links)
        named += len(c.links)
        wrong += [(i, c.shape, x) for x in sorted(got - c.links)]
        missed += [(i, c.shape, x) for x in sorted(c.links - got)]
        per_shape[c.shape] += int(got == c.links)
    updates = [i for i, c in enumerate(chats) if c.links and c.now]
    facts = [i for i, c in enumerate(chats) if c.old and not c.new]
    near = sum(1 for c in chats if not c.links)
    print(f"{args.set}: {len(chats)} chats ({len(chats) - near} with a change, {near} without)")
    print(
        f"links: made {made}, right {right}, named {named}; precision {right / max(made, 1):.3f}, recall {right / max(named, 1):.3f}"
    )
    print(f"  wrong: {wrong}")
    print(f"  missed: {missed}")
    shapes = Counter(c.shape for c in chats)
    print("  exact per shape: " + ", ".join(f"{s} {per_shape[s]}/{n}" for s, n in shapes.items()))
    for name in filter(None, args.retrievers.split(",")):
        now = past = 0
        failed = []
        for i in updates:
            c, ns = chats[i], f"s{i:02d}"
            ok_now = present_ok(mem.search(c.now, namespace=ns, retriever=name, k=args.k, min_score=0), c.new, c.old)
            ev = mem.search(c.before, namespace=ns, retriever=name, k=args.k, min_score=0)
            o = rank_of(ev, c.old)
            ok_past = o is not None and o < 5
            now += ok_now
            past += ok_past
            if not (ok_now and ok_past):
                failed.append(f"{i}:{c.shape}{'' if ok_now else ' now'}{'' if ok_past else ' past'}")
        kept = first = 0
        for i in facts:
            c, ns = chats[i], f"s{i:02d}"
            ev = mem.search(c.now, namespace=ns, retriever=name, k=args.k, min_score=0)
            o = rank_of(ev, c.old)
            own = [
                r
                for r, e in enumerate(ev)
                if e.turn_ids and e.turn_ids[0] != c.old and e.text.startswith(f"{c.person}:")
            ]
            kept += o is not None and ev[o].current
            first += o is not None and all(o < r for r in own)
            if not (o is not None and ev[o].current):
                failed.append(f"{i}:{c.shape} fact")
        print(
            f"  {name}: present {now}/{len(updates)}, past in top 5 {past}/{len(updates)}"
            + (
                f"; fact kept current {kept}/{len(facts)}, first of the person's turns {first}/{len(facts)}"
                if facts
                else ""
            )
            + f"; failed {failed}"
        )


if __name__ == "__main__":
    main()
