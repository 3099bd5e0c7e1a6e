"""The HTTP judge over real HTTP: retries, timeouts, keys, truncation, providers."""

from __future__ import annotations

import time

import pytest
from pydantic import BaseModel

from tests.conftest import SECRET_KEY
from troth import (
    ConfigError,
    JudgeConnectionError,
    JudgeOutputError,
    JudgeTruncatedError,
    MissingAPIKeyError,
    ScorerRunError,
    UnknownModelError,
    create_faithfulness_scorer,
)
from troth.judges import PROVIDERS, Judge
from troth.testing import FakeOpenAIServer, Reply, ScriptedJudge


class Answer(BaseModel):
    value: int


async def test_429_with_retry_after_is_retried(server: FakeOpenAIServer, judge: Judge) -> None:
    server.enqueue(Reply(status=429, headers={"Retry-After": "1"}), {"value": 7})
    started = time.monotonic()
    answer, usage = await judge.generate("q", Answer, step="s")
    assert answer.value == 7
    assert usage.attempts == 2 and usage.calls == 1
    assert time.monotonic() - started >= 0.9  # waited as told


async def test_429_without_retry_after_backs_off(server: FakeOpenAIServer, judge: Judge) -> None:
    server.enqueue(Reply(status=429), Reply(status=429), {"value": 1})
    answer, usage = await judge.generate("q", Answer, step="s")
    assert answer.value == 1 and usage.attempts == 3


async def test_500_then_success(server: FakeOpenAIServer, judge: Judge) -> None:
    server.enqueue(Reply(status=500), {"value": 3})
    answer, usage = await judge.generate("q", Answer, step="s")
    assert answer.value == 3 and usage.attempts == 2
    assert len(server.requests) == 2


async def test_persistent_500_raises_after_bounded_retries(server: FakeOpenAIServer, judge: Judge) -> None:
    server.enqueue(*[Reply(status=503)] * 3)
    with pytest.raises(JudgeConnectionError, match="HTTP 503 after 3 attempts") as info:
        await judge.generate("q", Answer, step="analyze")
    assert info.value.status_code == 503 and info.value.step == "analyze"
    assert len(server.requests) == 3


async def test_400_is_not_retried(server: FakeOpenAIServer, judge: Judge) -> None:
    server.enqueue(Reply(status=400))
    with pytest.raises(JudgeConnectionError, match="HTTP 400"):
        await judge.generate("q", Answer, step="s")
    assert len(server.requests) == 1


async def test_timeout_is_retried_then_reported(server: FakeOpenAIServer) -> None:
    judge = Judge("m", base_url=server.base_url, api_key="k", timeout=0.3, max_retries=1)
    server.enqueue(Reply(content={"value": 1}, delay=1.0), Reply(content={"value": 1}, delay=1.0))
    with pytest.raises(JudgeConnectionError, match="timed out"):
        await judge.generate("q", Answer, step="s")
    assert len(server.requests) == 2


async def test_timeout_then_success(server: FakeOpenAIServer) -> None:
    judge = Judge("m", base_url=server.base_url, api_key="k", timeout=0.3, max_retries=2)
    server.enqueue(Reply(content={"value": 1}, delay=1.0), {"value": 2})
    answer, usage = await judge.generate("q", Answer, step="s")
    assert answer.value == 2 and usage.attempts == 2


async def test_length_raises_token_budget_then_truncation_error(server: FakeOpenAIServer) -> None:
    judge = Judge("m", base_url=server.base_url, api_key="k", max_tokens=100, max_tokens_limit=200)
    server.enqueue(Reply(content='{"val', finish_reason="length"), {"value": 5})
    answer, _ = await judge.generate("q", Answer, step="s")
    assert answer.value == 5
    assert [r.body["max_tokens"] for r in server.requests] == [100, 200]
    server.reset()
    server.enqueue(*[Reply(content='{"val', finish_reason="length")] * 2)
    with pytest.raises(JudgeTruncatedError, match=r"\[reason\] .*cut off at max_tokens=200"):
        await judge.generate("q", Answer, step="reason")


async def test_output_retries_are_bounded(server: FakeOpenAIServer) -> None:
    judge = Judge("m", base_url=server.base_url, api_key="k", output_retries=1)
    server.enqueue('{"value": "seven"}', '{"value": "eight"}')
    with pytest.raises(JudgeOutputError) as info:
        await judge.generate("q", Answer, step="preprocess")
    assert info.value.step == "preprocess" and info.value.attempts == 2
    assert info.value.last_output == '{"value": "eight"}'
    assert "value: Input should be a valid integer" in str(info.value)


