"""One HTTP client per event loop for the chat models this package builds.

``langchain-openai`` shares one process-wide ``httpx.AsyncClient`` (cached per base URL).
Its connection pool belongs to the event loop that first used it, and this project runs
many loops (``asyncio.run`` per question, per ingest, per bench phase; worker threads):
the first request in a new loop then fails with "Event loop is closed". So ``make_chat_model``
registers how to rebuild its model, and ``for_running_loop`` hands every loop its own copy
with its own async client. Models built elsewhere (custom, fakes) are used as they are.
"""

from __future__ import annotations

import asyncio
import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass

from langchain_core.language_models import BaseChatModel


@dataclass(frozen=True)
class ModelInfo:
    key: str  # spec and base URL: the unit of rate limits and of the breaker
    provider: str
    build: Callable[[], BaseChatModel] | None = None  # a fresh model with its own async HTTP client


_INFO: dict[int, ModelInfo] = {}
_PER_LOOP: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[int, BaseChatModel]] = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()


def register(model: BaseChatModel, info: ModelInfo) -> None:
    with _LOCK:
        _INFO[id(model)] = info
    weakref.finalize(model, _INFO.pop, id(model), None)


def info_of(model: BaseChatModel) -> ModelInfo | None:
    with _LOCK:
        return _INFO.get(id(model))


def model_key(model: BaseChatModel) -> str:
    info = info_of(model)
    return info.key if info is not None else f"{type(model).__name__}@{id(model):x}"


def provider_of(model: BaseChatModel) -> str:
    info = info_of(model)
    return info.provider if info is not None else ""


def for_running_loop(model: BaseChatModel) -> BaseChatModel:
    """``model``'s copy for the running event loop (``model`` itself when not registered)."""
    info = info_of(model)
    if info is None or info.build is None:
        return model
    loop = asyncio.get_running_loop()
    with _LOCK:
        models = _PER_LOOP.setdefault(loop, {})
        got = models.get(id(model))
        if got is None:
            got = models[id(model)] = info.build()
        return got
