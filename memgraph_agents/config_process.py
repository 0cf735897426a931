"""Process-wide settings: what one process reads whoever calls (a data dir's lock timeout, the
optimised model's folder, the CLI's fixed namespace, the LLM transport of calls that carry no
``Settings``), from the same ``MEMGRAPH_*`` variables through pydantic settings."""

from __future__ import annotations

import os
import threading

from pydantic import Field, ValidationError, field_validator
from pydantic_settings import SettingsConfigDict

from memgraph_agents.config_parts import _EnvSettings
from memgraph_agents.errors import ConfigError

STRUCTURED_SETTINGS = ("auto", "json_schema", "function_calling", "json_mode", "prompt")


def structured_setting(value: str) -> str:
    """``MEMGRAPH_LLM_STRUCTURED`` normalised (empty: ``auto``), or ``ValueError`` naming the choices."""
    v = value.strip().lower() or "auto"
    if v not in STRUCTURED_SETTINGS:
        raise ValueError(f"MEMGRAPH_LLM_STRUCTURED={v!r}: expected one of {', '.join(STRUCTURED_SETTINGS)}")
    return v


class ProcessSettings(_EnvSettings):
    """The settings one process reads whoever calls, from the same ``MEMGRAPH_*`` variables:
    they bound or locate what the process shares (a data dir's lock, the optimised model's
    folder, the LLM transport of calls that name no ``Settings``). Read at each use through
    ``process_settings()``, so a changed environment takes effect at the next use."""

    model_config = SettingsConfigDict(env_prefix="MEMGRAPH_", extra="ignore")

    data_dir_lock_timeout: float = Field(
        10.0, ge=0, description="seconds a writer waits for another process's write to a data dir"
    )
    model_cache: str | None = Field(
        None,
        description="folder of the optimised embedding model (empty: none); unset: "
        "$XDG_CACHE_HOME/memgraph-agents/models or ~/.cache/memgraph-agents/models",
    )
    namespace: str = Field("", description="the CLI's fixed namespace when set (ingest, stats, reembed)")
    llm_max_concurrency: int = Field(4, ge=1, description="as Settings.llm_max_concurrency")
    llm_base_url: str | None = Field(None, description="as Settings.llm_base_url")
    llm_structured: str = Field("auto", description="as Settings.llm_structured")
    llm_backoff: float = Field(0.5, ge=0, description="as Settings.llm_backoff")

    @field_validator("llm_structured")
    @classmethod
    def _llm_structured(cls, v: str) -> str:
        return structured_setting(v)


_LAST: tuple[tuple[tuple[str, str], ...], ProcessSettings] | None = None
_LAST_LOCK = threading.Lock()


def process_settings() -> ProcessSettings:
    """The process-wide settings from the environment now; an invalid one is one ``ConfigError``
    naming its variable. Validated again only when a ``MEMGRAPH_*`` variable changed: every
    query and every write reads them (the model's folder, the lock timeout), and validating
    pydantic settings each time cost a quarter of a millisecond."""
    global _LAST
    env = tuple(sorted((k, v) for k, v in os.environ.items() if k.upper().startswith("MEMGRAPH_")))
    with _LAST_LOCK:
        last = _LAST
    if last is not None and last[0] == env:
        return last[1]
    made = _validated()
    with _LAST_LOCK:
        _LAST = (env, made)
    return made


def _validated() -> ProcessSettings:
    try:
        return ProcessSettings()
    except ValidationError as exc:
        parts = []
        for err in exc.errors():
            name = "MEMGRAPH_" + "_".join(str(p) for p in err["loc"]).upper()
            parts.append(f"{name}={err.get('input')!r}: {err['msg'].removeprefix('Value error, ')}")
        raise ConfigError("invalid setting " + "; ".join(parts)) from None
