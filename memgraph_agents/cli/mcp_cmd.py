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
        "--user-id",
        help="serve this user's memory: the namespace the agent tools, MemoryRetriever(user_id=) and "
        "Memory.user() use for the id (Memory.namespace_for_user); not with --namespace or --tokens",
    )
    s.add_argument(
        "--transport",
        choices=["stdio", "http"],
        default="stdio",
        help="stdio (default: the client starts the server) or streamable HTTP on --host:--port",
    )
    s.add_argument(
        "--host",
        default="127.0.0.1",
        help="HTTP address (default 127.0.0.1); any other than loopback needs --tokens",
    )
    s.add_argument("--port", type=_port, default=8000, help="HTTP port, 1-65535 (default 8000)")
    s.add_argument(
        "--tokens",
        type=Path,
        help='HTTP only: JSON file {"token": "namespace"}; every call needs a bearer token and '
        "reads that token's namespace",
    )
    s.add_argument(
        "--log-level",
        choices=["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"],
        default="WARNING",
        type=str.upper,
        help="what the server logs on stderr (default WARNING: failures only, no line per request)",
    )
    s.add_argument(
        "--llm", help="chat model for `ask` ('none' = offline; openai:MODEL needs the [openai] extra; env MEMGRAPH_LLM)"
    )


def _port(text: str) -> int:
    """A TCP port: 1-65535 (argparse says so in one line, not a traceback from the socket)."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{port} is not a port: use 1-65535")
    return port


def cmd_mcp(args: argparse.Namespace, settings: Settings) -> int:
    from memgraph_agents.integrations.mcp_server import build_server, load_tokens

    if args.tokens is not None and args.transport != "http":
        raise ValueError("--tokens needs --transport http (stdio serves the one --namespace)")
    namespace = args.namespace
    if args.user_id is not None:
        from memgraph_agents.api import Memory

        if namespace is not None or args.tokens is not None:
            raise ValueError("--user-id names the one memory served: not with --namespace or --tokens")
        namespace = Memory.namespace_for_user(args.user_id)  # a malformed id is refused here
    tokens = load_tokens(args.tokens) if args.tokens is not None else None
    http = args.transport == "http"
    host = args.host if http else "127.0.0.1"  # stdio listens nowhere
    server = build_server(
        settings,
        namespace=namespace,
        tokens=tokens,
        host=host,
        port=args.port,
        log_level=args.log_level,
        user_id=args.user_id,
    )
    server.run("streamable-http" if http else "stdio")
    return 0
