"""Structured JSON calls, usage accounting and chat-model construction (no network)."""

from __future__ import annotations

import asyncio
import json
import threading
import time

import httpx
import openai
import pytest
from langchain_core.messages import AIMessage, HumanMessage
from pydantic import BaseModel, Field

from memgraph_agents.errors import LLMError
from memgraph_agents.llm.chat import LLMConfigError, make_chat_model, parse_spec
from memgraph_agents.llm.structured import (
    REPAIR_MARKER,
    LLMCallError,
    LLMOutputError,
    LLMTimeoutError,
    ainvoke_json,
    describe_schema,
    extract_json,
    invoke_json,
    is_transient,
)
from memgraph_agents.llm.usage import LLMUsage, estimate_tokens, message_text
from tests.fakes import (
    FakeBadRequestError,
    FakeRateLimitError,
    FakeServerError,
    Reply,
    ScriptedChatModel,
    always_malformed,
    empty_reply,
    malformed_then_valid,
    raises,
    slow,
)

FAST = 0.005  # backoff base for tests


class Pet(BaseModel):
    name: str = Field(description="the pet's name")
    kind: str
    age: int | None = None


class Pets(BaseModel):
    pets: list[Pet] = Field(min_length=1, description="every pet mentioned")


VALID = json.dumps({"pets": [{"name": "Pixel", "kind": "dog", "age": 1}, {"name": "Oscar", "kind": "cat"}]})


def valid(messages):
    return VALID


async def ask(model, **kw) -> Pets:
    kw.setdefault("backoff_base", FAST)
    return await ainvoke_json(model, "List the pets mentioned: Ana has a dog Pixel and a cat Oscar.", Pets, **kw)


# --------------------------------------------------------------------------- happy paths


async def test_valid_reply_parsed_and_prompt_shows_schema():
    model = ScriptedChatModel(responder=valid)
    usage = LLMUsage()
    out = await ask(model, usage=usage)
    assert [p.name for p in out.pets] == ["Pixel", "Oscar"]
    prompt = model.prompts[0]
    assert prompt.startswith("List the pets mentioned")
    assert '"pets": [{' in prompt and '"name": string' in prompt and "the pet's name" in prompt
    assert usage.snapshot()["calls"] == 1 and usage.failures == 0 and usage.retries == 0


@pytest.mark.parametrize(
    "reply",
    [
        f"```json\n{VALID}\n```",
        f"Sure! Here you go:\n{VALID}\nHope this helps.",
        "```json\n" + json.dumps(json.loads(VALID), indent=2)[:-2] + ",\n}\n```",  # trailing comma
        '{"pets": [{"name": "Pixel", "kind": "dog",}, {"name": "Oscar", "kind": "cat"},],}',
        "<think>The user wants {pets}... [thinking]</think>\n" + VALID,
        '{"pets": [  // two pets\n {"name": "Pixel", "kind": "dog"}, {"name": "Oscar", "kind": "cat"}]}',
        '[{"name": "Pixel", "kind": "dog"}, {"name": "Oscar", "kind": "cat"}]',  # bare list
        '{"result": ' + VALID + "}",  # wrapped in an extra key
        "Note [1]: items below.\n```\n" + VALID + "\n```",
    ],
    ids=[
        "fenced",
        "chatty",
        "fenced-trailing-comma",
        "trailing-commas",
        "think",
        "comment",
        "bare-list",
        "wrapped",
        "prose-brackets",
    ],
)
async def test_tolerant_parsing_needs_no_repair(reply):
    model = ScriptedChatModel(responder=lambda m: reply)
    out = await ask(model)
    assert {p.name for p in out.pets} == {"Pixel", "Oscar"}
    assert len(model.calls) == 1


def test_extract_json_reasons():
    with pytest.raises(ValueError, match="empty"):
        extract_json("   \n")
    with pytest.raises(ValueError, match="incomplete"):
        extract_json('Here: {"pets": [{"name": "Pixel", "kind": "dog"}, {"name": "Osc')
    with pytest.raises(ValueError, match="no JSON"):
        extract_json("I could not find any pets.")
    with pytest.raises(ValueError, match="invalid JSON"):
        extract_json('{"pets": [name: Pixel]}')
    assert extract_json('{"url": "http://x.org/a,b", "s": "}{"}') == {"url": "http://x.org/a,b", "s": "}{"}


