"""Imports flow one way: each module imports only its own layer or the layers below it.

The package's modules are read with ``ast`` (nothing is imported), every ``import`` counts,
at module level or inside a function (a function-level import is still a dependency; it only
hides a cycle until run time). Layers, bottom to top:

    foundation  model, config, errors, presets, registry, prompts, aio, sqlite_wal, datadir, extras
                (data, settings, tables, optional dependencies)
    adapters    loaders, embeddings, llm                                   (the outside world in)
    storage     storage                                                    (SQLite + Chroma)
    runtime     runtime, resources          (open stores and models: per process, per Memory)
    construct   construct                                                  (conversation -> graph)
    retrieval   retrieval                                                  (graph -> evidence)
    navigator   navigator                                                  (agentic search)
    face        api, ingest, console                     (the engine's one way in: ``Memory``)
    pieces      integrations, debug      (what the doors are made of: agent tools, store, MCP
                                          server; the trace page, drawings, Studio's store)
    doors       graphs, ui, bench                        (Studio, the browser, the benchmarks)
    top         the package root, cli, examples   (re-exports, the launcher, the walk-throughs)

Imports inside one layer are allowed (between ``loaders`` and ``llm``, say), except between
the doors: no door imports another (``test_no_door_imports_another``). An import cycle between
two modules is not allowed, whatever their layers. The doors sit on the pieces because they are
built of them: the chatbot graph of the agent tools, the browser's search page of the trace
page, Studio's store of the LangGraph store; the command line launches every door.
``memgraph_agents.examples`` itself (the sample data's paths, which ``memgraph demo`` and the
benchmarks read) is data, placed with the foundation; its scripts are at the top.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.paths import REPO, package_modules

PACKAGE = "memgraph_agents"

LAYERS: list[tuple[str, tuple[str, ...]]] = [
    (
        "foundation",
        (
            "model",
            "config",
            "config_parts",
            "config_process",
            "errors",
            "presets",
            "registry",
            "prompts",
            "aio",
            "sqlite_wal",
            "datadir",
            "extras",
        ),
    ),
    ("adapters", ("loaders", "embeddings", "llm")),
    ("storage", ("storage",)),
    ("runtime", ("runtime", "resources")),
    ("construct", ("construct",)),
    ("retrieval", ("retrieval",)),
    ("navigator", ("navigator",)),
    ("face", ("api", "ingest", "ingest_plan", "console")),
    ("pieces", ("integrations", "debug")),
    ("doors", ("graphs", "ui", "bench")),
    ("top", ("", "cli", "examples")),
]
DOORS = LAYERS[-2][1]
# Modules placed by name rather than by their folder (see the module docstring).
PLACED = {"memgraph_agents.examples": "foundation"}
RANK = {part: rank for rank, (_, parts) in enumerate(LAYERS) for part in parts}

# (importing module, imported module) -> why the upward import is needed. Keep it empty.
ALLOWED: dict[tuple[str, str], str] = {}


MODULES = package_modules()  # memgraph_agents/ and the folders mapped into it (graphs/, integrations/…)


def layer_of(module: str) -> int:
    """Rank of a package module (``memgraph_agents.x.y`` -> rank of ``x``)."""
    if module in PLACED:
        return next(rank for rank, (name, _) in enumerate(LAYERS) if name == PLACED[module])
    parts = module.split(".")
    top = parts[1] if len(parts) > 1 else ""
    if top not in RANK:
        raise AssertionError(f"{module}: {top!r} is in no layer; add it to LAYERS in tests/test_layers.py")
    return RANK[top]


def imports_of(module: str, modules: dict[str, Path] = MODULES) -> list[tuple[int, str]]:
    """``(line, imported package module)`` for every import of ``module``, at any depth."""
    path = modules[module]
    is_package = path.name == "__init__.py"
    out: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: resolve against this module's package
                base = module.split(".")
                base = base[: len(base) - node.level + (1 if is_package else 0)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for a in node.names:  # ``from pkg import submodule`` imports the submodule
                sub = f"{target}.{a.name}"
                out.append((node.lineno, sub if sub in modules else target))
    return [(line, name) for line, name in out if name == PACKAGE or name.startswith(PACKAGE + ".")]


IMPORTS = {m: imports_of(m) for m in MODULES}


def test_every_module_is_in_a_layer():
    for module in MODULES:
        layer_of(module)


def test_no_upward_imports():
    upward = []
    for module, imports in IMPORTS.items():
        for line, target in imports:
            if target == PACKAGE:  # ``import memgraph_agents`` for __version__: the root only re-exports
                continue
            if layer_of(target) > layer_of(module) and (module, target) not in ALLOWED:
                upward.append(
                    f"{MODULES[module].relative_to(REPO)}:{line}: {module} "
                    f"({LAYERS[layer_of(module)][0]}) imports {target} ({LAYERS[layer_of(target)][0]})"
                )
    assert not upward, "upward imports:\n" + "\n".join(upward)


def door_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in DOORS and module not in PLACED else None


def test_no_door_imports_another():
    crossing = [
        f"{MODULES[module].relative_to(REPO)}:{line}: {module} imports {target}"
        for module, imports in IMPORTS.items()
        for line, target in imports
        if door_of(module) and door_of(target) and door_of(module) != door_of(target)
    ]
    assert not crossing, "a door imports another door:\n" + "\n".join(crossing)


def test_allow_list_entries_are_still_needed():
    used = {(m, t) for m, imports in IMPORTS.items() for _, t in imports}
    assert not [pair for pair in ALLOWED if pair not in used], "stale entries in ALLOWED"


def test_no_import_cycles():
    """No two modules import each other, directly or through others (Tarjan's SCCs): none is
    allowed, not even through function-level imports."""
    graph = {m: sorted({t for _, t in IMPORTS[m] if t in MODULES and t != m}) for m in MODULES}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(v: str) -> None:  # recursion depth is bounded by the module count (~160)
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            scc = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                scc.append(w)
                if w == v:
                    break
            if len(scc) > 1:
                cycles.append(sorted(scc))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    assert not cycles, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in cycles)


def test_the_walker_sees_function_level_and_relative_imports(tmp_path):
    """The checks above are only as good as ``imports_of``: feed it an upward import it must see."""
    pkg = tmp_path / PACKAGE
    (pkg / "storage").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "storage" / "__init__.py").write_text("from . import reader\n")
    (pkg / "storage" / "reader.py").write_text("def f():\n    from ..navigator import run\n")
    (pkg / "navigator").mkdir()
    (pkg / "navigator" / "__init__.py").write_text("")
    (pkg / "navigator" / "run.py").write_text("")
    fake = {
        ".".join(p.relative_to(tmp_path).with_suffix("").parts).removesuffix(".__init__"): p
        for p in sorted(pkg.rglob("*.py"))
    }
    assert imports_of(f"{PACKAGE}.storage", fake) == [(1, f"{PACKAGE}.storage.reader")]
    assert imports_of(f"{PACKAGE}.storage.reader", fake) == [(2, f"{PACKAGE}.navigator.run")]
    assert layer_of(f"{PACKAGE}.storage.reader") < layer_of(f"{PACKAGE}.navigator.run")
