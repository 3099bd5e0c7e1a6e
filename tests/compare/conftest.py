"""Two evaluations of the same 30 answers in one store: A judged by one script, B by a script
that finds one claim contradicted on 12 items (a changed judge, prompt or retriever would do
that); B also has an item A lacks."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import SECRET_KEY
from troth import Judge, create_faithfulness_scorer, run_evals
from troth.testing import FakeOpenAIServer, ScriptedJudge

CONTEXT = ["The Harbour Bridge opened in 1932. It is 134 m high."]
ANSWER = "The bridge opened in 1932. It is 134 m high."
REGRESSED = 12
GOOD = ScriptedJudge(verdicts={"1932": ("yes", "opened in 1932"), "134": ("yes", "134 m high")})
WORSE = ScriptedJudge(
    verdicts={"1932": ("yes", "opened in 1932"), "134 m high (r)": ("no", "134 m high"), "134": ("yes", "134 m high")}
)


def run(script: ScriptedJudge, db: Path, eval_id: str, items: list[dict[str, object]]) -> None:
    with FakeOpenAIServer(script) as server:
        judge = Judge("m", base_url=server.base_url, api_key=SECRET_KEY, timeout=5, max_retries=0)
        run_evals(
            items,
            [create_faithfulness_scorer(judge, reason="template")],
            store=str(db),
            eval_id=eval_id,
            quiet=True,
            cache=False,
        )


def items(regressed: int) -> list[dict[str, object]]:
    """30 answers; the first ``regressed`` get a claim the WORSE script contradicts."""
    changed = ANSWER.replace("high.", "high (r).")
    return [
        {
            "id": f"q{i:02d}",
            "input": f"Question {i}?",
            "context": CONTEXT,
            "output": changed if i < regressed else ANSWER,
        }
        for i in range(30)
    ]


@pytest.fixture(scope="module")
def two_evals(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from tests.ui.conftest import need_ui

    need_ui()
    db = tmp_path_factory.mktemp("compare") / "s.db"
    run(GOOD, db, "base", items(REGRESSED))
    run(WORSE, db, "cand", [*items(REGRESSED), {"id": "new", "output": ANSWER, "context": CONTEXT}])
    return db
