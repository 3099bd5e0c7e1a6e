"""A model string's way to its backend: one module and one registry line make a new backend,
aliases name the in-process ones, and what a backend declares decides before any run."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from troth import ConfigError, Judge, create_answer_relevancy_scorer, create_faithfulness_scorer
from troth.judges import registry
from troth.judges.registry import route, split_model

# A whole backend: a service that scores (passage, claim) pairs, here by shared words.
BACKEND = """
from troth.judges.base import BackendBase, PairScores
from troth.judges.capabilities import Capabilities
from troth.values import FREE

DECLARED = Capabilities(generates=False, classify_pairs=True, yes_threshold=0.6, prices=FREE)


class WordsBackend(BackendBase):
    def __init__(self, name, base_url):
        self.model_id, self.capabilities, self.base_url = f"words/{name}", DECLARED, base_url

    async def classify(self, pairs):
        shared = [len(set(c.lower().split()) & set(p.lower().split())) / len(c.split()) for p, c in pairs]
        return [PairScores(s, 0.0, 1.0 - s) for s in shared]


def from_options(options):
    return WordsBackend(options.name, options.base_url)
"""


@pytest.fixture
def words_backend(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    (tmp_path / "words_backend.py").write_text(BACKEND, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(registry.IN_PROCESS, "words", "words_backend")  # the registry line
    yield
    sys.modules.pop("words_backend", None)


@pytest.mark.usefixtures("words_backend")
def test_a_new_backend_is_one_module_and_one_registry_line() -> None:
    judge = Judge("words/overlap", base_url="http://127.0.0.1:9")  # a base URL goes to the backend
    assert judge.backend().base_url == "http://127.0.0.1:9"  # type: ignore[attr-defined]
    scorer = create_faithfulness_scorer(judge, context=["The bridge opened in 1932.", "It is red."])
    result = scorer.run(output="The bridge opened in 1932. It is painted blue.")
    assert [(v.claim, v.verdict) for v in result.verdicts] == [
        ("The bridge opened in 1932.", "yes"),
        ("It is painted blue.", "unsure"),
    ]
    assert result.verdicts[0].evidence is not None and result.verdicts[0].evidence.verified
    assert result.score == 0.5 and result.usage["analyze"].model == "words/overlap"
    assert result.usage["analyze"].prices is not None  # declared free: costed at 0, not by its name
    with pytest.raises(ConfigError, match=r"'answer-relevancy' needs a judge that writes answers.*words/overlap"):
        create_answer_relevancy_scorer(judge)


def test_the_verifier_cannot_back_a_scorer_that_needs_written_answers() -> None:
    for model in ("local", "verifier", Judge("local")):
        with pytest.raises(ConfigError, match=r"scorer 'answer-relevancy' needs a judge that writes answers.*'llm'"):
            create_answer_relevancy_scorer(model)
    with pytest.raises(ConfigError, match=r"scorer 'faithfulness' needs .*reason='judge'"):
        create_faithfulness_scorer("local", reason="judge")
    create_faithfulness_scorer("local", reason="template")  # nothing to write: fine
    create_answer_relevancy_scorer("openai/gpt-4o-mini")  # an HTTP judge writes answers (no key needed yet)


def test_one_name_per_backend_and_the_aliases() -> None:
    assert split_model("local") == split_model("verifier") == ("verifier", "")
    assert split_model("local/verifier-minilm") == ("verifier", "verifier-minilm")
    assert split_model("local-llm/x.gguf") == split_model("llm/x.gguf") == ("llm", "x.gguf")
    assert route("my-model", "http://127.0.0.1:8000/v1") == ("custom", "my-model")
    assert route("llm/x.gguf", "http://127.0.0.1:8000/v1") == ("llm", "x.gguf")
    assert Judge("local").backend().model_id == Judge("verifier").backend().model_id == "verifier/verifier-minilm"
