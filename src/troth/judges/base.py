"""The backend protocol that every judge transport implements, and the values it returns."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from troth.errors import ConfigError
from troth.judges.capabilities import Capabilities

Message = dict[str, str]
LABELS = ("supported", "contradicted", "unverifiable")


def bare_choice(text: str, schema: dict[str, Any]) -> dict[str, Any] | None:
    """For a schema with a single enum field, read a bare one-word answer ("yes.") as that field."""
    props = schema.get("properties") or {}
    if len(props) != 1:
        return None
    ((name, spec),) = props.items()
    choices = spec.get("enum") if isinstance(spec, dict) else None
    word = text.strip().strip(".\"'`* \n").lower()
    return {name: word} if choices and word in choices else None


@dataclass(frozen=True)
class CompletionRequest:
    """One completion asked of a backend: chat messages, the JSON schema the answer must match
    (None: free text) and its name, the token budget, sampling settings; ``retry`` is True after
    an invalid answer, so a backend may decode more strictly."""

    messages: list[Message]
    schema: dict[str, Any] | None
    schema_name: str
    max_tokens: int
    temperature: float = 0.0
    seed: int | None = None
    retry: bool = False


@dataclass(frozen=True)
class Completion:
    """One raw completion from a backend."""

    text: str
    finish_reason: str | None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    attempts: int = 1


@dataclass(frozen=True)
class Choice:
    """A backend's probabilities for each of a fixed set of one-word answers (they sum to 1)."""

    probabilities: dict[str, float]
    prompt_tokens: int = 0

    @property
    def best(self) -> str:
        return max(self.probabilities, key=lambda k: self.probabilities[k])


@dataclass(frozen=True)
class PairScores:
    """A pair classifier's probabilities that a passage supports, contradicts or says nothing of a claim."""

    supported: float
    contradicted: float
    unverifiable: float
    tokens: int = 0
    truncated: bool = False  # the pair did not fit the classifier's input and was cut

    def as_dict(self) -> dict[str, float]:
        return {"supported": self.supported, "contradicted": self.contradicted, "unverifiable": self.unverifiable}

    def with_supported(self, supported: float) -> PairScores:
        """These scores with P(supported) replaced, the rest shared between contradicted and
        unverifiable as these scores share it."""
        rest = self.contradicted + self.unverifiable or 1.0
        return replace(
            self,
            supported=supported,
            contradicted=(1 - supported) * self.contradicted / rest,
            unverifiable=(1 - supported) * self.unverifiable / rest,
        )


class Backend(Protocol):
    """Answers a judge's requests; declares what it can do in ``capabilities``.

    ``complete``: a :class:`CompletionRequest` -> raw completion (the schema constrains the output
    when the backend can).
    ``choose``: probabilities of one-word answers. ``classify``: probabilities for (passage,
    claim) pairs. A backend implements the methods its capabilities declare; :class:`BackendBase`
    refuses the others. ``prepare``: set up what a call needs (a client) before the call waits
    for its rate-limit slot, so the slot times the request, not the set-up. Transport failures
    are :class:`troth.errors.JudgeConnectionError`.
    """

    model_id: str
    capabilities: Capabilities

    async def complete(self, request: CompletionRequest) -> Completion: ...

    async def choose(self, messages: list[Message], choices: Sequence[str]) -> Choice: ...

    async def classify(self, pairs: Sequence[tuple[str, str]]) -> list[PairScores]: ...

    async def prepare(self) -> None: ...

    async def aclose(self) -> None: ...


class BackendBase:
    """Defaults for a backend: the abilities it does not declare raise ConfigError; nothing to
    prepare or close."""

    model_id: str
    capabilities: Capabilities

    def _refuse(self, what: str) -> ConfigError:
        return ConfigError(f"{self.model_id} cannot {what}")

    async def complete(self, request: CompletionRequest) -> Completion:
        raise self._refuse("answer prompts; it only classifies (context, claim) pairs")

    async def choose(self, messages: list[Message], choices: Sequence[str]) -> Choice:
        raise self._refuse("report answer probabilities; only the local LLM judge can")

    async def classify(self, pairs: Sequence[tuple[str, str]]) -> list[PairScores]:
        raise self._refuse("classify (context, claim) pairs; only the offline verifier can")

    async def prepare(self) -> None:
        return None

    async def aclose(self) -> None:
        return None
