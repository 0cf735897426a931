"""SGMem generated memory without an LLM: an extractive summary and extractive facts.

SGMem's summaries, facts and insights are written by an LLM (§3.3). Offline there is no
model to write new text, so this builder *selects* text instead, and says so in the
nodes' ``builder = "offline"`` attribute:

* **summary** — the session's most central fact sentences (below; centroid summarisation,
  MEAD: Radev et al. 2004), in conversation order, each prefixed with its speaker; chat is
  full of reactions and questions ("Wow, that's cool!") that are central but say nothing.
  Relative dates are already resolved in the turn text (``normalise`` runs
  ``timeparse.annotate_times``);
* **facts** — every statement (not a question) with at least ``MIN_FACT_WORDS`` content
  words that is about someone or something specific: first-person words, a participant's
  name, a proper noun, a number or a date (``arguments.extract_arguments``). Reactions
  ("That is a great time.") are left out. Each is quoted verbatim with speaker and date:
  ``On 10 March 2024, Ana said: "I adopted a puppy yesterday (9 March 2024)..."``;
* **insights** — none: abstracting a habit or a preference from facts needs a model.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from datetime import date, datetime

import numpy as np

from memgraph_agents.construct.arguments import extract_arguments
from memgraph_agents.construct.build import SessionBuild
from memgraph_agents.construct.context import BuildContext
from memgraph_agents.construct.sgmem.draft import DraftFact, MemoryDraft
from memgraph_agents.construct.sgmem.generate import content_words
from memgraph_agents.construct.timeparse import find_time_mentions
from memgraph_agents.model.conversation import Session
from memgraph_agents.model.graph import NodeKind
from memgraph_agents.model.ranking import exact_dots, order_best_first

MAX_SUMMARY_SENTENCES = 5
REDUNDANT = 0.9  # a summary sentence this similar to one already picked adds nothing
MIN_FACT_WORDS = 3
_SPECIFIC = {"person", "proper", "number", "date"}  # argument kinds that make a sentence specific
_FIRST_PERSON_RE = re.compile(r"\b(?:i|i'm|i've|i'll|i'd|me|my|mine|myself|we|we're|we've|our|ours|us)\b", re.I)


def human_date(d: date | datetime) -> str:
    return f"{d.day} {d:%B %Y}"


def centroid_scores(vecs: np.ndarray) -> np.ndarray:
    """Centrality of each sentence: ``score(c) = cos(e_c, ē)`` with ``ē`` the mean of the
    (normalised) sentence vectors of the session (MEAD's centroid score)."""
    if len(vecs) == 0:
        return np.zeros(0)
    centre = vecs.mean(axis=0)
    norm = float(np.linalg.norm(centre))
    if norm == 0.0:
        return np.zeros(len(vecs))
    return vecs @ (centre / norm)


def pick_central(
    vecs: np.ndarray, m: int, eligible: Sequence[bool] | None = None, redundant: float = REDUNDANT
) -> list[int]:
    """Up to ``m`` indices, most central first, skipping any with cosine ≥ ``redundant`` to one
    already picked; returned in ascending (conversation) order. Only ``eligible`` indices are
    picked unless none is."""
    scores = centroid_scores(vecs)
    pool = [i for i in range(len(vecs)) if eligible is None or eligible[i]] or list(range(len(vecs)))
    chosen: list[int] = []
    # Near-equal centralities (repeated sentences) by index, redundancy on exact cosines: not
    # on how BLAS rounded a row at its position (model.ranking).
    pool_arr = np.asarray(pool, dtype=np.int64)
    for i in pool_arr[order_best_first(scores[pool_arr], pool_arr)].tolist():
        if len(chosen) >= m:
            break
        if not chosen or exact_dots(vecs, vecs, [i] * len(chosen), chosen).max() < redundant:
            chosen.append(i)
    return sorted(chosen)


def summary_size(n_sentences: int, cap: int = MAX_SUMMARY_SENTENCES) -> int:
    """``clamp(⌈√n⌉, 1, cap)`` sentences: a handful for a LoCoMo session, one for a greeting."""
    return max(1, min(cap, math.ceil(math.sqrt(max(n_sentences, 1)))))


def is_fact_sentence(sentence: str, names: Sequence[str]) -> bool:
    """A statement (not a question) with at least ``MIN_FACT_WORDS`` content words besides
    the participants' names, that has first-person words or names a person, a proper noun,
    a number or a date."""
    text = sentence.strip()
    if not text or text.rstrip(" )\"'”’").endswith("?"):
        return False
    lowered = {n.casefold() for n in names}
    if len({w for w in content_words(text) if w not in lowered}) < MIN_FACT_WORDS:
        return False
    if _FIRST_PERSON_RE.search(text):
        return True
    return any(m.kind in _SPECIFIC for m in extract_arguments(text, names, max_keyphrases=0))


def _sentences(b: SessionBuild) -> list[tuple[str, str, str, str]]:
    """``(turn id, speaker, sentence, turn timestamp)`` for every sentence node of the session
    (the sentence step, which runs before the layers, split the turns: ``sentence_layer``)."""
    turns = {t.attrs["turn_id"]: t for t in b.of_kind(NodeKind.TURN)}
    out = []
    for s in b.of_kind(NodeKind.SENTENCE):
        t = turns[s.attrs["turn_id"]]
        speaker = t.attrs["speaker"]
        out.append((s.attrs["turn_id"], speaker, s.text.removeprefix(f"{speaker}: "), t.attrs.get("timestamp", "")))
    return out


def offline_draft(b: SessionBuild, session: Session, ctx: BuildContext) -> MemoryDraft:
    """Extractive summary and facts of the session (see the module docstring)."""
    sents = _sentences(b)
    names = list(dict.fromkeys([*session.participants, *ctx.speakers]))
    when = human_date(session.date)
    if not sents:  # no text at all: the summary still says the session happened
        return MemoryDraft(
            summary=f"Session of {when}.", summary_turns=[t.id for t in session.turns], builder="offline"
        )
    # The sentence nodes' own texts, so their vectors are computed already.
    vecs = ctx.embedder.embed([f"{sp}: {s}" for _, sp, s, _ in sents])
    factual = [is_fact_sentence(s, names) for _, _, s, _ in sents]
    picked = pick_central(
        np.asarray(vecs), summary_size(sum(factual) or len(sents)), factual, redundant=ctx.cut(REDUNDANT)
    )
    head = f"Session of {when} ({', '.join(session.participants)})."
    summary = " ".join([head, *(f"{sents[i][1]}: {sents[i][2]}" for i in picked)])
    summary_turns = list(dict.fromkeys(sents[i][0] for i in picked))

    facts: list[DraftFact] = []
    seen: set[str] = set()
    for (tid, speaker, s, stamp), is_fact in zip(sents, factual):
        if not is_fact or s.casefold() in seen:
            continue
        seen.add(s.casefold())
        ref = datetime.fromisoformat(stamp) if stamp else session.date
        dates = sorted({m.date.isoformat() for m in find_time_mentions(s, ref)})
        facts.append(
            DraftFact(
                text=f'On {human_date(ref)}, {speaker} said: "{s}"',
                turn_ids=[tid],
                subject=speaker,
                time=dates[0] if dates else None,
            )
        )
    return MemoryDraft(summary=summary, summary_turns=summary_turns, builder="offline", facts=facts)
