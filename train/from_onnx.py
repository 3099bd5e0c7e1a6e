"""The shipped verifier's weights back as a torch state dict, to continue its training.

The package keeps only the int8 ONNX export (dynamic quantization: one scale and zero point per
weight tensor). Each quantized weight is dequantized, ``(q - zero_point) * scale``; a weight
stored for ``MatMul`` is transposed back to the ``Linear`` layout, and a weight the exporter named
``onnx::MatMul_N`` gets the module path of the node that reads it. The word embeddings, frozen in
training, are taken from the base encoder as they were.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

QUANTIZED = "_quantized"


def state_dict(model_onnx: Path, base: dict[str, Any]) -> dict[str, Any]:
    """A ``BertForSequenceClassification`` state dict from ``model_onnx``; ``base`` (the base
    encoder's state dict) gives the keys, and the word embeddings."""
    import onnx
    import torch
    from onnx import numpy_helper

    graph = onnx.load(str(model_onnx)).graph
    arrays = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
    readers = {n.input[1]: n.output[0] for n in graph.node if n.op_type == "MatMulInteger"}
    found: dict[str, Any] = {}
    for name, value in arrays.items():
        if name.endswith(QUANTIZED):
            stem = name[: -len(QUANTIZED)]
            weight = (value.astype(np.float32) - arrays[stem + "_zero_point"].astype(np.float32)) * arrays[
                stem + "_scale"
            ]
            key, transposed = _key(stem, readers.get(name))
            found[key] = weight.T if transposed else weight
        elif not name.endswith(("_scale", "_zero_point")):
            found[name] = value
    out = {k: torch.tensor(np.ascontiguousarray(v)) for k, v in found.items() if k in base}
    out["bert.embeddings.word_embeddings.weight"] = base["bert.embeddings.word_embeddings.weight"]
    missing = [k for k in base if k not in out and not k.endswith("position_ids")]
    if missing:
        raise ValueError(f"{model_onnx}: no weights for {missing[:5]}")
    return out


def _key(stem: str, reader: str | None) -> tuple[str, bool]:
    """The state-dict key of a quantized weight, and whether it is stored transposed."""
    if stem.endswith("_Transposed"):
        return stem[: -len("_Transposed")], True
    if stem.startswith("onnx::MatMul") and reader is not None:
        module = reader.split("/MatMul_output")[0].strip("/").replace("/", ".")
        return f"{module}.weight", True
    return stem, False
