"""The package's shape: the floors of docs/ARCHITECTURE.md (no module imports one of a higher
floor, not even lazily or for types) and no import loop at all; the document names only modules
that exist, and lists every one; none over 300 lines, none named like a standard-library module, and nothing outside
``engines/`` reaching into the local engine."""

from __future__ import annotations

import ast
import re
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
                found.update(
                    f"{sub.module}.{a.name}" if f"{sub.module}.{a.name}" in MODULES else sub.module for a in sub.names
                )
    return {m for m in found if m in MODULES and m != name}


ARCHITECTURE = ROOT.parent / "docs" / "ARCHITECTURE.md"


def every_import_of(name: str) -> set[str]:
    """The troth modules ``name`` imports anywhere: at import time, in functions, for types."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(MODULES[name].read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.update(
                f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in MODULES else node.module for a in node.names
            )
    return {m for m in found if m in MODULES and m not in (name, "troth")}


def floors() -> dict[str, int]:
    """Module or package prefix -> floor, read from the table of docs/ARCHITECTURE.md."""
    if not ARCHITECTURE.is_file():
        pytest.skip("an installed package: no docs beside it")
    found = {}
    for number, cells in re.findall(r"^\| (\d)\. [^|]+\| ([^|]+) \|", ARCHITECTURE.read_text(encoding="utf-8"), re.M):
        for cell in re.findall(r"`([^`]+)`", cells):
            found["troth." + cell.removesuffix("/").removesuffix(".py").replace("/", ".")] = int(number)
    return found


def floor_of(module: str, table: dict[str, int]) -> int | None:
    prefixes = [p for p in table if module == p or module.startswith(p + ".")]
    return table[max(prefixes, key=len)] if prefixes else None


def test_every_module_is_on_a_floor_and_imports_none_above_it() -> None:
    table = floors()
    unplaced = [m for m in MODULES if m != "troth" and floor_of(m, table) is None]
    assert unplaced == [], f"modules on no floor of docs/ARCHITECTURE.md: {unplaced}"
    upward = [
        f"{m} ({floor_of(m, table)}) imports {n} ({floor_of(n, table)})"
        for m in MODULES
        if m != "troth"
        for n in sorted(every_import_of(m))
        if (floor_of(n, table) or 0) > (floor_of(m, table) or 0)
    ]
    assert upward == []


def test_the_architecture_names_only_modules_that_exist() -> None:
    if not ARCHITECTURE.is_file():
        pytest.skip("an installed package: no docs beside it")
    text = re.sub(r"```python.*?```", "", ARCHITECTURE.read_text(encoding="utf-8"), flags=re.S)  # worked examples
    named = set(re.findall(r"\b((?:[a-z_]+/)+[a-z_]+\.py)\b", text))
    files = [
        "/" + p.relative_to(ROOT.parent).as_posix()
        for part in ("src", "tests", "bench", "train")
        for p in (ROOT.parent / part).rglob("*.py")
        if "/." not in p.as_posix()
    ]
    missing = sorted(n for n in named if not any(f.endswith("/" + n) for f in files))
    assert missing == []


def test_the_architecture_names_every_module_of_the_package() -> None:
    if not ARCHITECTURE.is_file():
        pytest.skip("an installed package: no docs beside it")
    listed = set(re.findall(r"^- `([\w/]+\.py)`: \S", ARCHITECTURE.read_text(encoding="utf-8"), flags=re.M))
    modules = {p.relative_to(SRC).as_posix() for p in SRC.rglob("*.py") if p.name != "__init__.py"}
    modules = {m for m in modules if not m.startswith("models/")}
    assert sorted(modules - listed) == [], "modules missing from the list in docs/ARCHITECTURE.md"
    assert sorted(listed - modules) == [], "modules listed in docs/ARCHITECTURE.md that do not exist"


def test_no_import_loop_not_even_lazily_or_for_types() -> None:
    graph = {name: every_import_of(name) for name in MODULES}
    assert loop_in(graph) is None


def test_no_import_loop() -> None:
    graph = {name: imports_of(name) for name in MODULES}
    assert loop_in(graph) is None


def loop_in(graph: dict[str, set[str]]) -> str | None:
    state: dict[str, int] = {}

    def visit(node: str, path: list[str]) -> str | None:
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return " -> ".join([*path[path.index(nxt) :], nxt])
            found = visit(nxt, [*path, nxt]) if nxt not in state else None
            if found:
                return found
        state[node] = 2
        return None

    for name in sorted(graph):
        found = visit(name, [name]) if name not in state else None
        if found:
            return found
    return None


def test_modules_are_small_and_not_named_like_the_standard_library() -> None:
    long = {n: len(p.read_text(encoding="utf-8").splitlines()) for n, p in MODULES.items()}
    assert {n: c for n, c in long.items() if c > 300} == {}
    assert [n for n in MODULES if n.rsplit(".", 1)[-1] in sys.stdlib_module_names] == []


def test_only_the_engines_reach_the_local_engine() -> None:
    users = {n for n in MODULES if "troth.engines.local" in imports_of(n)}
    assert users <= {"troth.engines", "troth.engines.runner"}, users


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
