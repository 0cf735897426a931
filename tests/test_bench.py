"""``memgraph bench locomo`` end to end on a tiny LoCoMo-format file (hash embeddings).

A scripted retriever with a fixed ranking makes every metric computable by hand; the real
retrievers run too, for the shape of the results and the consistency of their scores.
"""

from __future__ import annotations

import json
import re

import pytest

from memgraph_agents import registry
from memgraph_agents.bench.locomo import evidence_prefix, parse_int_list, run_locomo_bench
from memgraph_agents.bench.qa import evidence_lines, human_date
from memgraph_agents.cli.main import main
from memgraph_agents.config import Settings
from memgraph_agents.model.evidence import Evidence
from memgraph_agents.runtime import register_chat_model
from tests.fakes import ScriptedChatModel, careful_navigator_responder, task_text

# --------------------------------------------------------------------------- fixture data


def _turns(session: int, lines: list[tuple[str, str]]) -> list[dict]:
    return [{"speaker": sp, "dia_id": f"D{session}:{i}", "text": tx} for i, (sp, tx) in enumerate(lines, start=1)]


S1 = [
    ("Ana", "I adopted a puppy yesterday, a beagle called Pixel."),
    ("Ben", "Congratulations! How is Pixel settling in?"),
    ("Ana", "He chewed my running shoes already."),
]
S2 = [
    ("Ben", "I ran the Lisbon half marathon last weekend."),
    ("Ana", "Was the course hilly?"),
    ("Ben", "Very hilly near the castle, my legs still hurt."),
]
S3 = [
    ("Ana", "I started a job at the Riverside Library this week."),
    ("Ben", "My marathon time was 52 minutes for the first half."),
    ("Ana", "Pixel visits the library on Saturdays."),
]

QA = [
    # q0: a clean id
    {"question": "When did Ana adopt Pixel?", "answer": "4 May 2028", "evidence": ["D1:1"], "category": 2},
    # q1: two ids in one string
    {
        "question": "Which dog and which race are mentioned?",
        "answer": "Pixel, Lisbon half marathon",
        "evidence": ["D1:1; D2:1"],
        "category": 1,
    },
    # q2: an extra colon
    {"question": "Where was the course hilly?", "answer": "near the castle", "evidence": ["D:2:3"], "category": 4},
    # q3: an id that does not exist: no resolvable evidence, skipped by the retrieval metrics
    {"question": "Would Ana like cats?", "answer": "Probably yes", "evidence": ["D9:9"], "category": 3},
    # q4: an int answer
    {"question": "How many minutes did the first half take?", "answer": 52, "evidence": ["D3:2"], "category": 4},
    # q5: adversarial, left out by default
    {"question": "What is Ben's cat called?", "adversarial_answer": "Tom", "evidence": ["D1:2"], "category": 5},
    # q6: a repeated id
    {
        "question": "When did Ana start at the library?",
        "answer": "the week of 20 August 2028",
        "evidence": ["D3:1", "D3:1"],
        "category": 2,
    },
]


def locomo_fixture() -> list[dict]:
    conv = {
        "speaker_a": "Ana",
        "speaker_b": "Ben",
        "session_1_date_time": "1:02 pm on 5 May, 2028",
        "session_1": _turns(1, S1),
        "session_2_date_time": "10:00 am on 2 June, 2028",
        "session_2": _turns(2, S2),
        "session_3_date_time": "6:30 am on 21 August, 2028",
        "session_3": _turns(3, S3),
        "session_4_date_time": "9:00 am on 1 September, 2028",
    }  # a date key without a session
    other = {
        "speaker_a": "Cy",
        "speaker_b": "Di",
        "session_1_date_time": "9:00 am on 1 May, 2028",
        "session_1": _turns(1, [("Cy", "I bought a red bike."), ("Di", "Nice, where do you ride it?")]),
    }
    return [
        {
            "sample_id": "conv-t1",
            "conversation": conv,
            "qa": QA,
            "session_summary": {"session_1_summary": "LEAKED SUMMARY"},
            "observation": {},
            "event_summary": {},
        },
        {
            "sample_id": "conv-t2",
            "conversation": other,
            "qa": [{"question": "What colour is Cy's bike?", "answer": "red", "evidence": ["D1:1"], "category": 4}],
        },
    ]


