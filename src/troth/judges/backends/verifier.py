"""The offline claim verifier: a small cross-encoder over (passage, claim) run with onnxruntime
(``pip install "troth[verifier]"``). It answers no prompts; it classifies pairs as supported,
contradicted or unverifiable, a few milliseconds each on a CPU.

The model ships inside troth (``troth/models/<name>/``): ``model.onnx`` (int8), ``tokenizer.json``
and ``card.json`` (base model, training data, metrics, calibrated thresholds, and the sha256 of
each file, checked when the model loads).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass, replace
from importlib import resources
from pathlib import Path
from typing import Any

from troth.errors import ModelLoadError, ModelNotFoundError
from troth.extras import install_command, load
from troth.judges.base import BackendBase, PairScores
from troth.judges.capabilities import Capabilities, ClaimHead
from troth.judges.config import JudgeConfig
from troth.text.overlap import apply_head, features
from troth.values import FREE

DEFAULT_VERIFIER = "verifier-minilm"
EXTRA = "verifier"
INSTALL = install_command(EXTRA)

_sessions: dict[Path, tuple[Any, Any]] = {}
_sessions_lock = threading.Lock()


@dataclass(frozen=True)
class VerifierModel:
    """A verifier on disk and what its card says."""

    name: str
    path: Path
    card: dict[str, Any]

    @property
    def max_tokens(self) -> int:
        return int(self.card.get("max_tokens", 256))


def packaged_verifiers() -> list[str]:
    """Names of the verifiers shipped with troth."""
    root = Path(str(resources.files("troth") / "models"))
    return sorted(p.name for p in root.iterdir() if (p / "card.json").is_file()) if root.is_dir() else []


def find_verifier(name: str | None) -> VerifierModel:
    """A verifier by name (a packaged one) or by the path of its folder; its card is read now."""
    name = name or os.environ.get("TROTH_VERIFIER") or DEFAULT_VERIFIER
    path = Path(name) if os.sep in name else Path(str(resources.files("troth") / "models" / name))
    card_file = path / "card.json"
    if not card_file.is_file():
        found = ", ".join(packaged_verifiers()) or "none"
        raise ModelNotFoundError(
            f"no verifier {name!r}: {card_file} does not exist (packaged verifiers: {found}); "
            f"reinstall troth ({INSTALL}) or pass the folder of a verifier as verifier/<path>"
        )
    try:
        card = json.loads(card_file.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ModelLoadError(f"cannot read the verifier's card {card_file}: {exc}; reinstall: {INSTALL}") from exc
    return VerifierModel(str(card.get("name", path.name)), path, card)


def check_files(model: VerifierModel) -> None:
    """Every file the card lists exists and has its sha256; else ModelLoadError naming it."""
    for file_name, expected in (model.card.get("sha256") or {}).items():
        path = model.path / file_name
        if not path.is_file():
            raise ModelNotFoundError(f"the verifier's file {path} is missing; reinstall troth ({INSTALL})")
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        if digest != expected:
            raise ModelLoadError(
                f"the verifier's file {path} is corrupt (sha256 {digest[:12]}…, expected {expected[:12]}…); "
                f"reinstall troth ({INSTALL})"
            )


def load_session(model: VerifierModel) -> tuple[Any, Any]:
    """The process-wide onnxruntime session and tokenizer of ``model`` (loaded and checked once)."""
    with _sessions_lock:
        if model.path not in _sessions:
            ort, tokenizers = _import_runtime()
            check_files(model)
            options = ort.SessionOptions()
            options.intra_op_num_threads = threads()
            options.inter_op_num_threads = 1
            cpu = ["CPUExecutionProvider"]
            try:
                session = ort.InferenceSession(str(model.path / "model.onnx"), options, providers=cpu)
                tokenizer = tokenizers.Tokenizer.from_file(str(model.path / "tokenizer.json"))
            except Exception as exc:  # onnxruntime and tokenizers raise their own types
                raise ModelLoadError(f"cannot load the verifier at {model.path}: {exc}; reinstall: {INSTALL}") from exc
            # as in training: the longer of window and claim is cut first, so a claim longer than
            # the input is cut too (truncating the window alone cannot make room for it)
            tokenizer.enable_truncation(max_length=model.max_tokens, strategy="longest_first")
            tokenizer.no_padding()  # one pair at a time: padding would enter the int8 activations' scale
            _sessions[model.path] = (session, tokenizer)
        return _sessions[model.path]


def threads() -> int:
    """Threads for one session: the CPUs granted to this process ($OMP_NUM_THREADS, as Ray sets
    for its workers), else the machine's; at most 4."""
    granted = os.environ.get("OMP_NUM_THREADS", "")
    count = int(granted) if granted.isdigit() and int(granted) > 0 else (os.cpu_count() or 1)
    return max(1, min(count, 4))


