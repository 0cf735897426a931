"""A terminal chatbot with long-term memory that remembers across runs.

    python examples/chatbot.py --user alice                      # offline: shows what it recalls
    MEMGRAPH_LLM=openai:gpt-4o-mini OPENAI_API_KEY=... python examples/chatbot.py --user alice
    MEMGRAPH_LLM=openai:llama3.1 OPENAI_BASE_URL=http://localhost:11434/v1 python examples/chatbot.py

It is the ``chatbot`` graph of ``langgraph.json`` (``memgraph_agents.graphs.chatbot``): a
``create_agent`` agent with the recall / remember tools, every finished turn written to
memory in the background. Any OpenAI-compatible LLM works through ``MEMGRAPH_LLM``
(``openai:MODEL``, the ``[openai]`` extra: ``pip install "memgraph-agents[openai]"``) plus
``OPENAI_BASE_URL`` / ``OPENAI_API_KEY``; without one (or with
``--offline``) it runs offline: each message is recalled against memory and the evidence is
shown instead of a chat reply, and every message is still remembered.

Commands: ``/recall QUERY`` shows raw evidence, ``/quit`` (or Ctrl-D) leaves. ``--message``
(repeatable) sends messages without a prompt, for scripts and tests.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description="A terminal chatbot with long-term memory (memgraph-agents).")
    p.add_argument("--user", default=os.environ.get("USER") or "me", help="whose memory (one namespace per user)")
    p.add_argument("--data-dir", type=Path, help="memory location (env MEMGRAPH_DATA_DIR, default ~/.memgraph)")
    p.add_argument("--embeddings", help="embedding model: 'minilm' (default), 'minilm-torch', 'hash' (tests only)…")
    p.add_argument("--offline", action="store_true", help="no LLM even if MEMGRAPH_LLM is set: show recalled evidence")
    p.add_argument("--message", "-m", action="append", help="send this message and exit (repeatable)")
    return p.parse_args(argv)


def main(argv: list[str] | None = None, *, out=None) -> int:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
    args = parse_args(argv)
    out = out or sys.stdout

    from langchain_core.messages import HumanMessage

    from memgraph_agents.config import Settings
    from memgraph_agents.graphs.chatbot import ChatbotContext, build_chatbot_graph
    from memgraph_agents.integrations import AgentMemory, user_namespace

    update = {}
    if args.data_dir:
        update["data_dir"] = args.data_dir
    if args.embeddings:
        update["embeddings"] = args.embeddings
    if args.offline:
        update["llm"] = "none"
    settings = Settings().model_copy(update=update) if update else Settings()
    memory = AgentMemory(settings)
    graph = build_chatbot_graph(memory)
    name = args.user.strip() or "me"
    ctx = ChatbotContext(user_id=name, user_name=name, llm=settings.llm)
    mode = "offline (no LLM: showing recalled evidence)" if settings.offline else settings.llm
    print(
        f"memgraph chatbot — user {name!r} (namespace {user_namespace(name)!r}), memory in {settings.data_dir}, "
        f"model: {mode}",
        file=out,
    )
    history: list = []

    def send(text: str) -> None:
        nonlocal history
        if text.startswith("/recall "):
            res = memory.recall(text[len("/recall ") :], context=ctx, config={})
            print(res.content(), file=out)
            return
        result = graph.invoke(
            {"messages": [*history, HumanMessage(text)]},
            context=ctx,
            config={"configurable": {"thread_id": memory.default_thread}},
        )
        history = result["messages"]
        print(f"bot> {history[-1].content}", file=out, flush=True)

    try:
        if args.message:
            for text in args.message:
                print(f"you> {text}", file=out)
                send(text)
        else:
            print("Type a message (/recall QUERY shows raw evidence, /quit leaves).", file=out)
            while True:
                try:
                    text = input("you> ").strip()
                except EOFError:
                    break
                if text in ("/quit", "/exit"):
                    break
                if text:
                    send(text)
    except KeyboardInterrupt:
        pass
    finally:
        print("saving memory…", file=out, flush=True)
        memory.flush(timeout=300)
    return 0


if __name__ == "__main__":
    sys.exit(main())
