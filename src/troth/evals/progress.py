"""The progress bar of a long evaluation (shown on a terminal only)."""

from __future__ import annotations

from troth.evals.eval_result import ItemResult


class Progress:
    """A rich progress bar on a terminal: items done, failures, running mean, tokens."""

    def __init__(self, total: int | None, quiet: bool) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        console = Console(stderr=True)
        self.enabled = not quiet and console.is_terminal
        self.failed = 0
        self.scores: list[float] = []
        self.tokens = 0
        self._progress = Progress(
            TextColumn("[bold]eval"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[info]}"),
            TimeElapsedColumn(),
            console=console,
            disable=not self.enabled,
        )
        self._task = self._progress.add_task("eval", total=total, info="")

    def __enter__(self) -> Progress:
        self._progress.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self._progress.__exit__(None, None, None)

    def advance(self, item: ItemResult) -> None:
        self.failed += item.failed
        for r in item.results.values():
            self.scores.append(r.score)
            self.tokens += sum(u.prompt_tokens + u.completion_tokens for u in r.usage.values())
        self._progress.update(self._task, advance=1, info=self._info())

    def waiting(self, seconds: float) -> None:
        """A judge call about to wait ``seconds`` for a rate limit: said on the line until the next item."""
        self._progress.update(self._task, info=f"{self._info()} · waiting {seconds:.0f}s (rate limit)")

    def _info(self) -> str:
        mean = sum(self.scores) / len(self.scores) if self.scores else 0.0
        return f"failed {self.failed} · mean {mean:.3f} · {self.tokens:,} tokens"