def test_missing_api_key_is_raised_before_any_request(
    server: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    scorer = create_faithfulness_scorer("openai/gpt-4o-mini", context=["c"])
    with pytest.raises(MissingAPIKeyError, match="OPENAI_API_KEY") as info:
        scorer.run(output="The sky is blue.")
    assert info.value.env_var == "OPENAI_API_KEY"
    assert server.requests == []


def test_openai_base_url_moves_the_openai_provider(server: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch) -> None:
    server.responder = ScriptedJudge(verdicts={"blue": ("yes", "The sky is blue.")})
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    result = create_faithfulness_scorer("openai/gpt-4o-mini", context=["The sky is blue."]).run(
        output="The sky is blue."
    )
    assert result.score == 1.0 and {r.body["model"] for r in server.requests} == {"gpt-4o-mini"}
    monkeypatch.setenv("OPENAI_BASE_URL", "")  # empty: the provider's own endpoint
    assert "api.openai.com" in repr(Judge("openai/gpt-4o-mini").backend())


@pytest.mark.parametrize("provider", sorted(PROVIDERS))
def test_every_provider_maps_to_base_url_and_key(provider: str, monkeypatch: pytest.MonkeyPatch) -> None:
    spec = PROVIDERS[provider]
    for name in (spec.env_var, spec.url_var):
        if name:
            monkeypatch.delenv(name, raising=False)
    judge = Judge(f"{provider}/some-model")
    if spec.key_required:
        with pytest.raises(MissingAPIKeyError, match=spec.env_var or ""):
            judge.backend()
        monkeypatch.setenv(spec.env_var or "", "k")
        judge = Judge(f"{provider}/some-model")
    backend = judge.backend()
    assert spec.base_url in repr(backend)
    assert {
        "openai",
        "anthropic",
        "google",
        "mistral",
        "groq",
        "openrouter",
        "together",
        "deepseek",
        "xai",
        "ollama",
    } <= set(PROVIDERS)


def test_provider_key_from_environment_reaches_server(server: FakeOpenAIServer) -> None:
    server.enqueue({"value": 1})
    judge = Judge("fake", base_url=server.base_url, api_key=SECRET_KEY)
    judge_answer = judge.backend()
    assert judge_answer is not None
    import asyncio

    asyncio.run(judge.generate("q", Answer, step="s"))
    assert server.requests[0].headers["authorization"] == f"Bearer {SECRET_KEY}"


@pytest.mark.parametrize(
    ("model", "match"),
    [
        ("opneai/gpt-4o-mini", "did you mean 'openai/gpt-4o-mini'"),
        ("gpt-4o-mini", "did you mean 'openai/gpt-4o-mini'"),
        ("nosuch/model", "Known providers"),
        ("openai/", "model name after the provider is missing"),
    ],
)
def test_unknown_model_errors(model: str, match: str) -> None:
    with pytest.raises(UnknownModelError, match=match):
        Judge(model)


def test_structured_output_in_prompt_for_providers_without_json_schema(server: FakeOpenAIServer) -> None:
    server.enqueue({"value": 4})
    judge = Judge("m", base_url=server.base_url, api_key="k", structured_output="prompt")
    import asyncio

    answer, _ = asyncio.run(judge.generate("q", Answer, step="s"))
    assert answer.value == 4
    body = server.requests[0].body
    assert "response_format" not in body
    assert '"value"' in body["messages"][-1]["content"] and "JSON schema" in body["messages"][-1]["content"]


def test_api_key_never_leaks(server: FakeOpenAIServer, judge: Judge) -> None:
    server.responder = ScriptedJudge(default=("yes", ""))
    scorer = create_faithfulness_scorer(judge, context=["ctx"])
    result = scorer.run(output="A claim.")
    texts = [
        repr(judge),
        repr(judge.backend()),
        repr(scorer),
        repr(result),
        str(result.to_dict()),
        str(result.to_dict("camel")),
    ]
    texts += [r.prompt + str(r.body) for r in server.requests]
    server.responder = None
    server.enqueue(*[Reply(status=500)] * 3)
    with pytest.raises(ScorerRunError) as info:
        scorer.run(output="A claim.")
    texts += [str(info.value), repr(info.value), str(info.value.__cause__), str(info.value.partial)]
    assert not [t for t in texts if SECRET_KEY in t]


async def test_rate_limit_beyond_client_retries_is_waited_out(server: FakeOpenAIServer) -> None:
    judge = Judge("m", base_url=server.base_url, api_key="k", max_retries=0, rate_limit_wait=10)
    server.enqueue(Reply(status=429), Reply(status=429), {"value": 9})
    answer, usage = await judge.generate("q", Answer, step="s")
    assert usage.calls == 1
    assert answer.value == 9 and len(server.requests) == 3
    impatient = Judge("m", base_url=server.base_url, api_key="k", max_retries=0, rate_limit_wait=0)
    server.enqueue(Reply(status=429))
    with pytest.raises(JudgeConnectionError, match="HTTP 429"):
        await impatient.generate("q", Answer, step="s")


async def test_http_judge_cannot_choose(server: FakeOpenAIServer, judge: Judge) -> None:
    assert not judge.can_choose
    with pytest.raises(ConfigError, match="cannot report answer probabilities"):
        await judge.choose("Is it?", ("yes", "no"), step="analyze")
    assert server.requests == []  # refused before any request


def test_yes_threshold_must_be_a_probability() -> None:
    with pytest.raises(ValueError, match="yes_threshold must be between 0 and 1"):
        Judge("local", yes_threshold=1.5)
    assert Judge("m", base_url="http://127.0.0.1:9/v1", yes_threshold=0.8).yes_threshold == 0.8
