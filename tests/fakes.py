"""Scripted fake chat models for the project's tests (no LLM API is reachable here).

``ScriptedChatModel(responder=...)`` is a real ``BaseChatModel``: ``ainvoke`` / ``invoke``,
callbacks and ``usage_metadata`` behave as with a provider. Its ``responder`` maps the
messages of a call to a reply: a string, a ``Reply`` (text + delay + usage override), an
``AIMessage`` (e.g. with tool calls), or an exception instance, which is raised.

Typical uses::

    model = ScriptedChatModel(responder=ingest_responder())          # a whole LLM ingest
    model = ScriptedChatModel(responder=malformed_then_valid(realistic_event_responder()))
    model = ScriptedChatModel(responder=raises(FakeRateLimitError(), times=2, then=ok))
    model = ScriptedChatModel(responder=slow(realistic_event_responder(), 1.0))

Responders are stateless where possible (malformed-then-valid keys on the repair marker,
not on a call counter) so they stay correct when many sessions run concurrently.
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import ConfigDict, Field

from memgraph_agents.llm.structured import REPAIR_MARKER
from memgraph_agents.llm.usage import message_text
from memgraph_agents.model import Session, Turn

# First line of each prompt file: route_responder dispatches on them.
EVENTS_MARKER = "TASK: EVENT EXTRACTION"
RELATIONS_MARKER = "TASK: EVENT RELATIONS"
FUSION_MARKER = "TASK: EVENT FUSION"
UPDATES_MARKER = "TASK: STATEMENT UPDATES"


@dataclass
class Reply:
    """A scripted reply with knobs: ``delay`` seconds before it arrives, ``usage`` to report."""

    text: str = ""
    delay: float = 0.0
    usage: dict[str, int] | None = None


ResponderResult = str | Reply | AIMessage | BaseException
Responder = Callable[[list[BaseMessage]], ResponderResult]


# --------------------------------------------------------------------------- fake errors


class FakeRateLimitError(Exception):
    """Looks like ``openai.RateLimitError``: HTTP 429, transient."""

    status_code = 429

    def __init__(self, message: str = "Error code: 429 - Rate limit reached for requests") -> None:
        super().__init__(message)


class FakeServerError(Exception):
    """HTTP 503 from an overloaded server, transient."""

    status_code = 503

    def __init__(self, message: str = "Error code: 503 - The server is overloaded") -> None:
        super().__init__(message)


class FakeBadRequestError(Exception):
    """HTTP 400, permanent: must not be retried."""

    status_code = 400

    def __init__(self, message: str = "Error code: 400 - maximum context length exceeded") -> None:
        super().__init__(message)


# --------------------------------------------------------------------------- the model


def _fake_tokens(text: str) -> int:
    # deliberately not len//4, so tests can tell reported usage from estimated usage
    return len(text.split())


class ScriptedChatModel(BaseChatModel):
    """A chat model whose reply is computed by ``responder(messages)``."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    responder: Callable[[list[BaseMessage]], Any]
    delay: float = 0.0  # seconds before every reply (asyncio.sleep in async calls)
    report_usage: bool = True  # False: like servers that send no token usage
    calls: list[list[BaseMessage]] = Field(default_factory=list)
    model_name: str = "scripted-fake"
    cache: Any = False  # never serve a scripted reply from a global LLM cache: each call must run

    @property
    def _llm_type(self) -> str:
        return "scripted-fake-chat-model"

    @property
    def prompts(self) -> list[str]:
        """Text of the last human message of every call (the prompt, or the repair request)."""
        out = []
        for messages in self.calls:
            humans = [m for m in messages if isinstance(m, HumanMessage)]
            out.append(message_text(humans[-1]) if humans else "")
        return out

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ScriptedChatModel:  # type: ignore[override]
        """Tools are the responder's business (it may return an ``AIMessage`` with tool calls)."""
        return self

    def _compute(self, messages: list[BaseMessage]) -> tuple[AIMessage | BaseException, float]:
        self.calls.append(list(messages))
        out = self.responder(list(messages))
        delay = self.delay
        if isinstance(out, BaseException):
            return out, delay
        if isinstance(out, Reply):
            delay += out.delay
            usage = out.usage
            out = AIMessage(content=out.text)
        else:
            usage = None
            out = out if isinstance(out, AIMessage) else AIMessage(content=str(out))
        if self.report_usage and out.usage_metadata is None:
            tin = sum(_fake_tokens(message_text(m)) for m in messages)
            tout = _fake_tokens(message_text(out))
            usage = usage or {"input_tokens": tin, "output_tokens": tout, "total_tokens": tin + tout}
        if usage is not None:
            out = out.model_copy(update={"usage_metadata": usage})
        return out, delay

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        out, delay = self._compute(messages)
        if delay:
            time.sleep(delay)
        if isinstance(out, BaseException):
            raise out
        return ChatResult(generations=[ChatGeneration(message=out)])

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        out, delay = self._compute(messages)
        if delay:
            await asyncio.sleep(delay)
        if isinstance(out, BaseException):
            raise out
        return ChatResult(generations=[ChatGeneration(message=out)])


