"""bench.single_pass_probe: which items took one request, fell back to two steps, or were asked again."""

from __future__ import annotations

import pytest

from bench.single_pass_probe import probe
from troth.testing import FakeOpenAIServer, Reply

CONTEXT = ["The bridge opened in 1932."]


def test_each_item_is_told_apart_by_its_requests(capsys: pytest.CaptureFixture[str]) -> None:
    rows = [{"output": f"The bridge opened in 1932. Row {i}.", "context": CONTEXT, "label": 1} for i in range(3)]
    one = {
        "claims": [
            {"claim": "The bridge opened in 1932.", "evidence": "opened in 1932", "verdict": "yes", "reason": "stated"}
        ]
    }
    misquoted = {
        "claims": [
            {"claim": "The bridge opened in 1932.", "evidence": "opened in 1950", "verdict": "yes", "reason": "stated"}
        ]
    }
    verdicts = {"verdicts": [{"claim_id": "c1", "evidence": "opened in 1932", "verdict": "yes", "reason": "r"}]}
    with FakeOpenAIServer() as server:
        server.enqueue(
            Reply(content=one),
            Reply(content={"claims": []}),
            {"claims": ["The bridge opened in 1932."]},
            verdicts,
            Reply(content=misquoted),
            Reply(content=one),
        )
        tally = probe(rows, server.base_url, "m", server)
    assert dict(tally) == {"one request": 1, "fell back": 1, "asked again": 1}
    out = capsys.readouterr().out
    assert "1 label 1: ['ClaimsWithVerdicts', 'ExtractedClaims', 'ClaimVerdicts']" in out
    assert "asked again: the evidence of claim 1 is not in the context: 'opened in 1950'" in out
