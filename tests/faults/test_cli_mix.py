"""2,000 items through ``troth eval`` with a fifth of them faulted (every judge fault, a rate
limit past the wait budget, malformed transcripts, lone surrogates), into SQLite and into
Parquet: each item stored exactly once or reported with its typed cause, nothing raw on the
terminal, no key anywhere, exit status 1 (items failed). The longer run: ``python -m bench.fault_mix``."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.fault_mix import mix


@pytest.mark.parametrize("store", ["mix.db", "mix.parquet"])
def test_two_thousand_items_with_a_fifth_faulted(store: str, tmp_path: Path) -> None:
    if store.endswith(".parquet"):
        pytest.importorskip("pyarrow")
    run = mix(2000, store, tmp_path)
    counts = run["counts"]
    assert counts["lost"] == counts["reported_twice"] == counts["stored_twice"] == counts["unstored"] == 0, run
    assert counts["wrong"] == counts["untyped"] == counts["data_faults_scored"] == 0, run
    assert counts["raw_on_terminal"] == counts["key_seen"] == 0, run
    assert counts["exit_status"] == 1 and counts["scored"] + counts["failed"] == 2000, run
    assert counts["failed"] >= sum(run["data_faults"].values()) > 0 and len(run["judge_faults"]) >= 10, run
