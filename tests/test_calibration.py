"""Scores relative to the encoder (``embeddings.calibration``): the maps, their record beside the
model mark, and a memory whose encoder squeezes every cosine into a narrow band."""

from __future__ import annotations

import json
from importlib import resources

import numpy as np
import pytest

from memgraph_agents.embeddings import HashEmbeddings, make_embedding_model
from memgraph_agents.embeddings.cache import EmbeddingModel
from memgraph_agents.embeddings.calibration import (
    LEVELS,
    REFERENCE_FILE,
    Calibration,
    ScoreMap,
    calibrate,
    corpus,
    corpus_sha256,
    identity_for,
    reference_quantiles,
    score_map,
)
from memgraph_agents.errors import ConfigError

SLOPE = 0.17  # a squeezed encoder: cos' = SLOPE * cos + (1 - SLOPE), unrelated texts near 0.85


class Squeezed:
    """An encoder whose cosines are ``SLOPE * cos + 1 - SLOPE`` of ``inner``'s: each unit vector
    v becomes ``(sqrt(SLOPE) v, sqrt(1 - SLOPE))`` (a shared extra component), so every pair's
    cosine moves into [1 - 2 SLOPE, 1] and the ranking of every list is unchanged."""

    def __init__(self, inner) -> None:
        self.inner = inner

    def _squeeze(self, vecs) -> np.ndarray:
        v = np.asarray(vecs, dtype=np.float64)
        v = v / np.linalg.norm(v, axis=1, keepdims=True)
        extra = np.full((len(v), 1), np.sqrt(1 - SLOPE))
        return np.hstack([np.sqrt(SLOPE) * v, extra]).astype(np.float32)

    def embed_documents(self, texts):
        return self._squeeze(self.inner.embed_documents(list(texts))).tolist()

    def embed_query(self, text):
        return self._squeeze([self.inner.embed_query(text)])[0].tolist()


def test_identity_returns_the_same_scores_bit_for_bit():
    cal = identity_for("all-MiniLM-L6-v2/onnx-int8")
    s = np.array([0.1, 0.25, 0.9], dtype=np.float32)
    assert cal.identity and cal.query.to_reference(s) is s and cal.doc.cut(0.9) == 0.9
    assert calibrate(make_embedding_model("hash-32")).identity  # tests' hashing: raw cosines


def test_a_map_is_strictly_increasing_and_cut_is_its_inverse():
    m = score_map([0.7, 0.75, 0.8, 0.9, 0.95], [-0.1, 0.1, 0.3, 0.8, 0.9])
    x = np.linspace(0.2, 1.05, 400)
    y = m.to_reference(x)
    assert np.all(np.diff(y) > 0)  # past both ends too: no ranking by cosine changes
    for t in (-0.2, 0.0, 0.25, 0.6, 0.9, 0.99):
        assert m.to_reference(m.cut(t)) == pytest.approx(t, abs=1e-9)
    assert m.to_reference(1.0) == pytest.approx(1.0)  # a text and itself stay 1
    # a repeated quantile keeps one knot, so the map stays invertible
    flat = score_map([0.5, 0.5, 0.6], [0.1, 0.2, 0.3])
    assert flat.raw == (0.5, 0.6, 1.0)


def test_no_map_amplifies_float_rounding_past_the_tie_tolerance():
    """A map rises at most ``MAX_SLOPE``: two cosines of one pair of vectors computed by two BLAS
    kernels (~1e-7 apart) stay within ``TIE_EPS`` once mapped, so near-ties still go by id."""
    from memgraph_agents.embeddings.calibration import MAX_SLOPE
    from memgraph_agents.model.ranking import TIE_EPS

    cal = calibrate(_model(Squeezed(HashEmbeddings(64)), "squeezed-hash"))
    for m in (cal.doc, cal.query):
        assert np.all(np.diff(m.ref) <= MAX_SLOPE * np.diff(m.raw) + 1e-12)
        x = np.linspace(0.5, 1.0, 5001)
        assert np.max(np.abs(m.to_reference(x + 1e-7) - m.to_reference(x))) < TIE_EPS
    steep = score_map([0.90, 0.91, 0.99], [0.0, 0.5, 0.6])  # 50 per unit: the middle knot goes,
    assert steep.raw == (0.90, 0.99)  # and the anchor (40 per unit): the last segment extends


