"""What a verdict strategy needs from the step that runs it (a scorer's StepContext provides it)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol, TypeVar

from pydantic import BaseModel

from troth.judges.base import Choice, PairScores

if TYPE_CHECKING:
    from troth.judges.judge import Judge

M = TypeVar("M", bound=BaseModel)


class Session(Protocol):
    """Judge calls made on behalf of one step, with their prompts and usage recorded."""

    judge: Judge | None
    step: str

    async def ask(
        self,
        prompt: str,
        schema: type[M],
        *,
        system: str | None = None,
        check: Callable[[M], None] | None = None,
        judge: Judge | None = None,
        max_tokens: int | None = None,
        cache: bool = False,
    ) -> M: ...

    async def choose(
        self, prompt: str, choices: Sequence[str], *, system: str | None = None, judge: Judge | None = None
    ) -> Choice: ...

    async def classify(self, pairs: Sequence[tuple[str, str]]) -> list[PairScores]: ...

    def note(self, text: str) -> None:
        """Leave a remark for the reason (e.g. that retrieval was used)."""

    def stage(self, name: str, judge: Judge) -> Session:
        """The same step answered by another judge, its usage reported apart."""
