"""Batch evaluation's data: the items, the scorer entries, what a run returns, its records.

Modules: ``dataset`` (reading and checking items), ``entries`` (the scorers and their
thresholds), ``records`` (results <-> store records), ``eval_result`` (what a run returns),
``progress``, ``otlp`` (trace exports as items). ``run_evals`` itself, and where items are
scored, is :mod:`troth.engines` (``troth.run_evals``).
"""

from troth.evals.dataset import load_items, read_traces
from troth.evals.entries import ScorerEntry
from troth.evals.eval_result import EvalResult, EvalSummary, ItemError, ItemResult, OnItemComplete, ScorerSummary
from troth.evals.item import ITEM_FIELDS, Item
from troth.evals.records import result_from_record, to_record

__all__ = [
    "ITEM_FIELDS",
    "EvalResult",
    "EvalSummary",
    "Item",
    "ItemError",
    "ItemResult",
    "OnItemComplete",
    "ScorerEntry",
    "ScorerSummary",
    "load_items",
    "read_traces",
    "result_from_record",
    "to_record",
]
