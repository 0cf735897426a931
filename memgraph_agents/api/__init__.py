"""The public API: ``from memgraph_agents import Memory`` (see ``memgraph_agents.api.facade``)."""

from memgraph_agents.api.facade import Memory
from memgraph_agents.api.items import ItemPage, MemoryItem, Neighbour, NoteHistory, NoteVersion, TurnItem
from memgraph_agents.api.results import AddReport, AskResult, ForgetReport

__all__ = [
    "Memory",
    "AddReport",
    "AskResult",
    "ForgetReport",
    "ItemPage",
    "MemoryItem",
    "Neighbour",
    "NoteHistory",
    "NoteVersion",
    "TurnItem",
]
