"""Batch evaluation: ``run_evals`` / ``arun_evals`` score many items with many scorers.

Modules: ``dataset`` (reading and checking items), ``runner`` (the run, failures as values),
``records`` (results <-> store records), ``results`` (what a run returns), ``progress``.
"""

from troth.evals.dataset import ITEM_FIELDS, load_items
from troth.evals.records import result_from_record, to_record
from troth.evals.results import (
    EvalResult,
    EvalSummary,
    ItemError,
    ItemResult,
    OnItemComplete,
    ScorerEntry,
    ScorerSummary,
)
from troth.evals.runner import arun_evals, run_evals

__all__ = [
    "ITEM_FIELDS",
    "EvalResult",
    "EvalSummary",
    "ItemError",
    "ItemResult",
    "OnItemComplete",
    "ScorerEntry",
    "ScorerSummary",
    "arun_evals",
    "load_items",
    "result_from_record",
    "run_evals",
    "to_record",
]
