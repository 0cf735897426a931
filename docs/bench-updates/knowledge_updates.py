"""Facts that change, measured on the invented knowledge-update chats (BENCHMARKS.md).

    python docs/bench-updates/knowledge_updates.py --set acceptance --data-dir /tmp/updates \\
        --retrievers oneshot,dense,navigator

Ingests each chat of the set into its own namespace (offline, MiniLM), then prints: how many
``supersedes`` links construction made from the new statement (``S3:2``) to the old one
(``S1:4``) and how many other links; per retriever, for how many chats a question about the
present ranks the new statement above the old one (or marks the old one replaced) and a
question about the past finds the old statement in the top 3; how many present questions
also have the old statement in the top 5; and how many of the questions the relevance gate
refuses when asked without ``min_score``. Run from the repository root.
Sets: ``acceptance`` (tests/knowledge_updates.py), ``fresh`` (tests/knowledge_updates_fresh.py,
never tuned on).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from memgraph_agents import Memory  # noqa: E402
from memgraph_agents.api.ops import open_store  # noqa: E402
from tests.helpers import edges  # noqa: E402
from tests.knowledge_updates import CASES, NEW_TURN, OLD_TURN, conversation  # noqa: E402
from tests.knowledge_updates_fresh import FRESH  # noqa: E402


def rank_of(evidence, turn: str) -> int | None:
    return next((r for r, ev in enumerate(evidence) if ev.turn_ids[:1] == [turn]), None)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set", choices=("acceptance", "fresh"), default="acceptance")
    ap.add_argument("--data-dir", required=True)
    ap.add_argument("--retrievers", default="oneshot,dense")
    args = ap.parse_args()
    cases = CASES if args.set == "acceptance" else FRESH
    mem = Memory(args.data_dir, llm="none")
    for i in range(len(cases)):
        mem.add(conversation(i, cases), namespace=f"{args.set[0]}{i:02d}")
    want = (f"turn:{NEW_TURN}", f"turn:{OLD_TURN}")
    linked = other = 0
    for i in range(len(cases)):
        found = [(e.src, e.dst) for e in edges(open_store(mem.settings, f"{args.set[0]}{i:02d}"), "supersedes")]
        linked += want in found
        other += sum(1 for f in found if f != want)
    print(f"{args.set}: {len(cases)} chats; linked {linked}, other links {other}")
    for name in args.retrievers.split(","):
        present = past = both5 = refused = 0
        missed = []
        for i, case in enumerate(cases):
            ns = f"{args.set[0]}{i:02d}"
            ev = mem.search(case.now, namespace=ns, retriever=name, k=10, min_score=0)
            new, old = rank_of(ev, NEW_TURN), rank_of(ev, OLD_TURN)
            ok_now = (new is not None and (old is None or new < old)) or (old is not None and not ev[old].current)
            both5 += ok_now and old is not None and old < 5
            # the same questions as a user asks them: the relevance gate, no min_score
            refused += sum(not mem.search(q, namespace=ns, retriever=name, k=10) for q in (case.now, case.before))
            ev = mem.search(case.before, namespace=ns, retriever=name, k=10, min_score=0)
            old_past = rank_of(ev, OLD_TURN)
            ok_past = old_past is not None and old_past < 3
            present += ok_now
            past += ok_past
            if not (ok_now and ok_past):
                missed.append(f"{i}:{case.attribute}")
        print(
            f"  {name}: present {present}/{len(cases)} (and the earlier fact in the top 5: {both5}), past in top 3 "
            f"{past}/{len(cases)}; refused by the relevance gate {refused}/{2 * len(cases)}; missed {missed}"
        )


if __name__ == "__main__":
    main()
