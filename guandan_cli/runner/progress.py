"""Progress of a run on stderr: a rich bar (matches or deals, deals/s, ETA), or a callback."""

from __future__ import annotations

import time
from collections.abc import Callable

#: how a run reports progress: ``(matches, deals)`` finished since the last call
Report = Callable[[int, int], None]


class RichProgress:
    """A rich progress bar titled ``label``: ``simulate``'s in full, a comparison's compact."""

    def __init__(self, total: int, done: int = 0, label: str = "simulate", unit: str = "matches") -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        if label == "simulate":
            columns = [
                TextColumn("[bold]simulate"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn(unit),
                TextColumn("{task.fields[deals]} deals  {task.fields[rate]} deals/s"),
                TimeElapsedColumn(),
            ]
        else:  # a labelled run (a comparison): compact, to fit 80 columns with the label
            columns = [
                TextColumn("[bold]{task.description}"),
                BarColumn(bar_width=12),
                MofNCompleteColumn(),
                TextColumn(unit),
                TextColumn("{task.fields[rate]} deals/s"),
            ]
        self._progress = Progress(
            *columns,
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=Console(stderr=True),
            transient=False,
        )
        self._t0 = time.monotonic()
        self._deals = 0
        self._task = self._progress.add_task(label, total=total, completed=done, deals=0, rate="-")
        self._progress.start()

    def __call__(self, matches: int, deals: int) -> None:
        self._deals += deals
        dt = time.monotonic() - self._t0
        rate = f"{self._deals / dt:.1f}" if dt > 0 else "-"
        self._progress.update(self._task, advance=matches, deals=self._deals, rate=rate)

    def close(self) -> None:
        self._progress.stop()


def reporter(
    progress: bool | Report, total: int, done: int, label: str | None, unit: str
) -> tuple[Report | None, RichProgress | None]:
    """``(report, bar)``: a bar for ``progress=True`` (to close at the end), the callable itself
    for a callable, nothing otherwise."""
    if progress is True:
        bar = RichProgress(total=total, done=done, label=label or "simulate", unit=unit)
        return bar, bar
    if callable(progress):
        return progress, None
    return None, None


__all__ = ["Report", "RichProgress", "reporter"]
