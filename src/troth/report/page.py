"""A single self-contained HTML report of an evaluation (no external assets).

Summary (mean scores, score histogram, failures, tokens), then every item: its output with
each claim's sentence highlighted by verdict, and per claim its reason and the evidence quote
shown in its context. Items can be sorted by score (worst first on load).
"""

from __future__ import annotations

import difflib
import html
import re
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from troth.prices import format_usd
from troth.redaction import redact
from troth.text.sentences import split_sentences
from troth.text.transcripts import assistant_text
from troth.values import Evidence, Verdict

if TYPE_CHECKING:
    from troth.evals import EvalResult, ItemResult

VERDICT_RANK = {"no": 0, "unsure": 1, "yes": 2}
_WORD = re.compile(r"\w+", re.UNICODE)

CSS = """
body{font:15px/1.5 system-ui,sans-serif;margin:0;background:#f6f7f9;color:#1d2330}
header,main{max-width:1100px;margin:0 auto;padding:16px 24px}
h1{font-size:22px;margin:8px 0} h2{font-size:17px;margin:18px 0 8px}
.cards{display:flex;gap:12px;flex-wrap:wrap}
.card{background:#fff;border:1px solid #dde1e7;border-radius:8px;padding:10px 14px;min-width:140px}
.card b{display:block;font-size:20px}
.hist{display:flex;align-items:flex-end;gap:4px;height:110px;background:#fff;border:1px solid #dde1e7;
 border-radius:8px;padding:22px 8px 26px;overflow-x:auto}
.bar{background:#5b7bd5;width:40px;position:relative;flex:none} .bar span{position:absolute;bottom:-20px;font-size:11px}
.bar b{position:absolute;top:-17px;font-size:11px;font-weight:600} .axis{font-size:12px;color:#555}
.item{background:#fff;border:1px solid #dde1e7;border-radius:8px;margin:12px 0;padding:12px 16px}
.item h3{margin:0 0 6px;font-size:15px;display:flex;gap:10px;align-items:center}
.score{border-radius:12px;padding:1px 9px;color:#fff;background:#2f8f4e}
.score.mid{background:#c28a12}.score.low{background:#c0392b}.score.err{background:#666}
mark{padding:1px 2px;border-radius:3px} .v-yes{background:#d4f3dc}.v-no{background:#fbd0cc}
.v-unsure{background:#fdeeb5} .v-none{background:#eceef1;color:#555;font-style:italic}
.score.same{background:#8a94a6} .output{white-space:pre-wrap;background:#fafbfc;padding:8px;border-radius:6px}
details{margin:4px 0} summary{cursor:pointer} .ctx{color:#555;font-size:13px;margin:4px 0 4px 18px}
.bad{color:#c0392b} .error{color:#c0392b;font-family:monospace}
.controls{margin:8px 0}
"""

JS = """
function sortItems(mode){
  const box=document.getElementById('items');
  const items=[...box.querySelectorAll('.item')];
  items.sort((a,b)=>{
    if(mode==='original') return (+a.dataset.index)-(+b.dataset.index);
    const x=parseFloat(a.dataset.score), y=parseFloat(b.dataset.score);
    const xa=isNaN(x)?-1:x, ya=isNaN(y)?-1:y;
    return mode==='asc'? xa-ya : ya-xa;
  });
  items.forEach(el=>box.appendChild(el));
  document.getElementById('sort').value=mode;
}
document.addEventListener('DOMContentLoaded',()=>{
  document.getElementById('sort').addEventListener('change',e=>sortItems(e.target.value));
  sortItems('asc');
});
"""


def escape_html(value: Any) -> str:
    """Text for the page: known secrets redacted, then HTML-escaped (every value passes here)."""
    return html.escape(redact(str(value)), quote=True)


_e = escape_html


def _words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text) if len(w) > 2}


def highlight_output(output: str, verdicts: list[Verdict]) -> str:
    """The output as HTML, each sentence marked with the worst verdict of the claims it states."""
    sentences = split_sentences(output) or [output]
    worst: dict[int, str] = {}
    for v in verdicts:
        claim_words = _words(v.claim)
        if not claim_words:
            continue
        overlaps = [len(claim_words & _words(s)) / len(claim_words) for s in sentences]
        best = max(range(len(sentences)), key=lambda i: overlaps[i])
        if overlaps[best] == 0:
            continue
        current = worst.get(best)
        if current is None or VERDICT_RANK[v.verdict] < VERDICT_RANK[current]:
            worst[best] = v.verdict
    parts = []
    for i, sentence in enumerate(sentences):
        if i in worst:
            parts.append(f'<mark class="v-{worst[i]}" data-verdict="{worst[i]}">{_e(sentence)}</mark>')
        else:
            parts.append(_e(sentence))
    return " ".join(parts)


