"""EMem's optional LLM retrieval steps in ``ppr``: query mention detection and the recall filter
(``memgraph_agents.retrieval.llm_steps``), their fallbacks, cost accounting, and the way the
configured chat model reaches the retriever (registry and retrieval graph).

One offline memory (the conftest conversation, hash embeddings) is built for the module; LLM
replies come from ``tests.fakes_retrieval_llm`` and are computed from the prompts sent.
"""

from __future__ import annotations

import json
import time

import pytest

from memgraph_agents.config import Settings
from memgraph_agents.ingest import ingest_conversation
from memgraph_agents.llm.usage import LLMUsage
from memgraph_agents.registry import RETRIEVERS, get_retriever, retrieve
from memgraph_agents.retrieval.finish import finish
from memgraph_agents.retrieval.llm_steps import (
    Candidate,
    QueryMentions,
    RecallSelection,
    detect_mentions,
    offline_mentions,
    recall_filter,
)
from memgraph_agents.retrieval.ppr_retriever import ppr, ppr_seeds
from memgraph_agents.retrieval.seeds import node_similarities
from memgraph_agents.runtime import MemoryContext, get_store, register_chat_model
from tests.conftest import make_conversation
from tests.fakes import ScriptedChatModel, always_malformed, malformed_then_valid, slow, task_text
from tests.fakes_retrieval_llm import FILTER_MARKER, MENTIONS_MARKER, parse_candidates, retrieval_responder

PIXEL_Q = "Pixel's class: what did he learn?"  # a lone name opening the question: offline misses it
LISBON_Q = "How long did the Lisbon half marathon take?"
ALL_EVENTS = {"event:S1:1", "event:S1:2", "event:S2:1", "event:S3:1"}


@pytest.fixture(scope="module")
def memory(tmp_path_factory):
    s = Settings(data_dir=tmp_path_factory.mktemp("retrieval_llm") / "mem", embeddings="hash", namespace="test")
    ingest_conversation(make_conversation(), s)
    return s, get_store(s)


def model_of(responder) -> ScriptedChatModel:
    return ScriptedChatModel(responder=responder)


def seeds_of(store, query, **kw):
    snap = store.snapshot()
    sims = node_similarities(snap, store.embedder.embed_one(query))
    return snap, ppr_seeds(query, store, snap, sims, **kw)


def ids(snap, indices) -> set[str]:
    return {snap.ids[int(i)] for i in indices}


def dumps(evidence) -> list[dict]:
    return [e.model_dump() for e in evidence]


# --------------------------------------------------------------------------- seeds in LLM mode


def test_llm_mentions_seed_an_argument_the_offline_extractor_misses(memory):
    _, store = memory
    assert "Pixel" not in offline_mentions(PIXEL_Q)
    snap, offline = seeds_of(store, PIXEL_Q)
    assert "arg:pixel" not in ids(snap, offline.arguments)

    model = model_of(retrieval_responder())
    usage = LLMUsage()
    snap, seeds = seeds_of(store, PIXEL_Q, llm=model, usage=usage)
    assert seeds.mentions == ["Pixel"]
    assert "arg:pixel" in ids(snap, seeds.arguments)
    assert seeds.arguments[snap.index["arg:pixel"]] == pytest.approx(1.0, abs=1e-3)  # weight = cosine (stored float16)
    # the argument reached the seeds through the filter prompt, as a candidate
    filter_prompt = next(task_text(c) for c in model.calls if FILTER_MARKER in task_text(c))
    assert "Pixel" in parse_candidates(filter_prompt).values()
    assert not seeds.notes and usage.calls == 2


def test_recall_filter_keeps_only_the_related_events(memory):
    _, store = memory
    snap, offline = seeds_of(store, LISBON_Q)
    assert ids(snap, offline.events) == ALL_EVENTS  # ke = 30 > 4 events: all seeded offline
    snap, seeds = seeds_of(store, LISBON_Q, llm=model_of(retrieval_responder()))
    assert ids(snap, seeds.events) == ALL_EVENTS - {"event:S3:1"}  # the library event shares no word
    assert len(seeds.event_weights) == len(seeds.events) and seeds.event_weights.sum() > 0
    assert {snap.text[i] for i in seeds.arguments} >= {"Lisbon"}
    assert all("lisbon" in snap.text[i].lower() for i in seeds.arguments)


def test_participant_mentions_do_not_seed_their_hub_argument(memory):
    _, store = memory
    snap, seeds = seeds_of(store, "What did Ben run in Lisbon?", llm=model_of(retrieval_responder()))
    assert seeds.mentions == ["Lisbon"]  # "Ben" was detected, then dropped as a participant
    assert "arg:ben" not in ids(snap, seeds.arguments)


