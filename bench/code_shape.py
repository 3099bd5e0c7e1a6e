"""The shape of the package: largest modules and functions, module-level import cycles, and
which top-level parts import which.

    python -m bench.code_shape [src/troth]
"""

from __future__ import annotations

import ast
import sys
from collections import defaultdict
from pathlib import Path

Graph = dict[str, set[str]]


def sizes(root: Path, top: int = 5) -> tuple[list[tuple[int, str]], list[tuple[int, str]]]:
    """The ``top`` largest modules (lines) and functions (lines), largest first."""
    modules, functions = [], []
    for path in sorted(root.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        name = str(path.relative_to(root))
        modules.append((len(source.splitlines()), name))
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno is not None:
                functions.append((node.end_lineno - node.lineno + 1, f"{name}:{node.name}"))
    return sorted(modules, reverse=True)[:top], sorted(functions, reverse=True)[:top]


def imports(root: Path, *, inside_functions: bool = False) -> Graph:
    """Module -> the package modules it imports at module level (``TYPE_CHECKING`` blocks left
    out), and with ``inside_functions`` the deferred imports inside functions too."""
    package = root.name
    graph: Graph = {}
    for path in root.rglob("*.py"):
        module = ".".join((package, *path.relative_to(root).with_suffix("").parts)).removesuffix(".__init__")
        deps: set[str] = set()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree) if inside_functions else tree.body:
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.dump(node.test):
                continue
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith(package):
                deps.add(node.module)
            elif isinstance(node, ast.Import):
                deps |= {a.name for a in node.names if a.name.startswith(package)}
        graph[module] = deps
    return graph


def cycles(graph: Graph) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph.get(v, set()) & graph.keys():
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = stack[stack.index(v) :]
            del stack[stack.index(v) :]
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def parts(graph: Graph) -> dict[str, set[str]]:
    """Top-level part -> the other parts it imports."""
    out: dict[str, set[str]] = defaultdict(set)
    for module, deps in graph.items():
        a = ".".join(module.split(".")[:2])
        out[a] |= {b for d in deps if (b := ".".join(d.split(".")[:2])) != a}
    return out


def main(argv: list[str] | None = None) -> int:
    root = Path((argv or sys.argv[1:] or ["src/troth"])[0])
    modules, functions = sizes(root)
    print("largest modules:", ", ".join(f"{n} {lines}" for lines, n in modules))
    print("largest functions:", ", ".join(f"{n} {lines}" for lines, n in functions))
    graph = imports(root)
    print("module-level import cycles:", cycles(graph) or "none")
    print("cycles counting imports inside functions:", cycles(imports(root, inside_functions=True)) or "none")
    for part, deps in sorted(parts(graph).items()):
        print(f"  {part} -> {', '.join(sorted(deps)) or '-'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
