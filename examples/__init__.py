"""Examples and sample data, installed as ``memgraph_agents.examples``.

    python -m memgraph_agents.examples.chatbot --user alice    # a terminal chatbot that remembers
    python -m memgraph_agents.examples.replay                  # every retriever side by side
    python -m memgraph_agents.examples.ten_lines               # memory for an existing agent

``sample_conversation()`` and ``sample_questions()`` give the paths of the sample data that
``memgraph demo`` uses (an invented two-person chat, see docs/conversation-format.md).
"""

from __future__ import annotations

from pathlib import Path


def sample_conversation() -> Path:
    """Path of the sample conversation (JSON, the documented conversation format)."""
    return Path(__file__).with_name("conversation.json")


def sample_questions() -> Path:
    """Path of the demo's questions with their expected answers (JSON)."""
    return Path(__file__).with_name("questions.json")
