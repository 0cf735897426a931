"""The ingest pipeline: one run builds one session and commits it (``pipeline.sequence``).

The library's ingest (``memgraph_agents.ingest``) runs it once per session under the
namespace's ingest lock, after validating the whole conversation; the graph exported to
LangGraph Studio (``memgraph_agents.graphs.ingest``) is a thin graph around that ingest.
"""