# --------------------------------------------------------------------------- prompt parsing


def task_text(messages: Sequence[BaseMessage]) -> str:
    """The original prompt of a call (its first human message), also during repair turns."""
    for m in messages:
        if isinstance(m, HumanMessage):
            return message_text(m)
    return ""


def is_repair(messages: Sequence[BaseMessage]) -> bool:
    return any(REPAIR_MARKER in message_text(m) for m in messages if isinstance(m, HumanMessage))


_TURN_LINE_RE = re.compile(
    r"^(?P<id>[A-Za-z0-9][A-Za-z0-9_.:\-]*) \| (?P<date>\d{4}-\d{2}-\d{2}) \| (?P<speaker>[^:\n]+): (?P<text>.*)$",
    re.M,
)
FIRST_PERSON_RE = re.compile(r"\b(I|I'm|I've|my|we|our)\b")  # a turn saying something about its speaker
_EVENT_LINE_RE = re.compile(r"^\[(?P<idx>\d+)\] \((?P<time>[^;]*); (?P<ids>[^)]*)\) (?P<text>.*)$", re.M)
_CAPITALISED_RE = re.compile(r"\b[A-Z][A-Za-z]+(?:'s)?(?:[ \t]+[A-Z][A-Za-z]+(?:'s)?)*\b")
_NOT_ENTITIES = set(
    "I A An The It Its This That These Those What When Where Why How Who Yes No Oh Hey Hi Hello "
    "Thanks Thank Wow And But So Or My Me We Our You Your He She His Her They Their Do Did Does "
    "Are Is Was Were Have Has Had Just Really Well Sure Great Nice Cool Awesome Also Not Can "
    "Could Would Will Let Maybe Okay Ok Haha Lol Sounds Good Glad Love Like Image People".split()
)


def parse_turn_lines(prompt: str) -> list[dict[str, str]]:
    """The ``id | date | speaker: text`` lines of an extract_events prompt."""
    return [m.groupdict() for m in _TURN_LINE_RE.finditer(prompt)]


def parse_event_lines(prompt: str) -> list[dict[str, Any]]:
    """The ``[i] (time; ids) text`` lines of an extract_relations prompt."""
    out = []
    for m in _EVENT_LINE_RE.finditer(prompt):
        ids = [s.strip() for s in m.group("ids").split(",") if s.strip()]
        out.append({"index": int(m.group("idx")), "time": m.group("time"), "turn_ids": ids, "text": m.group("text")})
    return out


