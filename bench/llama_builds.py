"""Speed of llama.cpp builds side by side: prompt and generation tokens per second of one model.

    python -m bench.llama_builds --build portable=DIR --build native=DIR2 [--model qwen2.5-coder-1.5b]

Each ``DIR`` holds one llama-cpp-python build (``pip install --no-deps --target DIR WHEEL``).
Every repeat runs each build in a fresh process (``PYTHONPATH=DIR``), in turn, on the same prompt:
the prompt's evaluation timed alone (one token generated), then 64 tokens generated. A build
that crashes is reported with its signal. Medians over ``--repeats``; the ratio is each build's
median over the first build's, measured in the same run.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

from bench.common import RESULTS, fmt, table, write_results
from troth.judges.backends.llama_models import resolve_model
from troth.judges.backends.llama_process import signal_name

PROBE = r"""
import json, sys, time
import llama_cpp
llm = llama_cpp.Llama(model_path=sys.argv[1], n_ctx=2048, n_threads=2, seed=0, verbose=False)
prompt = " ".join(f"Clause {i}: the tenant pays the rent on day {i % 28 + 1} of the month." for i in range(40))
prompt += "\nQuestion: on which day is the rent paid? Answer:"
start = time.perf_counter()
first = llm.create_completion(prompt, max_tokens=1, temperature=0.0)
prompt_s = time.perf_counter() - start
llm.reset()
start = time.perf_counter()
full = llm.create_completion(prompt, max_tokens=64, temperature=0.0, logit_bias={llm.token_eos(): -100.0})
total_s = time.perf_counter() - start
print(json.dumps({"prompt_tokens": first["usage"]["prompt_tokens"], "prompt_s": prompt_s,
                  "generated": full["usage"]["completion_tokens"], "generate_s": total_s - prompt_s}))
"""


def probe(build: Path, model: Path) -> dict[str, Any]:
    """One measurement of one build, in its own process."""
    env = {**os.environ, "PYTHONPATH": str(build)}
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, str(model)], capture_output=True, text=True, env=env, timeout=600
    )
    if proc.returncode != 0:
        return {"crashed": signal_name(proc.returncode)}
    found: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return found


def summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Median prompt and generation tokens/s of one build's runs (or the signal it crashed with)."""
    crashed = [r["crashed"] for r in runs if "crashed" in r]
    if crashed:
        return {"crashed": crashed[0], "runs": len(runs), "crashes": len(crashed)}
    return {
        "prompt_tok_s": statistics.median(r["prompt_tokens"] / r["prompt_s"] for r in runs),
        "generate_tok_s": statistics.median(r["generated"] / r["generate_s"] for r in runs),
        "prompt_tokens": runs[0]["prompt_tokens"],
        "generated": runs[0]["generated"],
        "runs": len(runs),
    }


def markdown(report: dict[str, Any]) -> str:
    names = list(report["builds"])
    base = report["builds"][names[0]]
    rows = []
    for name in names:
        s = report["builds"][name]
        if "crashed" in s:
            rows.append([name, f"crashed ({s['crashed']}, {s['crashes']} of {s['runs']} runs)", "–", "–", "–"])
            continue
        ratio = [s[k] / base[k] if "crashed" not in base else None for k in ("prompt_tok_s", "generate_tok_s")]
        rows.append([name, fmt(s["prompt_tok_s"], 1), fmt(s["generate_tok_s"], 2), fmt(ratio[0], 2), fmt(ratio[1], 2)])
    head = ["build", "prompt tokens/s", "generated tokens/s", f"prompt × {names[0]}", f"generation × {names[0]}"]
    lines = [
        f"# llama.cpp builds side by side ({report['date']})",
        "",
        f"Model {report['model']}, 2 threads, {report['repeats']} repeats (medians), {report['machine']}.",
        "",
        *table(head, rows),
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", action="append", required=True, help="NAME=DIR of one llama-cpp-python build")
    parser.add_argument("--model", default="qwen2.5-coder-1.5b")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    builds = {name: Path(folder) for name, folder in (b.split("=", 1) for b in args.build)}
    model = resolve_model(args.model)
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in builds}
    for _ in range(args.repeats):
        for name, folder in builds.items():
            runs[name].append(probe(folder, model.path))
    report = {
        "date": dt.date.today().isoformat(),
        "model": model.name,
        "repeats": args.repeats,
        "machine": f"{platform.machine()}, {os.cpu_count()} cores",
        "runs": runs,
        "builds": {name: summary(r) for name, r in runs.items()},
    }
    text = markdown(report)
    write_results(RESULTS / f"llama-builds-{model.name}-{report['date']}", report, text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
