"""Calibrate the relevance gate on one set of chats, report it on others (BENCHMARKS.md, "The relevance gate").

    python docs/bench-gate/calibrate.py [--data-dir MEM --data locomo_dev.json] [--out FILE]

The gate refuses a question ("nothing relevant in memory") when its signal, the relevance of the
namespace's best-matching statement (``retrieval.gate.question_relevance``: whatever k), is
below a threshold. This script measures that signal for

* **invented chats** written for this study (``chats_a.json``: calibration; ``chats_b.json``:
  held out, other people, topics and question styles: lower case, telegraphic, requests, small
  talk), each with questions it answers (and their evidence turns) and off-topic questions of
  many kinds: general knowledge, how-to, tasks for an assistant, arithmetic, code, small talk,
  facts about the speakers nobody stated, people the chat never mentions, and near-topic
  questions whose answer the chat does not hold;
* optionally a LoCoMo memory (``--data-dir`` built by ``memgraph ingest … --format locomo``, and
  ``--data`` its file): its questions of categories 1-4 are the answerable side; the off-topic
  side is every chat's off-topic question that names none of its people, plus the templates of
  ``offtopic.json``. The conversations the ranking was tuned on (conv-26, conv-30, conv-41) join
  the calibration side, the others the held-out side.

The gate in force for a namespace of N turns is ``base + slope · ln(N)`` (the best of N unrelated
cosines grows with N). Both are chosen on the calibration side alone: for each slope of
``SLOPES`` the highest base that leaves at most ``--max-empty`` of the answerable questions of
each kind of memory empty (short chats, long conversations), and of those the slope whose
worse kind refuses the most off-topic questions (a gate must hold in a small memory and in a
big one). Printed: the AUROC of the signal per
side, per base the share of off-topic questions refused and of answerable questions left empty
on each side at the chosen slope, and the figures at the chosen and at the configured gate.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
TUNED = ("conv-26", "conv-30", "conv-41")
GRID = tuple(round(x, 3) for x in np.arange(0.10, 0.401, 0.005))
SLOPES = (0.0, 0.01, 0.015, 0.02, 0.025, 0.03)


def conversation(chat: dict) -> dict:
    """A chat of ``chats_*.json`` ("Speaker|text" turns) as the JSON conversation format."""
    sessions = []
    for n, s in enumerate(chat["sessions"], start=1):
        turns = []
        for i, line in enumerate(s["turns"], start=1):
            speaker, text = line.split("|", 1)
            turns.append({"id": f"S{n}:{i}", "speaker": speaker, "text": text})
        sessions.append({"id": f"S{n}", "date": s["date"], "turns": turns})
    return {"id": chat["id"], "speakers": chat["speakers"], "sessions": sessions}


def signal(mem, namespace: str, question: str) -> tuple[float, int]:
    """(the gate's signal for ``question``, the namespace's turns)."""
    from memgraph_agents.api import ops
    from memgraph_agents.retrieval.gate import question_relevance

    store = ops.open_store(mem.settings, namespace)
    value = question_relevance(question, store)
    return (0.0 if value is None else value), len(store.snapshot().indices_of("turn"))


Side = tuple[list[tuple[float, int]], list[tuple[float, int]]]  # (answerable, off-topic): (signal, turns)


def refused(rows: list[tuple[float, int]], base: float, slope: float) -> np.ndarray:
    return np.array([s < base + slope * np.log(max(n, 1)) for s, n in rows], dtype=float)


def chat_side(mem, chats: list[dict]) -> Side:
    """(answerable signals, off-topic signals) of ``chats``, each stored in its own namespace."""
    ans, off = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for chat in chats:
            path = Path(tmp) / f"{chat['id']}.json"
            path.write_text(json.dumps(conversation(chat)), encoding="utf-8")
            mem.add(path, namespace=chat["id"], format="json")
            ans += [signal(mem, chat["id"], q) for q, _ in chat["answerable"]]
            off += [signal(mem, chat["id"], q) for q in chat["offtopic"]]
    return ans, off


def people_free(chats: list[dict]) -> list[str]:
    """The chats' off-topic questions that name none of the chats' people (askable anywhere)."""
    names = {w for c in chats for s in c["speakers"] for w in s.split()}
    names |= {m for c in chats for s in c["sessions"] for t in s["turns"] for m in re.findall(r"\b[A-Z][a-z]+\b", t)}
    out = []
    for c in chats:
        for q in c["offtopic"]:
            words = set(re.findall(r"\b[A-Z][a-z]+\b", q))
            if not (words & names) and "'s " not in q:
                out.append(q)
    return out


def locomo_side(mem, data: Path, chats: list[dict]) -> dict[str, Side]:
    """Per LoCoMo conversation: (answerable signals of categories 1-4, off-topic signals)."""
    sys.path.insert(0, str(HERE))
    from gate import offtopic_questions  # the templates of the first study

    from memgraph_agents.api import ops
    from memgraph_agents.retrieval.seeds import speaker_patterns

    recipe = json.loads((HERE / "offtopic.json").read_text(encoding="utf-8"))
    general = people_free(chats)
    out = {}
    for n, conv in enumerate(json.loads(data.read_text(encoding="utf-8"))):
        ns = conv["sample_id"]
        snap = ops.open_store(mem.settings, ns).snapshot()
        speakers = sorted(speaker_patterns(snap))
        texts = [snap.text[i] for i in snap.indices_of("turn")]
        qs = offtopic_questions(recipe, speakers, texts, n) + general[n::3]
        ans = [signal(mem, ns, q["question"]) for q in conv["qa"] if q.get("category") in (1, 2, 3, 4)]
        out[ns] = (ans, [signal(mem, ns, q) for q in qs])
    return out


def table(sides: dict[str, Side], slope: float) -> list[str]:
    from memgraph_agents.bench.metrics import auroc

    lines = [f"gate = base + {slope:g} ln(turns)", ""]
    lines.append("| base | " + " | ".join(f"{s}: off-topic refused | {s}: answerable empty" for s in sides) + " |")
    lines.append("|--:|" + "--:|--:|" * len(sides))
    for t in GRID:
        cells = []
        for ans, off in sides.values():
            cells += [f"{refused(off, t, slope).mean():.1%}", f"{refused(ans, t, slope).mean():.2%}"]
        lines.append(f"| {t:.3f} | " + " | ".join(cells) + " |")
    for s, (ans, off) in sides.items():
        a = [v - slope * np.log(max(n, 1)) for v, n in ans]
        o = [v - slope * np.log(max(n, 1)) for v, n in off]
        lines.append(f"{s}: {len(ans)} answerable, {len(off)} off-topic, AUROC {auroc(a, o):.3f}")
    return lines


def choose(cal: list[Side], max_empty: float) -> tuple[float, float]:
    """(base, slope) on the calibration sides (see the module docstring)."""
    best: tuple[float, float, float] | None = None
    for slope in SLOPES:
        ok = [t for t in GRID if all(refused(ans, t, slope).mean() <= max_empty for ans, _ in cal)]
        if not ok:
            continue
        base = max(ok)
        score = min(refused(off, base, slope).mean() for _, off in cal)
        if best is None or score > best[0]:
            best = (score, base, slope)
    assert best is not None
    return best[1], best[2]


def at(sides: dict[str, Side], base: float, slope: float, what: str) -> list[str]:
    out = [f"{what}: gate = {base:g} + {slope:g} ln(turns)"]
    for s, (ans, off) in sides.items():
        out.append(
            f"  {s}: off-topic refused {refused(off, base, slope).mean():.1%} of {len(off)}, "
            f"answerable empty {refused(ans, base, slope).mean():.2%} of {len(ans)}"
        )
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", type=Path, help="a LoCoMo memory (memgraph ingest … --format locomo)")
    ap.add_argument("--data", type=Path, help="its LoCoMo file (questions)")
    ap.add_argument("--max-empty", type=float, default=0.01, help="answerable share a threshold may leave empty")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    from memgraph_agents import Memory
    from memgraph_agents.config import Settings

    chats_a = json.loads((HERE / "chats_a.json").read_text(encoding="utf-8"))
    chats_b = json.loads((HERE / "chats_b.json").read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory() as tmp:
        mem = Memory(settings=Settings(data_dir=Path(tmp), llm="none"))
        cal_ans, cal_off = chat_side(mem, chats_a)
        held_ans, held_off = chat_side(mem, chats_b)
    sides = {"chats (calibration)": (cal_ans, cal_off), "chats (held out)": (held_ans, held_off)}
    cal = [sides["chats (calibration)"]]
    if args.data_dir and args.data:
        mem = Memory(settings=Settings(data_dir=args.data_dir, llm="none"))
        loco = locomo_side(mem, args.data, chats_a + chats_b)
        tuned = [v for k, v in loco.items() if k in TUNED]
        held = [v for k, v in loco.items() if k not in TUNED]
        sides["LoCoMo tuned (calibration)"] = ([a for x in tuned for a in x[0]], [o for x in tuned for o in x[1]])
        sides["LoCoMo untuned (held out)"] = ([a for x in held for a in x[0]], [o for x in held for o in x[1]])
        cal.append(sides["LoCoMo tuned (calibration)"])
    from memgraph_agents.config import MINILM_GATE, MINILM_GATE_PER_LN_TURNS

    base, slope = choose(cal, args.max_empty)
    lines = table(sides, slope)
    lines += at(sides, base, slope, f"chosen on the calibration side (answerable empty <= {args.max_empty:.1%})")
    lines += at(
        sides, MINILM_GATE, MINILM_GATE_PER_LN_TURNS, "configured (config.MINILM_GATE, MINILM_GATE_PER_LN_TURNS)"
    )
    for flat in (0.25, 0.31):
        lines += at(sides, flat, 0.0, "a flat gate, for comparison")
    text = "\n".join(lines)
    print(text)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
