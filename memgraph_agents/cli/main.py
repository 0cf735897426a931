"""``memgraph``: the command-line interface. Each sub-command lives in its own module."""

from __future__ import annotations

import argparse
import os
import sqlite3
import sys
from pathlib import Path

from memgraph_agents.config import DEFAULT_DATA_DIR, Settings
from memgraph_agents.errors import MemgraphError
from memgraph_agents.registry import RETRIEVERS

PRESET_HELP = (
    "a seed paper's system: base, compassmem, emem, emem-g, sgmem, memorai, premem "
    "(layers built at ingest and the retriever; env MEMGRAPH_PRESET; default: base, the event graph alone)"
)


def _directory(text: str) -> Path:
    """A directory argument: ``Path("")`` would be ".", so an empty one is refused, not the cwd."""
    if not text.strip():
        raise argparse.ArgumentTypeError("empty: give a directory")
    return Path(text)


def build_parser() -> argparse.ArgumentParser:
    from memgraph_agents.cli import verb_cmds
    from memgraph_agents.cli.argtypes import add_user_option
    from memgraph_agents.cli.filter_args import add_filter_options, add_metadata_option

    common = argparse.ArgumentParser(add_help=False)  # global options, accepted after the command too
    common.add_argument(
        "--data-dir",
        type=_directory,
        default=argparse.SUPPRESS,
        help=f"memory location (env MEMGRAPH_DATA_DIR; default {DEFAULT_DATA_DIR})",
    )
    common.add_argument(
        "--embeddings",
        default=argparse.SUPPRESS,
        help="embedding model (env MEMGRAPH_EMBEDDINGS): 'minilm' (default: int8 ONNX, offline), 'minilm-torch' "
        "(the fp32 model), 'sentence-transformers:NAME_OR_PATH' (both: the [torch] extra), 'hash' (tests only)",
    )
    p = argparse.ArgumentParser(
        prog="memgraph", description="Long-term conversational memory as an event graph.", parents=[common]
    )
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name: str, help: str) -> argparse.ArgumentParser:
        return sub.add_parser(name, help=help, parents=[common])

    s = command("ingest", help="add a conversation file to memory")
    s.add_argument("file")
    s.add_argument("--namespace", help="target namespace (env MEMGRAPH_NAMESPACE; else one per conversation id)")
    s.add_argument("--format", choices=["locomo", "json", "jsonl"], help="default: from extension and content")
    s.add_argument("--llm", help="'none' (offline) or 'openai:MODEL' (the [openai] extra; env MEMGRAPH_LLM)")
    s.add_argument("--preset", help=PRESET_HELP)
    s.add_argument(
        "--replace",
        action="store_true",
        help="replace stored sessions that differ from the file's (default: refuse them); "
        "new turns after the stored ones are appended without it",
    )
    add_metadata_option(s)
    add_user_option(s)

    s = command("stats", help="sessions, nodes and edges by kind, size on disk")
    s.add_argument("--namespace", help="one namespace (env MEMGRAPH_NAMESPACE; default: all)")

    s = command("show", help="a stored item (node, turn, session or note), its neighbours and its provenance turns")
    s.add_argument("node_id", help="a node id (event:S1:2, arg:pixel), a turn id (D1:3), a session or note id")
    s.add_argument("--namespace")
    add_user_option(s)

    verb_cmds.add_parsers(command)

    s = command("forget", help="delete a session, or a whole namespace")
    s.add_argument("--namespace")
    add_user_option(s)
    s.add_argument("--session")

    from memgraph_agents.cli import export_cmd, migrate_cmd, reembed_cmd

    export_cmd.add_parser(command)
    migrate_cmd.add_parser(command)
    reembed_cmd.add_parser(command)

    s = command("ask", help="retrieve evidence for a question")
    s.add_argument("question")
    s.add_argument(
        "--namespace",
        action="append",
        help="the namespace (env MEMGRAPH_NAMESPACE); repeat it to rank across several in one list",
    )
    add_user_option(s)
    add_filter_options(s)
    s.add_argument(
        "--retriever",
        help=f"{', '.join(RETRIEVERS)}, or a preset's name (its retriever); default: the preset's, "
        "else MEMGRAPH_RETRIEVER (navigator)",
    )
    s.add_argument("--preset", help=PRESET_HELP)
    s.add_argument(
        "-k",
        "--top-k",
        type=int,
        default=None,
        help="evidence items (env MEMGRAPH_TOP_K; default 10), for every retriever",
    )
    s.add_argument("--trace", action="store_true", help="also print how the evidence was reached")

    s = command("demo", help="ingest the example conversation and answer a few questions (offline)")
    s.add_argument(
        "--retriever",
        help="retriever to use (default: the preset's, else MEMGRAPH_RETRIEVER: navigator); "
        "MEMGRAPH_TOP_K items per question (default 10)",
    )

    from memgraph_agents.cli import bench_cmd, draw_cmd, mcp_cmd, trace_cmd, ui_cmd

    bench_cmd.add_parser(sub)
    mcp_cmd.add_parser(sub, common)
    ui_cmd.add_parser(sub, common)
    draw_cmd.add_parser(sub, common)
    trace_cmd.add_parser(sub, common)
    return p


