"""Scores relative to the encoder: every similarity threshold of the memory read in one scale.

The memory's cut-offs (synonym edges, fusion, cross-session links, topic joins, the sentence
graph's γ, argument matches, the relevance gate, supersession, the Explorers' levels) were set
on the int8 MiniLM's cosines. Another encoder spreads its cosines differently: multilingual-e5
puts two unrelated texts at 0.78–0.88, where MiniLM puts them at 0.05–0.49, so a raw 0.9 means
"the same argument" to one and "anything" to the other. Each model is therefore calibrated
once, on a fixed invented corpus shipped beside this module (``calibration_corpus.json``: no
benchmark text), by **quantile matching** (histogram specification; Gonzalez & Woods, *Digital
Image Processing*, §3.3.2) of its pair cosines onto the reference model's::

    ref(s) = Q_ref(F_model(s)),   F_model: the model's CDF of corpus pair cosines, Q_ref: the
                                  reference's quantile function, on the same weighted pairs,

as the piecewise-linear map through the knots ``(Q_model(p_i), Q_ref(p_i))`` at the levels
``LEVELS``, anchored at (1, 1) (a text and itself) and extended linearly past both ends; no
segment rises faster than ``MAX_SLOPE`` (a knot that would is dropped), so float rounding of a
cosine is never amplified past the rankings' tie tolerance. The
pairs are a 50/50 mixture (by weight) of pairs from one group (a statement, its paraphrase, a
near copy; short phrases and their variants) and of pairs from different groups, so both the
unrelated range (the gate, topic joins) and the near-copy range (synonyms, fusion at 0.9) have
knots. Two maps: ``doc`` for document–document cosines (construction) and ``query`` for
question–document cosines (retrieval: questions and subgoals are embedded as queries, which a
model with query / passage prefixes embeds differently).

The map is strictly increasing, so it changes no ranking by cosine; it changes only which side
of a threshold a pair falls, and the weights cosines become (seed masses, edge weights). The
reference models (the int8 MiniLM, its fp32 original) and the hash embeddings of tests are the
identity: their scores are returned as they are, bit for bit. The calibration is stored with
the namespace's model mark (``storage.embedding_mark``), so a namespace keeps the scale it was
built with.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, Protocol

import numpy as np

CORPUS_FILE = "calibration_corpus.json"
# The reference model's quantiles on the corpus, with the corpus's sha256 (a test recomputes both:
# a changed corpus needs a new reference, ``reference_text``).
REFERENCE_FILE = "calibration_reference.json"
REFERENCE_MODELS = ("all-MiniLM-L6-v2/onnx-int8", "all-MiniLM-L6-v2")  # the scale every threshold is written in
# The steepest the map may rise: a float32 cosine's rounding (~1e-7) stays below the rankings'
# tie tolerance (``model.ranking.TIE_EPS`` = 1e-6) once mapped, so no order depends on BLAS.
MAX_SLOPE = 8.0
# Quantile levels of the pair-cosine mixture: dense in both tails, where thresholds sit.
LEVELS = (
    0.0, 0.005, 0.01, 0.02, 0.04, 0.07, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5,
    0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.93, 0.96, 0.98, 0.99, 0.995, 1.0,
)  # fmt: skip


class Embedder(Protocol):
    """What calibration needs of a model (``EmbeddingModel``)."""

    name: str

    def embed(self, texts: list[str]) -> np.ndarray: ...

    def embed_queries(self, texts: list[str]) -> np.ndarray: ...


@dataclass(frozen=True)
class ScoreMap:
    """A strictly increasing piecewise-linear map from a model's cosine to the reference scale;
    no knots: the identity (scores returned unchanged, the same object)."""

    raw: tuple[float, ...] = ()
    ref: tuple[float, ...] = ()

    @property
    def identity(self) -> bool:
        return not self.raw

    def to_reference(self, scores: Any) -> Any:
        """``scores`` (a float or an array of cosines) in the reference scale."""
        if self.identity:
            return scores
        out = _piecewise(np.asarray(scores, dtype=np.float64), self.raw, self.ref)
        if isinstance(scores, np.ndarray):
            return out.astype(scores.dtype if scores.dtype.kind == "f" else np.float64, copy=False)
        return float(out)

    def cut(self, threshold: float) -> float:
        """The model's cosine at which the reference scale reaches ``threshold`` (a threshold
        written in the reference scale, for comparing this model's raw cosines)."""
        if self.identity:
            return threshold
        return float(_piecewise(np.asarray(threshold, dtype=np.float64), self.ref, self.raw))


