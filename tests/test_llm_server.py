"""The LLM mode through a real OpenAI-compatible server (tests/llm_server.py) and the real
``ChatOpenAI`` client: transport, structured-output methods, and the CLI end to end under
every scripted behaviour (careful, prose, wrong shape, truncated, empty, 500, 429, stall)."""

from __future__ import annotations

import asyncio
import json
import re

import openai
import pytest
from pydantic import BaseModel

from memgraph_agents.cli.main import main
from memgraph_agents.config import Settings
from memgraph_agents.llm import methods, transport
from memgraph_agents.llm.chat import make_chat_model
from memgraph_agents.llm.structured import LLMCallError, LLMOutputError, ainvoke_json
from memgraph_agents.llm.usage import LLMUsage
from memgraph_agents.runtime import get_store
from tests.conftest import make_conversation

pytestmark = pytest.mark.slow  # seconds per test: left out of the fast subset (-m "not slow")

PLAN_PROMPT = "TASK: NAVIGATION PLAN\nQuestion: When did Ana adopt Pixel?\n"
FAILING = ("prose", "wrong_shape", "truncated", "empty", "http500", "http429", "stall")
NAV_CAP = 8


class Plan(BaseModel):
    subgoals: list[str]


@pytest.fixture
def fast_llm(llm_server, monkeypatch):
    """Short bounds so failing behaviours cost little: 1 s per call, 50 ms first backoff."""
    monkeypatch.setenv("MEMGRAPH_LLM_TIMEOUT", "1")
    monkeypatch.setenv("MEMGRAPH_LLM_BACKOFF", "0.05")
    llm_server.stall = 3.0
    llm_server.retry_after = 0.3
    return llm_server


def model_for(server, timeout: float = 2):
    return make_chat_model("openai:fixture", base_url=server.url, timeout=timeout)


def plan(model, **kw):
    return asyncio.run(ainvoke_json(model, PLAN_PROMPT, Plan, backoff_base=0.01, **kw))


# --------------------------------------------------------------------------- transport


@pytest.mark.parametrize("method", methods.METHODS)
def test_each_structured_method_is_asked_for_natively_and_parsed(llm_server, method):
    usage = LLMUsage()
    got = plan(model_for(llm_server), usage=usage, method=method)
    assert got.subgoals[0] == "When did Ana adopt Pixel?"  # the careful reply, read back through that method
    (rec,) = llm_server.records
    assert rec.form == method and rec.status == 200
    # tokens are the server's own usage figures, not estimates
    assert (usage.calls, usage.input_tokens, usage.output_tokens) == (1, rec.input_tokens, rec.output_tokens)


def test_auto_starts_with_json_schema_and_falls_down_when_the_server_rejects(llm_server):
    llm_server.reject = {"json_schema", "function_calling"}
    model = model_for(llm_server)
    assert methods.chain(model) == list(methods.METHODS)
    usage = LLMUsage()
    assert plan(model, usage=usage).subgoals
    assert [(r.form, r.status) for r in llm_server.records] == [
        ("json_schema", 400),
        ("function_calling", 400),
        ("json_mode", 200),
    ]
    plan(model)  # remembered for the model: straight to JSON mode
    assert llm_server.records[-1].form == "json_mode" and len(llm_server.records) == 4
    assert usage.calls == 3 and usage.failures == 2


def test_a_new_event_loop_per_call_keeps_working(llm_server):
    """langchain-openai shares one async HTTP client per process; its pool dies with the first
    loop ("Event loop is closed" on the first call in the next loop) unless each loop gets its own."""
    model = model_for(llm_server)
    usages = [LLMUsage() for _ in range(3)]
    for u in usages:  # asyncio.run: a new loop each time, as per question / ingest / bench phase
        assert plan(model, usage=u).subgoals
    assert [u.failures for u in usages] == [0, 0, 0] and len(llm_server.records) == 3


def test_retry_after_is_waited_for(llm_server):
    llm_server.set("http429", retry_after=0.6, fail_first=1)
    usage = LLMUsage()
    assert plan(model_for(llm_server), usage=usage).subgoals
    first, second = llm_server.records
    assert first.status == 429 and second.status == 200
    assert second.at - first.at >= 0.6  # the server's Retry-After, not the 10 ms backoff
    assert (usage.calls, usage.failures, usage.retries) == (2, 1, 1)


