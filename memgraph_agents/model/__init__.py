"""Pydantic data model: conversations in, graph rows stored, evidence out."""

from memgraph_agents.model.conversation import Conversation, Session, Turn
from memgraph_agents.model.evidence import Evidence, flatten_turns
from memgraph_agents.model.graph import TOPIC_OWNER, Edge, EdgeKind, Node, NodeKind, node_id

__all__ = [
    "Conversation",
    "Session",
    "Turn",
    "Evidence",
    "flatten_turns",
    "Edge",
    "EdgeKind",
    "Node",
    "NodeKind",
    "TOPIC_OWNER",
    "node_id",
]
