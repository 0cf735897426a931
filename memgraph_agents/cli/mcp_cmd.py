"""``memgraph mcp``: serve memory to MCP clients (stdio by default, or streamable HTTP)."""

from __future__ import annotations

import argparse
from pathlib import Path

from memgraph_agents.config import Settings


def add_parser(sub, common: argparse.ArgumentParser) -> None:
    s = sub.add_parser(
        "mcp",
        parents=[common],
        help="serve memory over MCP (tools recall, remember, list, get, update_note, history, forget_note, ask, stats)",
    )
    s.add_argument("--namespace", help="whose memory the server serves (env MEMGRAPH_NAMESPACE)")
    s.add_argument(
        "--transport",
        choices=["stdio", "http"],
        default="stdio",
        help="stdio (default: the client starts the server) or streamable HTTP on 127.0.0.1",
    )
    s.add_argument("--port", type=int, default=8000, help="HTTP port (default 8000)")
    s.add_argument(
        "--tokens",
        type=Path,
        help='HTTP only: JSON file {"token": "namespace"}; every call needs a bearer token and '
        "reads that token's namespace",
    )
    s.add_argument("--llm", help="chat model for `ask` ('none' = offline; env MEMGRAPH_LLM)")


def cmd_mcp(args: argparse.Namespace, settings: Settings) -> int:
    from memgraph_agents.integrations.mcp_server import build_server, load_tokens

    if args.tokens and args.transport != "http":
        raise ValueError("--tokens needs --transport http (stdio serves the one --namespace)")
    tokens = load_tokens(args.tokens) if args.tokens else None
    server = build_server(settings, namespace=args.namespace, tokens=tokens, port=args.port)
    server.run("streamable-http" if args.transport == "http" else "stdio")
    return 0
