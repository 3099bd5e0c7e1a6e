"""Any JSON row gives a checked item or an error naming the row (fuzzed with hypothesis, bounded
and derandomized for CI); what the fuzzing found is kept below as regular tests."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from troth.evals.dataset import ITEM_FIELDS, Item, check_row, load_items

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=10,
)
ROW = st.one_of(JSON, st.dictionaries(st.sampled_from(sorted(ITEM_FIELDS)), JSON, max_size=6))


@settings(max_examples=400, deadline=None, database=None, derandomize=True)
@given(st.lists(ROW, min_size=1, max_size=4))
def test_any_row_is_an_item_or_an_error_naming_it(rows: list[Any]) -> None:
    try:
        items = load_items(rows)
    except (ValueError, TypeError) as exc:
        assert str(exc).startswith("data row "), str(exc)
        return
    for item in items:
        assert isinstance(item, Item) and isinstance(item.id, str) and isinstance(item.metadata, dict)
        assert item.context is None or isinstance(item.context, list)
        assert {f for f in ITEM_FIELDS if hasattr(item, f)} == ITEM_FIELDS


@pytest.mark.parametrize(
    ("row", "error"),
    [
        ({"output": "a", "metadata": [1, 2]}, "data row 1: 'metadata' must be an object, not list"),
        ({"output": "a", "metadata": "x"}, "data row 1: 'metadata' must be an object, not str"),
        ({"output": "a", "context": 5}, "data row 1: 'context' must be a string or a list of strings, not int"),
        ({"output": "a", "context": ["ok", 3]}, "data row 1: 'context'[1] must be a string, not int"),
    ],
)
def test_a_field_of_the_wrong_type_is_named_with_its_row(row: dict[str, Any], error: str) -> None:
    with pytest.raises((ValueError, TypeError)) as caught:
        check_row(row, "data row 1", default_id="0")
    assert str(caught.value) == error