def probabilities(session: Any, encodings: Sequence[Any]) -> Any:
    """The classifier's softmax over its labels for each of ``encodings`` (tokenizers
    encodings), run as one input with each padded to the longest (one encoding: no padding)."""
    import numpy as np

    width = max(len(e.ids) for e in encodings)
    feeds = {
        name: np.array([getattr(e, field) + [0] * (width - len(e.ids)) for e in encodings], dtype=np.int64)
        for name, field in (("input_ids", "ids"), ("attention_mask", "attention_mask"), ("token_type_ids", "type_ids"))
    }
    logits = session.run(["logits"], feeds)[0].astype(np.float64)
    found = np.exp(logits - logits.max(axis=1, keepdims=True))
    return found / found.sum(axis=1, keepdims=True)


def _import_runtime() -> tuple[Any, Any]:
    return load("onnxruntime", EXTRA), load("tokenizers", EXTRA)


CHUNK = 16
"""Pairs classified in one hop to the worker thread (about half a second on 2 cores)."""
DECLARED = Capabilities(generates=False, classify_pairs=True, prices=FREE)
"""What every verifier does: classify (passage, claim) pairs, in process, for free."""


class VerifierBackend(BackendBase):
    """Pair classification with the packaged ONNX verifier."""

    def __init__(self, model: VerifierModel) -> None:
        self.model = model
        self.model_id = f"verifier/{model.name}"
        self.capabilities = replace(
            DECLARED,
            context_window=model.max_tokens,
            yes_threshold=float(model.card.get("yes_threshold", 0.5)),
            uncertain_band=tuple(model.card["uncertain_band"]) if model.card.get("uncertain_band") else None,
            scan_windows=bool(model.card.get("scan_windows", False)),
            second_look=bool(model.card.get("second_look", False)),
            aligned_window=bool(model.card.get("aligned_window", False)),
            claim_head=claim_head(model.card),
        )

    def __repr__(self) -> str:
        return f"VerifierBackend(model_id={self.model_id!r}, path={str(self.model.path)!r})"

    async def classify(self, pairs: Sequence[tuple[str, str]]) -> list[PairScores]:
        """:meth:`classify_now` in a worker thread, :data:`CHUNK` pairs at a time: a cancelled call
        (a timeout, a monitor giving up at exit) stops after the pairs in hand, and the
        interpreter's exit, which waits for the thread, waits for those only."""
        pairs, out = list(pairs), []
        for start in range(0, len(pairs), CHUNK):
            out += await asyncio.to_thread(self.classify_now, pairs[start : start + CHUNK])
        return out

    def classify_now(self, pairs: list[tuple[str, str]]) -> list[PairScores]:
        """P(supported/contradicted/unverifiable) of each pair, in order. Each pair runs alone: the
        int8 model quantizes its activations over the whole input, so in a batch a pair's
        probabilities moved with the pairs beside it (by up to 0.26: a claim's verdict changed
        with the other claims of its answer); alone is also faster here, with no padding
        (bench/pair_batches.py)."""
        session, tokenizer = load_session(self.model)
        out = []
        for pair in pairs:
            encoding = tokenizer.encode(*pair)
            p = probabilities(session, [encoding])[0]
            raw = PairScores(float(p[0]), float(p[1]), float(p[2]), len(encoding.ids), bool(encoding.overflowing))
            out.append(self._calibrated(pair, raw))
        return out

    def _calibrated(self, pair: tuple[str, str], raw: PairScores) -> PairScores:
        """With the card's head: P(supported) from the classifier and the claim's lexical evidence
        in the passage; the rest shared between contradicted and unverifiable as the model did."""
        head = self.model.card.get("head")
        if not head:
            return raw
        p = (raw.supported, raw.contradicted, raw.unverifiable)
        return raw.with_supported(apply_head(features(pair[0], pair[1], p), head["weights"], head["bias"]))


def claim_head(card: dict[str, Any]) -> ClaimHead | None:
    """The card's claim head (``stack``: features, weights, bias), if it has one."""
    stack = card.get("stack")
    if not stack:
        return None
    return ClaimHead(tuple(stack["features"]), tuple(float(w) for w in stack["weights"]), float(stack["bias"]))


def from_options(options: JudgeConfig) -> VerifierBackend:
    """``verifier`` or ``verifier/<packaged name or folder>`` (``local`` is an alias); the model
    loads at the first call."""
    return VerifierBackend(find_verifier(options.name or None))