# A fixed ranking for every question: flattened turns D2:1, D2:2, D1:1, D3:1, D3:2, D1:2
# (D2:2 repeats in E3: first occurrence wins); sessions in order S2, S1, S3.
SCRIPTED = [
    ("E1", ["D2:1", "D2:2"], "Ben ran the Lisbon half marathon", ["2028-06-02"]),
    ("E2", ["D1:1"], "On 4 May 2028 Ana adopted Pixel", ["2028-05-05"]),
    ("E3", ["D2:2", "D3:1"], "a hilly course and a new job", ["2028-06-02", "2028-08-21"]),
    ("E4", ["D3:2"], "52 minutes", ["2028-08-21"]),
    ("E5", ["D1:2"], "Ben congratulates Ana", ["2028-05-05"]),
]


def scripted_retriever(query: str, store, *, k: int = 10, options=None) -> list[Evidence]:
    return [
        Evidence(
            node_id=f"event:{nid}",
            kind="event",
            text=text,
            score=1.0 - i / 10,
            turn_ids=turns,
            session_ids=sorted({f"S{t[1]}" for t in turns}),
            session_dates=dates,
            retriever="scripted",
        )
        for i, (nid, turns, text, dates) in enumerate(SCRIPTED)
    ][:k]


@pytest.fixture
def data_file(tmp_path):
    path = tmp_path / "locomo_tiny.json"
    path.write_text(json.dumps(locomo_fixture()), encoding="utf-8")
    return path


@pytest.fixture
def scripted(monkeypatch):
    spec = registry.RetrieverSpec(f"{__name__}:scripted_retriever", "memgraph_agents.retrieval.lexical:BM25Options")
    monkeypatch.setitem(registry.RETRIEVERS, "scripted", spec)
    return "scripted"


@pytest.fixture(autouse=True)
def _no_env_llm(monkeypatch):
    from memgraph_agents.cli.output import err_console

    monkeypatch.delenv("MEMGRAPH_LLM", raising=False)
    monkeypatch.setattr(err_console, "width", 1000)  # no soft wrapping of error lines in captured output


def _bench(tmp_path, data_file, *extra: str, local_options: bool = False) -> int:
    common = ["--data-dir", str(tmp_path / "mem"), "--embeddings", "hash"]
    if local_options:  # the same options given after the sub-command
        return main(["bench", "locomo", *common, "--data", str(data_file), "--out", str(tmp_path / "out"), *extra])
    return main([*common, "bench", "locomo", "--data", str(data_file), "--out", str(tmp_path / "out"), *extra])


def _results(tmp_path) -> dict:
    return json.loads((tmp_path / "out" / "results.json").read_text(encoding="utf-8"))


def _records(tmp_path) -> list[dict]:
    return [json.loads(line) for line in (tmp_path / "out" / "questions.jsonl").read_text().splitlines()]


# --------------------------------------------------------------------------- end to end


