"""The GPU training run, rehearsed on CPU with the same code: pack what travels, train and choose
the epoch, export int8 ONNX in pieces that fit what a GPU call gives back, join them here.

Needs torch and ``troth[train]``; skipped without them unless TROTH_REQUIRE_TRAIN=1 (as in CI).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.train.test_verifier_training import ROOT, _needs
from train.gpu import PACK_LIMIT, PIECE_BYTES
from troth.judges.backends.verifier import VerifierBackend, VerifierModel

pytestmark = pytest.mark.train


def step(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'src'}"}
    done = subprocess.run(
        [sys.executable, "-m", "train.gpu", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def test_pack_run_unpack_on_cpu(tmp_path: Path, sample_data: Path) -> None:
    _needs()
    packed, out, run = tmp_path / "pack", tmp_path / "out", tmp_path / "run"
    step(
        "pack",
        "--dest",
        str(packed),
        "--data-dir",
        str(sample_data),
        "--limit",
        "32",
        "--synthetic",
        "40",
        "--select",
        "16",
    )
    assert json.loads((packed / "pack.json").read_text())["select_pairs"] == 16
    assert sum(f.stat().st_size for f in packed.rglob("*") if f.is_file()) < PACK_LIMIT
    step("run", "--pack", str(packed), "--out", str(out), "--cpu", "--epochs", "2", "--batch-size", "16")
    card = json.loads((out / "card.json").read_text())
    assert [h["epoch"] for h in card["history"]] == [1, 2] and card["chosen_epoch"] in (1, 2)
    assert card["hardware"].startswith("cpu") and card["data"]["train_pairs"] == 32
    assert card["pieces"] and all((out / p).stat().st_size <= PIECE_BYTES for p in card["pieces"])
    step("unpack", "--pieces", str(out), "--out", str(run))
    (run / "model.onnx").write_bytes((run / "verifier.onnx").read_bytes())
    backend = VerifierBackend(VerifierModel("rehearsal", run, {"max_tokens": 256}))
    scores = backend.classify_now([("The sky is blue.", "The sky is blue."), ("A cat sat.", "Dogs bark.")])
    assert len(scores) == 2 and all(abs(s.supported + s.contradicted + s.unverifiable - 1) < 1e-4 for s in scores)
    (out / card["pieces"][0]).write_bytes(b"corrupt")
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'src'}"}
    args = [sys.executable, "-m", "train.gpu", "unpack", "--pieces", str(out), "--out", str(tmp_path / "bad")]
    broken = subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert broken.returncode != 0 and "do not form the model the card describes" in broken.stderr


def test_the_gpu_run_imports_nothing_the_gpu_machine_lacks() -> None:
    code = "import sys, train.gpu; print(sorted(m for m in ('troth', 'pydantic', 'openai') if m in sys.modules))"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == "[]", done.stderr
