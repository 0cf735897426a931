"""Terminal output helpers: one console, readable tables, progress bars."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from rich.table import Table

from memgraph_agents.console import RateColumn, console, err_console, progress_bar

__all__ = ["RateColumn", "console", "env_namespace", "err_console", "print_json", "progress_bar", "table"]


def table(title: str, columns: Sequence[str], rows: Sequence[Sequence[object]]) -> Table:
    t = Table(title=title, title_justify="left")
    for i, c in enumerate(columns):
        t.add_column(c, justify="right" if i else "left")
    for r in rows:
        t.add_row(*[str(x) for x in r])
    return t


def print_evidence(evidence, limit: int = 5, indent: str = "  ", with_namespace: bool = False) -> None:
    for rank, ev in enumerate(evidence[:limit], start=1):
        dates = ",".join(sorted(set(ev.session_dates)))
        turns = ",".join(ev.turn_ids[:4]) + ("…" if len(ev.turn_ids) > 4 else "")
        text = " ".join(ev.text.split())
        text = text if len(text) <= 220 else text[:217] + "…"
        where = f"{ev.namespace}: " if with_namespace else ""
        # the mark and the question a reply answers are never cut with the text (Evidence's wording)
        notes = [n for n in (ev.context_note(), text, ev.mark()) if n]
        console.print(
            f"{indent}{rank}. {where}[{dates} | {turns}] ({ev.kind}, {ev.score:.3f}) {' '.join(notes)}",
            markup=False,
            soft_wrap=True,  # one line an item: a terminal wraps it, a pipe keeps it whole
        )


def env_namespace() -> str:
    """``MEMGRAPH_NAMESPACE`` when it is set: commands that otherwise pick or list namespaces
    (``ingest``: one per conversation; ``stats``: all) then work on that one."""
    from memgraph_agents.config_process import process_settings

    return process_settings().namespace.strip()


def print_json(text: str) -> None:
    """JSON on stdout as is: never wrapped or highlighted (scripts parse it)."""
    sys.stdout.write(text.rstrip("\n") + "\n")
    sys.stdout.flush()
