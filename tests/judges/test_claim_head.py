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
from troth.judges.base import PairScores
from troth.judges.capabilities import ClaimHead
from troth.judges.plans.stack import FEATURES, claim_features, stacked, substitute_gain, substitute_pairs, uses
from troth.text.alignment import align

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


# (context, faithful answer, the same answer with one name swapped for another of its context)
NAME_SWAPS = [
    (
        "Anna Berg founded the firm in Oslo. Her partner, Tom Rask, ran its office in Bergen.",
        "Anna Berg founded the firm in Oslo.",
        "Tom Rask founded the firm in Oslo.",
    ),
    (
        "The iPhone 4 was unveiled in June 2010. It went on sale in Germany and France in July.",
        "The iPhone 4 was unveiled in June 2010.",
        "The iPhone 4 was unveiled in Germany 2010.",
    ),
    (
        "Liverpool beat Chelsea 2-0 at Anfield. Arsenal drew with Everton at Goodison Park.",
        "Liverpool beat Chelsea 2-0 at Anfield.",
        "Liverpool beat Everton 2-0 at Anfield.",
    ),
    (
        "The novel was written by Mary Shelley in Geneva. Lord Byron proposed the contest there.",
        "The novel was written by Mary Shelley.",
        "The novel was written by Lord Byron.",
    ),
    (
        "Rosa Diaz was elected mayor of Leeds in 2019. Her rival, Sam Cole, won in York.",
        "Rosa Diaz was elected mayor of Leeds.",
        "Rosa Diaz was elected mayor of York.",
    ),
    (
        "The bridge links Denmark and Sweden. It was built by a firm from Norway.",
        "The bridge links Denmark and Sweden.",
        "The bridge links Denmark and Norway.",
    ),
    (
        "Apple sued Samsung in California. Google was not part of the case.",
        "Apple sued Samsung in California.",
        "Apple sued Google in California.",
    ),
    (
        "The orchestra is led by Karl Weiss. Its first violin, Nora Lind, joined from Vienna.",
        "The orchestra is led by Karl Weiss.",
        "The orchestra is led by Nora Lind.",
    ),
    (
        "The river rises in Austria and flows through Hungary. Its delta lies in Romania.",
        "Its delta lies in Romania.",
        "Its delta lies in Austria.",
    ),
    (
        "The summit was held in Nairobi. Delegates from Ghana and Peru flew in from Lagos.",
        "The summit was held in Nairobi.",
        "The summit was held in Lagos.",
    ),
]


def lowered(swaps: list[tuple[str, str, str]]) -> list[bool]:
    scorer = create_faithfulness_scorer("local", reason="template")
    return [
        scorer.run(output=swapped, context=[context]).score < scorer.run(output=faithful, context=[context]).score
        for context, faithful, swapped in swaps
    ]


def test_a_number_swapped_for_another_of_the_context_lowers_the_score() -> None:
    found = lowered(SWAPS)
    # missed: "It has 412 pages and 36 chapters" (no content word leads both numbers) and
    # "18% said they read every week" (the faithful answer is not found supported either)
    assert sum(found) >= 16, found


def test_a_name_swapped_for_another_of_the_context_lowers_the_score() -> None:
    found = lowered(NAME_SWAPS)
    assert sum(found) >= 8, found


def test_the_packaged_card_declares_a_head_over_the_alignment_signs() -> None:
    head = Judge("local").capabilities.claim_head
    assert head is not None and head.features == FEATURES and head.bias == 0.0
    assert head.weights[0] == 1.0
    for sign in ("swapped_number", "swapped_name", "negation_mismatch"):
        assert head.weights[FEATURES.index(sign)] < -1.0, sign
    assert not uses(head, "substitute_gain")  # measured, not shipped: no substitutes are classified
    names, words = head.weights[FEATURES.index("absent_names_numbers")], head.weights[FEATURES.index("absent_words")]
    assert names < words < 0  # a number or name found nowhere in the context weighs more than a word


def card_with(tmp_path: Path, weights: list[float], second_look: bool = False) -> Path:
    """A copy of the packaged verifier whose head has ``weights`` (and a second look or not)."""
    folder = tmp_path / "verifier"
    shutil.copytree(find_verifier(None).path, folder)
    card = json.loads((folder / "card.json").read_text())
    card["stack"] = card["stack"] | {"features": list(FEATURES), "weights": weights, "bias": 0.0}
    (folder / "card.json").write_text(json.dumps(card | {"second_look": second_look}))
    return folder


