"""Same-context edits as training pairs, and the batch mix that gives them a share."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from train.data import DEV_FILES, edit_pairs
from train.pairs import CONTRADICTED, SUPPORTED, Pair
from train.verifier import MIX, mix_for, mix_with_edits, mixed_order

LOPEZ = "Marta Lopez moved to Lisbon in 1970 and to Porto in 1982."


def write_files(folder: Path) -> None:
    """Each dev file's training half gets faithful answers naming a team, a rival and numbers; the
    shared folder one supported and one unverifiable pair."""
    for name in DEV_FILES:
        rows = [
            {
                "id": f"{name}-{i}",
                "context": [f"The Hawks beat the Owls {i + 3} to {i + 1} in {1990 + i}. Coach Rivera was pleased."],
                "output": f"The Hawks beat the Owls {i + 3} to {i + 1}.",
                "label": 1,
            }
            for i in range(40)
        ]
        (folder / f"{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    shared = folder / "train"
    shared.mkdir()
    rows = [
        {"context": LOPEZ, "claim": "In 1970 Marta Lopez moved to Lisbon.", "label": "supported"},
        {"context": LOPEZ, "claim": "In 1951 she moved to Faro.", "label": "unverifiable"},
    ]
    (shared / "mnli-binary.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def test_edits_of_supported_claims_stand_beside_their_originals(tmp_path: Path) -> None:
    write_files(tmp_path)
    pairs = edit_pairs(tmp_path, seed=0)
    assert pairs and {p.source for p in pairs} == {"edits"}
    claims = {p.claim: p for p in pairs}
    assert claims["In 1970 Marta Lopez moved to Lisbon."].target == SUPPORTED
    assert not any("1951" in claim for claim in claims)  # only supported claims are edited
    # the number and the name are swapped for the other ones of the same context
    assert claims["In 1982 Marta Lopez moved to Lisbon."].target == CONTRADICTED
    (name_swap,) = [p for c, p in claims.items() if "Porto" in c and "1970" in c]
    assert name_swap.target == CONTRADICTED and name_swap.passage == LOPEZ
    dev = [p for p in pairs if "Hawks" in p.passage]
    assert {p.target for p in dev} == {SUPPORTED, CONTRADICTED}
    assert all(p.claim not in p.passage for p in dev if p.target == CONTRADICTED)


def test_the_mix_gives_edits_their_share_and_keeps_the_rest_in_proportion() -> None:
    assert mix_with_edits(0.0) == MIX
    mix = mix_with_edits(0.35)
    assert mix["edits"] == 0.35
    assert sum(mix.values()) == pytest.approx(1.0)
    assert mix["esnli"] / mix["dev"] == pytest.approx(MIX["esnli"] / MIX["dev"])


def test_sources_left_out_of_the_mix_go_unused() -> None:
    mix = mix_for(0.0, ["dev", "synthetic"])
    assert set(mix) == set(MIX) - {"dev", "synthetic"} and mix["esnli"] == MIX["esnli"]
    pairs = [
        Pair("p", f"claim {i}", SUPPORTED, source) for i, source in enumerate(["esnli", "cliff-val", "synthetic"] * 5)
    ]
    assert {p.source for p in mixed_order(pairs, 30, 0, mix)} == {"esnli"}
    assert {p.source for p in mixed_order(pairs, 30, 0, mix_for(0.0))} == {"esnli", "cliff-val", "synthetic"}


def test_a_left_out_fold_gives_no_pair_edit_or_synthetic_sentence(tmp_path: Path) -> None:
    from bench.splits import fold_of, read_half
    from train.data import training_pairs
    from train.verifier import fold

    write_files(tmp_path)
    rows = read_half(tmp_path / "cliff-val.jsonl", "train")
    years = {k: {str(1990 + int(r["id"].rsplit("-", 1)[1])) for r in rows if fold_of(r, 2) == k} for k in (0, 1)}
    assert years[0] and years[1]
    everything = training_pairs(tmp_path, synthetic=60, seed=0, edits=True)
    kept = training_pairs(tmp_path, synthetic=60, seed=0, edits=True, leave=(0, 2))
    seen = {y for p in everything for y in years[0] if y in p.passage}
    assert seen  # without a fold left out, fold 0's contexts are read
    assert not any(y in p.passage or y in p.claim for p in kept for y in years[0])
    assert any(y in p.passage for p in kept for y in years[1]) and {p.source for p in kept} >= {"edits", "synthetic"}
    assert fold("1/3") == (1, 3)
    for wrong in ("2/2", "0/1", "a/2", "1"):
        with pytest.raises(SystemExit, match="K/N"):
            fold(wrong)


def test_factcg_pairs_are_supported_or_not_and_come_after_the_validation_pairs(tmp_path: Path) -> None:
    from train.data import factcg_pairs, training_pairs
    from train.pairs import NOT_SUPPORTED

    write_files(tmp_path)
    document = "Ken Clarke, a former Treasury chief, said cutting inheritance tax leaves poorer people vulnerable."
    edited = document.replace("Ken Clarke, a former Treasury chief", "A political figure")
    claim = "Ken Clarke criticized cutting inheritance tax."
    rows = [{"text_a": document, "text_b": [claim], "text_c": [], "orig_label": 1}]
    rows.append({"text_a": edited, "text_b": [claim], "text_c": [], "orig_label": 0})
    cg2c = tmp_path / "CG2C_doc.json"
    cg2c.write_text("".join(json.dumps(r) + "\n" for r in rows) + "\n", encoding="utf-8")
    pairs = factcg_pairs(cg2c)
    assert [(p.passage, p.claim, p.target, p.source) for p in pairs] == [
        (document, claim, SUPPORTED, "factcg"),
        (edited, claim, NOT_SUPPORTED, "factcg"),
    ]
    without = training_pairs(tmp_path, synthetic=60, seed=0)
    with_them = training_pairs(tmp_path, synthetic=60, seed=0, factcg=cg2c)
    assert with_them[: len(without)] == without and with_them[len(without) :] == pairs
    mix = mix_for(0.2, factcg=0.25)
    assert mix["factcg"] == 0.25 and mix["edits"] == 0.2 and sum(mix.values()) == pytest.approx(1.0)
    assert mix["esnli"] / mix["dev"] == pytest.approx(MIX["esnli"] / MIX["dev"])
