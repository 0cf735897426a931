"""Sending one request: error classes by exception type, Retry-After, a per-model breaker.

Why types and not messages: the OpenAI SDK (and so every OpenAI-compatible server reached
through ``langchain-openai``) raises ``RateLimitError``, ``APITimeoutError``,
``APIConnectionError``, ``InternalServerError``... whose class says what happened; their text
is the server's and says anything. Other SDKs carry an HTTP ``status_code`` attribute, which
is just as authoritative.

The breaker is per model (``model_key``): a ``Retry-After`` blocks every caller of that model
until it has passed, and after ``BREAKER_THRESHOLD`` calls in a row that failed even after
their retries, the model is skipped for ``BREAKER_COOLDOWN`` seconds (callers fall back to
their offline path at once instead of each waiting through its own retries).
"""

from __future__ import annotations

import asyncio
import email.utils
import sys
import threading
import time
from dataclasses import dataclass

BREAKER_THRESHOLD = 5  # logical calls in a row failing after their retries
BREAKER_COOLDOWN = 30.0  # seconds the breaker stays open
MAX_RETRY_AFTER = 120.0  # a longer Retry-After is not waited for: the call fails now

_TRANSIENT_STATUS = {408, 409, 429}


def _transient_types() -> tuple[type[BaseException], ...]:
    """Exception types that mean "try again later". The SDKs' are looked up in ``sys.modules``,
    not imported: an exception of a library can only exist once it is imported, and importing
    openai (with aiohttp, ~0.5 s) for a process that configured no LLM is what start-up avoids."""
    types: list[type[BaseException]] = [TimeoutError, ConnectionError]
    openai = sys.modules.get("openai")
    if openai is not None:
        types += [
            openai.RateLimitError,
            openai.APITimeoutError,  # a subclass of APIConnectionError; listed for the reader
            openai.APIConnectionError,
            openai.InternalServerError,
        ]
    httpx = sys.modules.get("httpx")
    if httpx is not None:
        types += [httpx.TimeoutException, httpx.TransportError]
    return tuple(types)


def _is_bad_request(e: BaseException) -> bool:
    openai = sys.modules.get("openai")
    return openai is not None and isinstance(e, openai.BadRequestError)


def _status(e: BaseException) -> int | None:
    code = getattr(e, "status_code", None)
    if code is None:
        code = getattr(getattr(e, "response", None), "status_code", None)
    return code if isinstance(code, int) else None


def _chain(exc: BaseException) -> list[BaseException]:
    out: list[BaseException] = []
    e: BaseException | None = exc
    while e is not None and all(e is not x for x in out):
        out.append(e)
        e = e.__cause__ or e.__context__
    return out


def is_transient(exc: BaseException) -> bool:
    """Whether the same request may succeed later: decided by the exception's type, or by the
    HTTP status an SDK attached to it (408/409/429/5xx), along the cause chain."""
    transient = _transient_types()
    for e in _chain(exc):
        code = _status(e)
        if code is not None:  # authoritative: a 400 stays a 400
            return code in _TRANSIENT_STATUS or 500 <= code < 600
        if isinstance(e, transient):
            return True
    return False


def is_rejected_request(exc: BaseException) -> bool:
    """A 400/404/422 answer: the server refused this request's form (e.g. a response_format
    it does not support), so another form of the same request may work."""
    return any(_status(e) in (400, 404, 422) or _is_bad_request(e) for e in _chain(exc))


def retry_after(exc: BaseException) -> float | None:
    """Seconds the server asked us to wait (``Retry-After`` / ``retry-after-ms`` headers)."""
    for e in _chain(exc):
        headers = getattr(getattr(e, "response", None), "headers", None)
        if headers is None:
            headers = getattr(e, "headers", None)
        if not headers:
            continue
        ms = headers.get("retry-after-ms")
        if ms:
            try:
                return max(0.0, float(ms) / 1000)
            except ValueError:
                pass
        value = headers.get("retry-after")
        if not value:
            continue
        try:
            return max(0.0, float(value))
        except ValueError:
            when = email.utils.parsedate_to_datetime(value) if value else None
            if when is not None:
                return max(0.0, when.timestamp() - time.time())
    return None


@dataclass
class _BreakerState:
    not_before: float = 0.0  # monotonic time before which no request is sent (a Retry-After): wait
    open_until: float = 0.0  # the breaker is open until then: fail at once
    failures_in_row: int = 0
    opened: int = 0  # times the breaker opened (diagnostics, tests)


class BreakerOpen(Exception):
    """The model's breaker is open: no request was sent."""


class Breaker:
    """Per-model gate shared by every thread and loop of the process."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._state: dict[str, _BreakerState] = {}

    def reset(self) -> None:
        """Forget every model's state (tests; a process that reconfigures its models)."""
        with self._lock:
            self._state.clear()

    def state(self, key: str) -> _BreakerState:
        with self._lock:
            return self._state.setdefault(key, _BreakerState())

    async def wait(self, key: str, *, max_wait: float) -> None:
        """Sleep until the model may be called; ``BreakerOpen`` if that is beyond ``max_wait``."""
        st = self.state(key)
        now = time.monotonic()
        if st.open_until > now:
            raise BreakerOpen(
                f"model {key} paused for {st.open_until - now:.1f} s more after "
                f"{BREAKER_THRESHOLD} failed calls in a row"
            )
        delay = st.not_before - now
        if delay <= 0:
            return
        if delay > max_wait:
            raise BreakerOpen(f"model {key} paused for {delay:.1f} s more (the server's Retry-After)")
        await asyncio.sleep(delay)

    def hold(self, key: str, seconds: float) -> None:
        """No request to ``key`` for ``seconds`` (a Retry-After)."""
        st = self.state(key)
        with self._lock:
            st.not_before = max(st.not_before, time.monotonic() + seconds)

    def succeeded(self, key: str) -> None:
        st = self.state(key)
        with self._lock:
            st.failures_in_row = 0

    def failed(self, key: str) -> None:
        """A logical call failed after its retries; opens the breaker at the threshold."""
        st = self.state(key)
        with self._lock:
            st.failures_in_row += 1
            if st.failures_in_row >= BREAKER_THRESHOLD:
                st.failures_in_row = 0
                st.opened += 1
                st.open_until = time.monotonic() + BREAKER_COOLDOWN


BREAKER = Breaker()