@pytest.mark.slow
def test_bench_files_shape_and_hand_computed_metrics(tmp_path, data_file, scripted):
    assert (
        _bench(tmp_path, data_file, "--conversations", "conv-t1", "--retrievers", "dense,scripted", "--k", "5,1,3") == 0
    )
    out = tmp_path / "out"
    for name in ("results.json", "results.md", "recall.png", "questions.jsonl"):
        assert (out / name).is_file() and (out / name).stat().st_size > 0
    assert (out / "recall.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    r = _results(tmp_path)

    # top-level shape
    assert r["builder"] == "offline" and r["llm"] == "none" and r["embeddings"] == "hash"
    assert r["conversations"] == ["conv-t1"] and r["ks"] == [1, 3, 5] and r["categories"] == [1, 2, 3, 4]
    assert r["questions"] == 6 and r["skipped_questions"] == 1  # q5 (category 5) out, q3 unresolvable
    assert r["command"].startswith("memgraph --data-dir") and "bench locomo" in r["command"]
    assert {"nproc", "ram_gb", "cpu"} <= set(r["machine"]) and r["machine"]["nproc"] >= 1
    assert re.match(r"\d{4}-\d\d-\d\dT", r["date"])
    ing = r["ingest"]
    assert ing["turns"] == 9 and ing["nodes"]["turn"] == 9 and ing["nodes"]["session"] == 3
    assert ing["edges"]["contains"] >= 9 and ing["seconds"] >= 0
    conv = ing["per_conversation"]["conv-t1"]
    assert conv["state"] == "cold" and conv["sessions_new"] == 3 and conv["embedding_cache"]["misses"] > 0
    assert conv["history"]["cold"]["seconds"] == conv["seconds"] and "warm" not in conv["history"]
    assert set(r["retrievers"]) == {"dense", "scripted"}
    for s in r["retrievers"].values():
        for k in (1, 3, 5):
            for m in ("turn_recall", "hit", "session_recall", "answer_recall", "context_tokens"):
                assert f"{m}@{k}" in s
        assert s["latency_ms_p50"] is not None and s["latency_ms_p95"] >= s["latency_ms_p50"]
        assert s["questions"] == 5 and s["skipped_questions"] == 1 and s["errors"] == 0
        assert set(s["per_category"]) == {"1", "2", "3", "4"}

    # scripted ranking: flattened D2:1 D2:2 D1:1 D3:1 D3:2 D1:2, sessions S2 S1 S3
    s = r["retrievers"]["scripted"]
    #            q0 [D1:1]  q1 [D1:1,D2:1]  q2 [D2:3]  q4 [D3:2]  q6 [D3:1]
    # R@1:        0          1/2             0          0          0        -> 0.1
    # R@3:        1          1               0          0          0        -> 0.4
    # R@5:        1          1               0          1          1        -> 0.8
    assert s["turn_recall@1"] == pytest.approx(0.1)
    assert s["turn_recall@3"] == pytest.approx(0.4)
    assert s["turn_recall@5"] == pytest.approx(0.8)
    assert s["hit@1"] == pytest.approx(0.0) and s["hit@3"] == pytest.approx(0.4) and s["hit@5"] == pytest.approx(0.8)
    # sessions@1 = {S2}: q1 gets 1/2 (S1, S2), q2 gets 1 (S2) -> 1.5 / 5
    assert s["session_recall@1"] == pytest.approx(0.3)
    assert s["session_recall@3"] == pytest.approx(1.0)
    pc = s["per_category"]
    assert pc["2"]["questions"] == 2 and pc["2"]["turn_recall@3"] == pytest.approx(0.5)
    assert pc["2"]["turn_recall@5"] == pytest.approx(1.0)
    assert pc["4"]["turn_recall@5"] == pytest.approx(0.5) and pc["1"]["turn_recall@1"] == pytest.approx(0.5)
    assert pc["3"]["questions"] == 0 and pc["3"]["skipped_questions"] == 1 and pc["3"]["turn_recall@5"] is None
    # context words: the prefix that yields k turns. k=1 -> E1; k=3 -> E1+E2; k=5 -> E1..E4
    words = [len(t.split()) for _, _, t, _ in SCRIPTED]
    assert s["context_tokens@1"] == pytest.approx(words[0])
    assert s["context_tokens@3"] == pytest.approx(words[0] + words[1])
    assert s["context_tokens@5"] == pytest.approx(sum(words[:4]))
    rec = {x["qid"]: x for x in _records(tmp_path) if x["retriever"] == "scripted"}
    q0 = rec["conv-t1:q0"]
    assert q0["gold"] == ["D1:1"] and q0["turns"] == ["D2:1", "D2:2", "D1:1", "D3:1", "D3:2"]
    # "4 May 2028" is in E2 (within the first 3 turns), not in E1
    assert q0["scores"]["answer_recall@1"] == 0.0 and q0["scores"]["answer_recall@3"] == 1.0
    assert rec["conv-t1:q1"]["gold"] == ["D1:1", "D2:1"] and rec["conv-t1:q2"]["gold"] == ["D2:3"]
    assert rec["conv-t1:q3"]["scores"] is None and rec["conv-t1:q6"]["gold"] == ["D3:1"]

    # dense: its per-question scores agree with its own ranking
    dense = {x["qid"]: x for x in _records(tmp_path) if x["retriever"] == "dense"}
    for x in dense.values():
        if x["scores"] is None:
            continue
        expected = len(set(x["gold"]) & set(x["turns"][:3])) / len(set(x["gold"]))
        assert x["scores"]["turn_recall@3"] == pytest.approx(expected)
    scored = [x["scores"]["turn_recall@5"] for x in dense.values() if x["scores"]]
    assert r["retrievers"]["dense"]["turn_recall@5"] == pytest.approx(sum(scored) / len(scored), abs=1e-4)

    md = (out / "results.md").read_text()
    assert "| scripted | 0.100 | 0.400 | 0.800 |" in md
    assert r["command"] in md and "CPUs" in md and "Category 2 temporal" in md
    assert "LEAKED" not in (out / "questions.jsonl").read_text()


@pytest.mark.slow
def test_bench_every_registered_retriever_and_memory_reuse(tmp_path, data_file):
    assert _bench(tmp_path, data_file) == 0
    first = _results(tmp_path)
    # every registered retriever, and the navigator's kept-only ranking from the same calls
    assert set(first["retrievers"]) == set(registry.RETRIEVERS) | {"navigator_kept"}
    assert first["retrievers"]["navigator_kept"]["ranking_of"] == "navigator"
    assert "| navigator − oneshot |" in (tmp_path / "out" / "results.md").read_text()
    assert first["conversations"] == ["conv-t1", "conv-t2"] and first["questions"] == 7
    for name, s in first["retrievers"].items():
        assert not s["failed"], (name, s.get("error_examples"))
        assert 0.0 <= s["turn_recall@10"] <= 1.0
    # second run: the memory is reused, nothing is ingested again, same scores
    assert _bench(tmp_path, data_file, "--retrievers", "dense") == 0
    again = _results(tmp_path)
    assert again["ingest"]["state"] == "reused" and again["ingest"]["turns_new"] == 0
    assert all(p["state"] == "reused" for p in again["ingest"]["per_conversation"].values())
    # the cost of building the memory is still reported, from the data dir's history
    built = first["ingest"]["per_conversation"]["conv-t1"]
    # cold or warm: the process's one model may hold these texts' vectors from an earlier test
    assert built["state"] in ("cold", "warm")
    assert again["ingest"]["per_conversation"]["conv-t1"]["history"][built["state"]]["seconds"] == built["seconds"]
    assert again["retrievers"]["dense"]["turn_recall@10"] == first["retrievers"]["dense"]["turn_recall@10"]


# --------------------------------------------------------------------------- QA with a fake model


def qa_responder(messages):
    prompt = task_text(messages)
    if prompt.startswith("TASK: ANSWER FROM MEMORY"):
        question = re.search(r"^Question: (.*)$", prompt, re.M).group(1)
        answer = {"When did Ana adopt Pixel?": "4 May 2028", "Which dog and which race are mentioned?": "Pixel"}
        return json.dumps({"answer": answer.get(question, "unknown")})
    if prompt.startswith("TASK: JUDGE ANSWER"):
        gold = re.search(r"^Gold answer: (.*)$", prompt, re.M).group(1)
        got = re.search(r"^Generated answer: (.*)$", prompt, re.M).group(1)
        label = "correct" if gold.lower() in got.lower() else "WRONG"  # lower case is accepted too
        return json.dumps({"reasoning": "compared", "label": label})
    return AssertionError(f"unexpected prompt {prompt[:60]!r}")


@pytest.mark.slow
def test_bench_qa_with_fake_model(tmp_path, data_file, scripted):
    model = ScriptedChatModel(responder=qa_responder)
    register_chat_model("fake:qa", model)
    assert (
        _bench(
            tmp_path,
            data_file,
            "--conversations",
            "conv-t1",
            "--retrievers",
            "scripted",
            "--qa",
            "--llm",
            "fake:qa",
            local_options=True,
        )
        == 0
    )
    assert (tmp_path / "mem" / "namespaces" / "conv-t1").is_dir()  # --data-dir after the sub-command
    r = _results(tmp_path)
    assert r["llm"] == "fake:qa" and r["ingest_llm"] == "none" and r["builder"] == "offline"
    assert r["embeddings"] == "hash"
    qa = r["retrievers"]["scripted"]["qa"]
    # 6 questions (q3 included: QA needs no evidence ids); q0 exact, q1 "Pixel" for "Pixel, Lisbon half marathon"
    assert qa["questions"] == 6
    assert qa["judge_accuracy"] == pytest.approx(1 / 6, abs=1e-4)
    # F1: q0 1.0; q1 (multi-hop: mean over gold parts of the best match) (1 + 0) / 2; the rest 0
    assert qa["f1"] == pytest.approx(1.5 / 6, abs=1e-4)
    assert qa["per_category"]["2"]["judge_accuracy"] == pytest.approx(0.5)
    assert qa["per_category"]["1"]["f1"] == pytest.approx(0.5)
    assert qa["per_category"]["4"]["f1"] == 0.0 and qa["llm_failures"] == 0
    assert {"set_f1", "bleu1"} <= set(qa) and qa["per_category"]["2"]["bleu1"] == pytest.approx(0.5)
    assert qa["llm"]["calls"] == 12 and qa["llm"]["input_tokens"] > 0  # 6 answers + 6 judgements
    answer_prompts = [p for p in model.prompts if p.startswith("TASK: ANSWER FROM MEMORY")]
    assert len(answer_prompts) == 6
    assert "[5 May 2028 | D1:1] On 4 May 2028 Ana adopted Pixel" in answer_prompts[0]
    assert "Ana and Ben" in answer_prompts[0]
    md = (tmp_path / "out" / "results.md").read_text()
    assert "## QA" in md and "| scripted | all | 6 |" in md
    qa_rows = [x for x in _records(tmp_path) if x.get("qa")]
    assert {x["qid"]: x["answer"] for x in qa_rows}["conv-t1:q0"] == "4 May 2028"


def test_qa_without_llm_is_a_one_line_error(tmp_path, data_file, capsys):
    assert _bench(tmp_path, data_file, "--qa") == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "MEMGRAPH_LLM" in err
    assert not (tmp_path / "mem").exists()  # checked before any work


# --------------------------------------------------------------------------- bad arguments


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--retrievers", "dense,nope,pagerank"], r"unknown retrievers nope, pagerank: available: .*\bdense\b"),
        (["--conversations", "conv-t1,conv-99"], r"unknown conversation id conv-99 .*available: conv-t1, conv-t2"),
        (["--k", "3,x"], r"--k: expected a comma-separated list of integers, got '3,x'"),
        (["--k", "0,5"], r"--k: values must be positive"),
        (["--categories", "1,7"], r"--categories: 7 not allowed"),
        (["--builder", "llm"], r"--builder llm needs an LLM: set MEMGRAPH_LLM"),
        (["--builder", "magic"], r"--builder: expected one of offline, llm"),
    ],
)
def test_bad_arguments(tmp_path, data_file, capsys, extra, message):
    assert _bench(tmp_path, data_file, *extra) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    assert re.search(message, err), err


