"""Batch evaluation: ``run_evals`` / ``arun_evals`` score many items with many scorers.

Failures are values: an item whose target or scorer fails keeps its error (type, message and
step) and the run goes on; failed items are left out of the means. One semaphore bounds the
judge calls in flight across the whole run. Every scorer run is saved to the store as it
finishes, judge calls are cached there, and a re-run with the same ``eval_id`` scores only what
is missing.
"""

from __future__ import annotations

import asyncio
import contextlib
import csv
import inspect
import json
import time
import uuid
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from troth._sync import run_sync
from troth.errors import ScorerRunError, TrothError
from troth.judges.calls import CALL_SETTINGS, CallSettings
from troth.scorers.base import Scorer
from troth.scorers.context import is_messages, tool_results
from troth.store.base import RunRecord, Store, now, open_store
from troth.types import ScoreResult, StepUsage

ITEM_FIELDS = {"id", "input", "output", "context", "ground_truth", "metadata"}


@dataclass
class ScorerEntry:
    """A scorer and its pass threshold (``score >= threshold`` passes; None: no threshold)."""

    scorer: Scorer
    threshold: float | None = None


@dataclass
class ItemError:
    """Why an item (or one scorer on it) failed."""

    type: str
    message: str
    step: str | None = None


@dataclass
class ItemResult:
    """One item: what went in, what came out, and each scorer's result or error."""

    id: str
    input: Any
    output: Any = None
    context: list[str] | None = None
    ground_truth: Any = None
    metadata: dict[str, Any] = field(default_factory=dict)
    results: dict[str, ScoreResult] = field(default_factory=dict)
    errors: dict[str, ItemError] = field(default_factory=dict)  # key: scorer id, or "target"
    resumed: bool = False

    @property
    def failed(self) -> bool:
        return bool(self.errors)


@dataclass
class ScorerSummary:
    mean: float | None
    scored: int
    failed: int
    threshold: float | None
    passed: int | None
    below_threshold: int | None


@dataclass
class EvalSummary:
    total_items: int
    scored_items: int
    failed_items: int
    resumed_items: int
    judge_calls: int
    cached_calls: int
    prompt_tokens: int
    completion_tokens: int
    wall_s: float
    scorers: dict[str, ScorerSummary]


@dataclass
class EvalResult:
    """The outcome of ``run_evals``."""

    eval_id: str
    items: list[ItemResult]
    summary: EvalSummary

    @property
    def scores(self) -> dict[str, float | None]:
        """Mean score per scorer over the items it scored (failed items left out)."""
        return {sid: s.mean for sid, s in self.summary.scorers.items()}

    def rows(self) -> list[dict[str, Any]]:
        """One flat row per item and scorer."""
        out = []
        for item in self.items:
            for sid in self.summary.scorers:
                res, err = item.results.get(sid), item.errors.get(sid) or item.errors.get("target")
                out.append(
                    {
                        "item_id": item.id,
                        "scorer_id": sid,
                        "score": res.score if res else None,
                        "reason": res.reason if res else None,
                        "error": f"{err.type}: {err.message}" if err else None,
                        "error_step": err.step if err else None,
                        "input": item.input,
                        "output": item.output,
                        "run_id": res.run_id if res else None,
                    }
                )
        return out

    def to_pandas(self) -> Any:
        """A pandas DataFrame with one row per item x scorer (needs pandas)."""
        try:
            import pandas as pd
        except ImportError as exc:
            raise ImportError("to_pandas() needs pandas: pip install pandas") from exc
        return pd.DataFrame(self.rows())


OnItemComplete = Callable[[ItemResult, Any, dict[str, ScoreResult]], Any]


