"""Calibrate the relevance gate on one set of chats, report it on others (BENCHMARKS.md, "The relevance gate").

    python docs/bench-gate/calibrate.py [--data-dir MEM --data locomo_dev.json] [--out FILE]

The gate refuses a question ("nothing relevant in memory") when its signal, the relevance of the
namespace's best-matching statement (``retrieval.gate.question_relevance``: whatever k), is
below a threshold. This script measures that signal for

* **invented chats** written for this study (``chats_a.json``: calibration; ``chats_b.json``:
  held out, other people, topics and question styles: lower case, telegraphic, requests, small
  talk; ``chats_c.json``: held out, written after the gate's raises were designed, with
  requests about memory phrased as tasks and near-topic questions), each with questions it
  answers (and their evidence turns; ``chats_a`` and ``chats_c`` include requests that need
  memory, "write a card for …") and off-topic questions of many kinds: general knowledge,
  how-to, tasks for an assistant, arithmetic, code, small talk, facts about the speakers nobody
  stated, people the chat never mentions, and near-topic questions whose answer the chat does
  not hold;
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
big one). Then, on that gate, the question's raises (``retrieval.gate_terms``: a task for the
assistant, a name no turn mentions) of ``RAISES`` that leave at most ``--max-empty`` of each
calibration side's answerable questions empty, and of those the ones whose worse side refuses
the most (the smaller of equal ones). Printed: the AUROC of the signal (less the gate's rise) per
side, per base the share of off-topic questions refused and of answerable questions left empty
on each side at the chosen slope and raises, and the figures at the chosen and at the
configured gate, and without the raises.
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
# (task, unknown name) raises tried, smallest first (``retrieval.gate_terms``)
RAISES = tuple((t, u) for t in (0.0, 0.05, 0.1, 0.15, 0.2, 0.3) for u in (0.0, 0.025, 0.05, 0.1))


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


Row = tuple[float, int, bool, bool]  # (signal, turns, a task for the assistant, names what no turn mentions)


def signal(mem, namespace: str, question: str) -> Row:
    """The gate's signal for ``question``, the namespace's turns, and the question's two raises."""
    from memgraph_agents.api import ops
    from memgraph_agents.retrieval.gate import question_relevance
    from memgraph_agents.retrieval.gate_terms import assistant_task, unknown_names

    store = ops.open_store(mem.settings, namespace)
    snap = store.snapshot()
    value = question_relevance(question, store)
    task, name = assistant_task(question), bool(unknown_names(question, snap))
    return (0.0 if value is None else value), len(snap.indices_of("turn")), task, name


Side = tuple[list[Row], list[Row]]  # (answerable, off-topic)
Raises = tuple[float, float]  # (task, unknown name)


def refused(rows: list[Row], base: float, slope: float, raises: Raises = (0.0, 0.0)) -> np.ndarray:
    up = raises
    return np.array([s < base + slope * np.log(max(n, 1)) + up[0] * t + up[1] * u for s, n, t, u in rows], dtype=float)


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


def table(sides: dict[str, Side], slope: float, raises: Raises) -> list[str]:
    from memgraph_agents.bench.metrics import auroc

    lines = [f"gate = base + {slope:g} ln(turns) + {raises[0]:g} task + {raises[1]:g} unknown name", ""]
    lines.append("| base | " + " | ".join(f"{s}: off-topic refused | {s}: answerable empty" for s in sides) + " |")
    lines.append("|--:|" + "--:|--:|" * len(sides))
    for t in GRID:
        cells = []
        for ans, off in sides.values():
            cells += [f"{refused(off, t, slope, raises).mean():.1%}", f"{refused(ans, t, slope, raises).mean():.2%}"]
        lines.append(f"| {t:.3f} | " + " | ".join(cells) + " |")
    for s, (ans, off) in sides.items():
        a = [v - slope * np.log(max(n, 1)) - raises[0] * t - raises[1] * u for v, n, t, u in ans]
        o = [v - slope * np.log(max(n, 1)) - raises[0] * t - raises[1] * u for v, n, t, u in off]
        lines.append(
            f"{s}: {len(ans)} answerable, {len(off)} off-topic, AUROC {auroc(a, o):.3f}; "
            f"tasks {np.mean([r[2] for r in off]):.0%} of off-topic, {np.mean([r[2] for r in ans]):.1%} of answerable; "
            f"unknown names {np.mean([r[3] for r in off]):.0%} of off-topic, {np.mean([r[3] for r in ans]):.1%} of answerable"
        )
    return lines