def test_describe_schema_is_compact_and_complete():
    text = describe_schema(Pets)
    assert '"pets": [{' in text and "every pet mentioned; at least 1" in text
    assert '"age": integer | null' in text
    assert "$defs" not in text and "title" not in text


# --------------------------------------------------------------------------- repair


@pytest.mark.parametrize("kind,needle", [("truncated", "incomplete"), ("wrong_types", "pets")])
async def test_repair_turn_fixes_bad_reply(kind, needle):
    model = ScriptedChatModel(responder=malformed_then_valid(valid, kind))
    usage = LLMUsage()
    out = await ask(model, usage=usage)
    assert len(out.pets) == 2
    assert len(model.calls) == 2
    first, repair = model.calls
    # the repair conversation: original task, the bad answer, then the error
    assert message_text(repair[0]) == message_text(first[0])
    assert isinstance(repair[1], AIMessage) and message_text(repair[1]) != VALID
    assert REPAIR_MARKER in model.prompts[1] and needle in model.prompts[1]
    snap = usage.snapshot()
    assert snap["calls"] == 2 and snap["retries"] == 1 and snap["failures"] == 1


async def test_validation_error_is_quoted_in_repair_prompt():
    replies = iter(['{"pets": []}', VALID])
    model = ScriptedChatModel(responder=lambda m: next(replies))
    await ask(model)
    assert "pets: List should have at least 1 item" in model.prompts[1]


async def test_still_invalid_raises_output_error_with_raw_text():
    model = ScriptedChatModel(responder=always_malformed(valid, "wrong_types"))
    usage = LLMUsage()
    with pytest.raises(LLMOutputError) as info:
        await ask(model, usage=usage)
    assert "see the conversation above" in info.value.raw
    assert "pets" in info.value.error
    assert isinstance(info.value, LLMError)
    assert len(model.calls) == 2 and usage.failures == 2


async def test_retries_zero_means_no_repair_turn():
    model = ScriptedChatModel(responder=always_malformed())
    with pytest.raises(LLMOutputError):
        await ask(model, retries=0)
    assert len(model.calls) == 1


async def test_empty_reply_is_an_error_and_repair_is_one_message():
    model = ScriptedChatModel(responder=empty_reply())
    with pytest.raises(LLMOutputError, match="empty"):
        await ask(model)
    assert len(model.calls) == 2
    assert len(model.calls[1]) == 1 and REPAIR_MARKER in model.prompts[1]


async def test_check_hook_value_error_triggers_repair():
    def no_cats(result: Pets) -> Pets:
        if any(p.kind == "cat" for p in result.pets):
            raise ValueError("cats are not pets here")
        return result

    replies = iter([VALID, '{"pets": [{"name": "Pixel", "kind": "dog"}]}'])
    model = ScriptedChatModel(responder=lambda m: next(replies))
    out = await ask(model, check=no_cats)
    assert [p.name for p in out.pets] == ["Pixel"]
    assert "cats are not pets here" in model.prompts[1]


# --------------------------------------------------------------------------- transport


async def test_timeout_raises_llm_timeout_error():
    model = ScriptedChatModel(responder=slow(valid, 1.0))
    usage = LLMUsage()
    start = time.perf_counter()
    with pytest.raises(LLMTimeoutError):
        await ask(model, timeout=0.2, usage=usage)
    assert time.perf_counter() - start < 0.8
    assert usage.calls == 1 and usage.failures == 1


async def test_rate_limit_retried_with_backoff_then_succeeds():
    model = ScriptedChatModel(responder=raises(FakeRateLimitError(), times=2, then=valid))
    usage = LLMUsage()
    start = time.perf_counter()
    out = await ask(model, usage=usage, backoff_base=0.02)
    elapsed = time.perf_counter() - start
    assert len(out.pets) == 2
    assert elapsed >= 0.02 + 0.04  # two backoffs: base, then 2 * base
    snap = usage.snapshot()
    assert snap["calls"] == 3 and snap["failures"] == 2 and snap["retries"] == 2