def test_the_head_round_trips_from_training_to_the_runtime(tmp_path: Path) -> None:
    train = pytest.importorskip("train.stack")
    np = pytest.importorskip("numpy")
    weights = [1.0, 0.2, -0.5, -3.0, -2.0, -3.5, -1.5, -2.0, -0.7]  # every feature, the substitute gain too
    folder = card_with(tmp_path, weights)
    swaps = [*SWAPS[:4], *NAME_SWAPS[:4]]
    found = [([context], claim, 1, False) for context, faithful, swapped in swaps for claim in (faithful, swapped)]
    found.append(([SWAPS[0][0]], "The club was founded by a violinist and a sailor from Quebec in 1898.", 1, False))
    x = train.features_of([VerifierBackend(find_verifier(str(folder)))], found)
    assert any(row[FEATURES.index("substitute_gain")] > 0 for row in x)
    absent = [(row[FEATURES.index("absent_names_numbers")], row[FEATURES.index("absent_words")]) for row in x]
    assert absent[-1] == (1, 1) and absent[0] == (0, 0)  # Quebec; violinist, sailor (past the first): nowhere
    expected = 1 / (1 + np.exp(-(x @ np.array(weights))))  # as train/stack.py fits it
    head = ClaimHead(FEATURES, tuple(weights), 0.0)
    assert [stacked(head, [float(v) for v in row]) for row in x] == pytest.approx(list(expected), abs=1e-6)
    judge = Judge(f"local/{folder}")
    for (context, claim, _, _), want in zip(found, expected, strict=True):
        verdict = create_faithfulness_scorer(judge, context=context).run(output=claim).verdicts[0]
        assert verdict.p_supported == pytest.approx(float(want), abs=5e-5)  # a verdict keeps 4 decimals


def test_a_head_weighing_the_substitute_gain_lowers_a_swap_inside_one_sentence(tmp_path: Path) -> None:
    weights = [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, -6.0, 0.0, 0.0]  # the gain alone
    judge = Judge(f"local/{card_with(tmp_path, weights)}")
    context, faithful, swapped = NAME_SWAPS[1]  # "unveiled in Germany 2010": no sign, "June" fits better
    scorer = create_faithfulness_scorer(judge, context=[context])
    kept, changed = scorer.run(output=faithful).verdicts[0], scorer.run(output=swapped).verdicts[0]
    assert kept.verdict == "yes" and changed.verdict != "yes", (kept, changed)
    assert changed.p_supported is not None and changed.p_supported < 0.5


def test_a_head_weighing_absent_words_lowers_a_claim_the_context_lacks_words_of(tmp_path: Path) -> None:
    context = ["The club was founded in 1898. Its stadium, opened in 1923, holds 40,000 fans."]
    plain = create_faithfulness_scorer(Judge(f"local/{card_with(tmp_path / 'a', [1.0] + [0.0] * 8)}"), context=context)
    weighed = Judge(f"local/{card_with(tmp_path / 'b', [1.0] + [0.0] * 6 + [-2.0, -1.0])}")
    scorer = create_faithfulness_scorer(weighed, context=context)
    for claim in ("The club was founded in 1898.", "The stadium holds 40,000 fans."):  # every word there
        assert scorer.run(output=claim).verdicts[0].p_supported == plain.run(output=claim).verdicts[0].p_supported
    claim = "The club was founded by sailors and fishermen in 1898."  # two words nowhere in the context
    one = "The club was founded by sailors in 1898."  # one: a paraphrase may bring one in
    assert scorer.run(output=one).verdicts[0].p_supported == plain.run(output=one).verdicts[0].p_supported
    before, after = plain.run(output=claim).verdicts[0], scorer.run(output=claim).verdicts[0]
    assert before.p_supported is not None and after.p_supported is not None
    assert after.p_supported < before.p_supported - 0.05
    assert after.verdict == "unsure"  # the reason names what the context lacks; without the counts, no note
    assert after.reason.endswith("Not found anywhere in the context: sailors, fishermen.")
    assert "Not found" not in before.reason


def test_the_packaged_verifier_names_what_the_context_lacks() -> None:
    context = ["The Tesla Model 3 is a battery-electric sedan made by Tesla. Deliveries began in July 2017."]
    scorer = create_faithfulness_scorer(Judge("local"), context=context)
    kept, added = scorer.run(output="Deliveries began in July 2017. It won an award in Oslo in 2019.").verdicts
    assert kept.verdict == "yes" and "Not found" not in kept.reason
    assert added.verdict != "yes"
    assert added.reason.endswith("Not found anywhere in the context: Oslo, 2019, won, award.")


