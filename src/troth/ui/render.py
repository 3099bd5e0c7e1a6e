"""The UI's pages from Jinja2 templates (autoescaped: every stored string is escaped), and the
comparison as a self-contained HTML page (``troth compare --report``)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from troth.extras import load
from troth.prices import format_usd
from troth.report.page import CSS
from troth.text.times import readable_time

if TYPE_CHECKING:
    from troth.compare import Comparison

_ENV: Any = None
BADGES = {
    "worse": "low",
    "failed in B": "low",
    "better": "",
    "fixed in B": "",
    "same": "same",
    "failed in both": "err",
}  # an item's change -> its badge's colour class


def environment() -> Any:
    """The Jinja2 environment with troth's filters (built once)."""
    global _ENV
    if _ENV is None:
        jinja2 = load("jinja2", "compare")
        env = jinja2.Environment(loader=jinja2.PackageLoader("troth.ui", "templates"), autoescape=True)
        env.filters.update(
            score=_score, usd=format_usd, signed=_signed, pvalue=_pvalue, short=_short, when=readable_time, tone=_tone
        )
        env.globals.update(css=markup(CSS), standalone=False, badge=BADGES, shown=shown, answers=answers, view=None)
        _ENV = env
    return _ENV


@dataclass(frozen=True)
class View:
    """The comparison's items on one page: changed only (the default) or all."""

    show: str
    page: int
    pages: int
    total: int
    items: list[Any]


def shown(comparison: Comparison, show: str, page: int, size: int) -> View:
    """The items to list: those whose score or verdicts changed, or all (``show="all"``), paged."""
    found = comparison.items if show == "all" else [d for d in comparison.items if d.status != "same" or d.changes]
    pages = max(1, math.ceil(len(found) / size))
    page = min(max(page, 1), pages)
    return View("all" if show == "all" else "changed", page, pages, len(found), found[(page - 1) * size : page * size])


def answers(diff: Any) -> tuple[Any, Any]:
    """An item's two answers as text, the words that differ marked."""
    from troth.report.page import word_diff
    from troth.text.transcripts import answer_text

    a, b = word_diff(answer_text(diff.output_a), answer_text(diff.output_b))
    return markup(a), markup(b)


def render(template: str, **values: Any) -> str:
    return str(environment().get_template(template).render(**values))


def markup(html: str) -> Any:
    """HTML made by troth's own escaping helpers, kept as is by the templates."""
    return load("markupsafe", "compare").Markup(html)


def render_comparison(comparison: Comparison, limit: int = 200) -> str:
    """The comparison as one HTML page with no external assets."""
    return render("compare.html", c=comparison, standalone=True, limit=limit, evals=[], error=None)


def write_comparison(comparison: Comparison, path: str | Path) -> Path:
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(render_comparison(comparison), encoding="utf-8", errors="backslashreplace")
    return target


def _score(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}".rstrip("0").rstrip(".") if value % 1 else f"{value:g}"


def _signed(value: float | None) -> str:
    return "–" if value is None else f"{value:+.3f}"


def _pvalue(value: float | None) -> str:
    return "–" if value is None else "< 0.001" if value < 0.001 else f"{value:.3f}"


def _tone(value: float | None) -> str:
    """A 0-1 score's colour class in a list: "good" from 0.8, "mid" from 0.5, else "low"."""
    if value is None or not 0 <= value <= 1:
        return ""
    return "good" if value >= 0.8 else "mid" if value >= 0.5 else "low"


def _short(value: Any, size: int = 160) -> str:
    text = "" if value is None else str(value)
    return text if len(text) <= size else text[: size - 1] + "…"
