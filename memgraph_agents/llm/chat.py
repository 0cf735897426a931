"""Build the chat model named by ``MEMGRAPH_LLM`` (``provider:model``) with LangChain.

OpenAI-compatible servers (vLLM, Ollama, llama.cpp server, LM Studio...) are reached with
``openai:<model>`` plus a base URL. Base URL precedence: the ``base_url`` argument, then
``MEMGRAPH_LLM_BASE_URL``, then the OpenAI SDK's own ``OPENAI_BASE_URL`` / ``OPENAI_API_BASE``.
"""

from __future__ import annotations

import os
from typing import Any

from langchain.chat_models import init_chat_model
from langchain_core.language_models import BaseChatModel

from memgraph_agents.config_process import process_settings
from memgraph_agents.errors import ConfigError
from memgraph_agents.extras import missing
from memgraph_agents.llm import loops

# Local OpenAI-compatible servers ignore the key, but the OpenAI SDK refuses to start without one.
PLACEHOLDER_API_KEY = "not-needed"
_OFFLINE = ("", "none", "off", "offline")


class LLMConfigError(ConfigError):
    """``MEMGRAPH_LLM`` names a model that cannot be built here (package or credentials missing)."""


def parse_spec(spec: str) -> tuple[str, str]:
    """``"openai:gpt-4o-mini"`` -> ``("openai", "gpt-4o-mini")``; model names may hold colons
    (``ollama:llama3:8b``), so only the first one splits."""
    text = spec.strip()
    if text.lower() in _OFFLINE:
        raise ValueError(f"MEMGRAPH_LLM={spec!r} means offline mode: there is no chat model to build")
    provider, sep, model = text.partition(":")
    if not sep or not provider.strip() or not model.strip():
        raise ValueError(f"MEMGRAPH_LLM={spec!r}: expected 'provider:model', e.g. 'openai:gpt-4o-mini'")
    return provider.strip().lower(), model.strip()


def make_chat_model(spec: str, *, base_url: str | None = None, timeout: float = 60, **kwargs: Any) -> BaseChatModel:
    """A deterministic (temperature 0) chat model for ``spec``; extra ``kwargs`` go to the
    provider class. Raises ``ValueError`` for ``"none"`` and ``LLMConfigError`` (a
    ``ValueError``) with an actionable message when the package or the API key is missing.
    Builds the client only: no network call is made here."""
    provider, model = parse_spec(spec)
    url = base_url or process_settings().llm_base_url or None
    params: dict[str, Any] = {"temperature": 0}
    if provider == "openai":
        url = url or os.environ.get("OPENAI_BASE_URL") or os.environ.get("OPENAI_API_BASE") or None
        if not os.environ.get("OPENAI_API_KEY") and "api_key" not in kwargs:
            if url is None:
                raise LLMConfigError(
                    f"MEMGRAPH_LLM={spec} needs OPENAI_API_KEY (or OPENAI_BASE_URL for a local server)"
                )
            params["api_key"] = PLACEHOLDER_API_KEY
        params["timeout"] = timeout
        # ainvoke_json owns retries (backoff, usage counting); SDK retries would multiply them
        params["max_retries"] = 0
    if url is not None:
        params["base_url"] = url
    params.update(kwargs)
    try:
        chat = init_chat_model(model, model_provider=provider, **params)
    except ImportError as e:
        if provider == "openai":
            raise LLMConfigError(missing("langchain_openai", "openai", f"MEMGRAPH_LLM={spec}")) from e
        raise LLMConfigError(
            f"MEMGRAPH_LLM={spec} needs the LangChain integration package for {provider!r}: {e}"
        ) from e
    except Exception as e:  # unknown provider, or credentials missing in a provider-specific way
        raise LLMConfigError(
            f"MEMGRAPH_LLM={spec}: cannot build the chat model ({type(e).__name__}: {e}); "
            f"check the provider name and {provider.upper()}_API_KEY"
        ) from e
    if provider == "openai" and "http_async_client" not in kwargs:
        # lazy: openai, the [openai] extra
        import openai

        def build() -> BaseChatModel:  # same model, its own connection pool (one per event loop)
            client = openai.DefaultAsyncHttpxClient(timeout=timeout)
            return init_chat_model(model, model_provider=provider, **params, http_async_client=client)

        loops.register(chat, loops.ModelInfo(key=f"{spec}@{url or 'api.openai.com'}", provider=provider, build=build))
    return chat
