"""troth's optional extras: the modules each one brings, and the checks that name the command
installing a missing one. Each optional part checks its extra when it is built (a scorer on the
claim verifier, a ``RayEngine``, a ``ParquetStore``), so a missing extra fails before any item
runs, as a :class:`~troth.errors.MissingDependencyError`."""

from __future__ import annotations

import importlib
import importlib.util
from dataclasses import dataclass
from types import ModuleType

from troth.errors import MissingDependencyError


@dataclass(frozen=True)
class Extra:
    """An extra: what it is for, the modules it brings (top-level names), and how to install it."""

    purpose: str
    modules: tuple[str, ...]
    install: str


EXTRAS: dict[str, Extra] = {
    "local": Extra("The claim verifier", ("onnxruntime", "tokenizers", "numpy"), 'pip install "troth[local]"'),
    "local-llm": Extra("The local LLM judge", ("llama_cpp", "rank_bm25"), 'pip install "troth[local-llm]"'),
    "ray": Extra("The Ray engine", ("ray",), 'pip install "troth[ray]"'),
    "otel": Extra(
        "OpenTelemetry for troth", ("opentelemetry", "opentelemetry.instrumentation"), 'pip install "troth[otel]"'
    ),
    "compare": Extra("Comparing evaluations", ("numpy", "scipy"), 'pip install "troth[compare]"'),
    "ui": Extra("The web UI", ("starlette", "jinja2", "uvicorn"), 'pip install "troth[ui]"'),
    "parquet": Extra("The Parquet store", ("pyarrow",), 'pip install pyarrow (or "troth[ray]")'),
}


def _found(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a broken install counts as missing
        return False


def require(extra: str) -> None:
    """MissingDependencyError naming the missing modules and the install command, unless every
    module of ``extra`` can be found (found, not imported: this is cheap)."""
    spec = EXTRAS[extra]
    missing = [m for m in spec.modules if not _found(m)]
    if missing:
        names = missing[0] if len(missing) == 1 else f"{', '.join(missing[:-1])} and {missing[-1]}"
        raise MissingDependencyError(names, spec.install, spec.purpose)


def load(module: str, extra: str) -> ModuleType:
    """``import module``, or MissingDependencyError naming ``extra``'s install command."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        spec = EXTRAS[extra]
        raise MissingDependencyError(module, spec.install, spec.purpose) from exc
