"""How a request asks for structured output: native where the server supports it.

``MEMGRAPH_LLM_STRUCTURED`` = ``auto`` (default) | ``json_schema`` | ``function_calling`` |
``json_mode`` | ``prompt``. The chain is json_schema -> function_calling -> json_mode ->
prompt: a method the server rejects (HTTP 400/404/422) is dropped for that model and the
same request is sent again with the next one. ``auto`` starts the chain at json_schema for
OpenAI-compatible models built by ``make_chat_model`` and uses ``prompt`` for any other
model (a custom or scripted one, whose native support is unknown). Every method keeps the
schema description in the prompt, and every reply still goes through the tolerant parser
and, when unusable, one repair turn.
"""

from __future__ import annotations

import json
import threading
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage
from langchain_core.runnables import Runnable
from pydantic import BaseModel

from memgraph_agents.config_process import process_settings, structured_setting
from memgraph_agents.errors import ConfigError
from memgraph_agents.llm.loops import model_key, provider_of
from memgraph_agents.llm.usage import message_text

METHODS = ("json_schema", "function_calling", "json_mode", "prompt")
SETTINGS = ("auto", *METHODS)
ENV = "MEMGRAPH_LLM_STRUCTURED"

_REJECTED: dict[str, set[str]] = {}  # model key -> methods its server refused
_LOCK = threading.Lock()


def configured(value: str | None = None) -> str:
    if value is None:
        return process_settings().llm_structured
    try:
        return structured_setting(value)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None


def chain(model: BaseChatModel, setting: str | None = None) -> list[str]:
    """The methods to try for ``model``, best first, minus those its server rejected."""
    s = configured(setting)
    if s == "auto":
        s = "json_schema" if provider_of(model) == "openai" else "prompt"
    with _LOCK:
        rejected = set(_REJECTED.get(model_key(model), ()))
    todo = [m for m in METHODS[METHODS.index(s) :] if m not in rejected]
    return todo or ["prompt"]


def reject(key: str, method: str) -> None:
    """The server of model ``key`` (``loops.model_key``) refused ``method``: skip it from now on."""
    if method != "prompt":
        with _LOCK:
            _REJECTED.setdefault(key, set()).add(method)


def reset() -> None:
    with _LOCK:
        _REJECTED.clear()


def bind(model: BaseChatModel, method: str, schema: type[BaseModel]) -> Runnable[Any, Any]:
    """``model`` set up to request ``schema`` with ``method``."""
    if method == "json_schema":
        fmt = {"name": schema.__name__, "schema": schema.model_json_schema(), "strict": False}
        return model.bind(response_format={"type": "json_schema", "json_schema": fmt})
    if method == "function_calling":
        return model.bind_tools([schema], tool_choice=schema.__name__)
    if method == "json_mode":
        return model.bind(response_format={"type": "json_object"})
    return model


def reply_text(reply: AIMessage) -> str:
    """The JSON text of a reply: a tool call's arguments when there is one, else the content."""
    for call in reply.tool_calls:
        return json.dumps(call.get("args") or {})
    for bad in reply.invalid_tool_calls:  # arguments that were not JSON: the parser may mend them
        if bad.get("args"):
            return str(bad["args"])
    return message_text(reply)
