"""Offline debugging: drawings of every exported graph and the navigator trace page.

- ``memgraph_agents.debug.draw``: Mermaid text and PNG / SVG images (matplotlib, offline);
- ``memgraph_agents.debug.trace_html``: one self-contained HTML page showing the event graph
  around a question and the navigator's path (``memgraph trace``);
- ``memgraph_agents.debug.graphs``: the graphs ``langgraph.json`` exports, by name;
- ``memgraph_agents.debug.studio``: the long-term memory store of ``langgraph dev`` (``MemgraphStore``).
"""
