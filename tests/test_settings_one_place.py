"""Every ``MEMGRAPH_*`` setting is read through ``memgraph_agents.config`` (pydantic settings):
a module reading one from ``os.environ`` / ``getenv`` would bypass validation and the per-Memory
value (two places reading one setting is how the navigator once ignored ``llm_max_concurrency``)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from memgraph_agents.config import Settings
from memgraph_agents.config_process import ProcessSettings, process_settings
from memgraph_agents.errors import ConfigError

PACKAGE = Path(__file__).resolve().parents[1] / "memgraph_agents"
# A read of a MEMGRAPH_ variable: os.environ["MEMGRAPH_X"], os.environ.get("MEMGRAPH_X"), os.getenv(...),
# environ.get(NAME) where NAME is a module constant holding "MEMGRAPH_...".
READ = re.compile(r"""(?:environ\s*(?:\.get\s*\(|\[)|getenv\s*\()\s*(?:f?["']MEMGRAPH_|[A-Z_]*ENV\b)""")


def env_reads(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if READ.search(line)]


def test_the_pattern_sees_each_way_of_reading():
    for line in (
        'os.environ.get("MEMGRAPH_LLM_BACKOFF", 0.5)',
        "os.environ['MEMGRAPH_NAMESPACE']",
        'getenv("MEMGRAPH_MODEL_CACHE")',
        "os.environ.get(CACHE_ENV)",
    ):
        assert env_reads(line), line
    assert not env_reads('os.environ.get("OPENAI_API_KEY")')
    assert not env_reads('os.environ.setdefault("HF_HUB_OFFLINE", "1")')


def test_no_module_but_config_reads_a_memgraph_variable():
    found = {
        str(path.relative_to(PACKAGE)): reads
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.name != "config.py" or path.parent != PACKAGE
        if (reads := env_reads(path.read_text(encoding="utf-8")))
    }
    assert not found, f"MEMGRAPH_* read outside memgraph_agents/config.py (add a Settings field): {found}"


@pytest.mark.parametrize(
    "name, field",
    [
        ("MEMGRAPH_LLM_BACKOFF", "llm_backoff"),
        ("MEMGRAPH_LLM_MAX_CONCURRENCY", "llm_max_concurrency"),
        ("MEMGRAPH_DATA_DIR_LOCK_TIMEOUT", "data_dir_lock_timeout"),
        ("MEMGRAPH_LLM_STRUCTURED", "llm_structured"),
    ],
)
def test_an_invalid_process_setting_is_one_error_naming_the_variable(monkeypatch, name, field):
    monkeypatch.setenv(name, "-1" if field != "llm_structured" else "xml")
    with pytest.raises(ConfigError, match=name):
        process_settings()
    assert field in ProcessSettings.model_fields


def test_process_settings_keep_the_variables_and_defaults(monkeypatch):
    for name in ("LLM_BACKOFF", "LLM_MAX_CONCURRENCY", "DATA_DIR_LOCK_TIMEOUT", "MODEL_CACHE", "LLM_STRUCTURED"):
        monkeypatch.delenv(f"MEMGRAPH_{name}", raising=False)
    monkeypatch.delenv("MEMGRAPH_NAMESPACE", raising=False)
    monkeypatch.delenv("MEMGRAPH_LLM_BASE_URL", raising=False)
    got = process_settings()
    assert (got.llm_backoff, got.llm_max_concurrency, got.data_dir_lock_timeout) == (0.5, 4, 10.0)
    assert (got.model_cache, got.llm_structured, got.namespace, got.llm_base_url) == (None, "auto", "", None)
    monkeypatch.setenv("MEMGRAPH_LLM_STRUCTURED", " JSON_mode ")
    monkeypatch.setenv("MEMGRAPH_LLM_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("MEMGRAPH_DATA_DIR_LOCK_TIMEOUT", "2.5")
    got = process_settings()
    assert (got.llm_structured, got.llm_base_url, got.data_dir_lock_timeout) == (
        "json_mode",
        "http://127.0.0.1:9/v1",
        2.5,
    )
    settings = Settings.load()
    assert (settings.llm_structured, settings.llm_base_url) == ("json_mode", "http://127.0.0.1:9/v1")


def test_a_settings_field_documented_for_each_llm_variable():
    text = (PACKAGE.parent / "docs" / "configuration.md").read_text(encoding="utf-8")
    for field in ("llm_base_url", "llm_structured", "llm_backoff", "llm_max_concurrency"):
        assert Settings.model_fields[field].description
        assert f"`MEMGRAPH_{field.upper()}`" in text
    for field in ProcessSettings.model_fields:
        assert f"`MEMGRAPH_{field.upper()}`" in text, field
