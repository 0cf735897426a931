"""Optional dependencies: what the default path (ingest, ask, demo, MCP, agent tools) never
needs is an extra, and using it without the extra is one clear error naming the command.

- ``[draw]``   matplotlib (``memgraph draw`` PNG/SVG) and networkx (the trace HTML's layouts,
  ``GraphSnapshot.to_networkx``);
- ``[bench]``  nltk (the QA metrics: Porter stemming, Treebank tokens, as LoCoMo's scorer),
  matplotlib (``recall.png`` and the other plots) and networkx (``bench scale``'s baselines);
- ``[openai]`` langchain-openai (with the OpenAI SDK): the chat model of an ``openai:MODEL`` LLM
  spec, the OpenAI API or any OpenAI-compatible server. Checked when the spec is set (``Settings``),
  before anything runs or is stored.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from types import ModuleType

from memgraph_agents.errors import ConfigError

EXTRAS = {
    "draw": ("matplotlib", "networkx"),
    "bench": ("nltk", "matplotlib", "networkx"),
    "openai": ("langchain_openai",),
}


def missing(module: str, extra: str, purpose: str) -> str:
    """The one-line error for ``purpose`` without ``module``: which extra, and the command."""
    return f'{purpose} needs {module.split(".")[0]} (the [{extra}] extra): pip install "memgraph-agents[{extra}]"'


def installed(module: str) -> bool:
    """Whether ``module`` can be imported, found without importing it (a settings check stays cheap)."""
    if sys.modules.get(module) is not None:
        return True
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # blocked (sys.modules[name] = None) or half-installed
        return False


def require(module: str, extra: str, purpose: str) -> ModuleType:
    """``module`` imported, or a ``ConfigError`` saying which extra ``purpose`` needs."""
    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise ConfigError(missing(module, extra, purpose)) from e


def require_extra(extra: str, purpose: str) -> None:
    """Every package of ``extra`` importable, checked before a long run (a benchmark) starts."""
    for module in EXTRAS[extra]:
        require(module, extra, purpose)