def test_llm_mode_changes_the_ranking_inputs_but_keeps_the_contract(memory):
    _, store = memory
    model = model_of(retrieval_responder())
    got = ppr(PIXEL_Q, store, k=5, llm=model)
    assert 0 < len(got) <= 5 and all(e.kind == "turn" and e.retriever == "ppr" for e in got)
    assert [e.score for e in got] == sorted((e.score for e in got), reverse=True)
    assert got[0].node_id == "turn:D2:4"  # "Pixel passed his puppy training class"
    assert len(model.calls) == 2


# --------------------------------------------------------------------------- robustness


def test_malformed_replies_are_repaired(memory):
    _, store = memory
    _, clean = seeds_of(store, LISBON_Q, llm=model_of(retrieval_responder()))
    usage = LLMUsage()
    _, seeds = seeds_of(store, LISBON_Q, llm=model_of(malformed_then_valid(retrieval_responder())), usage=usage)
    assert seeds.events.tolist() == clean.events.tolist() and seeds.arguments == clean.arguments
    assert seeds.mentions == clean.mentions and not seeds.notes
    assert (usage.calls, usage.failures, usage.retries) == (4, 2, 2)  # one repair turn per step


def test_always_malformed_falls_back_to_the_unfiltered_path(memory):
    _, store = memory
    usage = LLMUsage()
    snap, seeds = seeds_of(store, LISBON_Q, llm=model_of(always_malformed(retrieval_responder())), usage=usage)
    assert ids(snap, seeds.events) == ALL_EVENTS  # unfiltered dense top-Ke
    assert seeds.mentions == offline_mentions(LISBON_Q)  # offline mention extractor
    assert "arg:lisbon" in ids(snap, seeds.arguments)
    assert len(seeds.notes) == 2 and "LLMOutputError" in seeds.notes[0]
    assert usage.calls == 4
    got = ppr(LISBON_Q, store, k=5, llm=model_of(always_malformed(retrieval_responder())))
    assert len(got) == 5


def test_timeouts_fall_back_and_still_return_results(memory):
    _, store = memory
    usage = LLMUsage()
    model = model_of(slow(retrieval_responder(), 2.0))
    start = time.perf_counter()
    got = ppr(LISBON_Q, store, k=3, llm=model, usage=usage, llm_timeout=0.05)
    assert time.perf_counter() - start < 1.5
    assert len(got) == 3
    assert (usage.calls, usage.failures) == (2, 2)  # a timeout is not retried
    snap, seeds = seeds_of(store, LISBON_Q, llm=model, llm_timeout=0.05)
    assert ids(snap, seeds.events) == ALL_EVENTS and all("LLMTimeoutError" in n for n in seeds.notes)


# --------------------------------------------------------------------------- the steps themselves


CANDS = [
    Candidate("event:a", "event", "Ben ran the Lisbon half marathon", "2024-06-08"),
    Candidate("event:b", "event", "Ana adopted a beagle", "2024-03-09"),
    Candidate("event:c", "event", "Ana started at the library"),
    Candidate("arg:x", "argument", "Lisbon"),
    Candidate("arg:y", "argument", "beagle"),
]


def scripted(reply: dict):
    return model_of(lambda messages: json.dumps(reply))


def test_recall_filter_shows_short_ids_and_maps_them_back():
    model = scripted({"keep": ["e2", "[A2]", "E1: Ben ran…"]})
    assert recall_filter("q?", CANDS, model) == ["event:a", "event:b", "arg:y"]
    prompt = task_text(model.calls[0])
    assert parse_candidates(prompt) == {
        "E1": CANDS[0].text,
        "E2": CANDS[1].text,
        "E3": CANDS[2].text,
        "A1": "Lisbon",
        "A2": "beagle",
    }
    assert "E1 | 2024-06-08 | Ben ran" in prompt and "E3 | date unknown | Ana" in prompt


def test_recall_filter_ignores_unknown_ids_and_never_empties_a_kind():
    notes: list[str] = []
    kept = recall_filter("q?", CANDS, scripted({"keep": ["E2", "E9", "A7", "X1"]}), notes=notes)
    assert kept == ["event:b", "arg:x", "arg:y"]  # no real argument kept: arguments unfiltered
    assert notes == ["recall filter kept no argument: its candidates kept unfiltered"]
    assert recall_filter("q?", CANDS, scripted({"keep": []})) == [c.node_id for c in CANDS]
    assert recall_filter("q?", [], scripted({"keep": ["E1"]})) == []


