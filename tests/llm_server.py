"""A scripted OpenAI-compatible chat server over real HTTP (``POST /v1/chat/completions``).

The project's real ``ChatOpenAI`` client talks to it (``MEMGRAPH_LLM=openai:MODEL``,
``MEMGRAPH_LLM_BASE_URL=http://127.0.0.1:PORT/v1``). Behaviours, switchable at any time:

- ``careful``     schema-valid JSON computed from the prompt (turn ids, speakers, text) for every
                  LLM role of the project: the scripted models of ``tests/fakes*.py``;
- ``prose``       a friendly sentence and no JSON;
- ``wrong_shape`` valid JSON of another shape;
- ``truncated``   the careful reply cut in half;
- ``empty``       empty content;
- ``http500``     HTTP 500;
- ``http429``     HTTP 429 with ``Retry-After: retry_after``;
- ``stall``       the careful reply after ``stall`` seconds (past the client's timeout).

``fail_first = n`` applies the behaviour to the first ``n`` requests only, then answers
carefully. ``reject`` holds request forms answered with HTTP 400 (``json_schema``,
``function_calling``, ``json_mode``), like a server without that feature. It honours
``response_format`` (``json_schema`` / ``json_object``) and forced ``tools`` (the reply is a
tool call). Every request is recorded (time, form, first prompt line, status, tokens).

Run on its own for the acceptance bench::

    python -m tests.llm_server --behaviour careful --port 8765
"""

from __future__ import annotations

import argparse
import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

from tests.fakes import (
    careful_navigator_responder,
    ingest_routes,
    nav_words,
    route_responder,
    task_text,
)
from tests.fakes_memorai import ENTITIES_MARKER, SEGMENTS_MARKER, entities_responder, segments_responder
from tests.fakes_premem import (
    FRAGMENTS_MARKER,
    REASONING_MARKER,
    realistic_fragment_responder,
    realistic_reasoning_responder,
)
from tests.fakes_retrieval_llm import retrieval_responder
from tests.fakes_sgmem import SGMEM_MARKER, realistic_sgmem_responder

BEHAVIOURS = ("careful", "prose", "wrong_shape", "truncated", "empty", "http500", "http429", "stall")
ANSWER_MARKER = "TASK: ANSWER FROM MEMORY"
JUDGE_MARKER = "TASK: JUDGE ANSWER"


def _line(prompt: str, label: str) -> str:
    for line in prompt.splitlines():
        if line.startswith(label):
            return line[len(label) :].strip()
    return ""


def _answer(messages: list[BaseMessage]) -> str:
    """The excerpt sharing most words with the question, cut to a short answer."""
    prompt = task_text(messages)
    q = nav_words(_line(prompt, "Question:"))
    excerpts = [
        ln.split("] ", 1)[1]
        for ln in prompt.split("most relevant first:", 1)[-1].splitlines()
        if ln.startswith("[") and "] " in ln
    ]
    if not excerpts or not q:
        return json.dumps({"answer": "unknown"})
    best = max(excerpts, key=lambda t: len(nav_words(t) & q))  # max keeps the first of the best
    return json.dumps({"answer": " ".join(best.split()[:10])})


def _judge(messages: list[BaseMessage]) -> str:
    """CORRECT when the answer holds at least half of the gold answer's content words."""
    prompt = task_text(messages)
    gold, got = nav_words(_line(prompt, "Gold answer:")), nav_words(_line(prompt, "Generated answer:"))
    ok = bool(gold) and len(gold & got) * 2 >= len(gold)
    return json.dumps({"reasoning": "compared the content words", "label": "CORRECT" if ok else "WRONG"})


def careful_responder():
    """Every LLM role of the project, answered from its prompt."""
    nav = careful_navigator_responder()
    retrieval = retrieval_responder()
    return route_responder(
        {
            **ingest_routes(),
            SEGMENTS_MARKER: segments_responder(),
            ENTITIES_MARKER: entities_responder(),
            FRAGMENTS_MARKER: realistic_fragment_responder(),
            REASONING_MARKER: realistic_reasoning_responder(),
            SGMEM_MARKER: realistic_sgmem_responder(),
            "TASK: QUERY MENTIONS": retrieval,
            "TASK: RECALL FILTER": retrieval,
            "TASK: NAVIGATION": nav,
            ANSWER_MARKER: _answer,
            JUDGE_MARKER: _judge,
        }
    )


def _messages(body: dict[str, Any]) -> list[BaseMessage]:
    kinds = {"user": HumanMessage, "assistant": AIMessage, "system": SystemMessage}
    out: list[BaseMessage] = []
    for m in body.get("messages", []):
        content = m.get("content") or ""
        if isinstance(content, list):
            content = "".join(str(b.get("text", "")) for b in content if isinstance(b, dict))
        if m.get("role") == "tool":
            out.append(ToolMessage(content=content, tool_call_id=m.get("tool_call_id", "")))
        else:
            out.append(kinds.get(m.get("role"), HumanMessage)(content=content))
    return out


def request_form(body: dict[str, Any]) -> str:
    fmt = (body.get("response_format") or {}).get("type")
    if fmt == "json_schema":
        return "json_schema"
    if fmt == "json_object":
        return "json_mode"
    if body.get("tools"):
        return "function_calling"
    return "prompt"


@dataclass
class Record:
    at: float
    form: str
    task: str  # first line of the prompt
    status: int
    input_tokens: int = 0
    output_tokens: int = 0
    model: str = ""
    prompt: str = ""  # the first user message


