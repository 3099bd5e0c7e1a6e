"""``troth eval DATA``: score a data set, save it, report it; fail CI below a threshold."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from troth.bounds import check
from troth.cli import judging as J
from troth.cli import traces as T
from troth.cli.app import failures_said_last, one_line_errors
from troth.cli.layout import WideOption, field, pack, show_lines
from troth.cli.layout import console as layout_console
from troth.cli.outputs import check_writable, writing
from troth.cli.render import safe
from troth.prices import format_usd
from troth.redaction import redact
from troth.textfiles import printable

if TYPE_CHECKING:
    from troth.engines.resume import ResumeMode
    from troth.engines.runner import EvalOptions
    from troth.evals import EvalResult


class EngineName(StrEnum):
    """The engines ``--engine`` can name."""

    local = "local"
    ray = "ray"


class ResumeName(StrEnum):
    """What a re-run with the same ``--eval-id`` does with an item that changed."""

    rescore = "rescore"
    strict = "strict"


ResumeOption = Annotated[
    ResumeName, typer.Option(help="Reusing --eval-id: score changed items again, or refuse (strict).")
]


DataArgument = Annotated[
    Path | None,
    typer.Argument(
        help="Items: .jsonl or .csv, or an OTLP/JSON trace export (with --engine ray: .jsonl, .parquet, a "
        "Parquet folder); or none, with --from-phoenix."
    ),
]


ThresholdOption = Annotated[
    float | None, typer.Option(help="Exit with status 1 if the mean or any item scores below this.")
]
StoreOption = Annotated[
    Path | None, typer.Option(help="SQLite file or .parquet folder (default: $TROTH_STORE or ./.troth/troth.db).")
]
EngineOption = Annotated[
    EngineName, typer.Option(help="Where items are scored: this process, or a Ray cluster (troth[ray]).")
]
RayAddressOption = Annotated[
    str | None, typer.Option(help="Ray cluster to join ('auto', 'ray://host:10001'); default: start one.")
]
MaxWaitOption = Annotated[
    float, typer.Option(help="Seconds one judge call may wait for rate limits in all (then the item fails).")
]


def eval_command(
    data: DataArgument = None,
    model: J.ModelOption = None,
    base_url: J.BaseUrlOption = None,
    concurrency: Annotated[int, typer.Option(help="Judge calls in flight at most (Ray: per worker).")] = 8,
    eval_id: Annotated[str | None, typer.Option(help="Name of the evaluation; reuse it to resume.")] = None,
    report: Annotated[Path | None, typer.Option(help="Write a self-contained HTML report here.")] = None,
    out: Annotated[Path | None, typer.Option(help="Write one JSON line per item and scorer here.")] = None,
    threshold: ThresholdOption = None,
    scale: J.ScaleOption = 1.0,
    strategy: J.StrategyOption = "auto",
    reason: J.ReasonOption = "auto",
    store: StoreOption = None,
    no_store: Annotated[bool, typer.Option("--no-store", help="Keep nothing.")] = False,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Do not replay cached judge calls.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    engine: EngineOption = EngineName.local,
    ray_address: RayAddressOption = None,
    workers: Annotated[int, typer.Option(help="Ray: scoring actors.")] = 2,
    rpm: Annotated[float | None, typer.Option(help="Provider limit: requests per minute, for the whole run.")] = None,
    tpm: Annotated[float | None, typer.Option(help="Provider limit: tokens per minute, for the whole run.")] = None,
    max_wait: MaxWaitOption = 120.0,
    resume: ResumeOption = ResumeName.rescore,
    wide: WideOption = False,
    scorer_name: J.ScorerOption = "faithfulness",
    opt: J.OptOption = None,
    level: T.LevelOption = None,
    span_name: T.SpanNameOption = None,
    attr: T.AttrOption = None,
    sample: T.SampleOption = None,
    input_attr: T.InputAttrOption = None,
    output_attr: T.OutputAttrOption = None,
    context_attr: T.ContextAttrOption = None,
    from_phoenix: T.FromPhoenixOption = None,
    project: T.ProjectOption = "default",
) -> None:
    """Score every item of DATA for faithfulness, or with what --scorer names."""
    from troth import run_evals
    from troth.engines.runner import new_eval_id

    eval_id = eval_id or new_eval_id()
    with one_line_errors():
        _check_numbers(concurrency, threshold, scale, workers, rpm, tpm, max_wait)
    check_writable(out=out, report=report)  # before any judge call is paid for
    with one_line_errors(), _resumable(eval_id, kept=not no_store), failures_said_last():
        scorer = J.build_scorer(
            scorer_name, model, base_url, opt, max_wait, scale=scale, strategy=strategy, reason=reason
        )
        attrs = (input_attr, output_attr, context_attr)
        source = T.source(data, from_phoenix, project, level, span_name, attr, sample, attrs)
        where = (engine, ray_address, workers, None if no_store else (store or True))
        options = _run_options(eval_id, where, concurrency, not no_cache, quiet, (rpm, tpm), resume)
        result = run_evals(source.items(), [{"scorer": scorer, "threshold": threshold}], **options)
        source.after(result, scorer.id, threshold)
    _finish(result, scorer.id, out=out, report=report, threshold=threshold, wide=wide)


def _run_options(
    eval_id: str,
    where: tuple[EngineName, str | None, int, Any],
    concurrency: int,
    cache: bool,
    quiet: bool,
    limits: tuple[float | None, float | None],
    resume: ResumeName,
) -> EvalOptions:
    """``run_evals``'s keyword arguments from the command's options (``where``: the engine, the
    Ray address and workers, the store)."""
    from troth.engines import RayEngine
    from troth.engines.runner import EvalOptions
    from troth.ratelimit import RateLimit

    engine, ray_address, workers, store = where
    on_ray = RayEngine(ray_address, workers, concurrency) if engine is EngineName.ray else None
    rate_limit = RateLimit(*limits) if any(limits) else None
    mode: ResumeMode = "strict" if resume is ResumeName.strict else "rescore"
    return EvalOptions(
        concurrency=concurrency,
        eval_id=eval_id,
        store=store,
        cache=cache,
        quiet=quiet,
        rate_limit=rate_limit,
        engine=on_ray,
        resume=mode,
    )


def _check_numbers(
    concurrency: int,
    threshold: float | None,
    scale: float,
    workers: int,
    rpm: float | None,
    tpm: float | None,
    max_wait: float,
) -> None:
    check("--concurrency", concurrency, low=1)
    check("--threshold", threshold, low=0)
    check("--scale", scale, low=0, strict=True)
    check("--workers", workers, low=1)
    check("--rpm", rpm, low=0, strict=True)
    check("--tpm", tpm, low=0, strict=True)
    check("--max-wait", max_wait, low=0)


def _finish(
    result: EvalResult,
    scorer_id: str,
    *,
    out: Path | None,
    report: Path | None,
    threshold: float | None,
    wide: bool = False,
) -> None:
    """The summary, the JSONL rows and the report asked for, and the exit status."""
    from troth.report.page import write_html

    console = layout_console(wide)
    _print_summary(console, result, scorer_id, wide)
    if out is not None:
        with writing("out", out), out.open("w", encoding="utf-8", errors="backslashreplace") as fh:
            for row in result.rows():
                fh.write(redact(json.dumps(row, ensure_ascii=False, default=str)) + "\n")
    if report is not None:
        with writing("report", report):
            written = write_html(result, report)
        console.print(f"report: {written}")
    _unsaved(result, out)
    below = threshold is not None and _below(console, result, scorer_id, threshold)
    failed = result.failure_line()
    if failed is not None:
        typer.echo(printable(failed), err=True)  # the last line: what failed, per step, and the first error
    if below or failed is not None:
        raise typer.Exit(1)


def _unsaved(result: EvalResult, out: Path | None) -> None:
    """Scores the store could not keep: one line naming the store's failure, exit status 2."""
    unsaved = [it for it in result.items if not it.saved]
    if not unsaved:
        return
    where = f"their scores are in {out}" if out is not None else "pass --out to keep their scores"
    message = printable(redact(unsaved[0].errors["store"].message))
    typer.echo(f"error: {message}; {len(unsaved)} of {len(result.items)} item(s) not saved: {where}", err=True)
    raise typer.Exit(2)


