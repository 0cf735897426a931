"""LangGraph state machines: ingest, retrieval, navigator."""
