"""A self-contained HTML page of live scores: per scorer, the summary, the score over time (an SVG
chart of every run and the mean per time bucket) and the worst answers with their reasons."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from troth.live.summary import by_scorer, summarise_window, worst_runs
from troth.prices import format_usd
from troth.report.page import CSS
from troth.report.page import escape_html as _e
from troth.store.base import RunRecord

CHART_W, CHART_H, BUCKETS = 900, 220, 24


def _time(record: RunRecord) -> float:
    return datetime.fromisoformat(record.finished_at or record.created_at or "1970-01-01T00:00:00+00:00").timestamp()


def score_chart(runs: list[RunRecord], scale: float = 1.0) -> str:
    """SVG: a dot per scored run (x: finish time, y: score) and a line through bucket means."""
    scored = sorted((r for r in runs if r.score is not None), key=_time)
    if not scored:
        return "<p>No scored runs in this window.</p>"
    t0, t1 = _time(scored[0]), _time(scored[-1])
    span = (t1 - t0) or 1.0
    top = max(scale, max(r.score or 0.0 for r in scored))

    def xy(t: float, score: float) -> tuple[float, float]:
        return 40 + (t - t0) / span * (CHART_W - 60), 10 + (1 - score / top) * (CHART_H - 30)

    dots = "".join(
        f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="#5b7bd5" opacity="0.5"><title>{_e(r.trace_id)}: '
        f"{r.score:g}</title></circle>"
        for r in scored
        for x, y in [xy(_time(r), r.score or 0.0)]
    )
    buckets: dict[int, list[float]] = {}
    for r in scored:
        buckets.setdefault(min(int((_time(r) - t0) / span * BUCKETS), BUCKETS - 1), []).append(r.score or 0.0)
    line = " ".join(
        f"{x:.1f},{y:.1f}"
        for b, values in sorted(buckets.items())
        for x, y in [xy(t0 + (b + 0.5) / BUCKETS * span, sum(values) / len(values))]
    )
    axis = (
        f'<text x="4" y="16" font-size="11">{top:g}</text><text x="4" y="{CHART_H - 18}" font-size="11">0</text>'
        f'<text x="40" y="{CHART_H - 2}" font-size="11">{_e(scored[0].finished_at)}</text>'
        f'<text x="{CHART_W - 20}" y="{CHART_H - 2}" font-size="11" text-anchor="end">'
        f"{_e(scored[-1].finished_at)}</text>"
    )
    return (
        f'<svg class="chart" width="{CHART_W}" height="{CHART_H}" role="img" aria-label="score over time">'
        f'{axis}{dots}<polyline points="{line}" fill="none" stroke="#c0392b" stroke-width="2"/></svg>'
    )


def _summary(runs: list[RunRecord], threshold: float) -> str:
    w = summarise_window(runs, threshold)
    cards = [
        ("runs", str(w.runs)),
        ("failed", str(w.failed)),
        ("mean", "–" if w.mean is None else f"{w.mean:.3f}"),
        ("p10", "–" if w.p10 is None else f"{w.p10:.3f}"),
        (f"under {threshold:g}", "–" if w.under is None else f"{w.under:.0%}"),
        ("spend", format_usd(w.spend_usd)),
    ]
    return (
        '<div class="cards">' + "".join(f'<div class="card">{_e(k)}<b>{_e(v)}</b></div>' for k, v in cards) + "</div>"
    )


def _worst(runs: list[RunRecord], n: int) -> str:
    rows = "".join(
        f'<div class="item"><h3><span class="score low">{r.score:g}</span><span>trace {_e(r.trace_id)}</span>'
        f"<span>{_e(r.finished_at)}</span></h3><div><b>Input:</b> {_e(r.input)}</div>"
        f'<div class="output">{_e(r.output)}</div><div><b>Reason:</b> {_e(r.reason)}</div></div>'
        for r in worst_runs(runs, n)
    )
    return rows or "<p>None.</p>"


def render_live_html(
    records: list[RunRecord], title: str = "troth live scores", threshold: float = 0.5, worst: int = 10
) -> str:
    """The page as one HTML string: one section per scorer."""
    sections = "".join(
        f'<section id="scorer-{_e(sid)}"><h2>{_e(sid)}</h2>{_summary(runs, threshold)}'
        f"<h3>Score over time</h3>{score_chart(runs)}<h3>Worst answers</h3>{_worst(runs, worst)}</section>"
        for sid, runs in by_scorer(records).items()
    )
    return (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{_e(title)}</title>'
        f"<style>{CSS}</style></head><body><header><h1>{_e(title)}</h1></header>"
        f"<main>{sections or '<p>No live runs in this window.</p>'}</main></body></html>\n"
    )


def write_live_html(records: list[RunRecord], path: str | Path, **options: float) -> Path:
    """Write the page to ``path`` and return it."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    page = render_live_html(records, threshold=options.get("threshold", 0.5), worst=int(options.get("worst", 10)))
    target.write_text(page, encoding="utf-8", errors="backslashreplace")
    return target