def test_a_retry_after_too_long_fails_now_and_pauses_the_model(llm_server, monkeypatch):
    monkeypatch.setattr(transport, "MAX_RETRY_AFTER", 5.0)
    monkeypatch.setattr("memgraph_agents.llm.structured.MAX_RETRY_AFTER", 5.0)
    llm_server.set("http429", retry_after=60)
    model = model_for(llm_server)
    with pytest.raises(LLMCallError):
        plan(model)
    assert len(llm_server.records) == 1  # not retried: nobody waits a minute inside one call
    with pytest.raises(LLMCallError, match="paused"):
        plan(model)  # every caller of this model is held back: no request sent
    assert len(llm_server.records) == 1


def test_the_breaker_opens_after_repeated_failures(llm_server):
    llm_server.set("http500")
    model = model_for(llm_server)
    for _ in range(transport.BREAKER_THRESHOLD):
        with pytest.raises(LLMCallError) as info:
            plan(model, max_attempts=2)
        assert info.value.transient  # langchain-openai re-raises the SDK's InternalServerError as its cause
        assert isinstance(info.value.__cause__.__cause__, openai.InternalServerError)
    sent = len(llm_server.records)
    assert sent == 2 * transport.BREAKER_THRESHOLD
    with pytest.raises(LLMCallError, match="paused"):
        plan(model)
    assert len(llm_server.records) == sent  # the open breaker sends nothing


def test_errors_are_classified_by_type_not_by_message(llm_server):
    # a 400 whose text mentions rate limits and timeouts is still a bad request: no retry
    llm_server.reject = {"prompt"}
    with pytest.raises(LLMCallError) as info:
        plan(model_for(llm_server), method="prompt")
    assert not info.value.transient and len(llm_server.records) == 1


def test_the_call_cap_holds_with_retries_and_repairs(llm_server):
    llm_server.set("http500")
    with pytest.raises(LLMCallError):
        plan(model_for(llm_server), max_calls=2, max_attempts=3, retries=1)
    assert len(llm_server.records) == 2
    llm_server.set("prose")
    with pytest.raises(LLMOutputError):
        plan(model_for(llm_server), max_calls=1, retries=1)  # no repair turn left
    assert len(llm_server.records) == 3


@pytest.mark.parametrize("schema_name", ["SessionRelations", "QueryMentions", "RecallSelection"])
def test_wrong_shape_is_rejected_by_strict_schemas(llm_server, schema_name):
    from memgraph_agents.construct.llm.schemas import SessionRelations
    from memgraph_agents.retrieval.llm_steps import QueryMentions, RecallSelection

    schema = {"SessionRelations": SessionRelations, "QueryMentions": QueryMentions, "RecallSelection": RecallSelection}[
        schema_name
    ]
    llm_server.set("wrong_shape")
    with pytest.raises(LLMOutputError):  # used to validate as "nothing": every field had a default
        asyncio.run(ainvoke_json(model_for(llm_server), "TASK: X", schema, backoff_base=0.01))
    assert len(llm_server.records) == 2  # the reply and its repair turn


def test_calls_of_every_caller_share_the_models_limiter(llm_server, monkeypatch, tmp_path):
    """Navigator and retrieval calls go through the per-model limiter too; with room, the
    questions' calls are in flight together."""
    from memgraph_agents.ingest import ingest_conversation
    from memgraph_agents.navigator import NavigatorContext
    from memgraph_agents.navigator.run import anavigate
    from memgraph_agents.runtime import get_chat_model

    s = Settings(data_dir=tmp_path / "mem", embeddings="hash", namespace="chat")
    ingest_conversation(make_conversation("chat", 2), s, namespace="chat")  # offline build
    llm_server.stall = 0.1
    questions = ["When did Ana adopt Pixel?", "Where did Ben run?", "What does Ana do at the library?"]
    for limit in (1, 3):
        monkeypatch.setenv("MEMGRAPH_LLM_MAX_CONCURRENCY", str(limit))
        monkeypatch.setenv("MEMGRAPH_LLM", f"openai:fixture-limit-{limit}")  # its own limiter
        llm = get_chat_model(Settings())
        llm_server.peak = 0
        llm_server.set("stall")  # careful replies, 0.1 s each: long enough to overlap

        async def all_(llm=llm):
            return await asyncio.gather(
                *(anavigate(q, get_store(s), llm=llm, context=NavigatorContext(policy="llm")) for q in questions)
            )

        results = asyncio.run(all_())
        assert all(r.policy == "llm" and not r.fallbacks for r in results)
        assert llm_server.peak == limit  # bounded, and reached: the questions ran side by side


