"""The package's shape: no import loop between its modules, none over 300 lines, none named
like a standard-library module, and nothing outside ``engines/`` reaching into the local engine."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

import troth

SRC = Path(troth.__file__).parent
ROOT = SRC.parent


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in SRC.rglob("*.py")}


def imports_of(name: str) -> set[str]:
    """The troth modules ``name`` imports at import time (not under TYPE_CHECKING, not in functions)."""
    tree = ast.parse(MODULES[name].read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            continue
        for sub in ast.walk(node) if isinstance(node, (ast.Import, ast.ImportFrom, ast.If, ast.Try)) else []:
            if isinstance(sub, ast.Import):
                found.update(a.name for a in sub.names)
            elif isinstance(sub, ast.ImportFrom) and sub.module and sub.level == 0:
                found.update(f"{sub.module}.{a.name}" if f"{sub.module}.{a.name}" in MODULES else sub.module
                             for a in sub.names)  # fmt: skip
    return {m for m in found if m in MODULES and m != name}


def test_no_import_loop() -> None:
    graph = {name: imports_of(name) for name in MODULES}
    state: dict[str, int] = {}

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                raise AssertionError("import loop: " + " -> ".join([*path[path.index(nxt):], nxt]))
            if nxt not in state:
                visit(nxt, [*path, nxt])
        state[node] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])


def test_modules_are_small_and_not_named_like_the_standard_library() -> None:
    long = {n: len(p.read_text(encoding="utf-8").splitlines()) for n, p in MODULES.items()}
    assert {n: c for n, c in long.items() if c > 300} == {}
    assert [n for n in MODULES if n.rsplit(".", 1)[-1] in sys.stdlib_module_names] == []


def test_only_the_engines_reach_the_local_engine() -> None:
    users = {n for n in MODULES if "troth.engines.local" in imports_of(n)}
    assert users <= {"troth.engines", "troth.evals.runner"}, users


def test_benchmarks_do_not_import_the_training_code() -> None:
    bench = ROOT.parent / "bench"
    if not bench.is_dir():
        pytest.skip("an installed package: no checkout beside it")
    found = [
        p.name
        for p in bench.rglob("*.py")
        if not any(part.startswith(".") for part in p.relative_to(bench).parts)  # not the peers' venvs
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8")))
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "train"
    ]
    assert found == []