def _settings(args: argparse.Namespace) -> Settings:
    """The environment's settings with the command line's options, validated in one place."""
    update = {
        name: getattr(args, name)
        for name in ("data_dir", "embeddings", "llm", "preset")
        if getattr(args, name, None) not in (None, "")
    }
    return Settings.load().override(**update)


def main(argv: list[str] | None = None) -> int:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
    args = build_parser().parse_args(argv)
    from memgraph_agents.cli import (
        ask_cmd,
        bench_cmd,
        draw_cmd,
        export_cmd,
        mcp_cmd,
        memory_cmds,
        migrate_cmd,
        reembed_cmd,
        trace_cmd,
        ui_cmd,
        verb_cmds,
    )
    from memgraph_agents.cli.output import err_console

    commands = {
        "ingest": memory_cmds.cmd_ingest,
        "stats": memory_cmds.cmd_stats,
        "show": memory_cmds.cmd_show,
        "forget": memory_cmds.cmd_forget,
        "export": export_cmd.cmd_export,
        "list": verb_cmds.cmd_list,
        "note": verb_cmds.cmd_note,
        "migrate": migrate_cmd.cmd_migrate,
        "reembed": reembed_cmd.cmd_reembed,
        "ask": ask_cmd.cmd_ask,
        "demo": ask_cmd.cmd_demo,
        "bench": bench_cmd.cmd_bench,
        "draw": draw_cmd.cmd_draw,
        "trace": trace_cmd.cmd_trace,
        "mcp": mcp_cmd.cmd_mcp,
        "ui": ui_cmd.cmd_ui,
    }
    try:
        from memgraph_agents.cli.argtypes import apply_user_id

        apply_user_id(args)
        from memgraph_agents.resources import Resources, bind

        # What the command opens (every Memory it makes from these settings shares it) is
        # closed when it returns: a command run in-process (tests, scripts) leaves no file open.
        resources = Resources()
        try:
            return commands[args.command](args, bind(_settings(args), resources))
        finally:
            resources.close()
    except KeyboardInterrupt:
        err_console.print("interrupted")
        return 130
    except (ValueError, KeyError, OSError, RuntimeError, sqlite3.Error) as exc:
        # MemgraphError is a ValueError or RuntimeError; OSError covers files and dirs we could
        # not use (its message names the path); nothing reaches the user as a traceback.
        if isinstance(exc, KeyError) and exc.args:
            msg = exc.args[0]
        elif isinstance(exc, OSError) and exc.filename is not None and not isinstance(exc, MemgraphError):
            msg = f"{exc.filename}: {exc.strerror or exc}"
        else:
            msg = str(exc)
        err_console.print(f"error: {' '.join(str(msg).split())}", markup=False)
        return 2


if __name__ == "__main__":
    sys.exit(main())