def test_schemas_are_forgiving_about_form():
    assert RecallSelection.model_validate({"keep": "E1, a3; E1"}).keep == ["E1", "A3"]
    assert RecallSelection.model_validate({"keep": ["nothing", "E 4"]}).keep == ["E4"]
    got = QueryMentions.model_validate({"mentions": ['"Pixel"', "pixel", " ", "Lisbon half  marathon"]})
    assert got.mentions == ["Pixel", "Lisbon half marathon"]
    assert len(QueryMentions.model_validate({"mentions": [f"m{i}" for i in range(30)]}).mentions) == 10


def test_detect_mentions_reads_the_question_and_counts_usage():
    model = model_of(retrieval_responder())
    usage = LLMUsage()
    q = 'Did Ana take Pixel to the "reading hour" at Riverside Library?'
    assert detect_mentions(q, model, usage=usage) == ["reading hour", "Ana", "Pixel", "Riverside Library"]
    assert MENTIONS_MARKER in task_text(model.calls[0]) and q in task_text(model.calls[0])
    assert usage.calls == 1 and usage.input_tokens > 0 and usage.output_tokens > 0


# --------------------------------------------------------------------------- wiring


def test_offline_ppr_is_unchanged(memory):
    _, store = memory
    usage = LLMUsage()
    for q in (PIXEL_Q, LISBON_Q, "the and of is"):
        assert dumps(ppr(q, store, k=6, llm=None, usage=usage)) == dumps(ppr(q, store, k=6))
        assert dumps(retrieve("ppr", q, store, k=6)) == dumps(finish(q, store, ppr(q, store, k=6)))
    assert usage.calls == 0


def test_registry_passes_the_llm_only_to_retrievers_that_take_it(memory):
    _, store = memory
    model = model_of(retrieval_responder())
    usage = LLMUsage()
    got = retrieve("ppr", PIXEL_Q, store, k=4, llm=model, usage=usage)
    assert usage.calls == 2 and got[0].node_id == "turn:D2:4"
    dense_offline = dumps(retrieve("dense", PIXEL_Q, store, k=4))
    assert dumps(retrieve("dense", PIXEL_Q, store, k=4, llm=model, usage=usage)) == dense_offline
    assert usage.calls == 2 and len(model.calls) == 2
    retrieve("emem-g", PIXEL_Q, store, k=4, llm=model, usage=usage)  # a preset over ppr
    assert usage.calls == 4
    assert RETRIEVERS["navigator"].llm_args == ("llm",) and get_retriever("emem-g").spec is RETRIEVERS["ppr"]


def test_retrieval_graph_runs_the_llm_steps_when_configured(memory):
    from memgraph_agents.graphs.retrieval import graph

    s, _ = memory
    model = model_of(retrieval_responder())
    register_chat_model("fake:retrieval-llm", model)
    base = dict(data_dir=str(s.data_dir), namespace=s.namespace, embeddings="hash", retriever="ppr")
    out = graph.invoke({"query": PIXEL_Q, "k": 3}, context=MemoryContext(llm="fake:retrieval-llm", **base))
    assert out["usage"]["calls"] == 2 and out["usage"]["total_tokens"] > 0
    assert [task_text(c).splitlines()[0] for c in model.calls] == [MENTIONS_MARKER, FILTER_MARKER]
    assert out["evidence"][0]["node_id"] == "turn:D2:4"  # state is plain data
    offline = graph.invoke({"query": PIXEL_Q, "k": 3}, context=MemoryContext(**base))
    assert offline["usage"]["calls"] == 0 and len(model.calls) == 2
    assert len(offline["evidence"]) == 3


def test_emem_preset_recall_filters_dense_events(memory):
    """``emem`` = dense over events + EMem's recall filter: kept events first, none lost."""
    _, store = memory
    model = model_of(retrieval_responder())
    usage = LLMUsage()
    offline = retrieve("emem", LISBON_Q, store, k=30)
    got = retrieve("emem", LISBON_Q, store, k=30, llm=model, usage=usage)
    assert usage.calls == 1 and [p for p in model.prompts if "TASK: RECALL FILTER" in p]
    assert {e.node_id for e in got} == {e.node_id for e in offline}  # a reordering, never a loss
    assert all(e.kind == "event" for e in got)
    related = [e for e in got if "lisbon" in e.text.lower() or "marathon" in e.text.lower()]
    assert related and got[: len(related)] == related  # the filter's keeps lead
