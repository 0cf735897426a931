"""The parts ``Settings`` is made of: the environment-reading base every settings class shares,
the offline construction parameters (``MEMGRAPH_INGEST_*``) and the input limits."""

from __future__ import annotations

from contextvars import ContextVar

from pydantic import Field
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from memgraph_agents.errors import LimitExceededError
from memgraph_agents.model.unicode import check_unicode

# Set while ``Settings.override`` validates a complete copy: every field is given, so reading
# the environment again (and .env) would change nothing and cost more than a chat-turn write.
_VALUES_ONLY: ContextVar[bool] = ContextVar("memgraph_settings_values_only", default=False)


class _EnvSettings(BaseSettings):
    """``BaseSettings`` whose environment sources are skipped while an override is validated."""

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        if _VALUES_ONLY.get():
            return (init_settings,)
        return init_settings, env_settings, dotenv_settings, file_secret_settings


class IngestParams(_EnvSettings):
    """Offline construction parameters: how turns become events, topics and links (segmentation,
    fusion and similarity thresholds) without an LLM, and those of the presets' layers."""

    model_config = SettingsConfigDict(env_prefix="MEMGRAPH_INGEST_", extra="ignore")

    segment_min_turns: int = Field(2, ge=1, description="smallest offline event, in turns")
    segment_max_turns: int = Field(8, ge=1, description="largest offline event, in turns")
    segment_window: int = Field(2, ge=1, description="turns on each side compared for a shift")
    segment_depth: float = Field(0.5, description="boundary when depth > mean - depth*std")
    fusion_threshold: float = Field(0.9, description="merge a new event into an old one at cosine >=")
    similar_threshold: float = Field(0.6, description="cross-session `similar` event edges at cosine >=")
    similar_max: int = Field(3, ge=0, description="cross-session `similar` edges per new event")
    synonym_threshold: float = Field(0.9, description="synonym edges between arguments at cosine >=")
    synonym_max: int = Field(100, ge=0)
    sentence_knn: int = Field(3, ge=0, le=10, description="kNN edges per sentence")
    topic_join_threshold: float = Field(0.5, description="a new event joins the nearest topic at cosine >=")
    topic_recluster_every: int = Field(4, ge=1, description="re-run k-means at most every T ingested sessions")
    topic_drift: float = Field(
        0.25,
        gt=0,
        description="... and only once the events added since the last "
        "clustering are this fraction of those it clustered",
    )
    # Generated-memory layers (presets); each layer appends its own fields below, prefixed by its name.
    premem_link_threshold: float = Field(0.6, description="PREMem: link clusters across sessions at cosine >= θ")
    premem_max_links: int = Field(
        3, ge=0, description="PREMem: links per new cluster to earlier clusters, most similar first"
    )
    memorai_segment_min_turns: int = Field(3, ge=1, description="MemORAI offline: smallest topic segment, in turns")
    memorai_segment_max_turns: int = Field(12, ge=1, description="MemORAI offline: largest topic segment, in turns")
    memorai_summary_sentences: int = Field(3, ge=1, description="MemORAI offline: sentences in a segment summary")
    memorai_gate_min_content: int = Field(2, ge=0, description="MemORAI offline gate: content words a kept turn needs")
    memorai_keyphrases: int = Field(2, ge=0, description="MemORAI offline: keyphrase entities per gated turn")


class InputLimits(_EnvSettings):
    """Bounds on what one input may hold (README "Limits"); each is refused with a
    ``LimitExceededError`` naming the limit and its environment variable."""

    model_config = SettingsConfigDict(env_prefix="MEMGRAPH_", extra="ignore")

    max_file_bytes: int = Field(64 * 2**20, ge=1, description="largest input file, in bytes")
    max_turn_chars: int = Field(200_000, ge=1, description="longest turn (text + image caption), in characters")
    max_turns_per_session: int = Field(2_000, ge=1, description="most turns in one session")
    max_sessions: int = Field(10_000, ge=1, description="most sessions in one file or conversation")
    max_speaker_chars: int = Field(200, ge=1, description="longest speaker name, in characters")
    max_query_chars: int = Field(
        10_000, ge=1, description="longest query or question (search, ask, recall, a store search), in characters"
    )
    max_metadata_bytes: int = Field(
        16_384, ge=2, description="largest metadata of one session or note, in bytes of compact UTF-8 JSON"
    )

    @staticmethod
    def env_name(field: str) -> str:
        return f"MEMGRAPH_{field.upper()}"

    def check_query(self, text: str, what: str = "query") -> str:
        """``text`` if within ``max_query_chars``, else ``LimitExceededError`` at once: before any
        embedding, tokenising or scoring, so a megabyte query costs nothing."""
        if isinstance(text, str) and len(text) > self.max_query_chars:
            raise LimitExceededError(
                f"the {what}: query length {len(text)} over the limit of {self.max_query_chars} characters "
                "(setting max_query_chars, env MEMGRAPH_MAX_QUERY_CHARS)"
            )
        if isinstance(text, str):
            check_unicode(text, f"the {what}")
        return text
