"""``troth ui``: a local, read-only web app over the store (Starlette, server-rendered).

Pages: the evaluations (newest first, filterable, paged); one evaluation (histogram, failures,
items sorted by score, paged); one scorer run (the answer with each claim highlighted by
verdict, the evidence located in the context, the reason, tokens and cost); a comparison of two
evaluations; live scores by hour with the worst answers.

The handlers are plain functions, run in Starlette's thread pool, so a slow page never holds up
the others; the catalog's lock is held only while rows are fetched. Stored text over
``TEXT_LIMIT`` is shown cut, with a link to the whole text as ``text/plain``. A store that
disappears or cannot be read gives a page that says so (503).
"""

from __future__ import annotations

import contextlib
import functools
import json
import math
import sqlite3
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from troth.errors import StoreError
from troth.extras import load, require
from troth.store import open_store, store_path
from troth.ui.catalog import Catalog
from troth.ui.render import markup, render

PAGE = 50
TEXT_LIMIT = 200_000  # characters of one stored text shown on a page; the rest through /raw
RAW_FIELDS = ("input", "output", "context")


def create_app(store: str | Path | None = None) -> Any:
    """The Starlette app over the store at ``store`` (a SQLite file or a Parquet store's folder;
    None: ``$TROTH_STORE``, else ``./.troth/troth.db``), opened read-only."""
    require("ui")
    from starlette.applications import Starlette
    from starlette.routing import Route

    from troth.compare.stats import preload

    preload()  # the compare page's statistics, imported before the first request
    path = store_path(store)
    pages = Pages(Catalog(open_store(path, read_only=True)), path)
    handlers: list[tuple[str, Callable[[Any], Any]]] = [
        ("/", pages.evals),
        ("/evals/{eval_id:path}", pages.evaluation),
        ("/runs/{run_id:path}", pages.run),
        ("/raw/{field}/{run_id:path}", pages.raw),
        ("/compare", pages.compare),
        ("/live", pages.live),
    ]
    routes = [Route(route, _readable(handler, path)) for route, handler in handlers]

    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[None]:
        yield
        pages.catalog.close()

    return Starlette(routes=routes, lifespan=lifespan)


class Pages:
    """One handler per page; each reads the catalog and renders its template."""

    def __init__(self, catalog: Catalog, store: Path) -> None:
        self.catalog, self.store = catalog, store

    def evals(self, request: Any) -> Any:
        query = request.query_params.get("q", "")
        found = self.catalog.evals(query)
        page, pages = _page(request, len(found))
        shown = found[(page - 1) * PAGE : page * PAGE]
        return _html(render("evals.html", evals=shown, q=query, total=len(found), page=page, pages=pages))

    def evaluation(self, request: Any) -> Any:
        eval_id = request.path_params["eval_id"]
        row = self.catalog.eval_row(eval_id)
        if row is None:
            return _missing(f"No evaluation {eval_id!r} in this store.")
        from troth.report.page import histogram_html

        sort = request.query_params.get("sort", "score")
        page, pages = _page(request, row.runs)
        items = self.catalog.items(eval_id, sort, (page - 1) * PAGE, PAGE)
        return _html(
            render(
                "eval.html",
                e=row,
                items=items,
                failures=self.catalog.failures(eval_id),
                sort=sort,
                histogram=markup(histogram_html(self.catalog.scores(eval_id))),
                page=page,
                pages=pages,
            )
        )

    def run(self, request: Any) -> Any:
        record = self.catalog.run(request.path_params["run_id"])
        if record is None:
            return _missing(f"No scorer run {request.path_params['run_id']!r} in this store.")
        from troth.report.page import evidence_html, highlight_output, marked_context

        verdicts = record.verdicts or []
        output, output_size = _clip(raw_text(record, "output"))
        given, input_size = _clip(raw_text(record, "input"))
        context = [
            (markup(marked_context(text, i, verdicts)), size)
            for i, (text, size) in enumerate(_clip(c) for c in record.context or [])
        ]
        tokens = sum(int(u.get("prompt_tokens", 0)) + int(u.get("completion_tokens", 0)) for u in record.usage.values())
        claims = [(v, markup(evidence_html(v.evidence, record.context))) for v in verdicts]
        return _html(
            render(
                "run.html",
                r=record,
                answer=markup(highlight_output(output, verdicts)),
                verdicts=claims,
                tokens=f"{tokens:,}",
                given=given,
                sizes={"input": input_size, "output": output_size},
                context=context,
                limit=TEXT_LIMIT,
            )
        )

    def raw(self, request: Any) -> Any:
        """One stored text of a run, whole, as ``text/plain`` (context segments between blank lines)."""
        field, run_id = request.path_params["field"], request.path_params["run_id"]
        record = self.catalog.run(run_id) if field in RAW_FIELDS else None
        if record is None:
            return _missing(f"No {field!r} of a scorer run {run_id!r} in this store.")
        responses = load("starlette.responses", "ui")
        text = "\n\n".join(record.context or []) if field == "context" else raw_text(record, field)
        return responses.PlainTextResponse(text)

    def compare(self, request: Any) -> Any:
        from troth.compare import compare_evals

        a, b = request.query_params.get("a"), request.query_params.get("b")
        comparison, error = None, None
        if a and b:
            store = open_store(self.store, read_only=True)  # its own connection: one request's reads
            try:
                comparison = compare_evals(a, b, store=store)
            except ValueError as exc:
                error = str(exc)
            finally:
                store.close()
        evals = self.catalog.evals()  # newest first: by default B is the newest, A the one before it
        pick_b, pick_a = (evals[0].eval_id if evals else None), (evals[1].eval_id if len(evals) > 1 else None)
        view = None
        if comparison is not None:
            from troth.ui.render import shown

            view = shown(comparison, request.query_params.get("show", "changed"), _asked_page(request), PAGE)
        page = render(
            "compare.html", c=comparison, error=error, evals=evals, limit=100, pick_a=pick_a, pick_b=pick_b, view=view
        )
        return _html(page, 404 if error else 200)

    def live(self, request: Any) -> Any:
        from troth.bounds import check
        from troth.text.times import since_time

        label, given = request.query_params.get("since", "24h"), request.query_params.get("threshold", "0.5")
        try:
            since, threshold = since_time(label) or "", _number("threshold", given)
            check("threshold", threshold)
        except ValueError as exc:
            return _missing(str(exc), status=400)
        series, worst = self.catalog.live(since, threshold)
        return _html(render("live.html", series=series, worst=worst, since_label=label, threshold=threshold))