def test_json_round_trip_and_refusal_of_a_broken_record():
    m = score_map([0.7, 0.8, 0.9], [0.0, 0.4, 0.8])
    cal = Calibration("m", m, m, corpus_sha256())
    assert Calibration.from_json(cal.to_json()) == cal
    bad = json.loads(cal.to_json())
    bad["doc"]["raw"] = [0.9, 0.8, 1.0, 1.1]
    with pytest.raises(ValueError, match="strictly increasing"):
        Calibration.from_json(json.dumps(bad))


def test_corpus_is_the_one_the_reference_was_made_from():
    docs, groups, questions, q_groups = corpus()
    assert len(docs) == len(groups) >= 150 and len(questions) == len(q_groups) >= 40
    ref = json.loads((resources.files("memgraph_agents.embeddings") / REFERENCE_FILE).read_text())
    assert ref["corpus"] == corpus_sha256() and ref["levels"] == list(LEVELS)
    for k in ("doc", "query"):
        assert len(ref[k]) == len(LEVELS) and np.all(np.diff(ref[k]) > 0)


def _model(inner, name: str) -> EmbeddingModel:
    return EmbeddingModel(inner, name)


def test_a_squeezed_encoder_maps_onto_the_same_scale(monkeypatch):
    """Quantile matching undoes a monotone squeeze: the squeezed model's calibrated cosines are
    the plain model's (the hash model here, slopes uncapped; the real MiniLM in the slow test)."""
    from memgraph_agents.embeddings import calibration

    monkeypatch.setattr(calibration, "MAX_SLOPE", 1e9)
    plain = calibrate(_model(HashEmbeddings(64), "plain-hash"))
    squeezed = calibrate(_model(Squeezed(HashEmbeddings(64)), "squeezed-hash"))
    c = np.linspace(-0.3, 1.0, 200)
    for which in ("doc", "query"):
        a = getattr(plain, which).to_reference(c)
        b = getattr(squeezed, which).to_reference(SLOPE * c + 1 - SLOPE)
        # document vectors are kept at float16 (about 1e-3 of a cosine), which the squeeze
        # magnifies by 1 / SLOPE; uncalibrated, the two scales differ by up to 0.5 here
        assert np.allclose(a, b, atol=0.01)
        # and a threshold written in the reference scale lands where the squeeze put it
        t = getattr(plain, which).cut(0.5)
        assert getattr(squeezed, which).cut(0.5) == pytest.approx(SLOPE * t + 1 - SLOPE, abs=1e-3)


def test_calibration_is_recorded_with_the_model_mark(tmp_path):
    from memgraph_agents import Memory
    from memgraph_agents.runtime import get_store
    from memgraph_agents.storage.embedding_mark import CALIBRATION_META

    mem = Memory(tmp_path / "a", embeddings=Squeezed(HashEmbeddings(64)))
    mem.add("I replaced the brake cables on the tandem yesterday.")
    store = get_store(mem.settings, create=False)
    cal = store.calibration
    assert not cal.identity and cal.corpus == corpus_sha256()
    assert Calibration.from_json(store.db.get_meta(CALIBRATION_META)) == cal
    assert store.snapshot().calibration == cal
    # the record is read back, never recomputed: a changed record is what the namespace uses
    m = score_map([0.1, 0.2], [0.3, 0.4])
    store.db.set_meta(CALIBRATION_META, Calibration(cal.model, m, m, "x").to_json())
    store.calibration_cached = None
    assert store.calibration.doc == m
    store.db.set_meta(CALIBRATION_META, "{not json")
    store.calibration_cached = None
    with pytest.raises(ConfigError, match="embedding_calibration"):
        store.calibration  # noqa: B018
    mem.close()