def load_items(data: Any) -> list[dict[str, Any]]:
    """Items from a list of dicts, a .jsonl/.csv path or a pandas DataFrame; checked row by row."""
    if isinstance(data, (str, Path)):
        rows = _read_file(Path(data))
    elif hasattr(data, "to_dict") and hasattr(data, "columns"):
        rows = data.to_dict(orient="records")
    elif isinstance(data, Iterable) and not isinstance(data, (str, bytes, Mapping)):
        rows = list(data)
    else:
        raise TypeError(f"data must be a list of dicts, a .jsonl/.csv path or a DataFrame, not {type(data).__name__}")
    if not rows:
        raise ValueError("data is empty: there is nothing to evaluate")
    seen: set[str] = set()
    items = []
    for i, row in enumerate(rows):
        where = f"data row {i + 1}"
        if not isinstance(row, Mapping):
            raise TypeError(f"{where} must be a dict, not {type(row).__name__}")
        if row.get("input") is None and row.get("output") is None:
            raise ValueError(f"{where} has neither 'input' nor 'output'")
        item = {k: row.get(k) for k in ITEM_FIELDS}
        item_id = str(row["id"]) if row.get("id") is not None else str(i)
        if item_id in seen:
            raise ValueError(f"{where}: duplicate id {item_id!r}")
        seen.add(item_id)
        item["id"] = item_id
        if item["context"] is not None and isinstance(item["context"], str):
            item["context"] = [item["context"]]
        item["metadata"] = dict(item["metadata"] or {})
        items.append(item)
    return items


def _read_file(path: Path) -> list[dict[str, Any]]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ValueError(f"cannot read {path}: {exc.strerror}") from exc
    if path.suffix == ".jsonl":
        rows = []
        for n, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{n}: not valid JSON ({exc.msg})") from None
        return rows
    if path.suffix == ".csv":
        rows = list(csv.DictReader(text.splitlines()))
        for n, row in enumerate(rows, 2):
            if None in row:
                raise ValueError(f"{path}:{n}: more fields than the header has")
            if row.get("context"):
                with contextlib.suppress(json.JSONDecodeError):  # a JSON list, or a plain string
                    row["context"] = json.loads(row["context"])
        return rows
    raise ValueError(f"{path}: unsupported file type {path.suffix!r} (use .jsonl or .csv)")


def _entries(scorers: Any) -> list[ScorerEntry]:
    if isinstance(scorers, (Scorer, Mapping)):
        scorers = [scorers]
    entries = []
    for i, s in enumerate(scorers or []):
        if isinstance(s, Scorer):
            entries.append(ScorerEntry(s))
        elif isinstance(s, Mapping) and isinstance(s.get("scorer"), Scorer):
            t = s.get("threshold")
            if t is not None and (isinstance(t, bool) or not isinstance(t, (int, float))):
                raise TypeError(f"scorers[{i}]['threshold'] must be a number")
            entries.append(ScorerEntry(s["scorer"], t))
        else:
            raise TypeError(f"scorers[{i}] must be a Scorer or {{'scorer': Scorer, 'threshold': float}}")
    if not entries:
        raise ValueError("no scorers given")
    ids = [e.scorer.id for e in entries]
    if len(set(ids)) != len(ids):
        raise ValueError(f"scorer ids must be unique, got {ids}")
    return entries


async def _call_target(target: Any, value: Any) -> Any:
    for name in ("agenerate", "generate"):
        method = getattr(target, name, None)
        if callable(method):
            out = method(value)
            return await out if inspect.isawaitable(out) else out
    if not callable(target):
        raise TypeError("target must be a callable or have .generate / .agenerate")
    out = target(value)
    return await out if inspect.isawaitable(out) else out


def _normalise_output(output: Any) -> Any:
    """A string or a chat transcript; objects with ``messages`` or ``text`` are unwrapped."""
    if isinstance(output, str) or is_messages(output):
        return output
    for attr in ("messages", "text"):
        value = getattr(output, attr, None)
        if isinstance(value, str) or is_messages(value):
            return value
    if isinstance(output, Mapping):
        for key in ("messages", "text", "output"):
            if isinstance(output.get(key), str) or is_messages(output.get(key)):
                return output[key]
    raise TypeError(f"target returned {type(output).__name__}; expected a string, chat messages, or .text/.messages")


