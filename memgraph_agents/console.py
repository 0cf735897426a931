"""Terminal output the command line and the benchmarks share: one console for stdout, one for
stderr, and the progress bar (``rich``). A module of the package's face, so ``bench`` and ``cli``
both import it and neither imports the other for it."""

from __future__ import annotations

import sys
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
