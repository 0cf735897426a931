"""Run docs/coming-from-mem0.md: its setup block, then every row's memgraph-agents call in
order (each must return the type the row names), then its command-line block. Standard
library and ``memgraph_agents`` only: ``tests/test_mem0_page.py`` runs it on the checkout,
``.ci/wheel_check`` on the installed wheel:

    python tests/mem0_page.py docs/coming-from-mem0.md DATA_DIR MEMGRAPH_EXECUTABLE
"""

from __future__ import annotations

import ast
import asyncio
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

DATA_DIR = '"/tmp/mem0-move"'


def setup_code(text: str) -> str:
    code = re.search(r"```python\n(.*?)```", text, re.S)
    assert code is not None, "the page has no setup block"
    assert DATA_DIR in code.group(1), f"the setup's data dir is no longer {DATA_DIR}: update tests/mem0_page.py"
    return code.group(1)


def rows(text: str) -> list[tuple[str, str, str]]:
    """``(mem0 call, memgraph-agents call, return type)`` of every table row."""
    out = []
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
        if len(cells) == 3 and all(c.startswith("`") and c.endswith("`") for c in cells):
            out.append(tuple(c[1:-1] for c in cells))
    return out  # type: ignore[return-value]


def cli_lines(text: str) -> list[list[str]]:
    block = re.search(r"```bash\n(.*?)```", text, re.S)
    assert block is not None, "the page has no command-line block"
    return [shlex.split(line.split("#")[0]) for line in block.group(1).splitlines() if line.strip()]


def run_call(code: str, scope: dict[str, Any]) -> Any:
    """One row's call: an expression's value, an assignment's value, or an awaited call's."""
    tree = ast.parse(code.removeprefix("await ").strip())
    [stmt] = tree.body
    if code.startswith("await "):
        call = compile(ast.Expression(stmt.value), "row", "eval")  # type: ignore[attr-defined]

        async def awaited() -> Any:
            return await eval(call, scope)

        return asyncio.run(awaited())
    if isinstance(stmt, ast.Assign):
        exec(compile(tree, "row", "exec"), scope)
        [target] = stmt.targets
        return scope[target.id]  # type: ignore[attr-defined]
    return eval(compile(ast.Expression(stmt.value), "row", "eval"), scope)  # type: ignore[attr-defined]


def run_page(
    page: Path, data_dir: Path, cli: Callable[[list[str]], str], memory_args: str = ""
) -> list[tuple[str, str]]:
    """Run the page; ``(call, what it printed as, first line)`` of every row, then the CLI's output.
    ``memory_args`` are extra ``Memory(...)`` arguments (the tests' hash embeddings)."""
    text = page.read_text(encoding="utf-8")
    scope: dict[str, Any] = {}
    code = setup_code(text).replace(DATA_DIR, repr(str(data_dir)) + (f", {memory_args}" if memory_args else ""))
    exec(compile(code, str(page), "exec"), scope)
    done = []
    for _mem0, ours, returns in rows(text):
        value = run_call(ours, scope)
        assert type(value).__name__ == returns, f"{ours} returned a {type(value).__name__}, the page says {returns}"
        done.append((ours, repr(value).splitlines()[0] if repr(value) else ""))
    for argv in cli_lines(text):
        assert argv[0] == "memgraph", argv
        done.append((" ".join(argv), cli(argv[1:])))
    return done


def main() -> None:
    page, data_dir, memgraph = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "ANONYMIZED_TELEMETRY": "False"}

    def cli(argv: list[str]) -> str:
        # a data dir of its own: this process holds the Python rows' one (embedded Chroma: one process)
        cmd = [memgraph, "--data-dir", str(data_dir.with_name(data_dir.name + "-cli")), *argv]
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=data_dir.parent)
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(argv)} failed ({done.returncode}): {done.stderr.strip()}")
        return done.stdout

    done = run_page(page, data_dir, cli)
    print(f"wheel: the 'Coming from mem0' page ran {len(done)} calls and commands, last: {done[-1][0]}")


if __name__ == "__main__":
    main()