def _piecewise(x: np.ndarray, xs: tuple[float, ...], ys: tuple[float, ...]) -> np.ndarray:
    """``np.interp`` through the knots, extended linearly past both ends (strictly increasing)."""
    xp, fp = np.asarray(xs), np.asarray(ys)
    y = np.interp(x, xp, fp)
    lo = (fp[1] - fp[0]) / (xp[1] - xp[0])
    hi = (fp[-1] - fp[-2]) / (xp[-1] - xp[-2])
    y = np.where(x < xp[0], fp[0] + (x - xp[0]) * lo, y)
    return np.where(x > xp[-1], fp[-1] + (x - xp[-1]) * hi, y)


@dataclass(frozen=True)
class Calibration:
    """One model's maps to the reference scale: ``doc`` (document–document cosines) and
    ``query`` (question–document cosines)."""

    model: str
    doc: ScoreMap = field(default_factory=ScoreMap)
    query: ScoreMap = field(default_factory=ScoreMap)
    corpus: str = ""

    @property
    def identity(self) -> bool:
        return self.doc.identity and self.query.identity

    def to_json(self) -> str:
        return json.dumps(
            {
                "model": self.model,
                "corpus": self.corpus,
                "doc": {"raw": list(self.doc.raw), "ref": list(self.doc.ref)},
                "query": {"raw": list(self.query.raw), "ref": list(self.query.ref)},
            },
            sort_keys=True,
        )

    @classmethod
    def from_json(cls, text: str) -> Calibration:
        d = json.loads(text)
        maps = {k: ScoreMap(tuple(map(float, d[k]["raw"])), tuple(map(float, d[k]["ref"]))) for k in ("doc", "query")}
        for k, m in maps.items():
            if (
                len(m.raw) != len(m.ref)
                or len(m.raw) == 1
                or np.any(np.diff(m.raw) <= 0)
                or np.any(np.diff(m.ref) <= 0)
            ):
                raise ValueError(f"calibration of {d.get('model')!r}: its {k} map is not strictly increasing")
        return cls(str(d["model"]), maps["doc"], maps["query"], str(d.get("corpus", "")))


def identity_for(model: str) -> Calibration:
    return Calibration(model)


def is_reference(model: str) -> bool:
    """Models whose cosines are the reference scale (and the hash embeddings of tests)."""
    return model in REFERENCE_MODELS or model.startswith("hash-")


# --------------------------------------------------------------------------- the corpus


def corpus_bytes() -> bytes:
    return resources.files("memgraph_agents.embeddings").joinpath(CORPUS_FILE).read_bytes()


def corpus_sha256() -> str:
    return hashlib.sha256(corpus_bytes()).hexdigest()


def corpus() -> tuple[list[str], list[int], list[str], list[int]]:
    """``(documents, their group, questions, their group)``; a group's texts are related."""
    data = json.loads(corpus_bytes())
    docs: list[str] = []
    doc_group: list[int] = []
    questions: list[str] = []
    q_group: list[int] = []
    for g, group in enumerate(data["groups"]):
        docs += group["texts"]
        doc_group += [g] * len(group["texts"])
        questions.append(group["question"])
        q_group.append(g)
    base = len(data["groups"])
    for g, variants in enumerate(data["phrases"]):
        docs += variants
        doc_group += [base + g] * len(variants)
    return docs, doc_group, questions, q_group


