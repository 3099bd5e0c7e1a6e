"""Each optional extra, missing: in a virtual environment with troth's own dependencies alone,
building what needs the extra fails at once with MissingDependencyError naming the command that
installs it, and the CLI says so in one line (exit 2); what needs no extra still works."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
REQUIRED = os.environ.get("TROTH_REQUIRE_LOCAL_MODELS") == "1"


@pytest.fixture(scope="module")
def bare_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A venv with the core dependencies of pyproject.toml, at the lock's versions, and no extra
    (troth itself from src/); installed by this venv's pip, so the new one needs none of its own."""
    venv = tmp_path_factory.mktemp("bare") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    core = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
    lock = ["-c", str(ROOT / "requirements" / "test.txt")]
    got = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "-q",
            "--disable-pip-version-check",
            *lock,
            *core,
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    if got.returncode != 0:
        if REQUIRED:
            pytest.fail(f"could not install troth's dependencies in a fresh venv: {got.stderr[-500:]}")
        pytest.skip("no package registry to build a bare venv from")
    return python


def run(python: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "TROTH_STORE": os.devnull}
    return subprocess.run([python, *args], capture_output=True, text=True, timeout=120, env=env, cwd=ROOT)


def raises_missing(python: Path, code: str, install: str) -> None:
    script = textwrap.dedent(f"""
        import troth
        try:
            {code}
        except troth.MissingDependencyError as exc:
            print("MISSING", exc)
        else:
            print("BUILT")
    """)
    out = run(python, "-c", script)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("MISSING") and install in out.stdout, out.stdout


@pytest.mark.parametrize(
    ("code", "install"),
    [
        ('troth.create_faithfulness_scorer("local")', 'pip install "troth[verifier]"'),
        ('troth.create_hallucination_scorer(troth.Judge("verifier"))', 'pip install "troth[verifier]"'),
        ('troth.create_answer_relevancy_scorer("llm")', 'pip install "troth[llm]"'),
        ("troth.RayEngine(workers=2)", 'pip install "troth[ray]"'),
        ('troth.ParquetStore("runs.parquet")', 'pip install "troth[parquet]"'),
        ("import troth.otel", 'pip install "troth[otel]"'),
    ],
)
def test_a_missing_extra_fails_when_built(bare_python: Path, code: str, install: str) -> None:
    raises_missing(bare_python, code, install)


def test_the_cli_names_the_extra_in_one_line_and_http_judges_need_none(bare_python: Path) -> None:
    out = run(bare_python, "-m", "troth", "score", "--example")
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.strip() == (
        "error: The claim verifier needs numpy, onnxruntime and tokenizers, not installed; install it with: "
        'pip install "troth[verifier]"'
    )
    built = run(bare_python, "-c", 'import troth; troth.create_faithfulness_scorer("openai/gpt-4o-mini"); print("ok")')
    assert built.stdout.strip() == "ok", built.stderr


def test_every_extra_the_code_names_is_declared_once_in_pyproject() -> None:
    """The extras come from the package's metadata (pyproject.toml), nowhere else: each name the
    code passes to ``require``/``load`` or declares as a backend's ``EXTRA`` is a declared extra,
    the earlier names install the same, and the metadata matches pyproject.toml."""
    import re

    from troth import extras

    optional = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    assert set(extras.declared()) == set(optional)  # the installed metadata is pyproject.toml's
    named = set()
    for path in (ROOT / "src" / "troth").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        named |= set(re.findall(r'(?:require|load)\((?:"[^"]+", )?"([a-z-]+)"\)', text))
        named |= set(re.findall(r'^EXTRA = "([a-z-]+)"', text, re.M))
    assert named and named <= set(optional), named - set(optional)
    assert set(extras.PURPOSES) <= set(optional)
    assert extras.distributions("local") == extras.distributions("verifier") == ["numpy", "onnxruntime", "tokenizers"]
    assert extras.distributions("local-llm") == extras.distributions("llm")
    assert extras.install_command("local") == 'pip install "troth[verifier]"'
