"""What an install is made of: the installed size of a distribution's dependency tree, and how
much of it is reachable only through each named dependency (what dropping it would save).

    v/bin/python docs/bench-light/dist_sizes.py memgraph-agents chromadb scipy onnxruntime numpy

Run with the venv's own interpreter (it reads that venv's installed metadata). Sizes are the
files each distribution's RECORD lists (MiB), so they omit pip, setuptools and byte-code caches
that ``du`` of the venv counts; extras are not followed unless a requirement names them.
"""

from __future__ import annotations

import os
import re
import sys
from importlib import metadata

from packaging.requirements import Requirement


def norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


DISTS = {norm(d.metadata["Name"]): d for d in metadata.distributions()}


def size(name: str) -> int:
    total = 0
    for f in DISTS[name].files or []:
        try:
            total += os.path.getsize(f.locate())
        except OSError:
            pass
    return total


def requirements(name: str, extras: tuple[str, ...]) -> list[tuple[str, tuple[str, ...]]]:
    out = []
    for text in DISTS[name].requires or []:
        req = Requirement(text)
        if req.marker and not any(req.marker.evaluate({"extra": e}) for e in ("", *extras)):
            continue
        if norm(req.name) in DISTS:
            out.append((norm(req.name), tuple(req.extras)))
    return out


def closure(root: str, skip: frozenset[str] = frozenset()) -> set[str]:
    seen: set[tuple[str, tuple[str, ...]]] = set()
    stack = [(root, ())]
    while stack:
        name, extras = stack.pop()
        if name in skip or (name, extras) in seen:
            continue
        seen.add((name, extras))
        stack.extend(requirements(name, extras))
    return {name for name, _ in seen}


def main(root: str, deps: list[str]) -> None:
    sizes = {name: size(name) for name in DISTS}
    tree = closure(norm(root))
    print(f"{root}: {len(tree)} distributions, {sum(sizes[n] for n in tree) / 2**20:.0f} MiB")
    for dep in map(norm, deps):
        only = tree - closure(norm(root), frozenset({dep}))
        biggest = sorted(only, key=lambda n: -sizes[n])[:8]
        print(
            f"only through {dep}: {len(only)} distributions, {sum(sizes[n] for n in only) / 2**20:.0f} MiB "
            f"({', '.join(f'{n} {sizes[n] / 2**20:.0f}' for n in biggest)})"
        )


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
