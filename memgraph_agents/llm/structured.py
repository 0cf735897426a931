"""Strict JSON output from any chat model: one request, tolerant parsing, one repair turn.

The request asks for native structured output where the server supports it (json_schema,
then function calling, then JSON mode, then a plain prompt: ``memgraph_agents.llm.methods``),
and every request also shows the expected shape in the prompt. The reply always goes through
a forgiving extractor and, when unusable, a repair turn carrying the validation error: the
servers this project targets (OpenAI, vLLM, Ollama, llama.cpp...) differ in how well they
keep to a schema. The extractor lives in ``memgraph_agents.llm.jsonparse``; error classes,
Retry-After and the per-model breaker in ``memgraph_agents.llm.transport``.

Failure contract (the callers fall back to offline construction on any ``LLMError``):

- ``LLMOutputError``  the reply is still not valid after the repair turn(s); ``.raw`` holds it;
- ``LLMTimeoutError`` one request exceeded ``timeout`` seconds (not retried: a slow server
  stays slow, and the caller has an offline path);
- ``LLMCallError``    the model raised: immediately when the error is permanent (bad request,
  authentication), after ``max_attempts`` with exponential backoff (or the server's
  Retry-After) when it is transient (by exception type: rate limit, timeout, connection,
  5xx); also when the model's breaker is open or the caller's call cap is spent.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
from collections.abc import AsyncIterator, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.runnables import Runnable, RunnableConfig
from pydantic import BaseModel
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception
from typing_extensions import TypedDict

from memgraph_agents.config_process import process_settings
from memgraph_agents.errors import LLMError
from memgraph_agents.llm import methods

# Parsing lives in ``jsonparse``; re-exported so ``from memgraph_agents.llm.structured import
# extract_json`` (and friends) keeps working.
from memgraph_agents.llm.jsonparse import (  # noqa: F401
    describe_error,
    extract_json,
    format_validation_error,
    parse_reply,
    relax_json,
)
from memgraph_agents.llm.limits import CallSlot, default_limiter
from memgraph_agents.llm.loops import for_running_loop, model_key
from memgraph_agents.llm.transport import (  # noqa: F401  (is_transient: re-exported)
    BREAKER,
    MAX_RETRY_AFTER,
    BreakerOpen,
    is_rejected_request,
    is_transient,
    retry_after,
)
from memgraph_agents.llm.usage import LLMUsage, message_text
from memgraph_agents.prompts import render_prompt

T = TypeVar("T", bound=BaseModel)

DEFAULT_BACKOFF_BASE = 0.5  # seconds before the 2nd attempt; doubled each time after
DEFAULT_MAX_ATTEMPTS = 3  # per request, for transient errors only
REPAIR_MARKER = "JSON REPAIR"  # first words of prompts/json_repair.txt; fakes detect repair turns by it


def default_backoff() -> float:
    """``MEMGRAPH_LLM_BACKOFF`` seconds (first retry's wait, doubled after), else the default
    (``DEFAULT_BACKOFF_BASE``, the settings' default), read through the process settings."""

    return process_settings().llm_backoff


class LLMOutputError(LLMError):
    """The model's reply could not be turned into the schema, even after repair."""

    def __init__(self, message: str, *, raw: str = "", error: str = "") -> None:
        super().__init__(message)
        self.raw = raw
        self.error = error


class LLMTimeoutError(LLMError):
    """One request took longer than its timeout."""


class LLMCallError(LLMError):
    """The chat model raised; ``transient`` tells whether retries were attempted."""

    def __init__(self, message: str, *, transient: bool) -> None:
        super().__init__(message)
        self.transient = transient


# --------------------------------------------------------------------------- schema text


def describe_schema(schema: type[BaseModel]) -> str:
    """A compact, JSON-looking description of ``schema`` (types and field notes).

    Models follow a shape they can see far better than a raw JSON-Schema document, and this
    costs a fraction of its tokens.
    """
    js = schema.model_json_schema()
    return _render(js, js.get("$defs", {}), 0)


def _deref(node: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        target = defs[node["$ref"].rsplit("/", 1)[-1]]
        node = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
    return node


def _render(node: dict[str, Any], defs: dict[str, Any], level: int) -> str:
    node = _deref(node, defs)
    if "anyOf" in node:
        return " | ".join(_render(n, defs, level) for n in node["anyOf"])
    if "enum" in node:
        return " | ".join(json.dumps(v) for v in node["enum"])
    kind = node.get("type")
    if kind == "object" and "properties" in node:
        pad = "  " * (level + 1)
        props = list(node["properties"].items())
        lines = ["{"]
        for i, (name, sub) in enumerate(props):
            value = _render(sub, defs, level + 1)
            comma = "," if i < len(props) - 1 else ""
            note = _note(sub)
            comment = f"  // {note}" if note else ""
            first, newline, rest = value.partition("\n")
            if newline:  # nested block: the note goes on its opening line
                lines.append(f'{pad}"{name}": {first}{comment}\n{rest}{comma}')
            else:
                lines.append(f'{pad}"{name}": {value}{comma}{comment}')
        lines.append("  " * level + "}")
        return "\n".join(lines)
    if kind == "array":
        return "[" + _render(node.get("items", {}), defs, level) + "]"
    if kind in ("string", "integer", "number", "boolean", "null", "object"):
        return str(kind)
    return "any"


def _note(node: dict[str, Any]) -> str:
    parts = [node["description"]] if node.get("description") else []
    if "minItems" in node and node["minItems"] > 0:
        parts.append(f"at least {node['minItems']}")
    if "maxItems" in node:
        parts.append(f"at most {node['maxItems']}")
    if "minimum" in node:
        parts.append(f">= {node['minimum']}")
    return "; ".join(parts)


# --------------------------------------------------------------------------- transport


@contextlib.asynccontextmanager
async def _maybe_acquire(semaphore: CallSlot | None) -> AsyncIterator[None]:
    if semaphore is None:
        yield
    else:
        async with semaphore:
            yield


class _Calls:
    """Requests one logical call may still send (``None``: no cap), shared by its retries,
    method fall-backs and repair turns so a caller's cap (the navigator's) holds."""

    def __init__(self, cap: int | None) -> None:
        self.left = cap

    def take(self) -> bool:
        if self.left is None:
            return True
        if self.left <= 0:
            return False
        self.left -= 1
        return True


def _wait(backoff_base: float, key: str) -> Callable[[RetryCallState], float]:
    def wait(state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome is not None else None
        told = retry_after(exc) if exc is not None else None
        if told is not None:  # the server said when: every caller of this model waits that long
            BREAKER.hold(key, told)
            return 0.0  # the breaker's wait happens before the next request
        # exponential backoff with a little jitter so concurrent callers do not re-collide
        return backoff_base * (2 ** (state.attempt_number - 1)) * (1 + 0.25 * random.random())

    return wait


def _stop(max_attempts: int, calls: _Calls) -> Callable[[RetryCallState], bool]:
    def stop(state: RetryCallState) -> bool:
        if state.attempt_number >= max_attempts or calls.left == 0:
            return True
        exc = state.outcome.exception() if state.outcome is not None else None
        told = retry_after(exc) if exc is not None else None
        return told is not None and told > MAX_RETRY_AFTER

    return stop


async def _request(
    model: Runnable[Any, Any],
    messages: Sequence[BaseMessage],
    *,
    usage: LLMUsage,
    timeout: float,
    semaphore: CallSlot | None,
    backoff_base: float,
    max_attempts: int,
    calls: _Calls,
    key: str,
    is_retry: bool,
    run_name: str,
) -> AIMessage:
    """One logical request: per-attempt timeout, transient errors (by type) retried with
    backoff or after the server's Retry-After, the model's breaker consulted first."""
    config: RunnableConfig = {"run_name": run_name, "tags": ["memgraph"]}
    attempt_no = 0

    async def once() -> AIMessage:
        nonlocal attempt_no
        attempt_no += 1
        retry = is_retry or attempt_no > 1
        try:
            await BREAKER.wait(key, max_wait=MAX_RETRY_AFTER)
        except BreakerOpen as e:
            raise LLMCallError(f"{run_name}: {e}", transient=True) from e
        if not calls.take():
            raise LLMCallError(f"{run_name}: the call cap is spent", transient=False)
        start = time.perf_counter()
        try:
            # the limiter's wait is not part of the timeout: only the model's own time is
            async with _maybe_acquire(semaphore):
                start = time.perf_counter()
                reply = await asyncio.wait_for(model.ainvoke(list(messages), config=config), timeout)
        except TimeoutError as e:  # asyncio.TimeoutError is TimeoutError on 3.11+
            usage.record_call(messages, None, time.perf_counter() - start, failed=True, retry=retry)
            BREAKER.failed(key)  # a stalling server opens the breaker like a failing one
            raise LLMTimeoutError(f"{run_name}: no reply within {timeout:g} s") from e
        except Exception:
            usage.record_call(messages, None, time.perf_counter() - start, failed=True, retry=retry)
            raise
        usage.record_call(messages, reply, time.perf_counter() - start, retry=retry)
        return reply if isinstance(reply, AIMessage) else AIMessage(content=message_text(reply))

    retrying = AsyncRetrying(
        retry=retry_if_exception(lambda e: not isinstance(e, LLMError) and is_transient(e)),
        wait=_wait(backoff_base, key),
        stop=_stop(max_attempts, calls),
        reraise=True,
    )
    try:
        reply: AIMessage = await retrying(once)
    except LLMError:
        raise
    except Exception as e:
        transient = is_transient(e)
        if transient:
            BREAKER.failed(key)
        tries = f" after {attempt_no} attempts" if transient else ""
        raise LLMCallError(f"{run_name}: chat model failed{tries}: {type(e).__name__}: {e}", transient=transient) from e
    BREAKER.succeeded(key)
    return reply


async def _structured_request(
    model: BaseChatModel, messages: Sequence[BaseMessage], schema: type[BaseModel], todo: list[str], **kw: Any
) -> AIMessage:
    """``_request`` with the first method of ``todo`` the server accepts (``todo`` is
    consumed: a rejected method is dropped for this call and remembered for the model)."""
    while True:
        method = todo[0]
        try:
            return await _request(methods.bind(model, method, schema), messages, **kw)
        except LLMCallError as e:
            if method == "prompt" or e.transient or not is_rejected_request(e):
                raise
            methods.reject(kw["key"], method)
            todo.pop(0)
            if not todo:
                todo.append("prompt")


# --------------------------------------------------------------------------- public API


class LLMCallOptions(TypedDict, total=False):
    """The per-call knobs of ``ainvoke_json`` that the LLM construction calls pass straight
    through (``**call: Unpack[LLMCallOptions]``); absent keys take ``ainvoke_json``'s defaults."""

    usage: LLMUsage | None
    timeout: float
    semaphore: CallSlot | None
    retries: int
    backoff_base: float | None
    max_calls: int | None


async def ainvoke_json(
    model: BaseChatModel,
    prompt: str,
    schema: type[T],
    *,
    usage: LLMUsage | None = None,
    retries: int = 1,
    timeout: float = 60,
    semaphore: CallSlot | None = None,
    check: Callable[[T], T] | None = None,
    backoff_base: float | None = None,
    max_attempts: int = DEFAULT_MAX_ATTEMPTS,
    max_calls: int | None = None,
    method: str | None = None,
    run_name: str | None = None,
) -> T:
    """Ask ``model`` for JSON matching ``schema`` and return the validated instance.

    ``prompt`` is the task (a rendered prompt file); the expected JSON shape is appended.
    ``retries`` is the number of repair turns after an unusable reply. ``check`` may
    post-process the parsed value; a ``ValueError`` it raises is treated like a validation
    error (the model gets a repair turn with that message). ``backoff_base`` defaults to
    ``DEFAULT_BACKOFF_BASE`` (tests pass a tiny value).
    """
    usage = usage if usage is not None else LLMUsage()
    base = default_backoff() if backoff_base is None else backoff_base
    name = run_name or f"json:{schema.__name__}"
    shape = describe_schema(schema)
    task = prompt.rstrip() + "\n\n" + render_prompt("json_output", schema=shape)
    messages: list[BaseMessage] = [HumanMessage(content=task)]
    key = model_key(model)
    todo = methods.chain(model, method)
    model = for_running_loop(model)
    if semaphore is None:
        semaphore = default_limiter(key)
    calls = _Calls(max_calls)
    raw, error = "", ""
    for turn in range(retries + 1):
        if turn > 0 and calls.left == 0:
            break
        reply = await _structured_request(
            model,
            messages,
            schema,
            todo,
            usage=usage,
            timeout=timeout,
            semaphore=semaphore,
            backoff_base=base,
            max_attempts=max_attempts,
            calls=calls,
            key=key,
            is_retry=turn > 0,
            run_name=name,
        )
        raw = methods.reply_text(reply)
        try:
            value = parse_reply(raw, schema)
            return check(value) if check is not None else value
        except ValueError as e:  # pydantic's ValidationError is a ValueError
            error = describe_error(e)
            usage.add(failures=1)
        repair = render_prompt("json_repair", error=error, schema=shape)
        if raw.strip():
            messages = [HumanMessage(content=task), AIMessage(content=raw), HumanMessage(content=repair)]
        else:
            # some servers reject an empty assistant message: fold the note into one turn
            messages = [HumanMessage(content=task + "\n\n" + repair)]
    raise LLMOutputError(f"{name}: unusable reply after {turn} repair turn(s): {error}", raw=raw, error=error)


def invoke_json(model: BaseChatModel, prompt: str, schema: type[T], **kwargs: Any) -> T:
    """Blocking ``ainvoke_json``; safe to call from inside a running event loop (it then runs
    on a worker thread with its own loop). Do not pass an ``asyncio.Semaphore`` bound to
    another loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(ainvoke_json(model, prompt, schema, **kwargs))
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="invoke_json") as pool:
        return pool.submit(asyncio.run, ainvoke_json(model, prompt, schema, **kwargs)).result()