def evidence_html(ev: Evidence | None, context: list[str] | None) -> str:
    """Where a claim's evidence quote lies in its context segment (or that it was not found), as HTML."""
    if ev is None:
        return '<div class="ctx">No evidence quoted.</div>'
    if not ev.verified or ev.context_index is None or ev.start is None or ev.end is None:
        return f'<div class="ctx bad">Quote not found in the context: “{_e(ev.quote)}”</div>'
    seg = context[ev.context_index] if context and ev.context_index < len(context) else ""
    start, end = ev.start, ev.end
    before = seg[max(0, start - 120) : start]
    after = seg[end : end + 120]
    return (
        f'<div class="ctx">context {ev.context_index}, characters {start}–{end}: …{_e(before)}'
        f"<mark>{_e(seg[start:end])}</mark>{_e(after)}…</div>"
    )


def marked_context(segment: str, index: int, verdicts: list[Verdict]) -> str:
    """Context segment ``index`` as HTML with each claim's located evidence marked by its verdict
    and anchored ``ev-N`` (N: the claim's position), overlapping quotes marked once."""
    spans = sorted(
        (v.evidence.start, v.evidence.end, v.verdict, n)
        for n, v in enumerate(verdicts)
        if v.evidence is not None
        and v.evidence.verified
        and v.evidence.context_index == index
        and v.evidence.start is not None
        and v.evidence.end is not None
        and v.evidence.end <= len(segment)
    )
    parts, at = [], 0
    for start, end, verdict, n in spans:
        if start < at:
            continue  # overlaps a quote marked already
        parts.append(_e(segment[at:start]))
        parts.append(f'<mark class="v-{verdict}" id="ev-{n}">{_e(segment[start:end])}</mark>')
        at = end
    parts.append(_e(segment[at:]))
    return "".join(parts)


def word_diff(a: str, b: str) -> tuple[str, str]:
    """Two answers as HTML, the words only in A in ``<del>``, those only in B in ``<ins>``."""
    words_a, words_b = re.split(r"(\s+)", a), re.split(r"(\s+)", b)
    html_a, html_b = [], []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, words_a, words_b, autojunk=False).get_opcodes():
        left, right = _e("".join(words_a[i1:i2])), _e("".join(words_b[j1:j2]))
        if op == "equal":
            html_a.append(left)
            html_b.append(right)
            continue
        if left.strip():
            html_a.append(f"<del>{left}</del>")
        if right.strip():
            html_b.append(f"<ins>{right}</ins>")
    return "".join(html_a), "".join(html_b)


def _score_class(score: float | None, scale: float = 1.0) -> str:
    if score is None:
        return "err"
    ratio = score / scale if scale else score
    return "" if ratio >= 0.8 else "mid" if ratio >= 0.5 else "low"


def _item(index: int, item: ItemResult, scorer_ids: Iterable[str]) -> str:
    main_id = next(iter(scorer_ids), None)
    main = item.results.get(main_id) if main_id else None
    score = main.score if main else None
    head = [f"<h3><span>{_e(item.id)}</span>"]
    for sid in scorer_ids:
        r = item.results.get(sid)
        label = f"{sid} {r.score:g}" if r else f"{sid} failed"
        head.append(f'<span class="score {_score_class(r.score if r else None)}">{_e(label)}</span>')
    head.append("</h3>")
    body = [f"<div><b>Input:</b> {_e(item.input)}</div>" if item.input else ""]
    for key, err in item.errors.items():
        body.append(
            f'<div class="error">{_e(key)} failed in step {_e(err.step)}: {_e(err.type)}: {_e(err.message)}</div>'
        )
    output = item.output if isinstance(item.output, str) else assistant_text(item.output) if item.output else ""
    verdicts = main.verdicts if main else []
    if output:
        body.append(f'<div class="output">{highlight_output(output, verdicts)}</div>')
    if main is not None:
        body.append(f"<div><b>Reason:</b> {_e(main.reason)}</div>")
        for v in verdicts:
            body.append(
                f'<details class="claim" data-verdict="{_e(v.verdict)}"><summary>'
                f'<mark class="v-{_e(v.verdict)}">{_e(v.verdict)}</mark> {_e(v.claim)}</summary>'
                f'<div class="ctx">{_e(v.reason)}</div>'
                f"{evidence_html(v.evidence, item.context)}</details>"
            )
    data_score = "" if score is None else f"{score}"
    return (
        f'<section class="item" data-index="{index}" data-score="{data_score}" id="item-{_e(item.id)}">'
        + "".join(head)
        + "".join(body)
        + "</section>"
    )


