"""Batch evaluation: ``run_evals`` / ``arun_evals`` score many items with many scorers.

Modules: ``dataset`` (reading and checking items), ``entries`` (the scorers and their
thresholds), ``runner`` (``run_evals``: checks, the store, the engine), ``records`` (results <->
store records), ``eval_result`` (what a run returns), ``progress``. Where items are scored is
:mod:`troth.engines`.
"""

from typing import TYPE_CHECKING, Any

from troth.evals.dataset import ITEM_FIELDS, load_items
from troth.evals.entries import ScorerEntry
from troth.evals.eval_result import EvalResult, EvalSummary, ItemError, ItemResult, OnItemComplete, ScorerSummary
from troth.evals.records import result_from_record, to_record

if TYPE_CHECKING:
    from troth.evals.runner import arun_evals, run_evals


def __getattr__(name: str) -> Any:
    """``run_evals`` and ``arun_evals`` are imported at first use: the runner needs the engines,
    which need this package's values (imported eagerly, it would be an import loop)."""
    if name in ("run_evals", "arun_evals"):
        from troth.evals import runner

        return getattr(runner, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

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
