"""``memgraph draw GRAPH --out FILE``: an exported graph as Mermaid text or an offline image."""

from __future__ import annotations

import argparse

from memgraph_agents.cli.output import console
from memgraph_agents.config import Settings
from memgraph_agents.debug.graphs import EXPORTED


def add_parser(sub, common) -> argparse.ArgumentParser:
    p = sub.add_parser("draw", parents=[common], help="draw an exported graph (.mmd Mermaid, .png or .svg; offline)")
    p.add_argument("graph", choices=[*EXPORTED, "all"], help="a graph from langgraph.json, or 'all'")
    p.add_argument(
        "--out",
        required=True,
        help="output file (.mmd, .png, .svg); with 'all': a directory, or a pattern like 'out/{graph}.png'",
    )
    return p


def cmd_draw(args: argparse.Namespace, settings: Settings) -> int:
    from pathlib import Path

    from memgraph_agents.debug.draw import FORMATS, draw
    from memgraph_agents.debug.graphs import load_graph

    names = list(EXPORTED) if args.graph == "all" else [args.graph]
    for name in names:
        out = args.out
        if args.graph == "all":
            if "{graph}" in out:
                out = out.replace("{graph}", name)
            elif Path(out).suffix.lower() in FORMATS:
                out = str(Path(out).with_name(f"{name}{Path(out).suffix}"))
            else:
                out = str(Path(out) / f"{name}.png")
        path = draw(load_graph(name), out, title=name)
        console.print(f"{name}: wrote {path}", markup=False)
    return 0