def test_missing_data_file(tmp_path, capsys):
    assert _bench(tmp_path, tmp_path / "nope.json") == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "nope.json" in err and "not found" in err


def test_offline_builder_refuses_llm_built_memory(tmp_path, data_file):
    settings = Settings(data_dir=tmp_path / "mem", embeddings="hash")
    run_locomo_bench(data_file, settings, retrievers="dense", conversations="conv-t2")
    from memgraph_agents.runtime import get_store

    store = get_store(settings, "conv-t2")
    with store.db.transaction() as c:
        c.execute("UPDATE sessions SET builder='llm'")
    with pytest.raises(ValueError, match="built with the llm builder"):
        run_locomo_bench(data_file, settings, retrievers="dense", conversations="conv-t2")


# --------------------------------------------------------------------------- helpers


def test_helpers():
    assert parse_int_list("10, 3,5,3", "--k") == [3, 5, 10]
    ev = scripted_retriever("q", None)
    assert [e.node_id for e in evidence_prefix(ev, 3)] == ["event:E1", "event:E2"]
    assert len(evidence_prefix(ev, 99)) == len(ev)
    assert human_date("2028-05-05") == "5 May 2028"
    assert evidence_lines(ev, 2).splitlines()[1] == "[5 May 2028 | D1:1] On 4 May 2028 Ana adopted Pixel"
    assert evidence_lines([]) == "(no excerpt was found)"


