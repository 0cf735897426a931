"""Runnable example scripts (not installed; the demo data lives in memgraph_agents/examples)."""
