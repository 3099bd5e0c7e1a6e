"""The verifier's claim head: a number swapped for another of the same context lowers the score,
the head round-trips from training to the runtime, and a card without one changes nothing."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import pytest

from troth import Judge, create_faithfulness_scorer
from troth.judges.backends.verifier import VerifierBackend, find_verifier
from troth.judges.capabilities import ClaimHead
from troth.judges.plans.pairs import gather, pair_windows, restack
from troth.judges.plans.stack import FEATURES, claim_features, stacked
from troth.text.alignment import align
from troth.text.windows import window_text

pytest.importorskip("onnxruntime")

# (context, faithful answer, the same answer with one number swapped for another of its context)
SWAPS = [
    (
        "The club was founded in 1898. Its stadium, opened in 1923, holds 40,000 fans.",
        "The club was founded in 1898.",
        "The club was founded in 1923.",
    ),
    (
        "The bridge is 1,280 metres long. It opened in 1937 after 4 years of work.",
        "The bridge opened in 1937.",
        "The bridge opened in 1280.",
    ),
    (
        "Sales rose 12% to 4.5 billion euros in 2021. The firm employs 3,000 people.",
        "Sales rose 12% in 2021.",
        "Sales rose 3,000% in 2021.",
    ),
    (
        "The match ended 4-2 after extra time. 55,000 people watched in Madrid on 3 May.",
        "The match ended 4-2.",
        "The match ended 4-3.",
    ),
    (
        "The lake is 12 km long and 310 m deep. It freezes for 90 days a year.",
        "The lake is 12 km long.",
        "The lake is 90 km long.",
    ),
    (
        "The rocket carried 7 satellites. It launched at 6:15 from pad 39, its 20th flight.",
        "The rocket carried 7 satellites.",
        "The rocket carried 20 satellites.",
    ),
    (
        "The novel sold 2 million copies in its first year. It has 412 pages and 36 chapters.",
        "The novel has 412 pages.",
        "The novel has 36 pages.",
    ),
    (
        "The school has 850 pupils and 64 teachers. It was built in 1962.",
        "The school has 850 pupils.",
        "The school has 64 pupils.",
    ),
    (
        "Prices fell 3% in March, after rising 5% in February. Wages grew 2%.",
        "Prices fell 3% in March.",
        "Prices fell 5% in March.",
    ),
    (
        "The film runs 148 minutes. It cost 160 million dollars and earned 836 million.",
        "The film runs 148 minutes.",
        "The film runs 160 minutes.",
    ),
    (
        "The hospital has 600 beds. It treated 45,000 patients last year with 1,200 staff.",
        "The hospital has 600 beds.",
        "The hospital has 1,200 beds.",
    ),
    (
        "The tower is 330 metres tall. It was completed in 1889 and has 3 levels.",
        "The tower is 330 metres tall.",
        "The tower is 1889 metres tall.",
    ),
    (
        "The team won 11 of its 16 games. Its coach, aged 52, signed for 3 more years.",
        "The team won 11 games.",
        "The team won 16 games.",
    ),
    (
        "The company cut 1,500 jobs in 2019. It had hired 900 people in 2017.",
        "The company cut 1,500 jobs in 2019.",
        "The company cut 900 jobs in 2019.",
    ),
    (
        "The train covers 500 km in 2 hours. The line cost 8 billion and opened in 2011.",
        "The train covers 500 km in 2 hours.",
        "The train covers 500 km in 8 hours.",
    ),
    (
        "The survey asked 2,000 adults. 61% said they read every week; 18% never read.",
        "61% said they read every week.",
        "18% said they read every week.",
    ),
    (
        "The river is 410 km long. Its basin covers 9,800 square km and 14 towns.",
        "The river is 410 km long.",
        "The river is 14 km long.",
    ),
    (
        "The plane seats 180 passengers. It flies at 840 km per hour over 6,000 km.",
        "The plane seats 180 passengers.",
        "The plane seats 840 passengers.",
    ),
    (
        "The election turnout was 67%. The winner took 52% of the vote in 2014.",
        "The winner took 52% of the vote.",
        "The winner took 67% of the vote.",
    ),
    (
        "The museum holds 30,000 objects. It opened in 1753 and draws 6 million visitors.",
        "The museum opened in 1753.",
        "The museum opened in 30,000.",
    ),
]


def test_a_number_swapped_for_another_of_the_context_lowers_the_score() -> None:
    scorer = create_faithfulness_scorer("local", reason="template")
    lowered = [
        scorer.run(output=swapped, context=[context]).score < scorer.run(output=faithful, context=[context]).score
        for context, faithful, swapped in SWAPS
    ]
    # 14 with the packaged head; missed: a swap inside the aligned window itself ("It has 412 pages
    # and 36 chapters": the pronoun joins two sentences into one window) and a sign not yet used
    assert sum(lowered) >= 14, lowered


def test_the_packaged_card_declares_a_head_over_the_number_sign() -> None:
    head = Judge("local").capabilities.claim_head
    assert head is not None and head.features == FEATURES and head.bias == 0.0
    assert head.weights[0] == 1.0 and head.weights[FEATURES.index("swapped_number")] < -1.0


def test_the_head_round_trips_from_training_to_the_runtime() -> None:
    train = pytest.importorskip("train.stack")
    np = pytest.importorskip("numpy")
    model = find_verifier(None)
    backend = VerifierBackend(model)
    found = [([context], claim, 1, False) for context, faithful, swapped in SWAPS[:5] for claim in (faithful, swapped)]
    x = train.features_of(backend, found)
    head = backend.capabilities.claim_head
    assert head is not None
    expected = 1 / (1 + np.exp(-(x @ np.array(head.weights) + head.bias)))  # as train/stack.py fits it
    for (context, claim, _, _), want in zip(found, expected, strict=True):
        found_windows = pair_windows(context, [claim], False, aligned=True)
        windows, (alignment,) = found_windows.windows, found_windows.alignments
        (scored,) = gather([claim], windows, backend.classify_now([(window_text(w), claim) for w in windows[0]]))
        assert restack(scored, alignment, head).supported == pytest.approx(float(want), abs=1e-6)


def test_a_claim_without_a_sign_keeps_the_classifier_probability() -> None:
    head = ClaimHead(FEATURES, (1.0, 0.0, 0.0, -3.0, 0.0, 0.0), 0.0)
    context = ["The club was founded in 1898. Its stadium, opened in 1923, holds 40,000 fans."]
    quiet = align("The club was founded in 1898.", context)
    assert stacked(head, claim_features(0.8, 0.1, quiet)) == pytest.approx(0.8)
    swapped = align("The club was founded in 1923.", context)
    assert stacked(head, claim_features(0.8, 0.1, swapped)) == pytest.approx(1 / (1 + math.exp(3.0 - math.log(4))))
    with pytest.raises(ValueError, match="expects features"):
        stacked(ClaimHead(("other",), (1.0,), 0.0), [0.0])


def test_a_card_without_a_head_scores_as_before(tmp_path: Path) -> None:
    folder = tmp_path / "plain"
    shutil.copytree(find_verifier(None).path, folder)
    card = json.loads((folder / "card.json").read_text())
    del card["stack"]
    (folder / "card.json").write_text(json.dumps(card))
    plain = Judge(f"local/{folder}")
    assert plain.capabilities.claim_head is None
    context, _, swapped = SWAPS[0]
    with_head = create_faithfulness_scorer("local", context=[context]).run(output=swapped)
    without = create_faithfulness_scorer(plain, context=[context]).run(output=swapped)
    assert with_head.verdicts[0].p_supported is not None and without.verdicts[0].p_supported is not None
    assert with_head.verdicts[0].p_supported < without.verdicts[0].p_supported
