"""Evaluation metrics (docs/architecture.md, "Evaluation"): retrieval metrics without an LLM, QA metrics for answers.

Conventions shared by every function here:

* Ranked input is a list of turn ids or a list of ``Evidence``; evidence is flattened into its
  provenance turn ids (``flatten_turns``), and repeated ids count at their first occurrence.
* A question whose gold set is empty after deduplication (or, for sessions, after mapping)
  has no defined retrieval score: the functions return ``nan``. Average with ``np.nanmean``
  to average "over questions with at least one resolvable evidence id".
* QA scores follow LoCoMo's official scorer (snap-research/locomo, task_eval/evaluation.py)
  and, for ``set_f1`` / ``bleu1``, mem0's evaluation (``evaluation/metrics/utils.py``).
"""

from __future__ import annotations

import functools
import math
import re
import string
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence

import numpy as np

from memgraph_agents.model.evidence import Evidence, flatten_turns

__all__ = [
    "answer_recall_at_k",
    "auroc",
    "first_hit",
    "ndcg_at_k",
    "bleu1",
    "context_tokens",
    "f1_locomo",
    "hit_at_k",
    "normalize_answer",
    "percentile",
    "session_recall_at_k",
    "set_f1",
    "turn_recall_at_k",
]

Ranked = Sequence[str] | Sequence[Evidence]


def _ranked_ids(ranked: Ranked) -> list[str]:
    """Ranked turn ids, first occurrence wins."""
    if ranked and isinstance(ranked[0], Evidence):
        return flatten_turns(list(ranked))  # type: ignore[arg-type]
    return list(dict.fromkeys(ranked))  # type: ignore[arg-type]


# ---------------------------------------------------------------- retrieval metrics


def turn_recall_at_k(ranked_turns: Ranked, gold: Iterable[str], k: int) -> float:
    """|gold ∩ first k distinct ranked turns| / |gold| (gold deduplicated); nan if no gold.

    Pass only resolvable gold ids (turns that exist in the conversation): LoCoMo has a few
    evidence ids that point nowhere, and keeping them would cap recall below 1.
    """
    gold_set = set(gold)
    if not gold_set:
        return math.nan
    top = set(_ranked_ids(ranked_turns)[: max(k, 0)])
    return len(gold_set & top) / len(gold_set)


def hit_at_k(ranked_turns: Ranked, gold: Iterable[str], k: int) -> float:
    """1.0 if every gold turn is among the first k distinct ranked turns, else 0.0; nan if no gold."""
    gold_set = set(gold)
    if not gold_set:
        return math.nan
    return float(gold_set <= set(_ranked_ids(ranked_turns)[: max(k, 0)]))


def first_hit(ranked_turns: Ranked, gold: Iterable[str]) -> float:
    """Hit@1 as the field reports it: 1.0 if the first ranked turn is a gold turn (any of them),
    else 0.0; nan if no gold. (``hit_at_k`` asks for all gold turns in the top k instead.)"""
    gold_set = set(gold)
    if not gold_set:
        return math.nan
    ranked = _ranked_ids(ranked_turns)
    return float(bool(ranked) and ranked[0] in gold_set)


def ndcg_at_k(ranked_turns: Ranked, gold: Iterable[str], k: int) -> float:
    """NDCG@k with binary gains over the first k distinct ranked turns (Järvelin & Kekäläinen
    2002): ``DCG = Σ_{i ≤ k, turn_i ∈ gold} 1 / log2(i + 1)``, divided by the DCG of an ideal
    ranking (``min(|gold|, k)`` gold turns first); nan if no gold."""
    gold_set = set(gold)
    if not gold_set:
        return math.nan
    top = _ranked_ids(ranked_turns)[: max(k, 0)]
    dcg = sum(1.0 / math.log2(i + 2) for i, t in enumerate(top) if t in gold_set)
    ideal = sum(1.0 / math.log2(i + 2) for i in range(min(len(gold_set), max(k, 0))))
    return dcg / ideal if ideal else math.nan