def _group_sizes(n: int) -> list[int]:
    """Groups of 2-3 consecutive turns (a lone turn only when the session has one)."""
    if n <= 3:
        return [n] if n else []
    sizes = [3] * (n // 3)
    rest = n % 3
    if rest == 2:
        sizes.append(2)
    elif rest == 1:
        sizes[-1] = 2
        sizes.append(2)
    return sizes


def _third_person(speaker: str, text: str) -> str:
    text = re.sub(r"\[image: (.*?)\]", r"(and shared a picture of \1)", text).strip()
    text = re.sub(r"^(?:[^\s.!?]+\s?){1,3}!\s+", "", text)  # drop an opening "Hey Tam!"
    text = re.sub(r"\bI'm\b", f"{speaker} is", text)
    text = re.sub(r"\bI've\b", f"{speaker} has", text)
    text = re.sub(r"\bI\b", speaker, text)
    text = re.sub(r"\b[Mm]y\b", "their", text)
    text = re.sub(r"\b[Mm]e\b", speaker, text)
    text = text.rstrip(".!? ")
    if text and not text.startswith(speaker):
        text = text[0].lower() + text[1:]
    return f"{speaker} said that {text}"


def _human_date(iso: str) -> str:
    d = datetime.strptime(iso, "%Y-%m-%d")
    return f"{d.day} {d:%B %Y}"


def _events_for(turns: list[dict[str, str]]) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    pos = 0
    for size in _group_sizes(len(turns)):
        group = turns[pos : pos + size]
        pos += size
        date = group[0]["date"]
        speakers: list[str] = []
        for t in group:
            if t["speaker"] not in speakers:
                speakers.append(t["speaker"])
        statements = "; ".join(_third_person(t["speaker"].strip(), t["text"]) for t in group)
        entities: list[str] = []
        for t in group:
            for run in _CAPITALISED_RE.findall(t["text"]):  # "the Glassblowing Studio" -> one entity
                words = [w.removesuffix("'s") for w in run.split()]
                while words and words[0] in _NOT_ENTITIES:
                    words.pop(0)
                name = " ".join(words)
                if name and name not in entities:
                    entities.append(name)
        events.append(
            {
                "text": f"On {_human_date(date)}, {statements}.",
                "turn_ids": [t["id"] for t in group],
                "time": date,
                "participants": speakers[:3],
                "arguments": [{"role": "entity", "value": e} for e in entities] + [{"role": "time", "value": date}],
            }
        )
    return events


# --------------------------------------------------------------------------- responders


def realistic_event_responder() -> Responder:
    """Answers extract_events prompts with events built from the prompt's turn lines."""

    def respond(messages: list[BaseMessage]) -> str:
        return json.dumps({"events": _events_for(parse_turn_lines(task_text(messages)))})

    return respond


def realistic_relation_responder() -> Responder:
    """Answers extract_relations prompts: ``follow_up`` between consecutive events."""

    def respond(messages: list[BaseMessage]) -> str:
        events = parse_event_lines(task_text(messages))
        relations = [
            {
                "source": a["index"],
                "target": b["index"],
                "type": "follow_up",
                "turn_ids": a["turn_ids"] + b["turn_ids"],
                "description": f"event {b['index']} continues the conversation of event {a['index']}",
            }
            for a, b in zip(events, events[1:])
        ]
        return json.dumps({"relations": relations})

    return respond


_UPDATE_LINE_RE = re.compile(r"^\[N(?P<n>\d+)\] \((?P<turn>[^)]*)\) (?P<text>.*)$")
_EARLIER_LINE_RE = re.compile(r"^\s+\[P(?P<p>\d+)\] \((?P<meta>[^)]*)\) (?P<text>.*)$")


def parse_update_lines(prompt: str) -> list[dict[str, Any]]:
    """The ``[N1] (turn) statement`` lines of a label_updates prompt, each with its ``[P1]`` lines."""
    out: list[dict[str, Any]] = []
    for line in prompt.splitlines():
        if m := _UPDATE_LINE_RE.match(line):
            out.append({"n": int(m["n"]), "turn": m["turn"], "text": m["text"], "earlier": []})
        elif (m := _EARLIER_LINE_RE.match(line)) and out:
            out[-1]["earlier"].append({"p": int(m["p"]), "text": m["text"]})
    return out


def update_responder() -> Responder:
    """Answers label_updates prompts like a careful reader: an N statement replaces the first
    of its P statements that shares a content word with it (beyond the speaker's name)."""

    def respond(messages: list[BaseMessage]) -> str:
        labels = []
        for u in parse_update_lines(task_text(messages)):
            name = u["text"].split(":", 1)[0]
            words = nav_words(u["text"].split(":", 1)[-1]) - nav_words(name)
            for p in u["earlier"]:
                if words & (nav_words(p["text"].split(":", 1)[-1]) - nav_words(name)):
                    labels.append({"new": f"N{u['n']}", "old": f"P{p['p']}", "attribute": "changed_fact"})
                    break
        return json.dumps({"supersedes": labels})

    return respond


def fusion_responder(same: bool = False, overlap: bool | None = None, relation_type: str | None = None) -> Responder:
    """A fixed fusion verdict (``overlap`` defaults to ``same``)."""
    verdict = {
        "same_event": same,
        "has_overlap": same if overlap is None else overlap,
        "relation_type": relation_type if relation_type is not None else ("elaboration" if same else None),
    }
    return lambda messages: json.dumps(verdict)


def route_responder(routes: dict[str, Responder], default: Responder | None = None) -> Responder:
    """Dispatch on the marker phrase found in the call's original prompt."""

    def respond(messages: list[BaseMessage]) -> ResponderResult:
        task = task_text(messages)
        for marker, responder in routes.items():
            if marker in task:
                return responder(messages)
        if default is not None:
            return default(messages)
        return AssertionError(f"route_responder: no marker of {list(routes)} in prompt: {task[:120]!r}")

    return respond


def ingest_routes(*, same: bool = False) -> dict[str, Responder]:
    """The routes of the event layer's calls (events, relations, fusion), for ``route_responder``."""
    return {
        EVENTS_MARKER: realistic_event_responder(),
        RELATIONS_MARKER: realistic_relation_responder(),
        FUSION_MARKER: fusion_responder(same=same),
        UPDATES_MARKER: update_responder(),
    }


def ingest_responder(*, same: bool = False) -> Responder:
    """One responder for a whole LLM ingest: events, relations and fusion."""
    return route_responder(ingest_routes(same=same))


# --------------------------------------------------------------------------- failure modes

MALFORMED_KINDS = ("truncated", "fenced_trailing_comma", "prose", "wrong_types", "unknown_turn")
# the parser recovers these on the first reply; the others need the repair turn
RECOVERABLE_KINDS = ("fenced_trailing_comma", "prose")


def malformed(text: str, kind: str = "truncated") -> str:
    """Break a valid JSON reply the way real models do."""
    if kind == "truncated":  # hit max_tokens mid-object
        return text[: max(1, int(len(text) * 0.6))]
    obj = json.loads(text)
    if kind == "fenced_trailing_comma":
        body = json.dumps(obj, indent=2)
        body = body[: body.rfind("}")].rstrip() + ",\n}"
        return f"```json\n{body}\n```"
    if kind == "prose":
        return f"Sure! Here is what I found in the conversation:\n\n{json.dumps(obj)}\n\nLet me know if you need more."
    if kind == "wrong_types":  # a list flattened to a sentence, booleans hedged
        broken = {}
        for key, value in obj.items():
            if isinstance(value, list):
                broken[key] = f"{len(value)} items, see the conversation above"
            elif isinstance(value, bool):
                broken[key] = "maybe"
            else:
                broken[key] = value
        return json.dumps(broken)
    if kind == "unknown_turn":  # valid JSON citing turns that do not exist
        for item in next((v for v in obj.values() if isinstance(v, list)), []):
            if isinstance(item, dict) and "turn_ids" in item:
                item["turn_ids"] = ["D99:99"]
        return json.dumps(obj)
    raise ValueError(f"unknown malformation {kind!r}; one of {MALFORMED_KINDS}")


def _text_of(result: ResponderResult) -> str:
    if isinstance(result, BaseException):
        raise result
    if isinstance(result, Reply):
        return result.text
    if isinstance(result, AIMessage):
        return message_text(result)
    return str(result)


def malformed_then_valid(responder: Responder, kind: str = "truncated") -> Responder:
    """Broken first reply, valid reply to the repair turn (keyed on the repair marker, so it
    holds for every concurrent prompt independently)."""

    def respond(messages: list[BaseMessage]) -> ResponderResult:
        if is_repair(messages):
            return responder(messages)
        return malformed(_text_of(responder(messages)), kind)

    return respond


_BROKEN = '{"events": [{"text": "Odalys went to the STEM chess club on 7 May 2028", "turn_ids": ["D1:'


def always_malformed(responder: Responder | None = None, kind: str = "truncated") -> Responder:
    """Never a usable reply, repair turns included."""

    def respond(messages: list[BaseMessage]) -> str:
        if responder is None:
            return _BROKEN
        return malformed(_text_of(responder(messages)), kind)

    return respond


def empty_reply() -> Responder:
    return lambda messages: ""


def raises(exc: BaseException, *, times: int | None = None, then: Responder | None = None) -> Responder:
    """Raise ``exc`` on every call, or on the first ``times`` calls and answer with ``then``."""
    lock = threading.Lock()
    count = [0]

    def respond(messages: list[BaseMessage]) -> ResponderResult:
        with lock:
            count[0] += 1
            n = count[0]
        if times is None or n <= times or then is None:
            return exc
        return then(messages)

    return respond


def slow(responder: Responder, delay: float) -> Responder:
    """The same replies, each arriving after ``delay`` seconds (non-blocking in async calls)."""

    def respond(messages: list[BaseMessage]) -> ResponderResult:
        result = responder(messages)
        if isinstance(result, BaseException):
            return result
        return Reply(text=_text_of(result), delay=delay)

    return respond


# --------------------------------------------------------------------------- fixtures


def sample_session(session_id: str = "S1", prefix: str = "D1", date: str = "2028-05-08T13:41:00") -> Session:
    """A short LoCoMo-like session (7 turns, one shared image)."""
    lines = [
        ("Odalys", "Hey Tam! I went to a STEM chess club yesterday and left feeling calm.", None),
        ("Tamsin", "That's amazing, Odalys! What happened there?", None),
        ("Odalys", "People shared their opening gambits. It made me want to study nursing.", None),
        ("Tamsin", "I brought my nephews to the Glassblowing Studio last Friday.", "a bowl painted with lemons"),
        ("Odalys", "So pretty! Did they enjoy it?", None),
        ("Tamsin", "They loved it. We are going camping in Glenmoor next month.", None),
        ("Odalys", "Have fun! I'm applying to a nursing program at Ridgemont next week.", None),
    ]
    turns = [
        Turn(id=f"{prefix}:{i}", speaker=speaker, text=text, image_caption=caption)
        for i, (speaker, text, caption) in enumerate(lines, start=1)
    ]
    return Session(id=session_id, date=datetime.fromisoformat(date), turns=turns)


# --------------------------------------------------------------------------- navigator

NAV_PLAN_MARKER = "TASK: NAVIGATION PLAN"
NAV_START_MARKER = "TASK: NAVIGATION START"
NAV_STEP_MARKER = "TASK: NAVIGATION STEP"
NAV_REFINE_MARKER = "TASK: NAVIGATION REFINE"
NAV_ANSWER_MARKER = "TASK: NAVIGATION ANSWER"

_NAV_NODE_RE = re.compile(r"^\[(?P<id>[^\]\n]+)\] \((?P<date>[^)\n]*)\) (?P<text>.*)$", re.M)
_NAV_NB_RE = re.compile(
    r"^    (?P<arrow>->|<-) (?P<rel>.+?) \[(?P<id>[^\]\n]+)\] \((?P<date>[^)\n]*)\) (?P<text>.*)$", re.M
)
_NAV_GOAL_RE = re.compile(r"^S(?P<n>\d+) \[(?P<status>open|done)\] (?P<text>.*)$", re.M)
_NAV_EVIDENCE_RE = re.compile(
    r"^\[(?P<date>[^|\n]*) \| (?P<turn>[^\]\n]+)\] (?:(?P<speaker>[^:\n]+): )?(?P<text>.*)$", re.M
)
_NAV_STOP = set(
    "a an the and or of to in on at for with by from about as is are was were be been did do does has have had "
    "what when where who whom which why how would could should will can their his her its they them he she it "
    "i you we my your our this that these those there here not no yes ever recently likely".split()
)


def nav_words(text: str) -> set[str]:
    """Content words, lower-cased, crude plural stripping: the careful model's notion of 'says'."""
    out = set()
    for w in re.findall(r"[a-z0-9]+", text.lower()):
        if w in _NAV_STOP or len(w) < 3:
            continue
        for suffix in ("ing", "ed", "s"):  # chewed / chewing / chews -> chew
            if w.endswith(suffix) and len(w) - len(suffix) >= 3:
                w = w[: -len(suffix)]
                break
        out.add(w)
    return out


def _overlap(text: str, goal: str) -> float:
    g = nav_words(goal)
    return len(g & nav_words(text)) / len(g) if g else 0.0


def parse_nav_step(prompt: str) -> dict[str, Any]:
    """Subgoals (with status), the number of kept items, frontier nodes and their neighbours."""
    goals = [
        {"n": int(m["n"]), "done": m["status"] == "done", "text": m["text"]} for m in _NAV_GOAL_RE.finditer(prompt)
    ]
    kept_part = prompt.split("Evidence kept so far:", 1)[-1].split("Frontier events.", 1)[0]
    kept = 0 if "(nothing yet)" in kept_part else len(re.findall(r"^\[", kept_part, re.M))
    frontier_part = prompt.split("Frontier events.", 1)[-1].split("For each frontier event", 1)[0]
    nodes: list[dict[str, Any]] = []
    for line in frontier_part.splitlines():
        m = _NAV_NODE_RE.match(line)
        if m:
            nodes.append({"id": m["id"], "text": m["text"], "neighbours": []})
            continue
        m = _NAV_NB_RE.match(line)
        if m and nodes:
            nodes[-1]["neighbours"].append({"id": m["id"], "relation": m["rel"], "text": m["text"]})
    return {"goals": goals, "kept": kept, "nodes": nodes}


def careful_navigator_responder(
    *, n_subgoals: int = 3, min_expand: int = 3, max_expand: int = 6, keep_at: float = 0.5, satisfy_at: float = 0.6
) -> Responder:
    """A scripted model that behaves like a careful LLM navigating memory.

    - plans ``n_subgoals`` subgoals (the question, then its content words in halves);
    - keeps (EXPAND) a node when it shares enough words with an open subgoal, and always
      keeps the best ones until ``min_expand`` nodes are kept, never more than ``max_expand``;
    - marks a subgoal satisfied only when the node states most of its words (``satisfy_at``);
    - names up to 2 neighbours that share words with an open subgoal; ANSWER when all done;
    - refines with the open subgoals' words; answers with the first excerpt's opening words.
    """

    def plan(messages: list[BaseMessage]) -> str:
        q = re.search(r"^Question: (.*)$", task_text(messages), re.M)[1]
        words = [w for w in re.findall(r"[A-Za-z0-9']+", q) if w.lower() not in _NAV_STOP and len(w) > 2]
        half = max(1, len(words) // 2)
        goals = [q, " ".join(words[:half]) or q, " ".join(words[half:]) or f"when {q}"]
        while len(goals) < n_subgoals:
            goals.append(f"{goals[-1]} (date)")
        return json.dumps({"subgoals": goals[:n_subgoals]})

    def start(messages: list[BaseMessage]) -> str:
        prompt = task_text(messages)
        q = re.search(r"^Question: (.*)$", prompt, re.M)[1]
        cands = [(m["id"], m["text"]) for m in _NAV_NODE_RE.finditer(prompt)]
        cands.sort(key=lambda c: -_overlap(c[1], q))
        return json.dumps({"node_ids": [c[0] for c in cands[:3]], "reason": "closest to the question"})

    def step(messages: list[BaseMessage]) -> str:
        p = parse_nav_step(task_text(messages))
        open_goals = [g for g in p["goals"] if not g["done"]]
        kept = p["kept"]
        scored = []
        for node in p["nodes"]:
            rel = max((_overlap(node["text"], g["text"]) for g in open_goals), default=0.0)
            scored.append((rel, node))
        order = sorted(range(len(scored)), key=lambda i: -scored[i][0])
        decisions: dict[str, dict[str, Any]] = {}
        done = {g["n"] for g in p["goals"] if g["done"]}
        for i in order:
            rel, node = scored[i]
            if len(done) == len(p["goals"]):
                if kept < min_expand and rel > 0:  # still worth keeping as context for the answer
                    kept += 1
                    decisions[node["id"]] = {"node_id": node["id"], "action": "ANSWER", "reason": "more context"}
                else:
                    decisions[node["id"]] = {
                        "node_id": node["id"],
                        "action": "SKIP",
                        "reason": "everything is supported",
                    }
                continue
            keep = kept < max_expand and (rel >= keep_at or (kept < min_expand and rel > 0))
            if not keep:
                decisions[node["id"]] = {"node_id": node["id"], "action": "SKIP", "reason": "not about an open subgoal"}
                continue
            kept += 1
            sat = [g["n"] for g in p["goals"] if _overlap(node["text"], g["text"]) >= satisfy_at]
            done |= set(sat)
            left = [g for g in p["goals"] if g["n"] not in done]
            if not left:
                decisions[node["id"]] = {
                    "node_id": node["id"],
                    "action": "ANSWER",
                    "satisfied_subgoals": sat,
                    "reason": "every subgoal is now supported",
                }
                continue
            nbs = sorted(node["neighbours"], key=lambda n: -max(_overlap(n["text"], g["text"]) for g in left))
            nxt = [n["id"] for n in nbs if max(_overlap(n["text"], g["text"]) for g in left) > 0.3][:2]
            decisions[node["id"]] = {
                "node_id": node["id"],
                "action": "EXPAND",
                "next_nodes": nxt,
                "satisfied_subgoals": sat,
                "reason": f"mentions {rel:.0%} of an open subgoal",
            }
        return json.dumps({"decisions": [decisions[n["id"]] for n in p["nodes"]]})

    def refine(messages: list[BaseMessage]) -> str:
        goals = [m["text"] for m in _NAV_GOAL_RE.finditer(task_text(messages)) if m["status"] == "open"]
        return json.dumps({"query": " ".join(goals) or "more", "target_subgoals": []})

    def answer(messages: list[BaseMessage]) -> str:
        prompt = task_text(messages)
        q = re.search(r"^Question: (.*)$", prompt, re.M)[1]
        lines = list(_NAV_EVIDENCE_RE.finditer(prompt.split("Excerpts, in the order they were found:", 1)[-1]))
        if not lines:
            return json.dumps({"answer": "unknown", "turn_ids": []})
        best = max(lines, key=lambda m: _overlap(m["text"], q))  # first of the best: max keeps the first
        return json.dumps({"answer": " ".join(best["text"].split()[:8]), "turn_ids": [best["turn"]]})

    return route_responder(
        {
            NAV_PLAN_MARKER: plan,
            NAV_START_MARKER: start,
            NAV_STEP_MARKER: step,
            NAV_REFINE_MARKER: refine,
            NAV_ANSWER_MARKER: answer,
        }
    )


def nav_step_override(base: Responder, step: Callable[[list[BaseMessage]], ResponderResult]) -> Responder:
    """``base`` for every navigator role except the explorer step, which ``step`` answers."""

    def respond(messages: list[BaseMessage]) -> ResponderResult:
        if NAV_STEP_MARKER in task_text(messages):
            return step(messages)
        return base(messages)

    return respond
