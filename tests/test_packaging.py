"""The package's shape: every folder with an ``__init__.py`` is a listed package, and the
folders mapped into ``memgraph_agents`` (graphs/, integrations/, prompts/, examples/) import
under it, never as top-level names."""

from __future__ import annotations

import importlib
import tomllib

from tests.paths import REPO, package_dirs


def test_every_package_folder_is_listed_in_pyproject():
    listed = set(tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["packages"])
    found = set()
    for package, folder in package_dirs().items():
        for init in folder.rglob("__init__.py"):
            parts = init.parent.relative_to(folder).parts
            found.add(".".join([package, *parts]))
    assert found == listed, f"unlisted: {sorted(found - listed)}; listed but absent: {sorted(listed - found)}"


def test_mapped_folders_import_under_the_package():
    for package, folder in package_dirs().items():
        module = importlib.import_module(package)
        assert module.__file__ is not None and folder.resolve() == type(folder)(module.__file__).resolve().parent