def _record(
    eval_id: str,
    item: dict[str, Any],
    scorer: Scorer,
    result: ScoreResult | None,
    error: ItemError | None,
    started: str,
) -> RunRecord:
    fields: dict[str, Any] = {
        "scorer_id": scorer.id,
        "eval_id": eval_id,
        "item_id": item["id"],
        "scorer_version": scorer.version,
        "prompt_version": scorer.prompt_version,
        "judge_model": scorer.judge.model_id if scorer.judge else None,
        "input": item["input"],
        "output": item["output"],
        "context": item["context"],
        "created_at": started,
    }
    if result is not None:
        return RunRecord.from_result(result, result=_jsonable(result.to_dict()), **fields)
    assert error is not None
    return RunRecord(
        run_id=str(uuid.uuid4()),
        error=f"{error.type}: {error.message}",
        error_step=error.step,
        finished_at=now(),
        **fields,
    )


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value, default=lambda o: o.model_dump() if hasattr(o, "model_dump") else str(o)))


def result_from_record(record: RunRecord) -> ScoreResult:
    """Rebuild a ScoreResult saved by an earlier run (for resuming)."""
    data = dict(record.result or {})
    usage = {k: StepUsage(**v) for k, v in (data.pop("usage", {}) or {}).items()}
    return ScoreResult(**data, usage=usage)


async def arun_evals(
    data: Any,
    scorers: Any,
    target: Any = None,
    on_item_complete: OnItemComplete | None = None,
    *,
    concurrency: int = 8,
    eval_id: str | None = None,
    store: Any = True,
    cache: bool = True,
    quiet: bool = False,
) -> EvalResult:
    """Score every item with every scorer; see :func:`run_evals`."""
    items = load_items(data)
    entries = _entries(scorers)
    if isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1:
        raise ValueError(f"concurrency must be a positive integer, not {concurrency!r}")
    if target is None and any(it["output"] is None for it in items):
        missing = next(it["id"] for it in items if it["output"] is None)
        raise ValueError(f"item {missing!r} has no 'output' and no target was given to produce one")
    for entry in entries:
        for judge in entry.scorer.judges():
            judge.backend()  # configuration errors before any work
    kept: Store | None = open_store(store)
    eval_id = eval_id or f"eval-{uuid.uuid4().hex[:12]}"
    done = kept.completed(eval_id) if kept is not None else {}
    token = CALL_SETTINGS.set(CallSettings(cache=kept if cache else None, limiter=asyncio.Semaphore(concurrency)))
    started_at = time.perf_counter()
    progress = _Progress(len(items), quiet)
    item_gate = asyncio.Semaphore(max(concurrency * 2, 4))

    async def one(item: dict[str, Any]) -> ItemResult:
        async with item_gate:
            res = ItemResult(
                item["id"], item["input"], item["output"], item["context"], item["ground_truth"], item["metadata"]
            )
            todo = [e for e in entries if (item["id"], e.scorer.id) not in done]
            for e in entries:
                if (item["id"], e.scorer.id) in done:
                    res.results[e.scorer.id] = result_from_record(done[(item["id"], e.scorer.id)])
            res.resumed = len(todo) < len(entries)
            target_output = None
            if todo and item["output"] is None:
                try:
                    target_output = await _call_target(target, item["input"])
                    item["output"] = res.output = _normalise_output(target_output)
                except Exception as exc:  # the item fails, the run goes on
                    res.errors["target"] = ItemError(type(exc).__name__, str(exc), "target")
            if item["context"] is None and is_messages(item["output"]):
                res.context = tool_results(item["output"]) or None
            if "target" not in res.errors:
                await asyncio.gather(*(run_scorer(e, item, res) for e in todo))
            progress.advance(res)
            if on_item_complete is not None:
                try:
                    out = on_item_complete(res, target_output, dict(res.results))
                    if inspect.isawaitable(out):
                        await out
                except Exception as exc:
                    res.errors["on_item_complete"] = ItemError(type(exc).__name__, str(exc), "on_item_complete")
            return res

    async def run_scorer(entry: ScorerEntry, item: dict[str, Any], res: ItemResult) -> None:
        scorer = entry.scorer
        started = now()
        error: ItemError | None = None
        result: ScoreResult | None = None
        try:
            result = await scorer.arun(
                item["input"],
                item["output"],
                context=item["context"],
                ground_truth=item["ground_truth"],
                metadata=item["metadata"],
                run_id=str(uuid.uuid4()),
            )
            res.results[scorer.id] = result
        except ScorerRunError as exc:
            cause = exc.__cause__ or exc
            error = ItemError(type(cause).__name__, str(cause), exc.failed_step)
        except (TrothError, TypeError, ValueError) as exc:
            error = ItemError(type(exc).__name__, str(exc), None)
        if error is not None:
            res.errors[scorer.id] = error
        if kept is not None:
            kept.save_run(_record(eval_id, item, scorer, result, error, started))

    try:
        with progress:
            results = await asyncio.gather(*(one(it) for it in items))
    finally:
        CALL_SETTINGS.reset(token)
        for entry in entries:
            for judge in entry.scorer.judges():
                await judge.aclose()
        if kept is not None and store is not kept:
            kept.close()
    return EvalResult(eval_id, list(results), _summarise(results, entries, time.perf_counter() - started_at))