def test_reference_models_record_nothing(tmp_path):
    from memgraph_agents import Memory
    from memgraph_agents.runtime import get_store
    from memgraph_agents.storage.embedding_mark import CALIBRATION_META

    mem = Memory(tmp_path / "b", embeddings="hash")
    mem.add("The kiln reached its top temperature after nine hours.")
    store = get_store(mem.settings, create=False)
    assert store.calibration.identity and store.db.get_meta(CALIBRATION_META) is None
    mem.close()


def test_the_gate_is_in_the_reference_scale_for_every_built_in_model():
    from memgraph_agents.config import MINILM_GATE, Settings

    assert Settings(embeddings="e5-small").gate == MINILM_GATE == Settings(embeddings="minilm").gate
    assert Settings(embeddings="hash").gate == 0.0
    assert Settings(embeddings="e5-small", relevance_gate=0.3).gate == 0.3


def test_reference_quantiles_are_read_from_the_package():
    ref = reference_quantiles()
    assert ref["doc"][0] < 0 < ref["doc"][-1] < 1 and ref["query"][-1] < 1


def test_score_map_identity_has_no_knots():
    assert ScoreMap().identity and not score_map([0.1, 0.2], [0.1, 0.2]).identity


@pytest.mark.slow
def test_reference_file_is_what_the_int8_minilm_gives():
    """The shipped reference quantiles are the int8 MiniLM's on the shipped corpus (recomputed)."""
    from memgraph_agents.embeddings.calibration import quantiles

    ref, now = reference_quantiles(), quantiles(make_embedding_model("minilm"))
    for k in ("doc", "query"):
        assert np.allclose(ref[k], now[k], atol=1e-4)


@pytest.mark.slow
def test_a_squeezed_minilm_keeps_the_memory_recall(tmp_path):
    """The real MiniLM with every cosine squeezed into about [0.66, 1] (unrelated turns near
    0.85, as multilingual-e5 puts them) as a bring-your-own model: read through its calibration
    it finds what the plain model finds, within one gold turn of the demo's 17 (a squeeze is
    affine for single texts only: the mean vectors of segmentation windows and multi-line
    events are not squeezed alike); read raw (a name the calibration treats as the reference
    scale) it loses more."""
    from pathlib import Path

    from memgraph_agents import Memory
    from memgraph_agents.runtime import register_embeddings

    demo = Path(__file__).resolve().parents[1] / "examples"
    questions = json.loads((demo / "questions.json").read_text())
    minilm = make_embedding_model("minilm").inner
    uncalibrated = register_embeddings(Squeezed(minilm), name="hash-squeezed-read-raw")
    found = {}
    for name, embeddings in (("plain", "minilm"), ("squeezed", Squeezed(minilm)), ("raw", uncalibrated)):
        mem = Memory(tmp_path / name, embeddings=embeddings)
        mem.add(demo / "conversation.json")
        found[name] = 0
        for q in questions:
            got = [t for e in mem.search(q["question"], k=10, min_score=0) for t in e.turn_ids][:10]
            found[name] += len(set(got) & set(q["evidence"]))
        mem.close()
    gold = sum(len(q["evidence"]) for q in questions)
    assert found["plain"] >= gold - 2
    assert found["squeezed"] >= found["plain"] - 1
    assert found["raw"] < found["squeezed"]


def test_reembed_records_the_new_models_calibration(tmp_path):
    from memgraph_agents import Memory
    from memgraph_agents.runtime import get_store
    from memgraph_agents.storage.embedding_mark import CALIBRATION_META

    before = Memory(tmp_path, embeddings="hash")
    before.add("The lighthouse keeper logged three ships before dawn.")
    before.close()
    after = Memory(tmp_path, embeddings=Squeezed(HashEmbeddings(64)))
    done = after.reembed()
    assert done.old_model == "hash-64" and done.vectors > 0
    store = get_store(after.settings, create=False)
    recorded = Calibration.from_json(store.db.get_meta(CALIBRATION_META))
    assert recorded.model == done.new_model and not recorded.identity
    assert store.calibration == recorded and store.snapshot().calibration == recorded
    after.close()
