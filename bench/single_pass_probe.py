"""What a single pass asks of a judge, item by item: the requests it made and why it asked again.

    python -m bench.single_pass_probe --limit 4              # the offline LLM, served on loopback
    python -m bench.single_pass_probe --model NAME.gguf      # another local model

Scores a label-balanced sample (``--limit`` per file, seed ``--seed``) with
``strategy="single-pass"`` and prints, per item, its label, score and flags, the structured-output
schema of each request (``ClaimsWithVerdicts`` alone: one request; then ``ExtractedClaims`` and
``ClaimVerdicts``: it fell back to two steps) and every problem fed back to the judge; then how
many items took one request, fell back, or were asked again.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from bench.accuracy import load
from bench.common import DATA_DIR
from bench.local_server import LocalModelResponder, endpoint_judge
from troth import create_faithfulness_scorer
from troth.prompts.common import REPAIR_REQUEST
from troth.testing import FakeOpenAIServer
from troth.testing.server import Request

ASKED_AGAIN = REPAIR_REQUEST.template.split("$error")[0]


def problems(requests: list[Request]) -> list[str]:
    """The problems fed back to the judge in ``requests``."""
    found = []
    for r in requests:
        last = str(r.body["messages"][-1].get("content", ""))
        if last.startswith(ASKED_AGAIN):
            found.append(last[len(ASKED_AGAIN) :].split("\n")[0][:150])
    return found


def probe(rows: list[dict[str, Any]], base_url: str, model: str, server: FakeOpenAIServer) -> Counter[str]:
    """Score ``rows`` in one pass through ``server`` (which records), printing each item's requests."""
    scorer = create_faithfulness_scorer(endpoint_judge(base_url, model), strategy="single-pass")
    tally: Counter[str] = Counter()
    for i, row in enumerate(rows):
        before = len(server.requests)
        try:
            result = scorer.run(output=row["output"], context=row["context"])
            outcome = f"score {result.score} flags {list(result.flags)}"
        except Exception as exc:  # a failed item is reported, not fatal
            outcome = f"failed: {type(exc).__name__}: {str(exc)[:150]}"
        mine = server.requests[before:]
        asked, schemas = problems(mine), [r.schema_name for r in mine]
        tally["fell back" if "ExtractedClaims" in schemas else "asked again" if asked else "one request"] += 1
        print(f"{i} label {row['label']}: {schemas} {outcome}", flush=True)
        for problem in asked:
            print(f"    asked again: {problem}", flush=True)
    return tally


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", help="local model name or .gguf path (default: the resolution order)")
    parser.add_argument("--data", type=Path, nargs="*", help="JSONL files (default: qags-sentences, begin-dev)")
    parser.add_argument("--limit", type=int, default=4, help="label-balanced items per file")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    files = args.data or [DATA_DIR / "qags-sentences.jsonl", DATA_DIR / "begin-dev.jsonl"]
    rows = [row for path in files for row in load(path, args.limit, args.seed)]
    with FakeOpenAIServer(responder=LocalModelResponder(args.model)) as server:
        tally = probe(rows, server.base_url, "judge", server)
    print(dict(tally))
    return 0


if __name__ == "__main__":
    sys.exit(main())