async def test_transient_errors_give_up_after_max_attempts():
    model = ScriptedChatModel(responder=raises(FakeServerError()))
    with pytest.raises(LLMCallError) as info:
        await ask(model)
    assert info.value.transient and isinstance(info.value.__cause__, FakeServerError)
    assert len(model.calls) == 3


async def test_permanent_errors_are_not_retried():
    model = ScriptedChatModel(responder=raises(FakeBadRequestError()))
    with pytest.raises(LLMCallError) as info:
        await ask(model)
    assert not info.value.transient and len(model.calls) == 1


_REQ = httpx.Request("POST", "http://127.0.0.1/v1/chat/completions")


@pytest.mark.parametrize(
    "exc,expected",
    [
        (FakeRateLimitError(), True),
        (FakeServerError(), True),
        (FakeBadRequestError("Error code: 400 - connection parameter invalid"), False),  # status wins
        (openai.APIConnectionError(request=_REQ), True),
        (openai.APITimeoutError(request=_REQ), True),
        (openai.RateLimitError("slow down", response=httpx.Response(429, request=_REQ), body=None), True),
        (openai.InternalServerError("oops", response=httpx.Response(500, request=_REQ), body=None), True),
        (openai.BadRequestError("Too Many Requests", response=httpx.Response(400, request=_REQ), body=None), False),
        # the type decides, never the text: these messages used to be matched by regexes
        (RuntimeError("Error code: 502 - Bad Gateway"), False),
        (RuntimeError("Too Many Requests"), False),
        (ValueError("connection timed out"), False),
        (ValueError("used 512 tokens of context"), False),
        (KeyError("events"), False),
    ],
)
def test_is_transient(exc, expected):
    assert is_transient(exc) is expected


async def test_semaphore_bounds_concurrency():
    model = ScriptedChatModel(responder=slow(valid, 0.05))
    sem = asyncio.Semaphore(1)
    start = time.perf_counter()
    await asyncio.gather(*(ask(model, semaphore=sem, timeout=5.0) for _ in range(3)))
    # serialised (0.15 s) yet no timeout: waiting for the semaphore is not part of the timeout
    assert time.perf_counter() - start >= 0.15


def test_invoke_json_sync_outside_loop():
    out = invoke_json(ScriptedChatModel(responder=valid), "pets?", Pets)
    assert len(out.pets) == 2


async def test_invoke_json_sync_inside_running_loop():
    out = invoke_json(ScriptedChatModel(responder=valid), "pets?", Pets)
    assert len(out.pets) == 2


# --------------------------------------------------------------------------- usage


async def test_usage_reads_usage_metadata():
    model = ScriptedChatModel(responder=valid)
    usage = LLMUsage()
    await ask(model, usage=usage)
    sent = sum(len(message_text(m).split()) for m in model.calls[0])
    assert usage.input_tokens == sent and usage.output_tokens == len(VALID.split())
    assert usage.snapshot()["total_tokens"] == sent + len(VALID.split())
    assert usage.seconds > 0


async def test_usage_estimates_tokens_without_metadata():
    model = ScriptedChatModel(responder=valid, report_usage=False)
    usage = LLMUsage()
    await ask(model, usage=usage)
    sent = "".join(message_text(m) for m in model.calls[0])
    assert usage.input_tokens == estimate_tokens(sent) == len(sent) // 4
    assert usage.output_tokens == len(VALID) // 4


async def test_usage_reply_override_and_repair_tokens_add_up():
    model = ScriptedChatModel(
        responder=lambda m: Reply(VALID, usage={"input_tokens": 100, "output_tokens": 7, "total_tokens": 107})
    )
    usage = LLMUsage()
    await ask(model, usage=usage)
    await ask(model, usage=usage)
    assert (usage.input_tokens, usage.output_tokens, usage.calls) == (200, 14, 2)


