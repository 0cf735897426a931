"""Where the tests find data shared between worktrees (never committed to the repository)."""

from pathlib import Path

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
LOCOMO_DEV = SHARED / "data/locomo/locomo_dev.json"

REPO = Path(__file__).resolve().parents[1]


def package_dirs() -> dict[str, Path]:
    """Each top folder of the installed package and where its source lives in the checkout:
    ``memgraph_agents`` itself plus the folders pyproject's ``package-dir`` maps into it
    (``memgraph_agents.graphs`` = ``graphs/``…)."""
    import tomllib

    mapped = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["package-dir"]
    return {"memgraph_agents": REPO / "memgraph_agents", **{name: REPO / path for name, path in mapped.items()}}


def package_modules() -> dict[str, Path]:
    """Every module of the package by its import name (``memgraph_agents.graphs.chatbot``), with
    its source file, across the mapped folders."""
    out: dict[str, Path] = {}
    for package, folder in package_dirs().items():
        for path in sorted(folder.rglob("*.py")):
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join([package, *parts])] = path
    return out