@dataclass
class ScriptedLLMServer:
    behaviour: str = "careful"
    retry_after: float = 1.0
    stall: float = 5.0
    latency: float = 0.0  # seconds before every successful reply (a slow server)
    fail_first: int | None = None  # None: every request
    reject: set[str] = field(default_factory=set)
    records: list[Record] = field(default_factory=list)
    peak: int = 0
    _active: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _httpd: ThreadingHTTPServer | None = None

    # ----------------------------------------------------------------- control

    def set(self, behaviour: str, **kw: Any) -> ScriptedLLMServer:
        if behaviour not in BEHAVIOURS:
            raise ValueError(f"unknown behaviour {behaviour!r}: one of {', '.join(BEHAVIOURS)}")
        self.behaviour = behaviour
        for k, v in kw.items():
            setattr(self, k, v)
        return self

    @property
    def url(self) -> str:
        assert self._httpd is not None
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def start(self, port: int = 0) -> ScriptedLLMServer:
        self._httpd = ThreadingHTTPServer(("127.0.0.1", port), _handler(self))
        self._httpd.daemon_threads = True
        threading.Thread(target=self._httpd.serve_forever, daemon=True, name="llm-server").start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()

    def count(self, task_prefix: str = "", status: int | None = None) -> int:
        with self._lock:
            return sum(
                1 for r in self.records if r.task.startswith(task_prefix) and (status is None or r.status == status)
            )

    # ----------------------------------------------------------------- replies

    def _behaviour_now(self) -> str:
        with self._lock:
            n = len(self.records)
        return self.behaviour if self.fail_first is None or n < self.fail_first else "careful"

    def reply(self, body: dict[str, Any]) -> tuple[int, dict[str, Any], dict[str, str], float]:
        """(status, JSON body, headers, delay before sending) for one request."""
        messages = _messages(body)
        form = request_form(body)
        prompt = task_text(messages)
        behaviour = self._behaviour_now()
        tin = sum(len(str(m.content)) for m in messages) // 4 + 1
        headers: dict[str, str] = {}
        delay = 0.0
        if form in self.reject:
            status, out = 400, {"error": {"message": f"{form} is not supported", "type": "invalid_request_error"}}
        elif behaviour == "http500":
            status, out = 500, {"error": {"message": "internal error", "type": "server_error"}}
        elif behaviour == "http429":
            status, out = 429, {"error": {"message": "rate limited", "type": "rate_limit_error"}}
            headers["Retry-After"] = f"{self.retry_after:g}"
        else:
            status = 200
            text = self._content(behaviour, messages)
            delay = self.stall if behaviour == "stall" else self.latency
            out = self._completion(body, form, text, tin)
        with self._lock:
            usage = out.get("usage", {})
            self.records.append(
                Record(
                    time.monotonic(),
                    form,
                    prompt.split("\n", 1)[0],
                    status,
                    usage.get("prompt_tokens", 0),
                    usage.get("completion_tokens", 0),
                    str(body.get("model", "")),
                    prompt,
                )
            )
        return status, out, headers, delay

    def _content(self, behaviour: str, messages: list[BaseMessage]) -> str:
        if behaviour == "prose":
            return "Sure! I read the conversation carefully and it was a lovely chat about their week."
        if behaviour == "wrong_shape":
            return json.dumps({"result": "done", "items": [1, 2, 3]})
        if behaviour == "empty":
            return ""
        got = careful_responder()(messages)
        text = got if isinstance(got, str) else json.dumps({"error": str(got)})
        return text[: len(text) // 2] if behaviour == "truncated" else text

    @staticmethod
    def _completion(body: dict[str, Any], form: str, text: str, tin: int) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": text}
        if form == "function_calling" and text:
            name = body["tools"][0]["function"]["name"]
            message = {
                "role": "assistant",
                "content": None,
                "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": name, "arguments": text}}],
            }
        tout = len(text) // 4 + 1
        return {
            "id": "chatcmpl-fixture",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", "fixture"),
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": tin, "completion_tokens": tout, "total_tokens": tin + tout},
        }


def _handler(server: ScriptedLLMServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, like real servers

        def log_message(self, *args: Any) -> None:  # quiet
            pass

        def do_POST(self) -> None:  # noqa: N802
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            if not self.path.rstrip("/").endswith("/chat/completions"):
                self._send(404, {"error": {"message": f"no route {self.path}"}}, {})
                return
            with server._lock:
                server._active += 1
                server.peak = max(server.peak, server._active)
            try:
                status, out, headers, delay = server.reply(body)
                if delay:
                    time.sleep(delay)
                self._send(status, out, headers)
            finally:
                with server._lock:
                    server._active -= 1

        def _send(self, status: int, out: dict[str, Any], headers: dict[str, str]) -> None:
            data = json.dumps(out).encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for k, v in headers.items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):  # the client gave up (a stall)
                pass

    return Handler


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--behaviour", default="careful", choices=BEHAVIOURS)
    ap.add_argument("--port", type=int, default=8765)
    ap.add_argument("--retry-after", type=float, default=1.0)
    ap.add_argument("--stall", type=float, default=5.0)
    ap.add_argument("--latency", type=float, default=0.0, help="seconds before every successful reply")
    args = ap.parse_args()
    srv = ScriptedLLMServer(
        behaviour=args.behaviour, retry_after=args.retry_after, stall=args.stall, latency=args.latency
    ).start(args.port)
    print(
        f"scripted LLM server ({args.behaviour}) on {srv.url}: "
        f"MEMGRAPH_LLM=openai:fixture MEMGRAPH_LLM_BASE_URL={srv.url}",
        flush=True,
    )
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        srv.stop()


if __name__ == "__main__":
    main()
