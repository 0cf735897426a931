"""argparse value types shared by the sub-commands."""

from __future__ import annotations

import argparse


def positive_int(text: str) -> int:
    """A count such as ``-k``: a whole number >= 1 (``-k -5`` is refused by argparse, exit 2)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


USER_ID_HELP = (
    "a user's memory: the namespace the agent tools, MemoryRetriever(user_id=), Memory.user() and "
    "`memgraph mcp --user-id` use for this id (u.<hash>); not with --namespace"
)


def add_user_option(parser: argparse.ArgumentParser) -> None:
    """``--user-id ID``: look at an agent's user memory without computing its namespace by hand."""
    parser.add_argument("--user-id", help=USER_ID_HELP)


def apply_user_id(args: argparse.Namespace) -> None:
    """Turn ``--user-id`` into the command's ``--namespace`` (a list for ``ask``'s repeatable one);
    with ``--namespace`` too it is an error, never one of them quietly."""
    user_id = getattr(args, "user_id", None)
    if user_id is None or args.command == "mcp":  # mcp maps its own (it also refuses --tokens)
        return
    from memgraph_agents.storage.namespaces import user_namespace

    if args.namespace:
        raise ValueError("--user-id names the user's own namespace: not with --namespace")
    ns = user_namespace(user_id)  # a malformed id (empty, control characters) is refused here
    args.namespace = [ns] if args.command == "ask" else ns