@contextmanager
def _resumable(eval_id: str, *, kept: bool) -> Iterator[None]:
    """Ctrl-C: one line saying how to resume (what was scored is in the store), exit status 130."""
    try:
        yield
    except KeyboardInterrupt:
        hint = f"; resume with --eval-id {eval_id}" if kept else ""
        typer.echo(f"interrupted: the items scored so far are saved{hint}", err=True)
        raise typer.Exit(130) from None


def _print_summary(console: Console, result: EvalResult, scorer_id: str, wide: bool = False) -> None:
    s = result.summary
    fs = s.scorers[scorer_id]
    mean = "-" if fs.mean is None else f"{fs.mean:.3f}"
    cells = {
        "items": str(s.total_items),
        "scored": str(s.scored_items),
        "failed": str(s.failed_items),
        "resumed": str(s.resumed_items),
        "mean": mean,
        "judge calls": str(s.judge_calls),
        "cached": str(s.cached_calls),
        "tokens": f"{s.prompt_tokens + s.completion_tokens:,}",
        "cost": format_usd(s.cost_usd),
        "wall s": f"{s.wall_s:.1f}",
    }
    if wide:
        table = Table(title=f"evaluation {safe(result.eval_id)}")
        for col in cells:
            table.add_column(col)
        table.add_row(*cells.values())
        console.print(table)
    else:
        show_lines(console, pack([field("evaluation", result.eval_id, "bold")], console.width))
        show_lines(console, pack([field(k, v) for k, v in cells.items()], console.width, indent=2))
    if s.rescored_items:
        console.print(
            f"{s.rescored_items} item(s) changed since evaluation {safe(result.eval_id)} scored them: scored again",
            highlight=False,
        )
    for line, ids in _failures(result).items():
        named = ", ".join(safe(i) for i in ids[:3]) + (f" and {len(ids) - 3} more" if len(ids) > 3 else "")
        console.print(f"[red]{'item' if len(ids) == 1 else 'items'} {named}: {line}[/red]")


