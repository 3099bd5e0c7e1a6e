"""A round trip with Arize Phoenix over its REST API: the spans of a project read as items (its
``/spans/otlpv1`` pages, read like a trace file), and the scores written back as span
annotations (score, label, explanation) on the spans they judge."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import httpx

from troth.errors import InvalidTraceError
from troth.evals.dataset import load_items
from troth.evals.eval_result import EvalResult
from troth.evals.item import Item
from troth.evals.otlp import read_otlp
from troth.evals.trace_options import TraceOptions

PAGE = 1000  # spans a request
TIMEOUT = 30.0


def read_phoenix(url: str, project: str, options: TraceOptions | None = None) -> list[Item]:
    """The items of Phoenix project ``project`` at ``url``: its spans read as a trace file is
    (one item per agent run by default); InvalidTraceError naming the server when it cannot be
    read."""
    where = f"Phoenix at {url}, project {project!r}"
    spans = list(_spans(url.rstrip("/"), project, where))
    if not spans:
        raise InvalidTraceError(f"{where}: the project has no spans")
    request = {"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}
    rows = read_otlp(json.dumps(request), where, options)
    return load_items(rows or [])


def annotate_phoenix(url: str, result: EvalResult, thresholds: dict[str, float | None] | None = None) -> int:
    """Each score of ``result`` written to Phoenix as an annotation of the span its item was read
    from (named by the scorer; label ``pass``/``fail`` when a threshold is given; the reason as
    explanation); the number written. Written again, an annotation replaces the earlier one."""
    data = [
        _annotation(item.metadata["span_id"], sid, res.score, res.reason, (thresholds or {}).get(sid))
        for item in result.items
        if isinstance(item.metadata.get("span_id"), str)
        for sid, res in item.results.items()
    ]
    if data:
        where = f"Phoenix at {url}"
        _call(where, "POST", f"{url.rstrip('/')}/v1/span_annotations?sync=true", json={"data": data})
    return len(data)


def _annotation(span_id: str, name: str, score: float, reason: str | None, threshold: float | None) -> dict[str, Any]:
    label = None if threshold is None else ("pass" if score >= threshold else "fail")
    found = {"score": score, "label": label, "explanation": reason}
    return {
        "span_id": span_id,
        "name": name,
        "annotator_kind": "LLM",
        "identifier": f"troth-{name}",
        "result": found,
        "metadata": {"source": "troth"},
    }


def _spans(url: str, project: str, where: str) -> Iterator[dict[str, Any]]:
    """Every span of the project, page by page."""
    cursor: str | None = None
    while True:
        params = {"limit": str(PAGE), **({"cursor": cursor} if cursor else {})}
        page = _call(where, "GET", f"{url}/v1/projects/{quote(project, safe='')}/spans/otlpv1", params=params)
        found = page.get("data") if isinstance(page, dict) else None
        if not isinstance(found, list):
            raise InvalidTraceError(f"{where}: the spans endpoint answered without a list of spans")
        yield from found
        cursor = page.get("next_cursor")
        if not cursor:
            return


def _call(where: str, method: str, url: str, **kwargs: Any) -> Any:
    """One request; InvalidTraceError naming the server and what went wrong."""
    try:
        response = httpx.request(method, url, timeout=TIMEOUT, **kwargs)
    except httpx.HTTPError as exc:
        raise InvalidTraceError(f"{where}: cannot reach it ({type(exc).__name__}: {exc})") from None
    if response.status_code == 404:
        raise InvalidTraceError(f"{where}: not found (HTTP 404 from {response.request.url.path})")
    if response.status_code >= 400:
        raise InvalidTraceError(f"{where}: HTTP {response.status_code}: {response.text[:200]}")
    try:
        return response.json()
    except json.JSONDecodeError:
        raise InvalidTraceError(f"{where}: the answer is not JSON") from None
