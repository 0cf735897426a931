"""onnxruntime's optimised default model, kept once per user: made once, checked, same vectors."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from memgraph_agents import embeddings
from memgraph_agents.embeddings import make_embedding_model, onnx_minilm
from memgraph_agents.embeddings.minilm_probe import computes_pinned_model
from memgraph_agents.embeddings.ort_cache import CACHE_ENV, file_sha256, model_cache_dir, optimised_session

pytestmark = pytest.mark.slow  # the real model loaded per test: left out of the fast subset (-m "not slow")

TEXTS = ["Tove moved her pottery studio to the old mill in May.", "ok", "Did Rasmus ever fix the boat engine?"]


def _vectors(session) -> np.ndarray:
    tok = onnx_minilm._tokenizer()
    enc = tok.encode_batch(TEXTS)
    ids = np.asarray([e.ids for e in enc], dtype=np.int64)
    mask = np.asarray([e.attention_mask for e in enc], dtype=np.int64)
    (hidden,) = session.run(
        ["last_hidden_state"], {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
    )
    return onnx_minilm.mean_pool(hidden, mask)


def _session(cache_dir: Path | None):
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.log_severity_level = 3
    return optimised_session(
        onnx_minilm._weights(), onnx_minilm.WEIGHTS_SHA256, cache_dir, options, check=computes_pinned_model
    )


def _cached(cache_dir: Path) -> tuple[Path, Path]:
    (model,) = cache_dir.glob("*.onnx")
    return model, model.with_name(model.name + ".sha256")


@pytest.mark.integration
def test_the_cached_model_is_made_once_checked_and_gives_the_same_vectors(tmp_path):
    reference = _vectors(_session(None))  # optimised in memory
    built = _vectors(_session(tmp_path))  # optimised and saved
    model, digest = _cached(tmp_path)
    assert digest.read_text().strip() == file_sha256(model) and model.stat().st_mode & 0o077 == 0
    assert onnx_minilm.WEIGHTS_SHA256[:16] in model.name
    stamp = model.stat().st_mtime_ns
    loaded = _vectors(_session(tmp_path))  # read back, not rebuilt
    assert model.stat().st_mtime_ns == stamp
    assert np.array_equal(reference, built) and np.array_equal(reference, loaded)


@pytest.mark.integration
def test_a_damaged_cached_model_is_rebuilt_with_a_warning(tmp_path):
    _session(tmp_path)
    model, digest = _cached(tmp_path)
    data = bytearray(model.read_bytes())
    data[len(data) // 2] ^= 0xFF
    model.write_bytes(bytes(data))
    with pytest.warns(UserWarning, match="failed its sha256 check"):
        session = _session(tmp_path)
    assert digest.read_text().strip() == file_sha256(model)  # rebuilt whole
    assert np.array_equal(_vectors(session), _vectors(_session(None)))


@pytest.mark.integration
def test_a_missing_digest_means_rebuild_and_an_unwritable_cache_optimises_in_memory(tmp_path):
    _session(tmp_path)
    model, digest = _cached(tmp_path)
    digest.unlink()
    with pytest.warns(UserWarning, match="failed its sha256 check"):
        _session(tmp_path)
    assert digest.read_text().strip() == file_sha256(model)
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the cache folder would go")
    with pytest.warns(UserWarning, match="optimising in memory"):
        session = _session(blocked / "models")
    assert np.array_equal(_vectors(session), _vectors(_session(None)))


def test_data_dirs_share_one_cached_model_outside_them(tmp_path, monkeypatch):
    """No ~90 MB copy per data dir: every data dir's model points at the one per-user folder."""
    monkeypatch.delenv(CACHE_ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    shared = tmp_path / "xdg" / "memgraph-agents" / "models"
    assert model_cache_dir() == shared
    monkeypatch.setattr(embeddings, "_MODELS", {})  # the process's one MiniLM, made afresh under this env
    one = make_embedding_model("minilm")
    assert make_embedding_model("minilm") is one and one.inner.cache_dir == shared
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "chosen"))
    assert model_cache_dir() == tmp_path / "chosen"
    monkeypatch.setenv(CACHE_ENV, "")
    assert model_cache_dir() is None  # asked for none: optimised in memory each process


@pytest.mark.integration
def test_a_data_dir_holds_no_model_after_its_first_answer(tmp_path, monkeypatch):
    from memgraph_agents import Memory

    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.setattr(onnx_minilm.OnnxMiniLM, "_loaded", None)  # load (and cache) in this test
    monkeypatch.setattr(embeddings, "_MODELS", {})  # the process's MiniLM, made under this env
    mem = Memory(data_dir=tmp_path / "data", embeddings="minilm")
    mem.add("Tove moved her pottery studio to the old mill in May.")
    assert mem.search("Where is the pottery studio?")
    assert not list((tmp_path / "data").rglob("*.onnx"))
    assert len(list((tmp_path / "cache").glob("*.onnx"))) == 1


@pytest.mark.integration
def test_a_model_swapped_with_its_checksum_is_not_loaded(tmp_path):
    """A cached file replaced by another model's, its sha256 file rewritten to match: the loaded
    session does not compute the pinned model's vectors, so it is rebuilt from the pinned weights."""
    cache = tmp_path / "cache"
    expected = _vectors(_session(cache))
    model, digest = _cached(cache)
    data = bytearray(model.read_bytes())
    middle = len(data) // 2
    data[middle : middle + 8_000_000] = bytes(8_000_000)  # another model: a block of its weights zeroed
    model.write_bytes(bytes(data))
    digest.write_text(file_sha256(model) + "\n")  # ... with a matching checksum
    with pytest.warns(UserWarning, match="does not compute the pinned model's vectors"):
        again = _session(cache)
    assert np.array_equal(_vectors(again), expected)
    assert file_sha256(model) == digest.read_text().strip()  # rebuilt, and kept
    assert sorted(p.name for p in cache.iterdir()) == [model.name, digest.name]


@pytest.mark.integration
def test_a_killed_save_leaves_no_temporary_file_and_is_not_redone(tmp_path, recwarn):
    """A process killed while saving left its temporary files: the next save removes them (once
    old), and a process after that loads the cache without optimising again."""
    import os
    import time

    cache = tmp_path / "cache"
    _session(cache)
    model, digest = _cached(cache)
    stray = [model.with_name(f".{model.name}.4242.dead.tmp"), digest.with_name(f".{digest.name}.4242.dead.tmp")]
    for f in stray:
        f.write_bytes(b"partial")
        os.utime(f, (time.time() - 7200, time.time() - 7200))
    model.unlink()  # killed before its model was in place
    _session(cache)  # rebuilt: the strays go
    assert sorted(p.name for p in cache.iterdir()) == [model.name, digest.name]
    before = model.stat().st_mtime_ns
    recwarn.clear()
    _session(cache)  # the next start loads it: no warning, no new file
    assert model.stat().st_mtime_ns == before and not [w for w in recwarn if "memgraph" in str(w.message)]
