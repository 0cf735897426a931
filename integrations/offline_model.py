"""``OfflineRecallModel``: a stand-in chat model for agents without an LLM.

It drives the same agent loop as a real model, without generating language: for each user
message it calls the ``recall`` tool with the message as the query, then replies with the
recalled evidence verbatim. A message starting with "remember" is acknowledged (the turn
writer stores every user message anyway). Its replies carry
``additional_kwargs["memgraph_skip"] = True`` so the turn writer does not store copies of
the evidence as new memories.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from memgraph_agents.integrations.chat_threads import SKIP_FLAG

_REMEMBER = re.compile(r"^\s*(?:please\s+)?(?:remember|note)\b", re.I)
OFFLINE_NOTE = "(offline mode: no language model is configured, so I show what I recall instead of chatting)"


def _text(m: BaseMessage) -> str:
    c = m.content
    if isinstance(c, str):
        return c
    return " ".join(b.get("text", "") if isinstance(b, dict) else str(b) for b in c or [])


class OfflineRecallModel(BaseChatModel):
    """Recall for every user message; answer with the evidence (see the module docstring)."""

    recall_tool: str = "recall"

    @property
    def _llm_type(self) -> str:
        return "memgraph-offline-recall"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> OfflineRecallModel:
        return self

    def _reply(self, messages: list[BaseMessage]) -> AIMessage:
        last_human = max((i for i, m in enumerate(messages) if isinstance(m, HumanMessage)), default=None)
        if last_human is None:
            return AIMessage(
                content=f"Say something and I will look it up in memory. {OFFLINE_NOTE}",
                additional_kwargs={SKIP_FLAG: True},
            )
        question = " ".join(_text(messages[last_human]).split())
        results = [m for m in messages[last_human + 1 :] if isinstance(m, ToolMessage)]
        if results:
            body = "\n".join(_text(m) for m in results).strip()
            return AIMessage(content=f"{body}\n{OFFLINE_NOTE}", additional_kwargs={SKIP_FLAG: True})
        if _REMEMBER.match(question):
            return AIMessage(
                content="Noted: every message you type is saved to memory.", additional_kwargs={SKIP_FLAG: True}
            )
        call = {
            "name": self.recall_tool,
            "args": {"query": question},
            "id": f"call_{uuid.uuid4().hex[:12]}",
            "type": "tool_call",
        }
        return AIMessage(content="", tool_calls=[call], additional_kwargs={SKIP_FLAG: True})

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=self._reply(list(messages)))])
