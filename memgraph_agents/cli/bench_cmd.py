"""``memgraph bench``: placeholder until the benchmark lands."""

from __future__ import annotations

import argparse


def add_parser(sub) -> None:
    sub.add_parser("bench", help="benchmarks (locomo)")


def cmd_bench(args: argparse.Namespace, settings) -> int:
    raise RuntimeError("memgraph bench is not available yet")
