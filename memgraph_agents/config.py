"""One settings object, read from ``MEMGRAPH_*`` environment variables.

The same fields are the graphs' ``context_schema`` so LangGraph Studio can edit them per run.
Every change after construction goes through ``Settings.override`` (validated, like the
constructor): ``model_copy(update=)`` would skip validation and accept ``top_k=-5``. Invalid
values become one ``ConfigError`` naming the field, in words. Its parts (the environment base,
``IngestParams``, ``InputLimits``) are in ``config_parts``; the process-wide settings, read whoever
calls, in ``config_process``.
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, PrivateAttr, ValidationError, field_validator
from pydantic_settings import SettingsConfigDict

from memgraph_agents.config_parts import _VALUES_ONLY, IngestParams, InputLimits, _EnvSettings
from memgraph_agents.config_process import (
    structured_setting,
)
from memgraph_agents.errors import ConfigError
from memgraph_agents.extras import installed, missing
from memgraph_agents.presets import RENAMED, get_preset
from memgraph_agents.registry import is_navigator, is_retriever, retriever_names

DEFAULT_DATA_DIR = Path.home() / ".memgraph"


GRAPH_URL_SCHEMES = ("postgresql://", "postgres://")


def graph_url_problem(url: str) -> str:
    """What is wrong with a graph URL that is not a PostgreSQL one (Settings and the storage layer)."""
    return f"MEMGRAPH_GRAPH_URL={url!r}: expected postgresql://user@host:port/database (or unset for the embedded SQLite store)"


# Embedding specs (README "Embeddings"): what ``Settings.embeddings`` may name. The
# models behind them are resolved in ``memgraph_agents.embeddings`` (objects: ``runtime``).
DEFAULT_EMBEDDINGS = "minilm"
EMBEDDING_PREFIXES = ("sentence-transformers:", "custom:")
_EMBEDDING_ALIASES = {"all-MiniLM-L6-v2": "minilm-torch"}  # the name earlier versions recorded


def embedding_spec(value: str) -> str:
    """``value`` as a valid embedding spec (aliases resolved), or ``ValueError`` saying which exist."""
    v = value.strip()
    v = _EMBEDDING_ALIASES.get(v, v)
    if v in ("minilm", "minilm-torch", "e5-small", "hash") or (
        v.startswith("hash-") and v[5:].isdigit() and int(v[5:]) > 0
    ):
        return v
    if any(v.startswith(p) and v[len(p) :].strip() for p in EMBEDDING_PREFIXES):
        return v
    raise ValueError(
        f"unknown embeddings {value!r}: use 'minilm' (default), 'minilm-torch', 'e5-small', "
        "'sentence-transformers:NAME_OR_PATH', 'custom:NAME' or 'hash' / 'hash-N' (tests)"
    )


# The default retriever is the navigator graph (the design's engine): its localize node is the one-shot
# ranking (``MEMGRAPH_LOCALIZE``), and a question whose subgoals that seed already meets stops
# there, so an easy question costs about what ``oneshot`` alone costs; open subgoals send
# Explorers (BENCHMARKS.md, "The navigator is the engine").
DEFAULT_RETRIEVER = "navigator"


# The relevance gate, in the reference scale (MiniLM's cosines; int8 and fp32 alike: 0.999
# apart), kept here and nowhere else: a question whose best match in the namespace
# (``retrieval.gate``: the relevance of its best-matching statement, whatever k) is below
#
#     gate(N) = MINILM_GATE + MINILM_GATE_PER_LN_TURNS * ln(N)        (N: the namespace's turns)
#
# gets nothing ("nothing relevant in memory"), any other all k items. The gate rises with the
# namespace because the best of N unrelated cosines does: in a chat of 12 turns an off-topic
# question's best match sits near 0.2, in one of 600 near 0.3, while an answerable question's
# does not grow with N. Both constants were chosen on a calibration side (invented chats,
# docs/bench-gate/chats_a.json, and three LoCoMo development conversations): for each slope the
# highest base leaving at most 1 % of the answerable questions of each kind of memory empty,
# and the slope whose worse kind refuses the most; reported on chats and conversations it was
# not calibrated on (docs/bench-gate/calibrate.py; BENCHMARKS.md, "The relevance gate").
# Relevance is read through the model's calibration (``embeddings.calibration``), so the gate
# holds for every built-in model; hash embeddings (tests) and objects registered as ``custom:``
# get none unless ``relevance_gate`` is set (in the same scale).
MINILM_GATE = 0.19
MINILM_GATE_PER_LN_TURNS = 0.02
# ... raised for a question that asks the assistant for a task (or holds no content word) and
# for one naming what no turn mentions (``retrieval.gate_terms``), chosen on the same side.
MINILM_GATE_TASK_RAISE = 0.1
MINILM_GATE_NAME_RAISE = 0.05
CALIBRATED_SPECS = ("minilm", "minilm-torch", "e5-small")


class Settings(_EnvSettings):
    model_config = SettingsConfigDict(env_prefix="MEMGRAPH_", extra="ignore")

    # Not a field (never dumped, never in a run context's form): the live objects of the
    # ``Memory`` these settings came from (``memgraph_agents.resources``: its model objects and
    # open stores). Copies made by ``override`` / ``model_copy`` keep it, so whatever a call
    # derives from a Memory's settings resolves that Memory's models and stores.
    _resources: Any = PrivateAttr(default=None)

    data_dir: Path = Field(DEFAULT_DATA_DIR, description="where SQLite graphs, Chroma and caches live")
    namespace: str = Field("default", description="memory namespace (a user or a conversation)")
    embeddings: str = Field(
        DEFAULT_EMBEDDINGS,
        description="embedding model: 'minilm' (offline default: int8 ONNX, no torch), 'minilm-torch' "
        "(the fp32 model; the [torch] extra), 'e5-small' (multilingual-e5-small at 4 bits; the [e5] extra), "
        "'sentence-transformers:NAME_OR_PATH' ([torch]), 'custom:NAME' "
        "(an Embeddings object registered in this process) or 'hash' / 'hash-N' (tests)",
    )
    llm: str = Field("none", description="'none' or 'provider:model', e.g. 'openai:gpt-4o-mini'")
    llm_timeout: float = Field(60.0, gt=0, description="seconds per LLM call")
    llm_max_concurrency: int = Field(
        4, ge=1, description="LLM requests in flight per chat model, process-wide (ingest and the navigator alike)"
    )
    llm_base_url: str | None = Field(
        None, description="the OpenAI-compatible server's URL (before OPENAI_BASE_URL); unset: the provider's"
    )
    llm_structured: str = Field(
        "auto", description="how JSON is asked for: auto, json_schema, function_calling, json_mode or prompt"
    )
    llm_backoff: float = Field(
        0.5, ge=0, description="seconds before the first retry of a transient LLM error (doubled after)"
    )
    chroma_host: str | None = Field(None, description="Chroma server host; embedded when unset")
    chroma_port: int = Field(8000, ge=1, le=65535)
    graph_url: str | None = Field(
        None,
        description="postgresql://user@host:port/database to keep the graph in PostgreSQL "
        "(README 'Running on servers'); embedded SQLite in the data dir when unset",
    )
    store_id: str = Field(
        "default",
        pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$",
        description="which memory in a shared PostgreSQL database: workers that set the same one share it",
    )
    cache_namespaces: int = Field(
        32,
        ge=1,
        description="namespaces a process keeps open (LRU): bounds memory and "
        "file descriptors; an evicted one reopens in tens of ms",
    )
    exact_search_nodes: int = Field(
        100_000,  # exact top-10 at 1e5 x 384: 7 ms; a Chroma write costs 55-72 ms a commit (BENCHMARKS.md)
        ge=0,
        description="namespaces up to this many nodes answer dense queries exactly from the "
        "snapshot's vectors (no Chroma call); larger ones use Chroma's ANN index",
    )
    chroma_index_nodes: int | None = Field(
        None,
        ge=0,
        description="a namespace gets a Chroma ANN index (built once from the stored vectors, then "
        "written at every commit) when it has more embedded nodes than this; smaller ones write "
        "nothing to Chroma. Default: exact_search_nodes; 0: every namespace",
    )
    retriever: str = Field(
        DEFAULT_RETRIEVER,
        description="the retriever of every door (API, agent tools, store, MCP, CLI, graphs) when "
        "none is named and the preset names none: the best for its cost in BENCHMARKS.md",
    )
    localize: str = Field(
        "oneshot",
        description="the navigator graph's localize node: the retriever whose ranking seeds its search "
        "and is its answer's ranking (oneshot, ppr, dwpr, sentence_hop, dense, fusion, a registered one)",
    )
    top_k: int = Field(10, ge=1, le=200, description="evidence items of every door when a call names no k")
    min_score: float | None = Field(
        None,
        ge=0.0,
        le=1.0,
        description="per-item relevance floor of every door's search / ask / recall: evidence whose "
        "relevance (the question's cosine to the item's best sentence, comparable across questions) is "
        "below it is dropped, and the relevance gate is off. Unset: the gate decides (relevance_gate). "
        "0 keeps everything",
    )
    relevance_gate: float | None = Field(
        None,
        ge=0.0,
        le=1.0,
        description="question-level relevance gate, used when min_score is unset: nothing when the "
        "question's best match in the namespace (whatever k) is below it ('nothing relevant in memory'), "
        "otherwise all k items. Default: the embedding model's gate (0.19 + 0.02 ln(turns) in the reference "
        "scale every built-in model is calibrated to, + 0.1 for a task for the assistant and + 0.05 for a "
        "name no turn mentions, chosen on questions memory cannot answer, BENCHMARKS.md; "
        "hash and custom: embeddings: 0). A value set here is a flat gate",
    )
    preset: str = Field(
        "base",
        description="a seed paper's system: layers built at ingest and the retriever "
        "(base, compassmem, emem, emem-g, sgmem, memorai, premem; 'default' is read as 'base')",
    )
    ingest: IngestParams = Field(default_factory=IngestParams)
    limits: InputLimits = Field(default_factory=InputLimits)

    @field_validator("llm")
    @classmethod
    def _llm(cls, v: str) -> str:
        v = v.strip()
        if v.lower() in ("", "none", "off", "offline"):
            return "none"
        if ":" not in v:
            raise ValueError(f"MEMGRAPH_LLM={v!r}: expected 'none' or 'provider:model' (e.g. openai:gpt-4o-mini)")
        if v.partition(":")[0].strip().lower() == "openai" and not installed("langchain_openai"):
            # Here, not when the model is first built: a run that would write and then fail at
            # its first LLM call stops before anything is stored.
            raise ValueError(missing("langchain_openai", "openai", "an OpenAI-compatible chat model"))
        return v

    @field_validator("llm_structured")
    @classmethod
    def _llm_structured(cls, v: str) -> str:
        return structured_setting(v)

    @field_validator("data_dir", mode="before")
    @classmethod
    def _data_dir(cls, v: Any) -> Any:
        # Path("") is ".": an empty setting would silently put memory in whatever directory
        # the process runs in.
        if isinstance(v, str | os.PathLike) and not str(os.fspath(v)).strip():
            raise ValueError("the data dir is empty: give a directory (or unset MEMGRAPH_DATA_DIR for the default)")
        return v

    @field_validator("graph_url")
    @classmethod
    def _graph_url(cls, v: str | None) -> str | None:
        v = (v or "").strip()
        if not v:
            return None
        if not v.startswith(GRAPH_URL_SCHEMES):
            raise ValueError(graph_url_problem(v))
        return v

    @field_validator("embeddings")
    @classmethod
    def _embeddings(cls, v: str) -> str:
        return embedding_spec(v)

    @field_validator("preset")
    @classmethod
    def _preset(cls, v: str) -> str:
        if v.strip().lower() in RENAMED:
            warnings.warn(
                f"preset {v!r} was renamed {RENAMED[v.strip().lower()]!r}; the old name is read as the new one",
                DeprecationWarning,
                stacklevel=2,
            )
        return get_preset(v).name

    @field_validator("retriever")
    @classmethod
    def _retriever(cls, v: str) -> str:
        if not is_retriever(v):
            raise ValueError(f"unknown retriever {v!r}: choose from {', '.join(retriever_names())}")
        return v

    @field_validator("localize")
    @classmethod
    def _localize(cls, v: str) -> str:
        for part in v.split("+"):
            if not is_retriever(part.strip()) or is_navigator(part.strip()):
                names = ", ".join(n for n in retriever_names() if not is_navigator(n))
                raise ValueError(f"localize {v!r}: {part.strip()!r} is not a retriever it can run; choose from {names}")
        return v

    @property
    def default_retriever(self) -> str:
        """The retriever of a call that names none, at every door: the preset's (by the preset's
        name, which carries its options), else ``retriever``."""

        preset = get_preset(self.preset)
        return preset.name if preset.retriever else self.retriever

    @property
    def offline(self) -> bool:
        return self.llm == "none"

    @property
    def relevance_floor(self) -> float:
        """The per-item floor: ``min_score``, else 0 (the gate decides instead)."""
        return self.min_score if self.min_score is not None else 0.0

    @property
    def gate(self) -> float:
        """The question-level gate: 0 when ``min_score`` is set (the caller's floor decides), else
        ``relevance_gate``, else the embedding model's (``MINILM_GATE`` for MiniLM, 0 otherwise)."""
        if self.min_score is not None:
            return 0.0
        if self.relevance_gate is not None:
            return self.relevance_gate
        return MINILM_GATE if self._calibrated else 0.0

    @property
    def _calibrated(self) -> bool:
        """Whether the embeddings' relevance is read in the reference scale the gate is written in."""
        return self.embeddings in CALIBRATED_SPECS or self.embeddings.startswith("sentence-transformers:")

    @property
    def gate_per_ln_turns(self) -> float:
        """How much the gate rises per ln(turns) of the namespace: the embedding model's own gate
        does (``MINILM_GATE_PER_LN_TURNS``); a ``relevance_gate`` a caller sets, or a floor, does not."""
        if self.min_score is not None or self.relevance_gate is not None:
            return 0.0
        return MINILM_GATE_PER_LN_TURNS if self._calibrated else 0.0

    @property
    def gate_raises(self) -> tuple[float, float]:
        """(task, unknown name): how much the embedding model's own gate rises for a question that
        asks the assistant for a task, or names what no turn mentions (``retrieval.gate_terms``);
        a ``relevance_gate`` a caller sets, or a floor, does not."""
        if self.gate_per_ln_turns <= 0:
            return (0.0, 0.0)
        return (MINILM_GATE_TASK_RAISE, MINILM_GATE_NAME_RAISE)

    @classmethod
    def load(cls, **values: Any) -> Settings:
        """``Settings(**values)`` (environment underneath) with errors as one ``ConfigError``."""
        unknown_settings(values)
        try:
            return cls(**values)
        except ValidationError as exc:
            raise ConfigError(describe_invalid(exc)) from None

    def _holds(self, name: str, value: Any) -> bool:
        """Whether field ``name`` already has ``value`` (a path given as text, a partial ``ingest`` dict)."""
        current = getattr(self, name)
        if isinstance(current, Path) and isinstance(value, str):
            return current == Path(value)
        if isinstance(current, BaseModel) and isinstance(value, dict):
            now = current.model_dump()
            return {**now, **value} == now
        return bool(current == value)

    def override(self, **changes: Any) -> Settings:
        """A validated copy with ``changes`` applied (``ingest`` may be a partial dict).

        Unknown names and invalid values raise one ``ConfigError`` naming the field; ``None``
        for a field that cannot be ``None`` is invalid, not "keep the old value".
        """
        unknown_settings(changes)
        # Values equal to the current ones change nothing (a run context repeats every field).
        changes = {k: v for k, v in changes.items() if not self._holds(k, v)}
        if not changes:
            return self
        data = self.model_dump()
        for name, value in changes.items():
            if name == "ingest" and isinstance(value, dict):
                unknown = sorted(set(value) - set(IngestParams.model_fields))
                if unknown:
                    raise ConfigError(
                        f"unknown ingest setting(s) {', '.join(unknown)}: choose from "
                        f"{', '.join(IngestParams.model_fields)}"
                    )
                data["ingest"] = {**data["ingest"], **value}
            elif name == "ingest" and isinstance(value, IngestParams):
                data["ingest"] = value.model_dump()
            elif name == "limits" and isinstance(value, dict):  # partial, like ``ingest``
                data["limits"] = {**data["limits"], **value}
            else:
                data[name] = value
        token = _VALUES_ONLY.set(True)  # every field is in ``data``: the environment must not refill any
        try:
            out = type(self).model_validate(data)
            out._resources = self._resources
            return out
        except ValidationError as exc:
            raise ConfigError(describe_invalid(exc)) from None
        finally:
            _VALUES_ONLY.reset(token)


def unknown_settings(values: dict[str, Any]) -> None:
    """``ConfigError`` for names that are not ``Settings`` fields (``extra="ignore"`` would drop them)."""
    unknown = sorted(set(values) - set(Settings.model_fields))
    if unknown:
        raise ConfigError(f"unknown setting(s) {', '.join(unknown)}: choose from {', '.join(Settings.model_fields)}")


def describe_invalid(exc: ValidationError) -> str:
    """A pydantic error as one sentence per field: ``invalid setting top_k=-5: must be >= 1``."""
    parts = []
    for err in exc.errors():
        field = ".".join(str(p) for p in err["loc"]) or "settings"
        msg = err["msg"].removeprefix("Value error, ")
        msg = (
            msg.replace("Input should be greater than or equal to", "must be at least")
            .replace("Input should be greater than", "must be greater than")
            .replace("Input should be less than or equal to", "must be at most")
            .replace("Input should be", "must be")
        )
        parts.append(f"{field}={err.get('input')!r}: {msg}")
    return "invalid setting " + "; ".join(parts)
