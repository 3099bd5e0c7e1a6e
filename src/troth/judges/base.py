"""The backend protocol that every judge transport implements."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

Message = dict[str, str]


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


class Backend(Protocol):
    """Sends chat messages to a model and returns its raw completion.

    ``schema`` is the JSON schema the answer must follow, or None for free text; the
    backend constrains the output with it when it can. ``retry`` is True when an earlier
    answer to the same request was invalid (a backend may then decode more strictly). Transport failures are raised
    as :class:`troth.errors.JudgeConnectionError` after the backend's own retries.

    A backend that can read the model's next-token probabilities may also offer
    ``choose(messages, choices) -> Choice`` (the local backend does); see :meth:`Judge.choose`.
    """

    model_id: str
    structured: str

    async def complete(
        self,
        messages: list[Message],
        *,
        schema: dict[str, Any] | None,
        schema_name: str,
        max_tokens: int,
        temperature: float,
        seed: int | None,
        retry: bool = False,
    ) -> Completion: ...