@pytest.mark.slow
def test_bench_qa_navigator_answers_through_its_responder(tmp_path, data_file):
    """--qa with the navigator: the answer is the Responder's (LLM policy), only the judge is asked."""
    nav = careful_navigator_responder()
    judge = qa_responder
    model = ScriptedChatModel(responder=lambda m: judge(m) if task_text(m).startswith("TASK: JUDGE ANSWER") else nav(m))
    register_chat_model("fake:nav-qa", model)
    assert (
        _bench(
            tmp_path,
            data_file,
            "--conversations",
            "conv-t1",
            "--retrievers",
            "navigator",
            "--qa",
            "--llm",
            "fake:nav-qa",
        )
        == 0
    )
    qa = _results(tmp_path)["retrievers"]["navigator"]["qa"]
    assert qa["questions"] == 6 and qa["answered_by"] == "navigator responder"
    assert not [p for p in model.prompts if p.startswith("TASK: ANSWER FROM MEMORY")]  # no one-shot answer prompt
    judged = [p for p in model.prompts if p.startswith("TASK: JUDGE ANSWER")]
    assert len(judged) == 6
    nav_calls = qa["llm"]["navigator_usage"]["calls"]
    assert 6 <= nav_calls <= 6 * 8  # at least one call per question, never over the per-question cap
    assert qa["llm"]["calls"] == nav_calls + 6
    answers = {x["qid"]: x["answer"] for x in _records(tmp_path) if x.get("qa")}
    assert all(answers.values())  # every question got the Responder's answer
