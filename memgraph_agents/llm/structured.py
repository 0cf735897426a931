"""Strict JSON output from any chat model: one request, tolerant parsing, one repair turn.

Why not ``with_structured_output``: the servers this project targets (OpenAI, but also vLLM,
Ollama, llama.cpp behind an OpenAI-compatible API, and scripted fakes in tests) differ in
their tool-calling / JSON-mode support. A plain prompt that shows the expected shape, plus a
forgiving extractor and a repair turn carrying the validation error, works on all of them.
The extractor and the validation-error messages live in ``memgraph_agents.llm.jsonparse``.

Failure contract (the callers fall back to offline construction on any ``LLMError``):

- ``LLMOutputError``  the reply is still not valid after the repair turn(s); ``.raw`` holds it;
- ``LLMTimeoutError`` one request exceeded ``timeout`` seconds (not retried: a slow server
  stays slow, and the caller has an offline path);
- ``LLMCallError``    the model raised: immediately when the error is permanent (bad request,
  authentication), after ``max_attempts`` with exponential backoff when it is transient
  (rate limit / 429, timeouts, connection errors, 5xx). The original exception is the cause.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import re
import time
from collections.abc import AsyncIterator, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypedDict, TypeVar

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.runnables import RunnableConfig
from pydantic import BaseModel

from memgraph_agents.errors import LLMError as BaseLLMError

# Parsing lives in ``jsonparse``; re-exported so ``from memgraph_agents.llm.structured import
# extract_json`` (and friends) keeps working.
from memgraph_agents.llm.jsonparse import (  # noqa: F401
    describe_error,
    extract_json,
    format_validation_error,
    parse_reply,
    relax_json,
)
from memgraph_agents.llm.limits import CallSlot
from memgraph_agents.llm.usage import LLMUsage, message_text
from memgraph_agents.prompts import render_prompt

T = TypeVar("T", bound=BaseModel)

DEFAULT_BACKOFF_BASE = 0.5  # seconds before the 2nd attempt; doubled each time after
DEFAULT_MAX_ATTEMPTS = 3  # per request, for transient errors only
REPAIR_MARKER = "JSON REPAIR"  # first words of prompts/json_repair.txt; fakes detect repair turns by it


class LLMError(BaseLLMError):
    """Base of every LLM failure the construction / navigation code falls back on."""


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

_TRANSIENT_RE = re.compile(
    r"rate.?limit|\b429\b|too many requests|timed?.?out|connection|connect ?error|temporar|"
    r"overloaded|unavailable|bad gateway|gateway time|internal.?server|"
    r"(?:error code|status(?: code)?|http)\W{0,3}5\d\d\b",
    re.IGNORECASE,
)


def is_transient(exc: BaseException) -> bool:
    """Whether retrying the same request later may succeed (rate limits, timeouts, 5xx)."""
    seen: set[int] = set()
    e: BaseException | None = exc
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        code = getattr(e, "status_code", None)
        if code is None:
            code = getattr(getattr(e, "response", None), "status_code", None)
        if isinstance(code, int):
            # a status code is authoritative: 4xx other than 408/429 will fail again
            return code in (408, 429) or 500 <= code < 600
        if _TRANSIENT_RE.search(type(e).__name__) or _TRANSIENT_RE.search(str(e)):
            return True
        e = e.__cause__ or e.__context__
    return False


@contextlib.asynccontextmanager
async def _maybe_acquire(semaphore: CallSlot | None) -> AsyncIterator[None]:
    if semaphore is None:
        yield
    else:
        async with semaphore:
            yield


async def _request(
    model: BaseChatModel,
    messages: Sequence[BaseMessage],
    *,
    usage: LLMUsage,
    timeout: float,
    semaphore: CallSlot | None,
    backoff_base: float,
    max_attempts: int,
    is_retry: bool,
    run_name: str,
) -> AIMessage:
    """One logical request: per-attempt timeout, transient errors retried with backoff."""
    config: RunnableConfig = {"run_name": run_name, "tags": ["memgraph"]}
    for attempt in range(max_attempts):
        retry = is_retry or attempt > 0
        start = time.perf_counter()
        try:
            # the semaphore wait is not part of the timeout: only the model's own time is
            async with _maybe_acquire(semaphore):
                start = time.perf_counter()
                reply = await asyncio.wait_for(model.ainvoke(list(messages), config=config), timeout)
        except TimeoutError as e:  # asyncio.TimeoutError is TimeoutError on 3.11+
            usage.record_call(messages, None, time.perf_counter() - start, failed=True, retry=retry)
            raise LLMTimeoutError(f"{run_name}: no reply within {timeout:g} s") from e
        except Exception as e:
            usage.record_call(messages, None, time.perf_counter() - start, failed=True, retry=retry)
            transient = is_transient(e)
            if not transient or attempt == max_attempts - 1:
                tries = f" after {attempt + 1} attempts" if transient else ""
                raise LLMCallError(
                    f"{run_name}: chat model failed{tries}: {type(e).__name__}: {e}", transient=transient
                ) from e
            # exponential backoff with a little jitter so concurrent callers do not re-collide
            await asyncio.sleep(backoff_base * (2**attempt) * (1 + 0.25 * random.random()))
            continue
        usage.record_call(messages, reply, time.perf_counter() - start, retry=retry)
        if not isinstance(reply, AIMessage):  # some wrappers return a plain BaseMessage
            reply = AIMessage(content=message_text(reply))
        return reply
    raise AssertionError("unreachable")  # pragma: no cover


# --------------------------------------------------------------------------- public API


class LLMCallOptions(TypedDict, total=False):
    """The per-call knobs of ``ainvoke_json`` that the LLM construction calls pass straight
    through (``**call: Unpack[LLMCallOptions]``); absent keys take ``ainvoke_json``'s defaults."""

    usage: LLMUsage | None
    timeout: float
    semaphore: CallSlot | None
    retries: int
    backoff_base: float | None


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
    base = DEFAULT_BACKOFF_BASE if backoff_base is None else backoff_base
    name = run_name or f"json:{schema.__name__}"
    shape = describe_schema(schema)
    task = prompt.rstrip() + "\n\n" + render_prompt("json_output", schema=shape)
    messages: list[BaseMessage] = [HumanMessage(content=task)]
    raw, error = "", ""
    for turn in range(retries + 1):
        reply = await _request(
            model,
            messages,
            usage=usage,
            timeout=timeout,
            semaphore=semaphore,
            backoff_base=base,
            max_attempts=max_attempts,
            is_retry=turn > 0,
            run_name=name,
        )
        raw = message_text(reply)
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
    raise LLMOutputError(
        f"{name}: unusable reply after {retries} repair turn(s): {error}", raw=raw, error=error
    )


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
