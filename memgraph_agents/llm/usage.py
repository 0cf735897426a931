"""LLM cost accounting: calls, failures, retries, tokens and seconds.

One ``LLMUsage`` is shared by every concurrent call of an ingest or a question, so the
counters sit behind a ``threading.Lock``: the critical sections never await, which makes the
same lock safe for asyncio tasks on one loop and for worker threads alike.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage

_FIELDS = ("calls", "failures", "retries", "input_tokens", "output_tokens")


def message_text(message: BaseMessage | str) -> str:
    """Plain text of a message whose content may be a string or a list of content blocks."""
    if isinstance(message, str):
        return message
    content = message.content
    if isinstance(content, str):
        return content
    parts: list[str] = []
    for block in content:
        if isinstance(block, str):
            parts.append(block)
        elif isinstance(block, dict) and block.get("type") == "text":
            parts.append(str(block.get("text", "")))
    return "".join(parts)


def estimate_tokens(text: str) -> int:
    """Rough token count (4 characters a token) for servers that report no usage."""
    return len(text) // 4


def token_counts(prompt: Sequence[BaseMessage] | str, reply: AIMessage | None) -> tuple[int, int]:
    """(input, output) tokens of one call: the provider's ``usage_metadata`` when present,
    else an estimate from the text sent and received."""
    meta = getattr(reply, "usage_metadata", None) if reply is not None else None
    if meta:
        return int(meta.get("input_tokens", 0) or 0), int(meta.get("output_tokens", 0) or 0)
    sent = prompt if isinstance(prompt, str) else "".join(message_text(m) for m in prompt)
    received = message_text(reply) if reply is not None else ""
    return estimate_tokens(sent), estimate_tokens(received)


def add_counts(a: dict[str, float] | None, b: dict[str, float] | None) -> dict[str, float]:
    """A graph reducer: sum the numeric counters of two snapshots (steps of one run report
    their LLM calls and tokens separately; order-independent, so parallel steps merge alike)."""
    out = dict(a or {})
    for k, v in (b or {}).items():
        if isinstance(v, (int, float)):
            out[k] = out.get(k, 0) + v
    return out


class LLMUsage:
    """Thread- and task-safe counters of LLM work.

    ``calls`` counts every request sent (first tries, transient retries, repair turns);
    ``failures`` every request that raised, timed out or returned unusable output;
    ``retries`` every request beyond the first of one logical call.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.calls = 0
        self.failures = 0
        self.retries = 0
        self.input_tokens = 0
        self.output_tokens = 0
        self.seconds = 0.0

    def add(
        self,
        *,
        calls: int = 0,
        failures: int = 0,
        retries: int = 0,
        input_tokens: int = 0,
        output_tokens: int = 0,
        seconds: float = 0.0,
    ) -> None:
        with self._lock:
            self.calls += calls
            self.failures += failures
            self.retries += retries
            self.input_tokens += input_tokens
            self.output_tokens += output_tokens
            self.seconds += seconds

    def record_call(
        self,
        prompt: Sequence[BaseMessage] | str,
        reply: AIMessage | None,
        seconds: float,
        *,
        failed: bool = False,
        retry: bool = False,
    ) -> None:
        """Count one request; tokens only when a reply came back (errors are not billed)."""
        tin, tout = token_counts(prompt, reply) if reply is not None else (0, 0)
        self.add(
            calls=1,
            failures=int(failed),
            retries=int(retry),
            input_tokens=tin,
            output_tokens=tout,
            seconds=seconds,
        )

    def merge(self, other: LLMUsage) -> LLMUsage:
        """Add ``other``'s counters into this one (e.g. per-session usage into an ingest total)."""
        snap = other.snapshot()
        snap.pop("total_tokens")
        self.add(**snap)
        return self

    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            out: dict[str, Any] = {f: getattr(self, f) for f in _FIELDS}
            out["seconds"] = round(self.seconds, 6)
        out["total_tokens"] = out["input_tokens"] + out["output_tokens"]
        return out

    def __repr__(self) -> str:
        return f"LLMUsage({self.snapshot()})"
