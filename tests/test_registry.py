"""The retriever registry: one table of import paths, nothing imported until a retriever runs."""

from __future__ import annotations

import inspect
import subprocess
import sys
import warnings

import pytest

from memgraph_agents.config import Settings
from memgraph_agents.errors import ConfigError
from memgraph_agents.presets import PRESETS, get_preset
from memgraph_agents.registry import RETRIEVERS, get_retriever, is_navigator, options_for, retriever_names
from memgraph_agents.retrieval.protocols import RetrieverOptions


def test_looking_names_up_imports_no_retriever():
    code = (
        "import sys\n"
        "from memgraph_agents.registry import retriever_names, get_retriever, is_retriever\n"
        "from memgraph_agents.config import Settings\n"
        "names = retriever_names(); get_retriever('sgmem'); Settings(retriever='ppr', preset='premem')\n"
        "heavy = [m for m in sys.modules if m.split('.')[0] in ('numpy', 'scipy', 'langgraph', 'torch') "
        "or m.startswith(('memgraph_agents.retrieval', 'memgraph_agents.navigator'))]\n"
        "print(heavy)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


@pytest.mark.parametrize("name", list(RETRIEVERS))
def test_every_entry_names_a_function_taking_its_options(name):
    spec = RETRIEVERS[name]
    bound = get_retriever(name)
    module, _, attr = spec.target.partition(":")
    fn = getattr(__import__(module, fromlist=[attr]), attr)
    params = inspect.signature(fn).parameters
    assert {"k", "options"} <= set(params) and set(spec.llm_args) <= set(params), name
    assert bound.spec is spec
    opts = options_for(name)
    if name != "navigator":  # the navigator's options are its run context (a dataclass)
        assert isinstance(opts, RetrieverOptions)


def test_presets_name_their_retriever_with_validated_options():
    assert options_for("sgmem").generated == 3
    assert options_for("emem").kinds == ("event",) and options_for("premem").kinds == ("fragment", "reasoning")
    assert options_for("sgmem", generated=1).generated == 1  # a caller's option over the preset's
    assert is_navigator("compassmem") and is_navigator("navigator") and not is_navigator("ppr")
    assert "base" not in retriever_names()  # it names no retriever: the settings' is used
    for name, preset in PRESETS.items():
        assert (name in retriever_names()) == bool(preset.retriever)


def test_bad_names_and_options_are_one_clear_error():
    with pytest.raises(ValueError, match="unknown retriever 'nope': choose from dense"):
        get_retriever("nope")
    with pytest.raises(ConfigError, match=r"retriever 'ppr': invalid options \(kee: Extra inputs"):
        options_for("ppr", kee=3)
    with pytest.raises(ConfigError, match=r"retriever 'hybrid': invalid options \(pool: Input should be a valid"):
        options_for("hybrid", pool="many")
    with pytest.raises(ConfigError, match="retriever 'navigator': invalid options"):
        options_for("navigator", nope=1)
    with pytest.raises(ValueError, match="unknown retriever 'nope'"):
        Settings(retriever="nope")


def test_the_renamed_default_preset_is_read_as_base():
    assert get_preset("default").name == "base" and get_preset(None).name == "base"
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        settings = Settings(preset="default")
    assert settings.preset == "base" and any("renamed 'base'" in str(w.message) for w in seen)
    assert settings.default_retriever == settings.retriever == "navigator"  # base names none: the setting's
    assert Settings(preset="sgmem").default_retriever == "sgmem"
