"""Model resolution for the offline judge, without loading any model."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from troth import Judge, ModelLoadError, ModelNotFoundError
from troth.judges.backends import llama_models as local_models
from troth.judges.backends.llama_models import ModelPackage, assemble, resolve_model


def fake_gguf(path: Path, payload: bytes = b"\x00" * 32) -> Path:
    path.write_bytes(b"GGUF" + payload)
    return path


MISSING_PKG = ModelPackage(
    name="nothing-here",
    description="not installed",
    distributions=("troth-test-no-such-dist-1", "troth-test-no-such-dist-2"),
    files=("a/part01.bin", "b/part02.bin"),
    size=10,
    sha256="0" * 64,
    install="pip install troth-test-no-such-dist",
)


def test_explicit_path_wins_over_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    explicit = fake_gguf(tmp_path / "mine.gguf")
    monkeypatch.setenv("TROTH_LOCAL_MODEL", str(fake_gguf(tmp_path / "env.gguf")))
    found = resolve_model(str(explicit))
    assert found.path == explicit and found.source == "path" and found.name == "mine"


def test_env_wins_over_packages(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    env_model = fake_gguf(tmp_path / "env.gguf")
    monkeypatch.delenv("TROTH_LLM_MODEL", raising=False)
    monkeypatch.setenv("TROTH_LOCAL_MODEL", str(env_model))  # the earlier name still works
    found = resolve_model(None)
    assert found.path == env_model and found.source == "env"
    newer = fake_gguf(tmp_path / "newer.gguf")
    monkeypatch.setenv("TROTH_LLM_MODEL", str(newer))  # and the new name wins over it
    assert resolve_model(None).path == newer


def test_missing_model_lists_where_it_looked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TROTH_LOCAL_MODEL", raising=False)
    monkeypatch.delenv("TROTH_LLM_MODEL", raising=False)
    monkeypatch.setattr(local_models, "KNOWN_MODELS", (MISSING_PKG,))
    with pytest.raises(ModelNotFoundError) as info:
        resolve_model(None)
    msg = str(info.value)
    assert "Looked at" in msg and "TROTH_LLM_MODEL" in msg and "nothing-here" in msg
    assert "pip install troth-test-no-such-dist" in msg


def test_missing_named_package_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(local_models, "KNOWN_MODELS", (MISSING_PKG,))
    with pytest.raises(ModelNotFoundError, match=r"not installed.*pip install troth-test-no-such-dist"):
        resolve_model("nothing-here")
    with pytest.raises(ModelNotFoundError, match="unknown LLM 'nope'"):
        resolve_model("nope")


def test_missing_file_and_corrupt_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ModelNotFoundError, match="does not exist"):
        resolve_model(str(tmp_path / "absent.gguf"))
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"<html>not a model</html>")
    with pytest.raises(ModelLoadError, match="not a GGUF model file"):
        resolve_model(str(bad))
    monkeypatch.setenv("TROTH_LLM_MODEL", str(bad))
    with pytest.raises(ModelLoadError, match="not a GGUF"):
        resolve_model(None)


def test_missing_model_is_a_config_error_before_any_work(monkeypatch: pytest.MonkeyPatch) -> None:
    from troth import create_faithfulness_scorer

    monkeypatch.delenv("TROTH_LOCAL_MODEL", raising=False)
    monkeypatch.delenv("TROTH_LLM_MODEL", raising=False)
    monkeypatch.setattr(local_models, "KNOWN_MODELS", (MISSING_PKG,))
    with pytest.raises(ModelNotFoundError):
        create_faithfulness_scorer("local-llm", context=["c"]).run(output="A claim.")


def test_chunks_are_joined_and_checked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TROTH_CACHE_DIR", str(tmp_path / "cache"))
    parts = [tmp_path / "p1", tmp_path / "p2"]
    parts[0].write_bytes(b"GGUF1234")
    parts[1].write_bytes(b"5678")
    data = b"GGUF12345678"
    pkg = ModelPackage("tiny", "t", ("d1", "d2"), ("x", "y"), len(data), hashlib.sha256(data).hexdigest(), "pip x")
    out = assemble(pkg, parts)
    assert out.read_bytes() == data
    assert out.parent == tmp_path / "cache" / "models"
    assert assemble(pkg, parts) == out  # reused, not rebuilt

    wrong = ModelPackage("tiny2", "t", ("d1", "d2"), ("x", "y"), len(data), "f" * 64, "pip x")
    with pytest.raises(ModelLoadError, match=r"do not form the expected model.*pip x"):
        assemble(wrong, parts)
    assert list((tmp_path / "cache" / "models").glob("*.part")) == []  # no half-written file left


def test_local_judge_model_id(tmp_path: Path) -> None:
    path = fake_gguf(tmp_path / "my-judge.gguf")
    judge = Judge(f"llm/{path}")
    assert judge.model_id == f"llm/{path}"  # until the backend is built
    assert judge.capabilities.choice_probabilities
    assert judge.backend().model_id == judge.model_id == "llm/my-judge"
