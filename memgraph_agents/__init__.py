"""memgraph-agents: long-term conversational memory for LangGraph agents."""

__version__ = "0.1.0"

__all__ = ["__version__"]
