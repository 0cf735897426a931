"""Optional dependencies: what the default path (ingest, ask, demo, MCP, agent tools) never
needs is an extra, and using it without the extra is one clear error naming the command.

- ``[draw]``   matplotlib (``memgraph draw`` PNG/SVG) and networkx (the trace HTML's layouts,
  ``GraphSnapshot.to_networkx``);
- ``[bench]``  nltk (the QA metrics: Porter stemming, Treebank tokens, as LoCoMo's scorer),
  matplotlib (``recall.png`` and the other plots) and networkx (``bench scale``'s baselines).
"""

from __future__ import annotations

import importlib
from types import ModuleType

from memgraph_agents.errors import ConfigError

EXTRAS = {"draw": ("matplotlib", "networkx"), "bench": ("nltk", "matplotlib", "networkx")}


def require(module: str, extra: str, purpose: str) -> ModuleType:
    """``module`` imported, or a ``ConfigError`` saying which extra ``purpose`` needs."""
    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise ConfigError(
            f'{purpose} needs {module.split(".")[0]} (the [{extra}] extra): pip install "memgraph-agents[{extra}]"'
        ) from e


def require_extra(extra: str, purpose: str) -> None:
    """Every package of ``extra`` importable, checked before a long run (a benchmark) starts."""
    for module in EXTRAS[extra]:
        require(module, extra, purpose)