def run_evals(
    data: Any,
    scorers: Any,
    target: Any = None,
    on_item_complete: OnItemComplete | None = None,
    *,
    concurrency: int = 8,
    eval_id: str | None = None,
    store: Any = True,
    cache: bool = True,
    quiet: bool = False,
) -> EvalResult:
    """Score every item of ``data`` with every scorer (sync wrapper over :func:`arun_evals`).

    ``data``: a list of dicts (``input`` and/or ``output``, optional ``id``, ``context``,
    ``ground_truth``, ``metadata``), a .jsonl/.csv path, or a pandas DataFrame. ``scorers``:
    Scorers or ``{"scorer": s, "threshold": t}``. ``target``: produces the output of items that
    have none (a sync/async callable, or an object with ``.generate``/``.agenerate``).
    ``concurrency`` bounds judge calls in flight across the run. ``store``: True for
    ``$TROTH_STORE`` or ``./.troth/troth.db``, a path, a Store, or None to keep nothing.
    ``cache`` replays identical judge calls from the store. Reusing an ``eval_id`` resumes.
    """
    return run_sync(
        lambda: arun_evals(
            data,
            scorers,
            target,
            on_item_complete,
            concurrency=concurrency,
            eval_id=eval_id,
            store=store,
            cache=cache,
            quiet=quiet,
        )
    )


def _summarise(items: list[ItemResult], entries: list[ScorerEntry], wall: float) -> EvalSummary:
    per: dict[str, ScorerSummary] = {}
    for e in entries:
        sid = e.scorer.id
        scores = [it.results[sid].score for it in items if sid in it.results and not it.failed]
        failed = sum(1 for it in items if sid in it.errors or "target" in it.errors)
        passed = sum(1 for s in scores if s >= e.threshold) if e.threshold is not None else None
        per[sid] = ScorerSummary(
            mean=sum(scores) / len(scores) if scores else None,
            scored=len(scores),
            failed=failed,
            threshold=e.threshold,
            passed=passed,
            below_threshold=len(scores) - passed if passed is not None else None,
        )
    usages = [u for it in items if not it.resumed for r in it.results.values() for u in r.usage.values()]
    return EvalSummary(
        total_items=len(items),
        scored_items=sum(1 for it in items if not it.failed),
        failed_items=sum(1 for it in items if it.failed),
        resumed_items=sum(1 for it in items if it.resumed),
        judge_calls=sum(u.calls for u in usages),
        cached_calls=sum(u.cached_calls for u in usages),
        prompt_tokens=sum(u.prompt_tokens for u in usages),
        completion_tokens=sum(u.completion_tokens for u in usages),
        wall_s=round(wall, 3),
        scorers=per,
    )


class _Progress:
    """A rich progress bar on a terminal: items done, failures, running mean, tokens."""

    def __init__(self, total: int, quiet: bool) -> None:
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

    def __enter__(self) -> _Progress:
        self._progress.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self._progress.__exit__(None, None, None)

    def advance(self, item: ItemResult) -> None:
        self.failed += item.failed
        for r in item.results.values():
            self.scores.append(r.score)
            self.tokens += sum(u.prompt_tokens + u.completion_tokens for u in r.usage.values())
        mean = sum(self.scores) / len(self.scores) if self.scores else 0.0
        info = f"failed {self.failed} · mean {mean:.3f} · {self.tokens:,} tokens"
        self._progress.update(self._task, advance=1, info=info)
