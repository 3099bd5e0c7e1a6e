"""``troth ui`` (uvicorn on 127.0.0.1) over a careless store: a 20 MB answer is shown cut with a
link to the whole text, other pages are served meanwhile, and a store that is corrupted or gone
under the UI gives a page that says so (503), never a 500."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

import httpx

from tests.ui.conftest import need_ui
from troth.store import SQLiteStore
from troth.store.base import RunRecord, now
from troth.ui.app import TEXT_LIMIT
from troth.values import Verdict

HUGE = "The bridge opened in 1932. " * 750_000  # about 20 MB


def store_with_a_huge_answer(path: Path) -> Path:
    store = SQLiteStore(path)
    verdicts = [Verdict("The bridge opened in 1932.", "yes", "stated")]
    store.save_run(
        RunRecord(
            run_id="huge",
            scorer_id="faithfulness",
            eval_id="e",
            item_id="big",
            input="When?",
            output=HUGE,
            context=[HUGE],
            verdicts=verdicts,
            score=1.0,
            finished_at=now(),
            created_at=now(),
        )
    )
    for n in range(3):
        store.save_run(
            RunRecord(
                run_id=f"r{n}",
                scorer_id="faithfulness",
                eval_id="e",
                item_id=f"i{n}",
                input="When?",
                output="It opened in 1932.",
                score=1.0,
                finished_at=now(),
                created_at=now(),
            )
        )
    store.close()
    return path


def test_a_huge_answer_is_shown_cut_and_served_whole_as_plain_text(tmp_path: Path) -> None:
    need_ui()
    from troth.ui.serve import serving

    with serving(store_with_a_huge_answer(tmp_path / "s.db")) as base, httpx.Client(base_url=base, timeout=120) as web:
        others: list[int] = []

        def browse() -> None:  # another client, while the huge page is asked for
            others.extend(web.get(path).status_code for path in ("/", "/evals/e", "/runs/r0") * 3)

        worker = threading.Thread(target=browse)
        worker.start()
        page = web.get("/runs/huge")
        worker.join(120)
        assert others == [200] * 9
        assert page.status_code == 200 and len(page.text) < 3 * TEXT_LIMIT
        assert f"Shown: the first {TEXT_LIMIT:,} of {len(HUGE):,} characters" in page.text
        assert 'href="/raw/output/huge"' in page.text and 'href="/raw/context/huge"' in page.text
        raw = web.get("/raw/output/huge")
        assert raw.headers["content-type"].startswith("text/plain") and raw.text == HUGE
        assert web.get("/raw/context/huge").text == HUGE and web.get("/raw/secrets/huge").status_code == 404


def test_a_store_corrupted_or_deleted_under_the_ui_is_a_503_page(tmp_path: Path) -> None:
    need_ui()
    from troth.ui.serve import serving

    path = store_with_a_huge_answer(tmp_path / "s.db")
    backup = tmp_path / "backup.db"
    shutil.copy(path, backup)
    with serving(path) as base, httpx.Client(base_url=base, timeout=30) as web:
        assert web.get("/").status_code == 200
        path.unlink()
        gone = web.get("/compare", params={"a": "e", "b": "e"})
        assert gone.status_code == 503 and "cannot be read now" in gone.text and "Store unavailable" in gone.text
        path.write_bytes(b"this is no longer a database" * 200)
        corrupt = web.get("/compare", params={"a": "e", "b": "e"})
        assert corrupt.status_code == 503 and "Traceback" not in corrupt.text


def test_odd_queries_are_answered_with_their_problem(tmp_path: Path) -> None:
    need_ui()
    from troth.ui.serve import serving

    with serving(store_with_a_huge_answer(tmp_path / "s.db")) as base, httpx.Client(base_url=base, timeout=30) as web:
        bad = web.get("/live", params={"threshold": "xyz"})
        assert bad.status_code == 400 and "threshold must be a number, not &#39;xyz&#39;" in bad.text
        nope = web.get("/compare", params={"a": "e", "b": "nope"})
        assert nope.status_code == 404 and "nope" in nope.text
        assert web.get("/live", params={"since": "99999999h"}).status_code == 200