def _mixture_quantiles(sims: np.ndarray, related: np.ndarray) -> list[float]:
    """Quantiles at ``LEVELS`` of ``sims`` weighted so related and unrelated pairs weigh half each."""
    s = np.asarray(sims, dtype=np.float64)
    rel = np.asarray(related, dtype=bool)
    w = np.where(rel, 0.5 / max(int(rel.sum()), 1), 0.5 / max(int((~rel).sum()), 1))
    order = np.lexsort((np.arange(len(s)), s))
    s, w = s[order], w[order]
    cum = np.cumsum(w) - w / 2  # midpoint plotting positions
    cum = (cum - cum[0]) / (cum[-1] - cum[0])
    return [float(v) for v in np.interp(LEVELS, cum, s)]


def quantiles(embedder: Embedder) -> dict[str, list[float]]:
    """The model's pair-cosine quantiles on the corpus: ``doc`` (document pairs) and ``query``
    (question × document). Exact float64 dots: the same on every BLAS."""
    docs, dg, questions, qg = corpus()
    d = np.asarray(embedder.embed(docs), dtype=np.float64)
    q = np.asarray(embedder.embed_queries(questions), dtype=np.float64)
    iu, ju = np.triu_indices(len(docs), k=1)
    doc_sims = (d[iu] * d[ju]).sum(axis=1)
    doc_related = np.asarray(dg)[iu] == np.asarray(dg)[ju]
    qi = np.repeat(np.arange(len(questions)), len(docs))  # every (question, document) pair
    dj = np.tile(np.arange(len(docs)), len(questions))
    q_sims = (q[qi] * d[dj]).sum(axis=1)
    q_related = np.asarray(qg)[qi] == np.asarray(dg)[dj]
    return {"doc": _mixture_quantiles(doc_sims, doc_related), "query": _mixture_quantiles(q_sims, q_related)}


def reference_quantiles() -> dict[str, list[float]]:
    """The reference model's quantiles (the int8 MiniLM's, computed once: ``calibration_reference.json``)."""
    data = json.loads(resources.files("memgraph_agents.embeddings").joinpath(REFERENCE_FILE).read_text())
    return {"doc": data["doc"], "query": data["query"]}


def reference_text(embedder: Embedder) -> str:
    """``calibration_reference.json`` as the reference model ``embedder`` makes it."""
    body = {"model": embedder.name, "corpus": corpus_sha256(), "levels": list(LEVELS), **quantiles(embedder)}
    return json.dumps(body, indent=1) + "\n"


def score_map(model_q: list[float], ref_q: list[float]) -> ScoreMap:
    """The knots ``(model quantile, reference quantile)`` plus (1, 1), keeping a strictly
    increasing subsequence (a repeated quantile keeps its first knot) whose segments rise at
    most ``MAX_SLOPE``: a knot that would make a steeper one is dropped, the anchor too (the
    last segment then extends past it)."""
    raw: list[float] = []
    ref: list[float] = []
    for a, b in zip(model_q, ref_q):
        if not raw or (a > raw[-1] + 1e-9 and b > ref[-1] + 1e-9 and (b - ref[-1]) <= MAX_SLOPE * (a - raw[-1])):
            raw.append(float(a))
            ref.append(float(b))
    if raw and raw[-1] < 1.0 - 1e-9 and ref[-1] < 1.0 - 1e-9 and 1.0 - ref[-1] <= MAX_SLOPE * (1.0 - raw[-1]):
        raw.append(1.0)
        ref.append(1.0)
    if len(raw) < 2:
        raise ValueError("calibration: the model's corpus cosines are all equal (a constant embedding?)")
    return ScoreMap(tuple(raw), tuple(ref))


def calibrate(embedder: Embedder) -> Calibration:
    """The model's calibration: the identity for the reference models, else quantile matching
    on the corpus (one embedding call of ~200 short texts)."""
    if is_reference(embedder.name):
        return identity_for(embedder.name)
    mine, ref = quantiles(embedder), reference_quantiles()
    return Calibration(
        embedder.name, score_map(mine["doc"], ref["doc"]), score_map(mine["query"], ref["query"]), corpus_sha256()
    )
