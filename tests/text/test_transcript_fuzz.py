"""Any JSON value in any transcript field gives a result or a typed error naming the field
(fuzzed with hypothesis, bounded and derandomized for CI); what the fuzzing found is kept below
as regular tests."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from troth import InvalidTextError, InvalidTranscriptError, create_faithfulness_scorer
from troth.scorers.inputs import make_prepare
from troth.text.transcripts import Transcript
from troth.values import ScorerRun

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
KEYS = st.sampled_from(["role", "content", "toolInvocations", "parts", "tool_call_id", "type", "state", "result"])
FIELD = st.one_of(JSON, st.sampled_from(["user", "assistant", "tool", "tool-result", "tool-invocation", "result"]))
PART = st.dictionaries(KEYS, FIELD, max_size=5)
VALUE = st.one_of(FIELD, st.lists(PART, max_size=3), PART)
MESSAGE = st.fixed_dictionaries(
    {"role": st.sampled_from(["user", "assistant", "tool", "system"])},
    optional={k: VALUE for k in ["content", "toolInvocations", "parts"]},
)
PREPARE = make_prepare(None, 1_000_000)
FIELD_NAMES = ("messages[", "output", "input", "context")


def outcome(messages: list[dict[str, Any]]) -> ScorerRun | BaseException:
    try:
        return asyncio.run(PREPARE(ScorerRun(input=None, output=messages, run_id="r")))
    except Exception as exc:
        return exc


@settings(max_examples=400, deadline=None, database=None, derandomize=True)
@given(st.lists(MESSAGE, min_size=1, max_size=4))
def test_any_json_in_any_field_is_a_result_or_a_typed_error_naming_the_field(messages: list[dict[str, Any]]) -> None:
    got = outcome(messages)
    if isinstance(got, ScorerRun):
        assert isinstance(got.output, str) and all(isinstance(c, str) for c in got.context or [])
        return
    assert isinstance(got, (InvalidTranscriptError, InvalidTextError, TypeError, ValueError)), repr(got)
    assert str(got).startswith(FIELD_NAMES) or "context[" in str(got), str(got)


@pytest.mark.parametrize(
    ("messages", "error"),
    [
        (
            [{"role": "assistant", "content": "A.", "toolInvocations": 5}],
            "messages[0].toolInvocations must be a list, not int",
        ),
        ([{"role": "assistant", "content": {"parts": "x"}}], "messages[0].content.parts must be a list, not str"),
        (
            [{"role": "user", "content": "q"}, {"role": "assistant", "content": {"toolInvocations": {"a": 1}}}],
            "messages[1].content.toolInvocations must be a list, not dict",
        ),
        ([{"role": "assistant", "content": [{"type": 3}]}], "messages[0].content[0].type must be a string, not int"),
    ],
)
def test_the_field_of_the_wrong_type_is_named(messages: list[dict[str, Any]], error: str) -> None:
    with pytest.raises(InvalidTranscriptError) as caught:
        Transcript.read(messages)
    assert str(caught.value) == error
    with pytest.raises(InvalidTranscriptError, match=r"messages\["):
        create_faithfulness_scorer("local", context=["c"]).run(output=messages)


def test_odd_values_that_can_be_read_give_a_result() -> None:
    messages = [
        {"role": "tool", "content": {"rows": [1, 2]}},
        {"role": "assistant", "content": [{"type": "text"}, 7]},
        {"role": "assistant", "content": "The table has two rows.", "toolInvocations": None},
    ]
    transcript = Transcript.read(messages)
    assert transcript.answer == "The table has two rows." and transcript.tool_results == ['{"rows": [1, 2]}']