def auroc(positives: Sequence[float], negatives: Sequence[float]) -> float:
    """Area under the ROC curve of a score separating ``positives`` from ``negatives``: the
    probability that a random positive scores above a random negative, ties counting half
    (the Mann-Whitney U statistic / (n_pos · n_neg)); nan if either side is empty."""
    pos = np.asarray([p for p in positives if p is not None and not math.isnan(p)], dtype=np.float64)
    neg = np.asarray([n for n in negatives if n is not None and not math.isnan(n)], dtype=np.float64)
    if not pos.size or not neg.size:
        return math.nan
    both = np.concatenate([pos, neg])
    order = np.argsort(both, kind="stable")
    ranks = np.empty(len(both), dtype=np.float64)
    sorted_vals = both[order]
    # average ranks over ties
    i = 0
    while i < len(both):
        j = i
        while j + 1 < len(both) and sorted_vals[j + 1] == sorted_vals[i]:
            j += 1
        ranks[order[i : j + 1]] = (i + j) / 2.0 + 1.0
        i = j + 1
    u = ranks[: len(pos)].sum() - len(pos) * (len(pos) + 1) / 2.0
    return float(u / (len(pos) * len(neg)))


def session_recall_at_k(ranked_turns: Ranked, gold: Iterable[str], k: int, turn_to_session: Mapping[str, str]) -> float:
    """Session recall: the turn ranking turned into a session ranking, k counting sessions.

    The ranked sessions are the sessions of the ranked turns (all of them, not only the first
    k turns) in order of first appearance: turn ranking D2:1, D5:3, D2:7, D1:4 gives sessions
    D2, D5, D1. Gold turn ids map to their sessions the same way. Turns missing from
    ``turn_to_session`` are skipped on both sides. Recall = |gold sessions ∩ first k ranked
    sessions| / |gold sessions|; nan when no gold turn maps to a session.
    """
    gold_sessions = {turn_to_session[t] for t in gold if t in turn_to_session}
    if not gold_sessions:
        return math.nan
    sessions = [turn_to_session[t] for t in _ranked_ids(ranked_turns) if t in turn_to_session]
    top = set(list(dict.fromkeys(sessions))[: max(k, 0)])
    return len(gold_sessions & top) / len(gold_sessions)


@functools.cache
def _stemmer() -> Callable[[str], str]:
    """NLTK's ``PorterStemmer().stem``: LoCoMo's official scorer stems with it, so the QA
    metrics use it itself (imported on first use: importing NLTK costs seconds)."""
    from memgraph_agents.extras import require

    require("nltk", "bench", "the QA metrics (Porter stemming)")
    from nltk.stem.porter import PorterStemmer

    return PorterStemmer().stem


def _answer_tokens(text: str) -> list[str]:
    stem = _stemmer()
    return [stem(w) for w in normalize_answer(text).split()]


def answer_recall_at_k(evidence_texts_topk: Sequence[str], answer: object) -> float:
    """Share of distinct gold-answer tokens present in the concatenated evidence text.

    Both sides go through ``normalize_answer`` and Porter stemming (the F1 tokenisation), and
    are compared as token sets. ``evidence_texts_topk`` is the text of the evidence covering
    the top-k turns (the caller chooses it). nan when the answer has no token left.
    """
    gold = set(_answer_tokens(str(answer)))
    if not gold:
        return math.nan
    have = set(_answer_tokens(" ".join(str(t) for t in evidence_texts_topk)))
    return len(gold & have) / len(gold)


def context_tokens(texts: Iterable[str]) -> int:
    """Context size as whitespace-separated words summed over ``texts``.

    Words, not model tokens: deterministic and model-free. English BPE tokenisers produce
    roughly 1.3 tokens per word.
    """
    return sum(len(str(t).split()) for t in texts)


def percentile(values: Iterable[float], q: float) -> float:
    """The q-th percentile (q in [0, 100], linear interpolation); NaNs ignored; nan if empty."""
    x = np.asarray([v for v in values if v is not None], dtype=np.float64)
    x = x[~np.isnan(x)]
    if not 0 <= q <= 100:
        raise ValueError("q must be in [0, 100]")
    return float(np.percentile(x, q)) if x.size else math.nan


# ---------------------------------------------------------------- QA metrics

_PUNCT = set(string.punctuation)
_ARTICLES = re.compile(r"\b(a|an|the|and)\b")


