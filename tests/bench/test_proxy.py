"""The recording proxy: forwards to the upstream and counts calls and tokens per tool and item."""

from __future__ import annotations

import httpx

from bench.proxy import RecordingProxy, split_tag
from troth import Judge, create_faithfulness_scorer
from troth.testing import FakeOpenAIServer, Reply, ScriptedJudge


def test_split_tag() -> None:
    assert split_tag("/troth/7/v1/chat/completions") == ("troth", "7", "/v1/chat/completions")
    assert split_tag("/v1/chat/completions") == ("untagged", "-", "/v1/chat/completions")
    assert split_tag("/x") == ("untagged", "-", "/x")


def test_counts_match_the_upstream_and_the_scorers_own_usage() -> None:
    judge_script = ScriptedJudge(verdicts={"1932": ("yes", "opened in 1932")}, default=("no", ""))
    with FakeOpenAIServer(judge_script) as upstream, RecordingProxy(upstream.base_url) as proxy:
        judge = Judge("m", base_url=proxy.base_url("troth", "item-1"), api_key="k")
        scorer = create_faithfulness_scorer(judge, strategy="two-step", context=["The bridge opened in 1932."])
        result = scorer.run(output="The bridge opened in 1932. It is red.")
        used = proxy.log.item("troth", "item-1")
        assert used.calls == len(upstream.requests) == sum(u.calls for u in result.usage.values()) == 2
        assert used.prompt_tokens == sum(len(r.prompt) // 4 for r in upstream.requests)  # the upstream's count
        assert used.prompt_tokens == sum(u.prompt_tokens for u in result.usage.values())
        assert used.completion_tokens == sum(u.completion_tokens for u in result.usage.values()) > 0
        assert used.failures == 0
        assert proxy.log.total("troth").calls == 2
        assert proxy.log.item("ragas", "item-1").calls == 0


def test_failures_are_counted_and_relayed() -> None:
    with FakeOpenAIServer() as upstream, RecordingProxy(upstream.base_url) as proxy:
        upstream.enqueue(Reply(status=500), Reply(content={"ok": 1}))
        url = proxy.base_url("t", "0") + "/chat/completions"
        first = httpx.post(url, json={"model": "m", "messages": []})
        second = httpx.post(url, json={"model": "m", "messages": [{"role": "user", "content": "x" * 40}]})
        assert first.status_code == 500 and second.status_code == 200
        assert second.json()["choices"][0]["message"]["content"] == '{"ok": 1}'
        used = proxy.log.item("t", "0")
        assert (used.calls, used.failures, used.prompt_tokens) == (2, 1, 10)


def test_unreachable_upstream_is_a_502_naming_the_proxy() -> None:
    with FakeOpenAIServer() as dead:
        url = dead.base_url
    with RecordingProxy(url, timeout=2) as proxy:
        got = httpx.post(proxy.base_url("t", "0") + "/chat/completions", json={})
        assert got.status_code == 502
        assert "proxy: upstream failed" in got.json()["error"]["message"]
        assert proxy.log.item("t", "0").failures == 1
