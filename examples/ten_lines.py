"""Memory for your existing agent in about 10 lines (the README shows the marked block).

    python examples/ten_lines.py

The agent's model is whatever you already use; here ``MEMGRAPH_LLM`` (e.g.
``openai:gpt-4o-mini``, or any OpenAI-compatible server through ``OPENAI_BASE_URL``; the
``[openai]`` extra: ``pip install "memgraph-agents[openai]"``), and
without one the offline stand-in that shows recalled evidence instead of chatting. Memory
lives in ``MEMGRAPH_DATA_DIR`` (default ``~/.memgraph``), one namespace per user id.
"""

from __future__ import annotations


def default_model():
    """``MEMGRAPH_LLM`` if set, else ``OfflineRecallModel`` (recalls instead of chatting)."""
    from memgraph_agents.config import Settings
    from memgraph_agents.integrations import OfflineRecallModel
    from memgraph_agents.runtime import get_chat_model

    return get_chat_model(Settings()) or OfflineRecallModel()


def main(model=None) -> str:
    model = model or default_model()
    # --8<-- [start:ten-lines]
    from langchain.agents import create_agent

    from memgraph_agents.integrations import create_memory_tools

    memory = create_memory_tools()  # recall + remember tools; settings from MEMGRAPH_* variables
    agent = create_agent(model, tools=memory, middleware=[memory.turn_writer()])  # + write every turn
    alice = {"configurable": {"user_id": "ten-lines-alice"}}  # whose memory: from the run, never the model

    agent.invoke({"messages": [{"role": "user", "content": "I adopted a beagle called Pixel last week."}]}, alice)
    memory.flush()  # memory is written in the background; wait for it (tests, shutdown)
    reply = agent.invoke({"messages": [{"role": "user", "content": "What is my dog called?"}]}, alice)
    print(reply["messages"][-1].content)
    # --8<-- [end:ten-lines]
    from memgraph_agents.integrations import user_namespace

    # its own namespace: the chatbot example (--user) and `memgraph demo` (demo) never see it
    print(f"(memory: namespace {user_namespace('ten-lines-alice')!r} in {memory.memory.settings_for().data_dir})")
    return reply["messages"][-1].content


if __name__ == "__main__":
    main()
