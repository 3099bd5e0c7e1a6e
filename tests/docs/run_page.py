"""Run one page's Python blocks in order, in one namespace, as a reader pastes them in turn.

``python tests/docs/run_page.py RESULTS`` reads a JSON list of code strings on stdin and writes to
RESULTS a JSON list with each block's stdout and, for the first block that raises, its traceback
(then stops).
Top-level ``await`` works, as in ``python -m asyncio``.
"""

from __future__ import annotations

import ast
import asyncio
import contextlib
import io
import json
import sys
import traceback
from typing import Any


def run(code: str, namespace: dict[str, Any]) -> None:
    compiled = compile(code, "<snippet>", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    result = eval(compiled, namespace)  # the docs' own snippets
    if asyncio.iscoroutine(result):
        asyncio.run(result)


def main() -> None:
    codes: list[str] = json.load(sys.stdin)
    sys.path[0] = ""  # the current folder, as in the interactive interpreter a reader pastes into
    namespace: dict[str, Any] = {"__name__": "__main__"}
    results: list[dict[str, str]] = []
    for code in codes:
        out = io.StringIO()
        try:
            with contextlib.redirect_stdout(out):
                run(code, namespace)
        except BaseException:  # reported to the test, which fails on it
            results.append({"stdout": out.getvalue(), "error": traceback.format_exc()})
            break
        results.append({"stdout": out.getvalue(), "error": ""})
    with open(sys.argv[1], "w", encoding="utf-8") as f:
        json.dump(results, f)


if __name__ == "__main__":
    main()