def raw_text(record: Any, field: str) -> str:
    """A run's input or output as text: a string as it is, chat messages as the assistant's text
    (the output) or JSON (the input)."""
    from troth.text.transcripts import answer_text

    value = getattr(record, field)
    if field == "output" or value is None or isinstance(value, str):
        return answer_text(value)
    return json.dumps(value, ensure_ascii=False, indent=1, default=str)


def _clip(text: str) -> tuple[str, int]:
    """At most ``TEXT_LIMIT`` characters of ``text``, and its whole length."""
    return text[:TEXT_LIMIT], len(text)


def _number(name: str, given: str) -> float:
    try:
        return float(given)
    except ValueError:
        raise ValueError(f"{name} must be a number, not {given!r}") from None


def _readable(handler: Callable[[Any], Any], store: Path) -> Callable[[Any], Any]:
    """``handler`` with a store that cannot be read (deleted, moved, corrupt) answered by a page
    that says so, status 503."""

    @functools.wraps(handler)
    def guarded(request: Any) -> Any:
        try:
            return handler(request)
        except (sqlite3.Error, OSError, StoreError) as exc:
            return _missing(
                f"The store at {store} cannot be read now ({type(exc).__name__}: {exc}). Was it "
                "deleted or moved? Start troth ui again with a store.",
                status=503,
            )

    return guarded


def _page(request: Any, total: int) -> tuple[int, int]:
    """The page asked for, within the pages ``total`` rows fill, and how many there are."""
    pages = max(1, math.ceil(total / PAGE))
    return min(max(_asked_page(request), 1), pages), pages


def _asked_page(request: Any) -> int:
    """The ``page`` query parameter (1 when missing or not a number; not yet clamped)."""
    try:
        return int(request.query_params.get("page", "1"))
    except ValueError:
        return 1


def _html(body: str, status: int = 200) -> Any:
    responses = load("starlette.responses", "ui")
    return responses.HTMLResponse(body, status_code=status)


HEADINGS = {400: "Bad request", 404: "Not found", 503: "Store unavailable"}


def _missing(what: str, status: int = 404) -> Any:
    return _html(render("missing.html", what=what, heading=HEADINGS.get(status)), status)
