"""Terminal output helpers: one console, readable tables, progress bars."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from contextlib import contextmanager

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from rich.text import Text

# Pipes and logs get a wide console, so tables keep whole kind names and lines stay whole.
console = Console(highlight=False, width=None if sys.stdout.isatty() else 200)
err_console = Console(stderr=True, highlight=False, soft_wrap=True)


class RateColumn(ProgressColumn):
    """Units per second over the task so far (``12.3 turns/s``); blank before the first step."""

    def __init__(self, unit: str) -> None:
        super().__init__()
        self.unit = unit

    def render(self, task: Task) -> Text:
        elapsed = task.finished_time if task.finished else task.elapsed
        if not elapsed or not task.completed:
            return Text("")
        return Text(f"{task.completed / elapsed:.1f} {self.unit}/s")


@contextmanager
def progress_bar(unit: str | None = None):
    """A progress bar on stderr; quiet (no animation) when stderr is not a terminal. ``unit``
    (e.g. ``"turns"``): also the rate, units per second."""
    rate = [RateColumn(unit)] if unit else []
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        *rate,
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=err_console,
        disable=False,
        transient=False,
        auto_refresh=sys.stderr.isatty(),
    ) as p:
        yield p


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
    return os.environ.get("MEMGRAPH_NAMESPACE", "").strip()


def print_json(text: str) -> None:
    """JSON on stdout as is: never wrapped or highlighted (scripts parse it)."""
    sys.stdout.write(text.rstrip("\n") + "\n")
    sys.stdout.flush()
