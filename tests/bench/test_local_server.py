"""The local model behind a loopback OpenAI-compatible endpoint (for side-by-side runs)."""

from __future__ import annotations

import json

import openai
import pytest

from bench.local_server import LocalModelResponder, response_format, text_messages
from tests.judges.test_local_judge import need
from troth.testing import FakeOpenAIServer


def test_response_format_translation() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}
    as_schema = {"response_format": {"type": "json_schema", "json_schema": {"name": "A", "schema": schema}}}
    assert response_format(as_schema) == {"type": "json_object", "schema": schema}
    long = {"type": "object", "properties": {"r": {"type": "string", "maxLength": 2000}}}
    capped = response_format({"response_format": {"type": "json_schema", "json_schema": {"schema": long}}})
    assert capped is not None and capped["schema"]["properties"]["r"]["maxLength"] == 500
    assert response_format({"response_format": {"type": "json_object"}}) == {"type": "json_object"}
    assert response_format({}) is None


def test_content_parts_become_text() -> None:
    parts = [{"role": "user", "content": [{"type": "text", "text": "Is it "}, {"type": "text", "text": "true?"}]}]
    assert text_messages(parts) == [{"role": "user", "content": "Is it true?"}]
    assert text_messages([{"role": "system", "content": "s"}]) == [{"role": "system", "content": "s"}]


@pytest.mark.local_model
def test_serves_schema_valid_json_over_http() -> None:
    need("smollm2-135m")
    schema = {
        "type": "object",
        "properties": {"verdict": {"type": "string", "enum": ["yes", "no"]}},
        "required": ["verdict"],
    }
    with FakeOpenAIServer(responder=LocalModelResponder("smollm2-135m")) as server:
        client = openai.OpenAI(base_url=server.base_url, api_key="k")
        answer = client.chat.completions.create(
            model="any",
            messages=[{"role": "user", "content": "Is Paris in France? Answer in JSON."}],
            response_format={"type": "json_schema", "json_schema": {"name": "V", "schema": schema}},
            temperature=0,
            max_tokens=32,
        )
        client.close()
    assert json.loads(answer.choices[0].message.content or "")["verdict"] in {"yes", "no"}
    assert answer.usage is not None and answer.usage.prompt_tokens > 0
