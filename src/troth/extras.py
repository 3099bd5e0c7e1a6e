"""troth's optional extras, as the package declares them (pyproject.toml, read from the installed
package's metadata, else from the source tree's pyproject.toml), and the checks that name the
command installing a missing one. Each optional part checks its extra when it is built (a scorer
on the claim verifier, a ``RayEngine``, a ``ParquetStore``), so a missing extra fails before any
item runs, as a :class:`~troth.errors.MissingDependencyError`."""

from __future__ import annotations

import importlib
import importlib.metadata
import re
import tomllib
from functools import cache
from pathlib import Path
from types import ModuleType

from troth.errors import MissingDependencyError

PURPOSES = {
    "verifier": "The claim verifier",
    "llm": "The local LLM judge",
    "ray": "The Ray engine",
    "otel": "OpenTelemetry for troth",
    "compare": "Comparing evaluations",
    "ui": "The web UI",
    "parquet": "The Parquet store",
}
"""What each extra a check can name is for (its packages are declared in pyproject.toml only)."""

ALIASES = {"local": "verifier", "local-llm": "llm"}
"""Earlier names of extras, still installable: ``troth[local]`` is ``troth[verifier]``."""

_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[([^\]]*)\])?")
_EXTRA = re.compile(r"""extra\s*==\s*['"]([^'"]+)['"]""")


@cache
def declared() -> dict[str, tuple[str, ...]]:
    """Every extra with its requirements (``"onnxruntime>=1.17"``), as the package declares them."""
    try:
        lines = importlib.metadata.metadata("troth").get_all("Requires-Dist") or []
    except importlib.metadata.PackageNotFoundError:  # run from a source tree, not installed
        return _from_pyproject(Path(__file__).resolve().parents[2] / "pyproject.toml")
    found: dict[str, list[str]] = {}
    for line in lines:
        requirement, _, marker = line.partition(";")
        extra = _EXTRA.search(marker)
        if extra:
            found.setdefault(extra.group(1), []).append(requirement.strip())
    return {name: tuple(reqs) for name, reqs in found.items()}


def _from_pyproject(path: Path) -> dict[str, tuple[str, ...]]:
    if not path.is_file():
        return {}
    optional = tomllib.loads(path.read_text(encoding="utf-8"))["project"].get("optional-dependencies", {})
    return {name: tuple(reqs) for name, reqs in optional.items()}


def distributions(extra: str) -> list[str]:
    """The distributions ``extra`` installs, ``troth[other]`` followed, sorted by name."""
    names: list[str] = []
    for requirement in declared().get(ALIASES.get(extra, extra), ()):
        match = _NAME.match(requirement)
        if match is None:
            continue
        if match.group(1).lower() == "troth":
            names += [n for inner in (match.group(2) or "").split(",") for n in distributions(inner.strip())]
        else:
            names.append(match.group(1))
    return sorted(set(names), key=str.lower)


def install_command(extra: str) -> str:
    return f'pip install "troth[{ALIASES.get(extra, extra)}]"'


def purpose(extra: str) -> str:
    return PURPOSES.get(ALIASES.get(extra, extra), f"troth[{extra}]")


def _installed(distribution: str) -> bool:
    try:
        importlib.metadata.distribution(distribution)
    except (importlib.metadata.PackageNotFoundError, ValueError):
        return False
    return True


def require(extra: str) -> None:
    """MissingDependencyError naming the missing distributions and the install command, unless
    every distribution of ``extra`` is installed (looked up, not imported: this is cheap)."""
    missing = [d for d in distributions(extra) if not _installed(d)]
    if missing:
        names = missing[0] if len(missing) == 1 else f"{', '.join(missing[:-1])} and {missing[-1]}"
        raise MissingDependencyError(names, install_command(extra), purpose(extra))


def load(module: str, extra: str) -> ModuleType:
    """``import module``, or MissingDependencyError naming ``extra``'s install command."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingDependencyError(module, install_command(extra), purpose(extra)) from exc