def histogram_html(scores: list[float]) -> str:
    """The scores as bars with their counts (on a 0-1 scale, or up to the highest score): ten
    half-open bins, and the top score (a perfect 1.0) in a bin of its own; as HTML."""
    top = max(scores, default=1.0) or 1.0
    scale = 1.0 if top <= 1.0 else top
    bins = [0] * 11
    for s in scores:
        bins[10 if s >= scale else min(int(s / scale * 10), 9)] += 1
    most = max(bins) or 1
    bars = []
    for i, n in enumerate(bins):
        low, high = i / 10 * scale, (i + 1) / 10 * scale
        span, label = (f"[{low:g}, {high:g})", f"{low:g}–{high:g}") if i < 10 else (f"{scale:g}", f"{scale:g}")
        bars.append(
            f'<div class="bar" title="{n} item(s) scored {span}" style="height:{int(70 * n / most)}px">'
            f"<b>{n}</b><span>{label}</span></div>"
        )
    return (
        '<div class="hist" id="histogram">' + "".join(bars) + "</div>"
        f'<div class="axis">items per score ({len(scores)} scored)</div>'
    )


def render_html(result: EvalResult, title: str = "troth evaluation") -> str:
    """The report as one HTML string."""
    s = result.summary
    scorer_ids = list(s.scorers)
    cards = [
        f'<div class="card">{_e(sid)} mean<b id="mean-{_e(sid)}">'
        f"{'–' if sc.mean is None else f'{sc.mean:.3f}'}</b>"
        + (f"{sc.passed} passed / {sc.below_threshold} below {sc.threshold:g}" if sc.threshold is not None else "")
        + "</div>"
        for sid, sc in s.scorers.items()
    ]
    cards += [
        f'<div class="card">items<b>{s.total_items}</b>{s.scored_items} scored, {s.failed_items} failed</div>',
        f'<div class="card">judge calls<b>{s.judge_calls}</b>{s.cached_calls} from cache</div>',
        f'<div class="card">tokens<b>{s.prompt_tokens + s.completion_tokens:,}</b>'
        f"{s.prompt_tokens:,} prompt, {s.completion_tokens:,} completion</div>",
        f'<div class="card">cost<b>{format_usd(s.cost_usd)}</b>at list prices</div>',
        f'<div class="card">wall time<b>{s.wall_s:.1f}s</b></div>',
    ]
    main = scorer_ids[0] if scorer_ids else None
    scores = [it.results[main].score for it in result.items if main and main in it.results]
    failures = [it for it in result.items if it.failed]
    failure_list = "".join(
        f'<li><a href="#item-{_e(it.id)}">{_e(it.id)}</a>: '
        + "; ".join(f"{_e(k)} — {_e(e.type)}: {_e(e.message)}" for k, e in it.errors.items())
        + "</li>"
        for it in failures
    )
    items = "".join(_item(i, it, scorer_ids) for i, it in enumerate(result.items))
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{_e(title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><style>{CSS}</style></head>
<body><header><h1>{_e(title)}</h1><div>evaluation <code>{_e(result.eval_id)}</code></div></header>
<main>
<div class="cards" id="summary">{"".join(cards)}</div>
<h2>Score distribution ({_e(main or "")})</h2>{histogram_html(scores)}
<h2>Failures ({len(failures)})</h2><ul id="failures">{failure_list or "<li>none</li>"}</ul>
<h2>Items</h2>
<div class="controls">Sort by <select id="sort"><option value="asc">score, lowest first</option>
<option value="desc">score, highest first</option><option value="original">original order</option></select></div>
<div id="items">{items}</div>
</main><script>{JS}</script></body></html>
"""


def write_html(result: EvalResult, path: str | Path, title: str = "troth evaluation") -> Path:
    """Write the report to ``path`` and return it."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(render_html(result, title), encoding="utf-8", errors="backslashreplace")
    return target
