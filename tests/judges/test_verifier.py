"""The offline verifier: the packaged ONNX cross-encoder behind ``model="local"``."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest

from troth import Judge, create_faithfulness_scorer, run_evals
from troth.errors import ModelLoadError, ModelNotFoundError
from troth.judges.backends.verifier import CHUNK, DEFAULT_VERIFIER, find_verifier, packaged_verifiers
from troth.judges.base import PairScores
from troth.testing import FakeOpenAIServer, ScriptedJudge

CONTEXT = [
    "The Tesla Model 3 is a battery-electric sedan made by Tesla. Deliveries began in July 2017. "
    "The Long Range version has an EPA-rated range of 358 miles. The car is built at the Fremont factory "
    "in California and at Gigafactory Shanghai."
]
FILLER = " ".join(
    f"Paragraph {i} describes the weather in the valley, which was mild and dry that season." for i in range(80)
)


def verdicts(output: str, context: list[str], judge: Judge | str = "local") -> list[str]:
    result = create_faithfulness_scorer(judge, context=context).run(output=output)
    return [v.verdict for v in result.analyze_step_result.verdicts]


def test_the_default_verifier_is_packaged_and_local_means_it() -> None:
    assert DEFAULT_VERIFIER in packaged_verifiers()
    judge = Judge("local")
    assert judge.capabilities.classify_pairs and not judge.capabilities.generates
    assert judge.backend().model_id == f"verifier/{DEFAULT_VERIFIER}"


def test_the_bundled_example() -> None:
    example = json.loads((Path(__file__).parents[2] / "src/troth/examples/model3.json").read_text())
    result = create_faithfulness_scorer("local", context=example["context"]).run(output=example["output"])
    labels = {v.claim: v.verdict for v in result.analyze_step_result.verdicts}
    assert labels["The Tesla Model 3 is an electric sedan."] == "yes"
    assert labels["Deliveries began in July 2017."] == "yes"
    assert labels["The Long Range version has a range of 520 miles."] == "no"
    assert labels["It won the World Car of the Year award in 2019."] == "unsure"
    assert labels["It is built in Fremont and Shanghai."] == "yes"  # on a second look
    assert result.score == 0.6
    # one request for every claim, one more for the second look at the two found contradicted
    assert result.usage["analyze"].calls == 2 and "preprocess" not in result.usage  # no model call to extract


def card_copy(tmp_path: Path, **overrides: object) -> str:
    """The packaged verifier with its card changed by ``overrides``."""
    source = find_verifier(DEFAULT_VERIFIER)
    folder = tmp_path / "verifier-copy"
    folder.mkdir()
    for name in ("model.onnx", "tokenizer.json"):
        (folder / name).symlink_to(source.path / name)
    (folder / "card.json").write_text(json.dumps(source.card | overrides))
    return f"local/{folder}"


def test_a_contradiction_stands_only_if_the_claims_own_sentence_does_not_outweigh_it(tmp_path: Path) -> None:
    claim = "It is built in Fremont and Shanghai."
    without = create_faithfulness_scorer(card_copy(tmp_path, second_look=False), context=CONTEXT).run(output=claim)
    (first,) = without.verdicts
    assert first.verdict == "no" and without.usage["analyze"].calls == 1  # the whole context misread
    looked = create_faithfulness_scorer("local", context=CONTEXT).run(output=claim)
    (again,) = looked.verdicts
    assert again.verdict == "yes" and again.evidence is not None and looked.usage["analyze"].calls == 2
    assert again.evidence.quote == "The car is built at the Fremont factory in California and at Gigafactory Shanghai."
    swapped = create_faithfulness_scorer("local", context=CONTEXT).run(output="It is built in Fremont and Berlin.")
    assert [v.verdict for v in swapped.verdicts] == ["no"]  # a real contradiction survives the second look


def test_paraphrase_negation_swapped_number_and_unrelated() -> None:
    assert verdicts("Tesla began delivering the Model 3 in July 2017.", CONTEXT) == ["yes"]
    assert verdicts("The Long Range version has an EPA-rated range of 420 miles.", CONTEXT) == ["no"]
    assert verdicts("The Model 3 is not built at Gigafactory Shanghai.", CONTEXT) == ["no"]
    assert verdicts("The company was founded by two brothers in Ohio.", CONTEXT) == ["unsure"]


def test_deterministic_with_probabilities_and_located_evidence() -> None:
    scorer = create_faithfulness_scorer("local", context=CONTEXT)
    first = scorer.run(output="Deliveries began in July 2017.")
    again = scorer.run(output="Deliveries began in July 2017.")
    assert first.analyze_step_result == again.analyze_step_result
    verdict = first.analyze_step_result.verdicts[0]
    assert verdict.probabilities is not None and sum(verdict.probabilities.values()) == pytest.approx(1, abs=1e-3)
    assert verdict.evidence is not None and verdict.evidence.verified
    start, end = verdict.evidence.start, verdict.evidence.end
    assert CONTEXT[0][start:end] == "Deliveries began in July 2017." == verdict.evidence.quote


def test_a_claims_verdict_does_not_depend_on_the_other_claims_of_its_answer() -> None:
    claim = "The car is built in Fremont and in Shanghai."
    others = "Deliveries began in July 2017. The Model 3 was designed by a team of engineers in Palo Alto."
    alone = create_faithfulness_scorer("local", context=CONTEXT).run(output=claim)
    beside = create_faithfulness_scorer("local", context=CONTEXT).run(output=f"{others} {claim}")
    ours = [v for v in beside.analyze_step_result.verdicts if v.claim == claim]
    assert ours and ours[0].probabilities == alone.analyze_step_result.verdicts[0].probabilities
    backend = Judge("local").backend()
    pairs = [(CONTEXT[0], claim), (FILLER, "It rained."), (CONTEXT[0][:60], "Tesla makes cars.")]
    assert backend.classify_now(pairs)[0] == backend.classify_now(pairs[:1])[0]


def test_pairs_are_classified_a_chunk_at_a_time_and_a_cancelled_call_stops_between_chunks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    backend = Judge("local").backend()
    pairs = [(CONTEXT[0], f"Tesla built {n} cars in Fremont.") for n in range(2 * CHUNK + 3)]
    assert asyncio.run(backend.classify(pairs)) == backend.classify_now(pairs)  # in order, the same scores
    hops: list[int] = []
    counted = backend.classify_now

    def classify_now(chunk: list[tuple[str, str]]) -> list[PairScores]:
        hops.append(len(chunk))
        return counted(chunk)

    async def cancelled() -> None:
        task = asyncio.create_task(backend.classify(pairs))
        while not hops:
            await asyncio.sleep(0.001)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    monkeypatch.setattr(backend, "classify_now", classify_now)
    asyncio.run(cancelled())
    assert hops == [CHUNK]  # the chunk in hand was finished, no other was started


def test_evidence_found_in_the_last_window_of_a_long_context() -> None:
    context = [FILLER, "The observatory on the ridge was completed in 1931 and houses a 40-inch telescope."]
    result = create_faithfulness_scorer("local", context=context).run(output="The observatory was completed in 1931.")
    verdict = result.analyze_step_result.verdicts[0]
    assert verdict.verdict == "yes"
    assert verdict.evidence is not None and verdict.evidence.context_index == 1 and verdict.evidence.start == 0


def test_a_claim_longer_than_the_verifiers_input_is_cut_not_an_error() -> None:
    claim = "The Tesla Model 3 is an electric sedan built in Fremont, " + "which is in California, " * 60 + "USA."
    result = create_faithfulness_scorer("local", context=CONTEXT).run(output=claim)
    (verdict,) = result.analyze_step_result.verdicts
    assert verdict.verdict in ("yes", "no", "unsure") and verdict.probabilities
    assert "did not fit the verifier's input" in (result.reason or "")
    backend = Judge("local").backend()
    (scores,) = backend.classify_now([(CONTEXT[0], claim)])
    assert scores.truncated and scores.tokens <= backend.model.max_tokens


def test_a_listed_answer_is_a_claim_per_item_and_its_markers_are_none() -> None:
    output = "Here is what the context says:\n1. Deliveries began in July 2017.\n2. It is built in Fremont and Berlin."
    result = create_faithfulness_scorer("local", context=CONTEXT).run(output=output)
    claims = [v.claim for v in result.analyze_step_result.verdicts]
    assert claims == ["Deliveries began in July 2017.", "It is built in Fremont and Berlin."]
    verdicts = [v.verdict for v in result.analyze_step_result.verdicts]
    assert verdicts[0] == "yes" and verdicts[1] != "yes" and result.score == 0.5


def test_empty_output_and_missing_context_make_no_model_call() -> None:
    scorer = create_faithfulness_scorer("local")
    assert scorer.run(output="   ", context=CONTEXT).usage == {}
    no_context = scorer.run(output="Deliveries began in July 2017.")
    assert no_context.score == 0 and "no context" in (no_context.reason or "") and no_context.usage == {}


@pytest.fixture
def copied(tmp_path: Path) -> Path:
    folder = tmp_path / "my-verifier"
    shutil.copytree(find_verifier(None).path, folder)
    return folder


def test_a_corrupt_weight_file_is_a_typed_error_naming_it(copied: Path) -> None:
    data = bytearray((copied / "model.onnx").read_bytes())
    data[len(data) // 2] ^= 0xFF
    (copied / "model.onnx").write_bytes(bytes(data))
    with pytest.raises(ModelLoadError, match=r"model\.onnx is corrupt.*pip install \"troth\[verifier\]\""):
        create_faithfulness_scorer(f"local/{copied}", context=CONTEXT).run(output="Deliveries began in 2017.")


def test_missing_weights_and_unknown_verifiers_are_typed_errors(copied: Path) -> None:
    (copied / "model.onnx").unlink()
    with pytest.raises(ModelNotFoundError, match=r"model\.onnx is missing"):
        create_faithfulness_scorer(f"local/{copied}", context=CONTEXT).run(output="Deliveries began in 2017.")
    with pytest.raises(ModelNotFoundError, match="no verifier"):
        find_verifier(str(copied.parent / "nowhere"))


def test_cascade_sends_only_uncertain_claims_to_the_second_judge() -> None:
    output = "Deliveries began in July 2017. The company was founded by two brothers in Ohio."
    alone = create_faithfulness_scorer("local", context=CONTEXT).run(output=output)
    p = [v.p_supported for v in alone.analyze_step_result.verdicts]
    assert p[0] is not None and p[1] is not None and p[1] < p[0]
    band = (p[1] / 2, (p[0] + p[1]) / 2)  # holds the second claim only
    with FakeOpenAIServer(ScriptedJudge(default=("yes", ""))) as server:
        second = Judge("second", base_url=server.base_url, api_key="k")
        cascade = Judge("local", second_opinion=second, uncertain_band=band)
        result = create_faithfulness_scorer(cascade, context=CONTEXT).run(output=output)
        asked = [r for r in server.requests if r.schema_name == "ClaimVerdicts"]
    claims_sent = asked[0].prompt.split("<claims>")[-1] if len(asked) == 1 else ""
    assert "founded by two brothers" in claims_sent and "Deliveries" not in claims_sent
    by = [(v.verdict, v.decided_by) for v in result.analyze_step_result.verdicts]
    assert by == [("yes", "verifier/verifier-minilm"), ("yes", "second")]
    assert result.usage["analyze.second_opinion"].calls == 1
    assert "1 of 2 claims were uncertain" in (result.reason or "")


def test_cascade_asks_the_second_judge_once_per_item_and_resumes_from_the_store(tmp_path: Path) -> None:
    data = [
        {
            "id": f"i{n}",
            "context": CONTEXT,
            "output": f"Deliveries began in July 2017. Plant {n} was founded by two brothers in Ohio.",
        }
        for n in range(6)
    ]
    with FakeOpenAIServer(ScriptedJudge(default=("yes", ""))) as server:
        second = Judge("second", base_url=server.base_url, api_key="k", max_retries=0)
        cascade = Judge("local", second_opinion=second, uncertain_band=(0.0, 1.0))  # every claim goes on
        make = create_faithfulness_scorer(cascade)
        first = run_evals(data, [make], store=str(tmp_path / "s.db"), eval_id="e", quiet=True)
        sent = [r.prompt.split("<claims>")[-1] for r in server.requests]
        assert len(sent) == 6 and all("Deliveries" in s and "two brothers" in s for s in sent)  # both claims, 1 call
        results = [i.results["faithfulness"] for i in first.items]
        assert {r.score for r in results} == {1.0} and {r.usage["analyze.second_opinion"].calls for r in results} == {1}
        again = run_evals(data, [make], store=str(tmp_path / "s.db"), eval_id="e", quiet=True)
        assert len(server.requests) == 6 and again.summary.resumed_items == 6


def test_uncertain_band_is_checked() -> None:
    with pytest.raises(ValueError, match="uncertain_band"):
        Judge("local", uncertain_band=(0.8, 0.2))


def test_aligned_window_reads_every_claim_against_its_own_sentences_too(tmp_path: Path) -> None:
    context = [
        "Paris is the capital of France. The city has about 2.1 million residents.",
        "The Eiffel Tower, in Paris, was completed in 1889 for the World's Fair. It is 330 metres tall.",
        "Acme Corp reported revenue of $5.2 billion in 2023, up 8% from 2022. Its CEO is Jane Doe.",
    ]
    claim = "Acme's revenue grew 8% in 2023 to $5.2 billion."
    aligned = card_copy(tmp_path, aligned_window=True)
    whole = create_faithfulness_scorer("local", context=context).run(output=claim)
    both = create_faithfulness_scorer(aligned, context=context).run(output=claim)
    assert whole.analyze_step_result.verdicts[0].verdict != "yes"  # the three documents as one window
    verdict = both.analyze_step_result.verdicts[0]
    assert verdict.verdict == "yes" and verdict.evidence is not None
    assert verdict.evidence.quote.startswith("Acme Corp reported revenue")
    assert Judge(aligned).capabilities.aligned_window and not Judge("local").capabilities.aligned_window


def test_an_answers_pleasantries_are_not_claims_and_the_reason_says_so() -> None:
    scorer = create_faithfulness_scorer("local", context=["The Eiffel Tower is 330 metres tall."])
    answer = "Sure! The Eiffel Tower is 330 metres tall. Let me know if you have any other questions."
    result = scorer.run(output=answer)
    assert [v.claim for v in result.verdicts] == ["The Eiffel Tower is 330 metres tall."]
    assert result.score == 1.0
    assert "Not checked, as they state nothing: \u201cSure!\u201d, \u201cLet me know" in result.reason
    alone = scorer.run(output="Sure!")
    assert [v.verdict for v in alone.verdicts] == ["unsure"] and alone.score == 0.0
    credited = scorer.run(output="Based on the provided context, the Eiffel Tower is 330 metres tall.")
    assert [(v.claim, v.verdict) for v in credited.verdicts] == [("The Eiffel Tower is 330 metres tall.", "yes")]


def test_a_table_in_the_context_is_read_row_by_row_and_quoted_as_written() -> None:
    table = "| Tower | Height | Opened |\n|---|---|---|\n| Eiffel Tower | 330 m | 1889 |\n"
    table += "| Tokyo Tower | 333 m | 1958 |"
    scorer = create_faithfulness_scorer("local", context=[table])
    right, wrong = scorer.run(output="The Eiffel Tower is 330 m tall. The Eiffel Tower is 333 m tall.").verdicts
    assert (right.verdict, wrong.verdict) == ("yes", "no")
    assert right.evidence is not None and right.evidence.quote == "| Eiffel Tower | 330 m | 1889 |"
    assert table[right.evidence.start : right.evidence.end] == right.evidence.quote


def test_a_json_tool_result_is_read_object_by_object_and_quoted_as_written() -> None:
    result = json.dumps(
        {
            "departures": [
                {"time": "08:12", "platform": 2, "operator": "GWR"},
                {"time": "08:42", "platform": 3, "operator": "GWR"},
            ],
            "route": "Oxford to London Paddington",
        }
    )
    orders = json.dumps({"order_id": "A-1042", "status": "shipped", "carrier": "UPS", "eta": "2026-12-09"})
    scorer = create_faithfulness_scorer("local", context=[orders])
    faithful = scorer.run(output="Your order A-1042 has shipped with UPS and should arrive on December 9, 2026.")
    assert faithful.score == 1.0  # "2026-12-09" read as the date it is
    assert scorer.run(output="Your order A-1042 has shipped with FedEx.").score == 0.0
    (verdict,) = (
        create_faithfulness_scorer("local", context=[result])
        .run(output="The 08:12 departure is from platform 2.")
        .verdicts
    )
    assert verdict.verdict == "yes" and verdict.evidence is not None
    assert verdict.evidence.quote == '{"time": "08:12", "platform": 2, "operator": "GWR"}'
    assert result[verdict.evidence.start : verdict.evidence.end] == verdict.evidence.quote


def test_a_rounded_number_is_supported_by_the_number_it_rounds_and_a_wrong_one_is_not() -> None:
    scorer = create_faithfulness_scorer("local", context=["The city had 2,148,271 residents in 2020."])
    assert scorer.run(output="The city has about 2.1 million residents.").score == 1.0
    wrong = scorer.run(output="The city has about 3 million residents.")
    assert wrong.score == 0.0 and "about 3 million" in (wrong.reason or "")


def test_a_markdown_list_context_is_read_item_by_item_and_quoted_as_written() -> None:
    context = "## X1 laptop\nThe X1 ships in two sizes.\n- Battery: 12 hours\n- Weight: 1.2 kg\n- Ports: two USB-C"
    scorer = create_faithfulness_scorer("local", context=[context])
    right, wrong = scorer.run(output="The X1 weighs 1.2 kg."), scorer.run(output="The X1 weighs 1.5 kg.")
    assert right.score == 1.0 and wrong.score == 0.0
    for result in (right, wrong):
        evidence = result.verdicts[0].evidence
        assert evidence is not None and evidence.quote == "- Weight: 1.2 kg"
        assert context[evidence.start : evidence.end] == evidence.quote


def test_an_html_table_context_is_read_row_by_row_under_its_header() -> None:
    page = (
        "<table><tr><th>Tower</th><th>City</th><th>Height</th></tr>"
        "<tr><td>Eiffel Tower</td><td>Paris</td><td>330 m</td></tr>"
        "<tr><td>Blackpool Tower</td><td>Blackpool</td><td>158 m</td></tr></table>"
    )
    scorer = create_faithfulness_scorer("local", context=[page])
    right = scorer.run(output="The Eiffel Tower is 330 m tall.")
    assert right.score == 1.0 and right.verdicts[0].evidence is not None
    assert right.verdicts[0].evidence.quote == "<tr><td>Eiffel Tower</td><td>Paris</td><td>330 m</td></tr>"
    assert scorer.run(output="Blackpool Tower is in Paris.").verdicts[0].verdict == "no"


def test_a_clock_time_is_supported_by_the_same_time_written_the_other_way() -> None:
    scorer = create_faithfulness_scorer("local", context=['{"flight": "BA117", "departure": "2026-12-09T14:45:00"}'])
    assert scorer.run(output="Flight BA117 departs at 2:45 pm on December 9.").score == 1.0
    assert scorer.run(output="Flight BA117 departs at 3:45 pm on December 9.").score == 0.0