def normalize_answer(s: object) -> str:
    """LoCoMo's official answer normalisation.

    Commas removed, lowercase, punctuation removed, the words a / an / the *and "and"* removed
    (the official scorer drops "and" too), whitespace collapsed.
    """
    text = str(s).replace(",", "").lower()
    text = "".join(ch for ch in text if ch not in _PUNCT)
    text = _ARTICLES.sub(" ", text)
    return " ".join(text.split())


def _token_f1(prediction: str, gold: str) -> float:
    pred = _answer_tokens(prediction)
    ref = _answer_tokens(gold)
    same = sum((Counter(pred) & Counter(ref)).values())
    if same == 0:  # also covers an empty side: 0.0, as the official scorer
        return 0.0
    precision, recall = same / len(pred), same / len(ref)
    return 2 * precision * recall / (precision + recall)


def f1_locomo(prediction: object, gold: object, category: int | None = None) -> float:
    """Token F1 as LoCoMo's official scorer computes it per category.

    * all categories: ``normalize_answer``, Porter stems, multiset token overlap F1;
    * category 1 (multi-hop): prediction and gold are split on commas; the score is the mean
      over gold parts of the best F1 against any prediction part;
    * category 3 (open-domain): only the gold text before the first ';' is used;
    * category 5 (adversarial): 1.0 if the prediction says "no information available" or
      "not mentioned", else 0.0.

    An empty prediction or gold (no token after normalisation) scores 0.0.
    """
    pred, ref = str(prediction), str(gold)
    if category == 5:
        low = pred.lower()
        return float("no information available" in low or "not mentioned" in low)
    if category == 3:
        ref = ref.split(";")[0].strip()
    if category == 1:
        preds = [p.strip() for p in pred.split(",")]
        refs = [g.strip() for g in ref.split(",")]
        return float(np.mean([max(_token_f1(p, g) for p in preds) for g in refs]))
    return _token_f1(pred, ref)


def _mem0_tokens(text: str) -> list[str]:
    return re.sub(r"[.,!?]", " ", str(text).lower()).split()


def set_f1(prediction: object, gold: object) -> float:
    """mem0-style F1 on token *sets*: lowercase, split on whitespace and . , ! ?; 0.0 if a side is empty."""
    pred, ref = set(_mem0_tokens(str(prediction))), set(_mem0_tokens(str(gold)))
    common = len(pred & ref)
    if not pred or not ref or common == 0:
        return 0.0
    precision, recall = common / len(pred), common / len(ref)
    return 2 * precision * recall / (precision + recall)


# Approximates NLTK's word_tokenize (used by mem0's BLEU): contractions split off, numbers
# and hyphenated words kept whole, each punctuation mark a token.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def word_tokens(text: str) -> list[str]:
    """Tokens as NLTK's ``word_tokenize`` gives them: its Treebank-style word tokenizer (which
    needs no data) on each sentence. ``Mix:Up`` -> ``mix : up``, ``10,000`` stays whole,
    ``don't`` -> ``do n't``, ``"x"`` -> ````` x ''``. The sentence split is a plain one at
    ``.!?`` + space (NLTK's punkt model is a download), which only matters for a period
    inside a multi-sentence answer."""
    from memgraph_agents.extras import require

    require("nltk", "bench", "the QA metrics (NLTK's word tokens)")
    from nltk.tokenize import NLTKWordTokenizer

    tok = NLTKWordTokenizer()
    return [t for sentence in _SENTENCE_END.split(text.strip()) if sentence for t in tok.tokenize(sentence)]


def bleu1(prediction: object, gold: object) -> float:
    """BLEU-1: clipped unigram precision × brevity penalty, one reference.

    BP = 1 if the prediction is longer than the gold, else exp(1 − r/c). 0.0 for an empty
    prediction or no unigram overlap — what NLTK's ``sentence_bleu(weights=(1, 0, 0, 0))``
    returns with or without smoothing, as mem0's evaluation calls it.
    """
    pred = word_tokens(str(prediction).lower())
    ref = word_tokens(str(gold).lower())
    if not pred or not ref:
        return 0.0
    clipped = sum((Counter(pred) & Counter(ref)).values())
    if clipped == 0:
        return 0.0
    c, r = len(pred), len(ref)
    bp = 1.0 if c > r else math.exp(1.0 - r / c)
    return bp * clipped / c
