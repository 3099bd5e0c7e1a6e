"""``troth ui`` served by uvicorn on 127.0.0.1 over a store with two evaluations, live scores and
an item whose text is markup."""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from tests.compare.conftest import two_evals  # noqa: F401  (the fixture)
from troth.store import SQLiteStore
from troth.store.base import RunRecord, now

HOSTILE = '<script>document.title="owned"</script><img src=x onerror="document.title=\'owned\'">'


def add_hostile_and_live(path: Path, live_scores: Sequence[float], **hostile: Any) -> None:
    """Into the store at ``path``: a run whose every stored text is markup (evaluation
    ``hostile-eval``, run ``hostile``; ``hostile`` adds fields), and live runs scoring ``live_scores``."""
    store = SQLiteStore(path)
    texts = {"item_id": HOSTILE, "input": HOSTILE, "output": HOSTILE, "reason": HOSTILE}
    store.save_run(
        RunRecord(
            run_id="hostile",
            scorer_id="faithfulness",
            eval_id="hostile-eval",
            score=0.0,
            finished_at=now(),
            created_at=now(),
            **texts,
            **hostile,
        )
    )
    for i, score in enumerate(live_scores):
        store.save_run(
            RunRecord(
                run_id=f"live-{i}",
                scorer_id="faithfulness",
                source="live",
                trace_id=f"t{i}",
                input=f"live question {i}",
                output="answer",
                score=score,
                reason=f"live reason {i}",
                finished_at=now(),
                created_at=now(),
            )
        )
    store.close()


@pytest.fixture(scope="module")
def ui_store(two_evals: Path) -> Path:  # noqa: F811
    add_hostile_and_live(two_evals, (1.0, 0.5, 0.0, 1.0))
    return two_evals


def need_ui() -> None:
    """Skip (or fail, with TROTH_REQUIRE_UI=1) without troth[ui]."""
    try:
        import jinja2  # noqa: F401
        import scipy  # noqa: F401
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError:
        if os.environ.get("TROTH_REQUIRE_UI") == "1":
            raise
        pytest.skip("troth[ui] is not installed")


@pytest.fixture(scope="module")
def ui(ui_store: Path) -> Iterator[str]:
    need_ui()
    from troth.ui.serve import serving

    with serving(ui_store) as base:
        yield base


def get(base: str, path: str, **params: Any) -> Any:
    import httpx

    return httpx.get(base + path, params=params, timeout=10)
