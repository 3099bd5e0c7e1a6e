"""Reading a judge's JSON answer into its schema."""

from __future__ import annotations

from pydantic import BaseModel

from troth.judges.parsing import json_schema_of, parse_json_output
from troth.prompts.claims import ClaimVerdicts


class Pick(BaseModel):
    choice: str


def test_each_schema_is_built_once_and_is_pydantics() -> None:
    first = json_schema_of(ClaimVerdicts)
    assert first == ClaimVerdicts.model_json_schema()
    assert json_schema_of(ClaimVerdicts) is first and json_schema_of(Pick) is not first


def test_a_fenced_answer_is_read_into_its_schema() -> None:
    assert parse_json_output('```json\n{"choice": "yes"}\n```', Pick) == Pick(choice="yes")