# --------------------------------------------------------------------------- CLI end to end


def write_conversation(tmp_path, sessions: int = 2):
    data = make_conversation("chat", sessions).model_dump(mode="json")
    for s in data["sessions"]:
        s.pop("participants", None)
    path = tmp_path / "conv.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def cli(tmp_path, *argv: str) -> int:
    return main(["--embeddings", "hash", "--data-dir", str(tmp_path / "mem"), *argv])


def ask(tmp_path, capsys, retriever: str) -> str:
    capsys.readouterr()
    assert cli(tmp_path, "ask", "When did Ana adopt Pixel?", "--namespace", "chat", "--retriever", retriever) == 0
    return capsys.readouterr().out


@pytest.mark.timeout(120)
@pytest.mark.parametrize("behaviour", ["careful", *FAILING])
def test_ingest_ask_and_bench_under_each_behaviour(fast_llm, behaviour, tmp_path, capsys, monkeypatch):
    from tests.test_bench import locomo_fixture

    server = fast_llm.set(behaviour)
    if behaviour == "careful":  # room for a first call on a busy machine; failing ones keep 1 s
        monkeypatch.setenv("MEMGRAPH_LLM_TIMEOUT", "5")
    assert cli(tmp_path, "ingest", str(write_conversation(tmp_path))) == 0
    out = capsys.readouterr().out
    store = get_store(Settings(data_dir=tmp_path / "mem", embeddings="hash"), "chat", create=False)
    assert [r["id"] for r in store.sessions()] == ["S1", "S2"]  # every session stored, whatever the server did
    lines = {sid: line for sid in ("S1", "S2") for line in out.splitlines() if line.startswith(f"  chat {sid}: new")}
    assert len(lines) == 2  # the user is told, per session, how it was built
    builders = {r["id"]: r["builder"] for r in store.sessions()}
    if behaviour == "careful":
        assert all(line.endswith("LLM-built") for line in lines.values()) and set(builders.values()) == {"llm"}, out
        turn_ids = {t.id for s in make_conversation("chat", 2).sessions for t in s.turns}
        snap = store.snapshot()
        events = [snap.node(snap.ids[i]) for i in snap.indices_of("event")]
        assert events and all(
            e.attrs.get("builder") == "llm" and e.turn_ids and set(e.turn_ids) <= turn_ids for e in events
        )
    else:
        assert all("OFFLINE FALLBACK" in line for line in lines.values()), lines
        assert set(builders.values()) == {"offline"}

    # navigator: within its cap, retries included; the header says what really happened
    before = len(server.records)
    nav = ask(tmp_path, capsys, "navigator")
    calls = int(re.search(r"(\d+) LLM calls\)", nav)[1])
    assert calls <= NAV_CAP and len(server.records) - before == calls
    if behaviour == "careful":
        assert "(navigator, llm," in nav and "0 fallback(s)" in nav and "answer: " in nav
    else:
        assert "(navigator, offline (LLM failed)," in nav and "fallback responder" in nav

    before = len(server.records)
    ppr = ask(tmp_path, capsys, "ppr")
    m = re.search(r"LLM: (\d+) calls attempted, (\d+) failed, (\d+) fallback", ppr)
    assert int(m[1]) == len(server.records) - before
    assert (int(m[3]) == 0) == (behaviour == "careful"), ppr

    # bench --qa on a tiny LoCoMo-format file (offline build; the LLM answers, navigates and judges)
    data = tmp_path / "tiny.json"
    data.write_text(json.dumps(locomo_fixture()), encoding="utf-8")
    before = len(server.records)
    capsys.readouterr()
    assert (
        cli(
            tmp_path,
            "bench",
            "locomo",
            "--data",
            str(data),
            "--conversations",
            "conv-t1",
            "--qa",
            "--retrievers",
            "navigator,ppr",
            "--out",
            str(tmp_path / "out"),
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "ingest done: partial results" in out and "qa navigator done: partial results" in out
    r = json.loads((tmp_path / "out" / "results.json").read_text())
    assert "partial" not in r
    nav_qa, ppr_qa = r["retrievers"]["navigator"]["qa"], r["retrievers"]["ppr"]["qa"]
    sent = len(server.records) - before
    assert nav_qa["llm"]["calls"] + ppr_qa["llm"]["calls"] == sent  # every request counted once
    assert nav_qa["navigator"]["max_llm_calls_per_question"] <= NAV_CAP
    if behaviour == "careful":
        assert nav_qa["answered_by"] == "navigator responder"
        assert nav_qa["fallbacks"] == {"navigator_questions": 0, "qa_llm_failures": 0}
        assert ppr_qa["fallbacks"]["qa_llm_failures"] == 0 and ppr_qa["judge_accuracy"] > 0
    else:
        assert nav_qa["answered_by"] != "navigator responder"  # never claimed when it fell back
        assert nav_qa["fallbacks"]["navigator_questions"] > 0 and ppr_qa["llm_failures"] > 0


@pytest.mark.timeout(180)
@pytest.mark.parametrize("behaviour", ["careful", "http500"])
def test_every_preset_ingests_through_the_server(fast_llm, behaviour, tmp_path, capsys, monkeypatch):
    from memgraph_agents.presets import PRESETS

    fast_llm.set(behaviour)
    if behaviour == "careful":
        monkeypatch.setenv("MEMGRAPH_LLM_TIMEOUT", "5")
    conv = write_conversation(tmp_path)
    for name in PRESETS:
        assert cli(tmp_path, "ingest", str(conv), "--preset", name, "--namespace", f"p-{name}") == 0
        out = capsys.readouterr().out
        store = get_store(Settings(data_dir=tmp_path / "mem", embeddings="hash"), f"p-{name}", create=False)
        assert [r["id"] for r in store.sessions()] == ["S1", "S2"], name
        built = [line for line in out.splitlines() if re.match(r"  chat S\d: new, ", line)]
        assert len(built) == 2, (name, out)
        if behaviour == "careful":
            assert all(line.endswith("LLM-built") for line in built), (name, built)
        else:
            assert all("OFFLINE FALLBACK" in line for line in built), (name, built)


def test_an_llm_ingest_rebuilds_sessions_built_offline(llm_server, tmp_path, capsys, monkeypatch):
    conv = write_conversation(tmp_path)
    monkeypatch.setenv("MEMGRAPH_LLM", "none")
    assert cli(tmp_path, "ingest", str(conv)) == 0
    monkeypatch.setenv("MEMGRAPH_LLM", "openai:fixture-rebuild")
    capsys.readouterr()
    assert cli(tmp_path, "ingest", str(conv)) == 0
    out = capsys.readouterr().out
    assert "chat S1: replaced, LLM-built" in out and "chat S2: replaced, LLM-built" in out
    store = get_store(Settings(data_dir=tmp_path / "mem", embeddings="hash"), "chat", create=False)
    assert {r["builder"] for r in store.sessions()} == {"llm"}
    capsys.readouterr()
    assert cli(tmp_path, "ingest", str(conv)) == 0  # now it is what an LLM ingest wants: unchanged
    assert "chat S1: unchanged" in capsys.readouterr().out
    monkeypatch.setenv("MEMGRAPH_LLM", "none")
    assert cli(tmp_path, "ingest", str(conv)) == 0  # and an offline ingest keeps the LLM build
    assert "chat S1: unchanged" in capsys.readouterr().out


def test_empty_relations_keep_the_offline_follow_up_edges(fast_llm, tmp_path, capsys):
    """A reply of another shape used to pass as "no relations" and drop the follow-up edges."""
    from memgraph_agents.model.graph import EdgeKind

    fast_llm.set("wrong_shape")
    assert cli(tmp_path, "ingest", str(write_conversation(tmp_path))) == 0
    store = get_store(Settings(data_dir=tmp_path / "mem", embeddings="hash"), "chat", create=False)
    _, edges = store.db.counts()
    assert edges.get(EdgeKind.RELATION.value, 0) > 0
    assert "relations: LLM failed (LLMOutputError" in capsys.readouterr().out


def test_bench_judges_with_mem0_criteria_and_a_fixed_judge_model(llm_server, tmp_path, capsys):
    from tests.test_bench import locomo_fixture

    data = tmp_path / "tiny.json"
    data.write_text(json.dumps(locomo_fixture()), encoding="utf-8")
    assert (
        cli(
            tmp_path,
            "bench",
            "locomo",
            "--data",
            str(data),
            "--conversations",
            "conv-t1",
            "--qa",
            "--retrievers",
            "bm25",
            "--judge",
            "mem0",
            "--judge-llm",
            "openai:judge-model",
            "--out",
            str(tmp_path / "out"),
        )
        == 0
    )
    judged = [r for r in llm_server.records if r.task == "TASK: JUDGE ANSWER"]
    answered = [r for r in llm_server.records if r.task == "TASK: ANSWER FROM MEMORY"]
    assert judged and answered
    assert {r.model for r in judged} == {"judge-model"} and "judge-model" not in {r.model for r in answered}
    assert all("mem0" in r.prompt for r in judged)
    res = json.loads((tmp_path / "out" / "results.json").read_text())
    assert res["judge"] == {"criteria": "mem0", "llm": "openai:judge-model"}
    out = capsys.readouterr().out
    assert "judge: mem0" in out and "LoCoMo's own numbers" in out


# --------------------------------------------------------------------------- concurrency


def _rows(settings):
    _, node_rows, edge_rows, _ = get_store(settings).db.read_graph()
    return sorted(node_rows), sorted(edge_rows)


def test_sessions_of_one_ingest_call_the_llm_together_and_build_the_same(llm_server, tmp_path, monkeypatch):
    """A slow server serves the sessions of one ingest together (their events and relations
    read nothing but the session), and the memory built is the one built one call at a time."""
    import memgraph_agents.ingest as ingest_module
    from memgraph_agents.ingest import ingest_conversation

    conv = make_conversation("chat", 3)
    llm_server.latency = 0.3
    ahead = Settings(data_dir=tmp_path / "ahead", embeddings="hash", namespace="chat")
    report = ingest_conversation(conv, ahead)
    peak, calls = llm_server.peak, llm_server.count()
    assert peak >= 2, peak  # several sessions' calls in flight together (1 before: one after another)
    assert [o.builder for o in report.sessions] == ["llm"] * 3 and not any(o.fallbacks for o in report.sessions)
    assert report.llm_usage["calls"] == calls  # every call counted once, none lost

    llm_server.peak = 0
    monkeypatch.setattr(ingest_module, "_prefetch", lambda run: None)  # the one-at-a-time path
    alone = Settings(data_dir=tmp_path / "alone", embeddings="hash", namespace="chat")
    again = ingest_conversation(conv, alone)
    assert llm_server.peak == 1
    assert again.llm_usage["calls"] == report.llm_usage["calls"]  # nothing asked twice, nothing wasted
    assert _rows(ahead) == _rows(alone)


def test_a_prefetched_failure_falls_back_like_a_call(fast_llm, tmp_path):
    from memgraph_agents.ingest import ingest_conversation

    fast_llm.set("prose")  # every reply unusable: events and relations fall back, per session
    s = Settings(data_dir=tmp_path / "mem", embeddings="hash", namespace="chat")
    report = ingest_conversation(make_conversation("chat", 3), s)
    assert [o.status for o in report.sessions] == ["new"] * 3
    assert all(o.builder == "offline" and any("events" in f for f in o.fallbacks) for o in report.sessions)
    assert report.llm_usage["calls"] == fast_llm.count()


@pytest.mark.timeout(120)
def test_the_llm_line_counts_retries_and_never_calls_a_failure_a_fallback(fast_llm, tmp_path, capsys, monkeypatch):
    """A request that fails once and succeeds on its retry: one failure, one retry, no fallback,
    and the line says exactly that (it said "0 fallback(s) ... fallback used (N steps)" and
    "0 retried" before)."""
    monkeypatch.setenv("MEMGRAPH_LLM_TIMEOUT", "5")
    fast_llm.set("careful")
    assert cli(tmp_path, "ingest", str(write_conversation(tmp_path))) == 0
    line = re.compile(r"LLM: (\d+) calls attempted, (\d+) failed, (\d+) fallback\(s\), (\d+) retried")
    for retriever in ("navigator", "ppr"):
        fast_llm.set("http500", fail_first=len(fast_llm.records) + 1)  # the next request only
        out = ask(tmp_path, capsys, retriever)
        m = line.search(out)
        assert m, out
        assert (int(m[2]), int(m[3])) == (1, 0) and int(m[4]) >= 1, out
        assert "fallback used" not in out, out
