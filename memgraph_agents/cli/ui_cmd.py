"""``memgraph ui``: the local memory browser (``memgraph_agents.ui``), served by uvicorn."""

from __future__ import annotations

import argparse
from pathlib import Path

from memgraph_agents.cli.mcp_cmd import _port
from memgraph_agents.config import Settings


def add_parser(sub, common: argparse.ArgumentParser) -> None:
    s = sub.add_parser(
        "ui",
        parents=[common],
        help="browse memory in a web browser: namespaces, timelines, sessions, search with the path, items",
    )
    s.add_argument("--host", default="127.0.0.1", help="address (default 127.0.0.1); any other needs --tokens")
    s.add_argument("--port", type=_port, default=8750, help="port, 1-65535 (default 8750)")
    s.add_argument("--namespace", help="serve this namespace only (default: every namespace)")
    s.add_argument("--read-only", action="store_true", help="no update or forget")
    s.add_argument(
        "--tokens",
        type=Path,
        help='JSON file {"token": "namespace"} (the MCP server\'s format): a browser signs in with a token '
        "and sees that namespace only",
    )


def cmd_ui(args: argparse.Namespace, settings: Settings) -> int:
    import uvicorn

    from memgraph_agents.api import Memory
    from memgraph_agents.cli.output import console
    from memgraph_agents.integrations.mcp_tokens import check_http_exposure, load_tokens
    from memgraph_agents.storage.namespaces import validate_stored_name
    from memgraph_agents.ui.app import build_app
    from memgraph_agents.ui.security import Access

    tokens = load_tokens(args.tokens) if args.tokens is not None else None
    check_http_exposure(args.host, tokens)  # 0.0.0.0 without tokens: refused before listening
    only = validate_stored_name(args.namespace) if args.namespace is not None else None
    memory = Memory(settings=settings)
    if only is not None and only not in memory.namespaces():  # a typo would serve an empty memory
        from memgraph_agents.storage.stats import missing_namespace

        raise missing_namespace(settings.data_dir, only, settings.graph_url, settings.store_id)
    app = build_app(memory, Access(tokens=tokens, only=only, read_only=args.read_only))
    host = f"[{args.host}]" if ":" in args.host else args.host
    console.print(f"memgraph ui on http://{host}:{args.port}/ (memory in {settings.data_dir}; Ctrl-C stops it)")
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0
