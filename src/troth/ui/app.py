"""``troth ui``: a local, read-only web app over the store (Starlette, server-rendered).

Pages: the evaluations (newest first, filterable, paged); one evaluation (histogram, failures,
items sorted by score, paged); one scorer run (the answer with each claim highlighted by
verdict, the evidence located in the context, the reason, tokens and cost); a comparison of two
evaluations; live scores by hour with the worst answers.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from troth.extras import load, require
from troth.ui.catalog import Catalog
from troth.ui.render import markup, render

PAGE = 50


def create_app(store: str | Path) -> Any:
    """The Starlette app over the store at ``store`` (a SQLite file or a Parquet store's folder)."""
    require("ui")
    from starlette.applications import Starlette
    from starlette.routing import Route

    pages = Pages(Catalog(Path(store)), Path(store))
    routes = [
        Route("/", pages.evals),
        Route("/evals/{eval_id:path}", pages.evaluation),
        Route("/runs/{run_id:path}", pages.run),
        Route("/compare", pages.compare),
        Route("/live", pages.live),
    ]

    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[None]:
        yield
        pages.catalog.close()

    return Starlette(routes=routes, lifespan=lifespan)


class Pages:
    """One handler per page; each reads the catalog and renders its template."""

    def __init__(self, catalog: Catalog, store: Path) -> None:
        self.catalog, self.store = catalog, store

    async def evals(self, request: Any) -> Any:
        query = request.query_params.get("q", "")
        found = self.catalog.evals(query)
        page, pages = _page(request, len(found))
        shown = found[(page - 1) * PAGE : page * PAGE]
        return _html(render("evals.html", evals=shown, q=query, total=len(found), page=page, pages=pages))

    async def evaluation(self, request: Any) -> Any:
        eval_id = request.path_params["eval_id"]
        row = self.catalog.eval_row(eval_id)
        if row is None:
            return _missing(f"No evaluation {eval_id!r} in this store.")
        from troth.report.page import histogram_html

        sort = request.query_params.get("sort", "score")
        page, pages = _page(request, row.runs)
        items = self.catalog.items(eval_id, sort, (page - 1) * PAGE, PAGE)
        return _html(render("eval.html", e=row, items=items, failures=self.catalog.failures(eval_id), sort=sort,
                            histogram=markup(histogram_html(self.catalog.scores(eval_id))), page=page,
                            pages=pages))  # fmt: skip

    async def run(self, request: Any) -> Any:
        record = self.catalog.run(request.path_params["run_id"])
        if record is None:
            return _missing(f"No scorer run {request.path_params['run_id']!r} in this store.")
        from troth.report.page import evidence_html, highlight_output
        from troth.text.transcripts import assistant_text
        from troth.values import Verdict

        verdicts = [Verdict.from_dict(v) for v in record.verdicts or [] if isinstance(v, dict)]
        found = record.output
        output = found if isinstance(found, str) else assistant_text(found) if found else ""
        tokens = sum(int(u.get("prompt_tokens", 0)) + int(u.get("completion_tokens", 0)) for u in record.usage.values())
        claims = [(v, markup(evidence_html(v.evidence, record.context))) for v in verdicts]
        return _html(render("run.html", r=record, answer=markup(highlight_output(output, verdicts)), verdicts=claims,
                            tokens=f"{tokens:,}"))  # fmt: skip

    async def compare(self, request: Any) -> Any:
        from troth.compare import compare_evals
        from troth.store import ParquetStore, SQLiteStore

        a, b = request.query_params.get("a"), request.query_params.get("b")
        comparison, error = None, None
        if a and b:
            store = ParquetStore(self.store) if self.store.is_dir() else SQLiteStore(self.store, read_only=True)
            try:
                comparison = compare_evals(a, b, store=store)
            except ValueError as exc:
                error = str(exc)
            finally:
                store.close()
        return _html(render("compare.html", c=comparison, error=error, evals=self.catalog.evals(), limit=100))

    async def live(self, request: Any) -> Any:
        from troth.cli.bounds import check
        from troth.cli.runs import since_time

        label = request.query_params.get("since", "24h")
        try:
            since, threshold = since_time(label) or "", float(request.query_params.get("threshold", "0.5"))
            check("threshold", threshold)
        except ValueError as exc:
            return _missing(str(exc), status=400)
        series, worst = self.catalog.live(since, threshold)
        return _html(render("live.html", series=series, worst=worst, since_label=label, threshold=threshold))


def _page(request: Any, total: int) -> tuple[int, int]:
    pages = max(1, math.ceil(total / PAGE))
    try:
        page = int(request.query_params.get("page", "1"))
    except ValueError:
        page = 1
    return min(max(page, 1), pages), pages


def _html(body: str, status: int = 200) -> Any:
    responses = load("starlette.responses", "ui")
    return responses.HTMLResponse(body, status_code=status)


def _missing(what: str, status: int = 404) -> Any:
    return _html(render("missing.html", what=what), status)