def _failures(result: EvalResult) -> dict[str, list[str]]:
    """Each distinct failure line, with the ids of the items that failed so (a broken judge fails
    every later item alike: one line for them all)."""
    lines: dict[str, list[str]] = {}
    for item in result.items:
        for key, err in item.errors.items():
            if key == "store":
                continue  # one line for them all (_unsaved)
            where = f"{safe(key)} failed in {safe(err.step)}" if err.step else f"{safe(key)} failed"
            lines.setdefault(f"{where}: {safe(err.type)}: {safe(err.message)}", []).append(item.id)
    return lines


def _below(console: Console, result: EvalResult, scorer_id: str, threshold: float) -> bool:
    """True (and said) when the mean or any item is below ``threshold``, or an item failed."""
    s, fs = result.summary, result.summary.scorers[scorer_id]
    below = [it.id for it in result.items if scorer_id in it.results and it.results[scorer_id].score < threshold]
    if fs.mean is None or fs.mean < threshold or below or s.failed_items:
        mean = "-" if fs.mean is None else f"{fs.mean:.3f}"
        counts = f"{len(below)} item(s) below, {s.failed_items} failed"
        console.print(f"[red]below threshold {threshold:g}: mean {mean}, {counts}[/red]")
        return True
    return False


def register(app: typer.Typer) -> None:
    app.command("eval")(eval_command)