def test_usage_is_thread_safe_and_merges():
    usage = LLMUsage()

    def work():
        for _ in range(1000):
            usage.add(calls=1, input_tokens=3, output_tokens=2, seconds=0.001)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    snap = usage.snapshot()
    assert snap["calls"] == 8000 and snap["input_tokens"] == 24000 and snap["output_tokens"] == 16000
    total = LLMUsage().merge(usage).merge(usage)
    assert total.calls == 16000 and total.snapshot()["total_tokens"] == 80000
    assert abs(total.seconds - 16.0) < 1e-6


def test_usage_record_call_counts_only_billed_tokens():
    usage = LLMUsage()
    usage.record_call([HumanMessage("x" * 400)], None, 0.5, failed=True, retry=True)
    assert usage.snapshot() == {
        "calls": 1,
        "failures": 1,
        "retries": 1,
        "input_tokens": 0,
        "output_tokens": 0,
        "seconds": 0.5,
        "total_tokens": 0,
    }


# --------------------------------------------------------------------------- make_chat_model

_ENV = ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_BASE", "MEMGRAPH_LLM_BASE_URL")


@pytest.fixture
def clean_env(monkeypatch):
    for name in _ENV:
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_make_chat_model_without_key_errors_clearly(clean_env):
    with pytest.raises(LLMConfigError) as info:
        make_chat_model("openai:gpt-4o-mini")
    assert str(info.value) == (
        "MEMGRAPH_LLM=openai:gpt-4o-mini needs OPENAI_API_KEY (or OPENAI_BASE_URL for a local server)"
    )
    assert isinstance(info.value, ValueError)


def test_make_chat_model_builds_chat_openai_with_base_url(clean_env):
    from langchain_openai import ChatOpenAI

    clean_env.setenv("OPENAI_API_KEY", "sk-dummy")
    model = make_chat_model("openai:gpt-4o-mini", base_url="http://localhost:8000/v1", timeout=12)
    assert isinstance(model, ChatOpenAI)
    assert model.model_name == "gpt-4o-mini" and model.temperature == 0
    assert model.openai_api_base == "http://localhost:8000/v1"
    assert model.request_timeout == 12 and model.max_retries == 0
    assert model.openai_api_key.get_secret_value() == "sk-dummy"


@pytest.mark.parametrize("env", ["MEMGRAPH_LLM_BASE_URL", "OPENAI_BASE_URL"])
def test_local_server_needs_no_key(clean_env, env):
    clean_env.setenv(env, "http://127.0.0.1:11434/v1")
    model = make_chat_model("openai:qwen2.5:7b")
    assert model.model_name == "qwen2.5:7b"
    assert model.openai_api_base == "http://127.0.0.1:11434/v1"


def test_memgraph_base_url_overrides_openai_base_url(clean_env):
    clean_env.setenv("OPENAI_API_KEY", "sk-dummy")
    clean_env.setenv("OPENAI_BASE_URL", "http://openai-proxy/v1")
    clean_env.setenv("MEMGRAPH_LLM_BASE_URL", "http://vllm:8000/v1")
    assert make_chat_model("openai:m").openai_api_base == "http://vllm:8000/v1"
    assert make_chat_model("openai:m", base_url="http://arg/v1").openai_api_base == "http://arg/v1"


def test_make_chat_model_rejects_none_and_bad_specs(clean_env):
    for spec in ("none", "", "offline"):
        with pytest.raises(ValueError, match="offline"):
            make_chat_model(spec)
    with pytest.raises(ValueError, match="provider:model"):
        make_chat_model("gpt-4o-mini")
    assert parse_spec(" OpenAI:gpt-4o ") == ("openai", "gpt-4o")


def test_make_chat_model_missing_provider_package(clean_env):
    # a provider whose integration package is surely absent here (langmem pulls in langchain-anthropic)
    with pytest.raises(LLMConfigError, match="langchain-mistralai|integration package"):
        make_chat_model("mistralai:mistral-large-latest")
    with pytest.raises(LLMConfigError, match="nosuchprovider"):
        make_chat_model("nosuchprovider:model")
