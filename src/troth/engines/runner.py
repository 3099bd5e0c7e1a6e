"""``run_evals`` / ``arun_evals``: check the scorers and settings, open the store, hand the
evaluation to an engine (the local one unless another is given), and summarise what came back.

Failures are values: an item whose target, scorer, context function or store write fails keeps
its error (type, message and step) and the run goes on. Reusing an ``eval_id`` resumes.
"""

from __future__ import annotations

import contextlib
import logging
import time
import uuid
from dataclasses import dataclass
from typing import Any, TypedDict, Unpack

from troth._keywords import check_keywords
from troth._sync import run_sync
from troth.engines.base import Engine, EvalJob
from troth.engines.item import item_error
from troth.engines.local import LocalEngine
from troth.engines.resume import ResumeMode, check_mode
from troth.errors import StoreError
from troth.evals.entries import scorer_entries
from troth.evals.eval_result import EvalResult, ItemResult, OnItemComplete, summarise
from troth.ratelimit import RateLimit, check_rate_limit
from troth.store import Store, open_store

log = logging.getLogger("troth")


def new_eval_id() -> str:
    """A fresh evaluation id (``eval-`` and 12 hex digits)."""
    return f"eval-{uuid.uuid4().hex[:12]}"


class EvalOptions(TypedDict, total=False):
    """The keyword arguments of :func:`run_evals` and :func:`arun_evals`."""

    concurrency: int
    eval_id: str | None
    store: Any
    cache: bool
    quiet: bool
    rate_limit: RateLimit | None
    engine: Engine | None
    resume: ResumeMode


@dataclass(frozen=True)
class _Settings:
    concurrency: int = 8
    eval_id: str | None = None
    store: Any = True
    cache: bool = True
    quiet: bool = False
    rate_limit: RateLimit | None = None
    engine: Engine | None = None
    resume: ResumeMode = "rescore"


async def arun_evals(
    data: Any,
    scorers: Any,
    target: Any = None,
    on_item_complete: OnItemComplete | None = None,
    **options: Unpack[EvalOptions],
) -> EvalResult:
    """Score every item with every scorer; see :func:`run_evals`."""
    check_keywords("run_evals", options, EvalOptions)
    settings = _Settings(**options)
    entries = scorer_entries(scorers)
    concurrency, engine = settings.concurrency, settings.engine
    if isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1:
        raise ValueError(f"concurrency must be a positive integer, not {concurrency!r}")
    if engine is not None and not isinstance(engine, Engine):
        raise TypeError(f"engine must be an engine such as troth.RayEngine(), not {type(engine).__name__}")
    limit = check_rate_limit(settings.rate_limit)
    check_mode(settings.resume)
    runner = engine or LocalEngine()
    source = runner.source(data, target)  # bad data fails before any store or cluster opens
    judges = [judge for entry in entries for judge in entry.scorer.judges()]
    for judge in judges:
        judge.backend()  # configuration errors before any work
    kept: Store | None = open_store(settings.store)
    job = EvalJob(
        source,
        entries,
        target,
        on_item_complete,
        kept,
        settings.eval_id or new_eval_id(),
        concurrency,
        limit,
        settings.quiet,
        settings.cache,
        settings.resume,
    )
    started_at = time.perf_counter()
    try:
        results = await runner.run(job)
        if kept is not None:
            flush(kept, results)
    except BaseException:
        if kept is not None:  # interrupted: what was scored is written, for a resume
            with contextlib.suppress(Exception):
                kept.flush()
        raise
    finally:
        for judge in judges:
            await judge.aclose()
        if kept is not None and settings.store is not kept:
            with contextlib.suppress(StoreError):  # a write that failed is on the items already
                kept.close()
    result = EvalResult(job.eval_id, list(results), summarise(results, entries, time.perf_counter() - started_at))
    if (line := result.failure_line()) is not None:
        log.warning("%s", line, extra={"failure_line": True})  # on stderr unless the app configures logging
    return result


def flush(store: Store, results: list[ItemResult]) -> None:
    """Write out what the store buffers; if it cannot, the items of the runs left unwritten keep
    the StoreError (step ``store``): their scores are returned, counted as not saved."""
    try:
        store.flush()
    except StoreError as exc:
        lost = {r.item_id for r in store.unsaved()}
        for res in results:
            if res.id in lost:
                res.errors["store"] = item_error(exc, "store")


def run_evals(
    data: Any,
    scorers: Any,
    target: Any = None,
    on_item_complete: OnItemComplete | None = None,
    **options: Unpack[EvalOptions],
) -> EvalResult:
    """Score every item of ``data`` with every scorer (sync wrapper over :func:`arun_evals`).

    ``data``: a list of dicts (``input`` and/or ``output``, optional ``id``, ``context``,
    ``ground_truth``, ``metadata``), a .jsonl/.csv path, or a pandas DataFrame. ``scorers``:
    Scorers or ``{"scorer": s, "threshold": t}``. ``target``: produces the output of items that
    have none (a sync/async callable, or an object with ``.generate``/``.agenerate``).
    Keyword options: ``concurrency`` (default 8) bounds judge calls in flight across the run.
    ``store``: True (default) for ``$TROTH_STORE`` or ``./.troth/troth.db``, a path, a Store, or
    None to keep nothing. ``cache`` (default True) replays identical judge calls from the store.
    ``eval_id``: reusing one resumes: an item's stored results are kept while the item (input,
    output, context, ground truth) and the scorer's settings are unchanged, and a changed item is
    scored again (``resume="strict"``: refused with ``ChangedItemsError`` before any work).
    ``quiet``: no progress bar. ``rate_limit``: a :class:`~troth.RateLimit` every judge call of
    the run keeps to. ``engine``: where items are
    scored (default: this process; ``troth.RayEngine()``: a Ray cluster, with ``data`` also a
    .jsonl or Parquet path read there).
    """
    return run_sync(lambda: arun_evals(data, scorers, target, on_item_complete, **options))
