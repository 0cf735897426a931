"""The public surface (issue 30 item 10): every error class the docs name and every one the
package defines for users is importable from ``memgraph_agents``, with the item types; every
verb of ``Memory`` has its async twin."""

from __future__ import annotations

import asyncio
import builtins
import inspect
import re
from pathlib import Path

import memgraph_agents
from memgraph_agents import MemgraphError, Memory

ROOT = Path(__file__).resolve().parents[1]
BUILTIN = set(dir(builtins))
PROGRAMMING_ERRORS = {"NeedsLoopError"}  # a RuntimeError for misuse of the event-loop helper


def _named_in_docs() -> set[str]:
    text = (ROOT / "README.md").read_text() + "".join(p.read_text() for p in (ROOT / "docs").glob("*.md"))
    return {n for n in re.findall(r"\b([A-Z][A-Za-z]*Error)\b", text) if n not in BUILTIN}


def _defined_in_package() -> set[str]:
    found = set()
    for folder in ("memgraph_agents", "integrations", "graphs"):
        for path in (ROOT / folder).rglob("*.py"):
            found |= set(re.findall(r"^class (\w+Error)\(", path.read_text(), flags=re.M))
    return found - PROGRAMMING_ERRORS


def test_every_error_class_named_or_defined_is_importable_from_the_package():
    names = _named_in_docs() | _defined_in_package()
    assert {"DataDirInUseError", "WriterBusyError", "EmbeddingMismatchError", "DiskFullError"} <= names
    missing = sorted(n for n in names if n not in memgraph_agents.__all__)
    assert not missing, missing
    for name in names:
        cls = getattr(memgraph_agents, name)
        assert isinstance(cls, type) and issubclass(cls, MemgraphError), name
    from memgraph_agents import ItemPage, LLMTimeoutError, MemoryItem, NoteHistory

    assert issubclass(LLMTimeoutError, memgraph_agents.LLMError)
    assert {ItemPage.__name__, MemoryItem.__name__, NoteHistory.__name__} == {"ItemPage", "MemoryItem", "NoteHistory"}


def test_every_verb_has_an_async_twin(tmp_path):
    not_verbs = {"user", "namespace_for_user"}
    members = {n for n, _ in inspect.getmembers(Memory, inspect.isfunction) if not n.startswith("_")}
    twins = {n for n in members if n.startswith("a") and n[1:] in members}
    verbs = sorted(members - twins - not_verbs)
    assert {
        "add",
        "search",
        "ask",
        "list",
        "get",
        "update",
        "history",
        "forget",
        "stats",
        "reembed",
        "namespaces",
    } <= set(verbs)
    for name in verbs:
        twin = getattr(Memory, f"a{name}", None)
        assert twin is not None and inspect.iscoroutinefunction(twin), name
        sync, coro = inspect.signature(getattr(Memory, name)), inspect.signature(twin)
        assert list(sync.parameters) == list(coro.parameters), name
    mem = Memory(tmp_path / "mem", embeddings="hash")
    mem.add("The boat leaves at nine.", namespace="n")
    assert asyncio.run(mem.anamespaces()) == mem.namespaces() == ["n"]
    assert asyncio.run(mem.areembed("n")).vectors == 0  # already this model's