def choose(cal: list[Side], max_empty: float) -> tuple[float, float]:
    """(base, slope) on the calibration sides, without the raises (see the module docstring)."""
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


def choose_raises(cal: list[Side], base: float, slope: float, max_empty: float) -> Raises:
    """The raises, on top of the namespace's gate ``base + slope ln(N)``: of those leaving at most
    ``max_empty`` of each calibration side's answerable questions empty, the one whose worse side
    refuses the most off-topic questions (the smaller raises of equal ones)."""
    best: tuple[float, Raises] | None = None
    for raises in RAISES:
        if any(refused(ans, base, slope, raises).mean() > max_empty for ans, _ in cal):
            continue
        score = min(refused(off, base, slope, raises).mean() for _, off in cal)
        if best is None or score > best[0] + 1e-9:
            best = (score, raises)
    return best[1] if best is not None else (0.0, 0.0)


def at(sides: dict[str, Side], base: float, slope: float, what: str, raises: Raises = (0.0, 0.0)) -> list[str]:
    out = [f"{what}: gate = {base:g} + {slope:g} ln(turns) + {raises[0]:g} task + {raises[1]:g} unknown name"]
    for s, (ans, off) in sides.items():
        out.append(
            f"  {s}: off-topic refused {refused(off, base, slope, raises).mean():.1%} of {len(off)}, "
            f"answerable empty {refused(ans, base, slope, raises).mean():.2%} of {len(ans)}"
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
    chats_c = json.loads((HERE / "chats_c.json").read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory() as tmp:
        mem = Memory(settings=Settings(data_dir=Path(tmp), llm="none"))
        sides = {
            "chats (calibration)": chat_side(mem, chats_a),
            "chats (held out)": chat_side(mem, chats_b),
            "new chats (held out)": chat_side(mem, chats_c),
        }
    cal = [sides["chats (calibration)"]]
    if args.data_dir and args.data:
        mem = Memory(settings=Settings(data_dir=args.data_dir, llm="none"))
        loco = locomo_side(mem, args.data, chats_a + chats_b)
        tuned = [v for k, v in loco.items() if k in TUNED]
        held = [v for k, v in loco.items() if k not in TUNED]
        sides["LoCoMo tuned (calibration)"] = ([a for x in tuned for a in x[0]], [o for x in tuned for o in x[1]])
        sides["LoCoMo untuned (held out)"] = ([a for x in held for a in x[0]], [o for x in held for o in x[1]])
        cal.append(sides["LoCoMo tuned (calibration)"])
    from memgraph_agents.config import (
        MINILM_GATE,
        MINILM_GATE_NAME_RAISE,
        MINILM_GATE_PER_LN_TURNS,
        MINILM_GATE_TASK_RAISE,
    )

    base, slope = choose(cal, args.max_empty)
    raises = choose_raises(cal, base, slope, args.max_empty)
    lines = table(sides, slope, raises)
    chosen = f"chosen on the calibration side (answerable empty <= {args.max_empty:.1%})"
    lines += at(sides, base, slope, chosen, raises)
    configured = (MINILM_GATE_TASK_RAISE, MINILM_GATE_NAME_RAISE)
    lines += at(sides, MINILM_GATE, MINILM_GATE_PER_LN_TURNS, "configured (config.MINILM_GATE*)", configured)
    lines += at(sides, MINILM_GATE, MINILM_GATE_PER_LN_TURNS, "without the raises, for comparison")
    for flat in (0.25, 0.31):
        lines += at(sides, flat, 0.0, "a flat gate, for comparison")
    text = "\n".join(lines)
    print(text)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