def test_the_second_look_reuses_the_run_classified_for_the_substitutes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    judge = Judge(f"local/{card_with(tmp_path, [1.0, 0.0, 0.0, -3.0, 0.0, 0.0, -1.0, 0.0, 0.0], second_look=True)}")
    asked: list[tuple[str, str]] = []
    classify_now = VerifierBackend.classify_now

    def counted(self: VerifierBackend, pairs: list[tuple[str, str]]) -> list[PairScores]:
        asked.extend(pairs)
        return classify_now(self, pairs)

    monkeypatch.setattr(VerifierBackend, "classify_now", counted)
    filler = " ".join(f"Its shop on street {i} sells scarves, mugs and flags to the fans." for i in range(12))
    context = [f"{filler} The club was founded in 1898, and its stadium opened in 1923. {filler}"]
    result = create_faithfulness_scorer(judge, context=context).run(output="The club was founded in 1923.")
    run = "The club was founded in 1898, and its stadium opened in 1923."
    assert (run, "The club was founded in 1923.") in asked  # the second look's window, read once
    assert (run, "The club was founded in 1898.") in asked  # a substitute
    assert len(asked) == len(set(asked))  # no pair classified twice
    assert result.verdicts[0].verdict != "yes"


def test_a_claim_without_a_sign_keeps_the_classifier_probability() -> None:
    head = ClaimHead(FEATURES, (1.0, 0.0, 0.0, -3.0, 0.0, 0.0, -2.0, -1.5, -0.5), 0.0)
    context = ["The club was founded in 1898. Its stadium, opened in 1923, holds 40,000 fans."]
    quiet = align("The club was founded in 1898.", context)
    assert stacked(head, claim_features(0.8, 0.1, quiet)) == pytest.approx(0.8)
    swapped = align("The club was founded in 1923.", context)
    assert stacked(head, claim_features(0.8, 0.1, swapped)) == pytest.approx(1 / (1 + math.exp(3.0 - math.log(4))))
    assert stacked(head, claim_features(0.8, 0.1, quiet, 0.5)) == pytest.approx(1 / (1 + math.exp(1.0 - math.log(4))))
    with pytest.raises(ValueError, match="expects features"):
        stacked(ClaimHead(("other",), (1.0,), 0.0), [0.0])


def test_a_head_fitted_before_the_later_features_reads_the_features_it_knows() -> None:
    older = ClaimHead(FEATURES[:6], (1.0, 0.0, 0.0, -3.0, 0.0, 0.0), 0.0)
    swapped = align("The club was founded in 1923.", ["The club was founded in 1898. Its stadium opened in 1923."])
    assert stacked(older, claim_features(0.8, 0.1, swapped, 0.9)) == pytest.approx(
        1 / (1 + math.exp(3.0 - math.log(4)))
    )
    assert not uses(older, "substitute_gain") and uses(older, "swapped_number") and not uses(None, "swapped_number")
    seven = ClaimHead(FEATURES[:7], (1.0, 0.0, 0.0, -3.0, 0.0, 0.0, 0.0), 0.0)  # before the absent words
    lacking = align("The club was founded by sailors from Oslo in 1898.", ["The club was founded in 1898."])
    assert (lacking.absent_names_numbers, lacking.absent_words) == (("Oslo",), ("sailors",))
    assert stacked(seven, claim_features(0.8, 0.1, lacking)) == pytest.approx(0.8)


def scores(*supported: float) -> list[PairScores]:
    return [PairScores(p, (1 - p) / 2, (1 - p) / 2) for p in supported]


def test_the_substitute_gain_is_how_much_likelier_the_best_substitute_is() -> None:
    assert substitute_gain(scores(0.4, 0.9, 0.7)) == pytest.approx(0.5)
    assert substitute_gain(scores(0.9, 0.5, 0.7)) == 0.0  # the claim's own fits best
    assert substitute_gain(scores(0.9)) == 0.0 and substitute_gain([]) == 0.0


def test_substitute_pairs_read_each_claim_against_its_run() -> None:
    run = "Anna Berg founded the firm in Oslo in 1998."
    pairs, spans = substitute_pairs(["Tom Rask founded the firm in 1998.", "It is small.", "Oslo."], [run, run, ""])
    assert pairs[0] == (run, "Tom Rask founded the firm in 1998.")
    assert (run, "Anna Berg founded the firm in 1998.") in pairs[1:]
    assert all(window == run for window, _ in pairs)
    assert spans[0] == range(0, len(pairs)) and spans[1] == range(len(pairs), len(pairs)) and not spans[2]


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
