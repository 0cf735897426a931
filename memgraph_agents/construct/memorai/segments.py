"""Offline topic segments and extractive segment summaries (MemORAI §3.1 without an LLM).

Segmentation: MemORAI follows SECOM and asks an LLM for topically coherent segments. Offline
we cut the session where adjacent turns drift apart semantically (TextTiling over turn
embeddings, ``construct.segment.segment_by_shift``) with *coarser* size limits than events
(``memorai_segment_min_turns`` .. ``memorai_segment_max_turns``): a topic segment may hold
several events.

Summary: centroid-based extractive summarisation (Radev et al. 2004, "Centroid-based
summarization of multiple documents"). With ``v_s`` the unit embedding of sentence ``s`` of
the segment and ``c = mean_s v_s``::

    score(s) = cos(v_s, c)

the ``n`` best sentences (sentences with fewer than ``MIN_WORDS`` words, i.e. greetings and
backchannel, only when nothing else is left) are kept in conversation order and written
``Speaker: sentence`` (SGMem's ``sgmem.offline.pick_central``, without its redundancy
check). The turn texts already carry resolved dates ("yesterday (9 March 2024)"), so the
summary does too.
"""

from __future__ import annotations

import re

import numpy as np

from memgraph_agents.construct.arguments import extract_arguments
from memgraph_agents.construct.memorai.plan import SegmentPlan, TurnView
from memgraph_agents.construct.segment import segment_by_shift
from memgraph_agents.construct.sentences import split_sentences
from memgraph_agents.construct.sgmem.offline import pick_central
from memgraph_agents.embeddings import EmbeddingModel

MIN_WORDS = 4  # shorter sentences ("Hi Ben!", "Wow, congrats!") say nothing worth summarising
MAX_TITLE_TERMS = 3
_WORD_RE = re.compile(r"\w+")


def extractive_summary(turns: list[TurnView], embedder: EmbeddingModel, n_sentences: int) -> str:
    """The segment's ``n_sentences`` most central sentences, ``Speaker: sentence`` each."""
    rows: list[tuple[str, str]] = []  # (speaker, sentence)
    for t in turns:
        rows.extend((t.speaker, s) for s in split_sentences(t.body) if s.strip())
    if not rows:
        return " ".join(t.text for t in turns)[:500]
    lines = [f"{speaker}: {s}" if speaker else s for speaker, s in rows]
    vecs = embedder.embed(lines)  # the sentence layer's texts: embedding-cache hits
    long_enough = [len(_WORD_RE.findall(s)) >= MIN_WORDS for _, s in rows]
    picked = pick_central(np.asarray(vecs, dtype=np.float64), n_sentences, long_enough, redundant=np.inf)
    return " ".join(lines[i] for i in picked)


def segment_title(turns: list[TurnView], speakers: list[str]) -> str:
    """A short label: the segment's first few non-person arguments (proper nouns, keyphrases...)."""
    terms: list[str] = []
    for t in turns:
        for m in extract_arguments(t.body, speakers, max_keyphrases=2):
            if m.kind != "person" and m.name not in terms:
                terms.append(m.name)
    return ", ".join(terms[:MAX_TITLE_TERMS])


def offline_segments(
    turns: list[TurnView],
    embedder: EmbeddingModel,
    *,
    min_turns: int,
    max_turns: int,
    window: int,
    depth: float,
    n_sentences: int,
    speakers: list[str],
) -> list[SegmentPlan]:
    """Semantic-shift segments covering every turn, each with an extractive summary and a title."""
    if not turns:
        return []
    vecs = embedder.embed([t.text for t in turns])
    spans = segment_by_shift(vecs, min_size=min_turns, max_size=max_turns, window=window, depth=depth)
    out = []
    for s, e in spans:
        group = turns[s:e]
        out.append(
            SegmentPlan(
                turn_ids=[t.id for t in group],
                summary=extractive_summary(group, embedder, n_sentences),
                title=segment_title(group, speakers),
            )
        )
    return out
