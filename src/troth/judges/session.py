"""A judge session: the judge calls made on behalf of one scorer step, with the run, the
earlier steps' results, and every prompt and call's usage recorded: the :class:`StepContext`
that scorer steps and verdict plans receive as ``ctx``."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pydantic import BaseModel

from troth.errors import ConfigError, JudgeError
from troth.judges.base import Choice, PairScores
from troth.judges.judge import Judge
from troth.values import ScorerRun, StepUsage

M = TypeVar("M", bound=BaseModel)


@dataclass
class StepResults:
    """Results of the steps that have run so far."""

    preprocess: Any = None
    analyze: Any = None
    verdicts: Any = None  # verdicts the judge gave with the claims (a single pass), for the analyze step
    score: float | None = None
    notes: list[str] = field(default_factory=list)  # remarks a step leaves for the reason
    flags: list[str] = field(default_factory=list)  # machine-readable marks kept on the result


@dataclass
class StepContext:
    """What a step receives: the run, earlier results, and the judge (with call recording)."""

    run: ScorerRun
    results: StepResults
    judge: Judge | None
    step: str
    prompts: list[str] = field(default_factory=list)
    usage: StepUsage | None = None
    stages: dict[str, StepContext] = field(default_factory=dict)

    def stage(self, name: str, judge: Judge) -> StepContext:
        """A part of this step answered by another judge (a cascade's second opinion); its usage
        is reported as ``<step>.<name>``."""
        child = StepContext(run=self.run, results=self.results, judge=judge, step=self.step, prompts=self.prompts)
        self.stages[name] = child
        return child

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
    ) -> M:
        """Send ``prompt`` to the judge and return its validated answer; record prompt and usage.

        ``cache=True`` reuses the judge's answer to an identical earlier request (no call).
        """
        judge = judge or self.judge
        if judge is None:
            raise ConfigError(f"step {self.step!r} asks a judge, but the scorer has none")
        self.prompts.append(prompt)
        try:
            parsed, usage = await judge.generate(
                prompt, schema, step=self.step, system=system, check=check, max_tokens=max_tokens, cache=cache
            )
        except JudgeError as exc:
            if exc.usage is not None:
                self._add_usage(exc.usage)
            raise
        self._add_usage(usage)
        return parsed

    async def choose(
        self, prompt: str, choices: Sequence[str], *, system: str | None = None, judge: Judge | None = None
    ) -> Choice:
        """The judge's probability for each one-word answer in ``choices``; record prompt and usage."""
        judge = judge or self.judge
        if judge is None:
            raise ConfigError(f"step {self.step!r} asks a judge, but the scorer has none")
        self.prompts.append(prompt)
        choice, usage = await judge.choose(prompt, choices, step=self.step, system=system)
        self._add_usage(usage)
        return choice

    async def classify(self, pairs: Sequence[tuple[str, str]]) -> list[PairScores]:
        """The judge's P(supported/contradicted/unverifiable) per (passage, claim) pair; record usage."""
        if self.judge is None:
            raise ConfigError(f"step {self.step!r} asks a judge, but the scorer has none")
        scores, usage = await self.judge.classify(pairs, step=self.step)
        self._add_usage(usage)
        return scores

    def flag(self, name: str) -> None:
        """Mark the result (``ScoreResult.flags``), once per name."""
        if name not in self.results.flags:
            self.results.flags.append(name)

    def note(self, text: str) -> None:
        """Leave a remark for the reason step."""
        if text not in self.results.notes:
            self.results.notes.append(text)

    def _add_usage(self, usage: StepUsage) -> None:
        if self.usage is None:
            self.usage = StepUsage(model=usage.model, prices=usage.prices)
        self.usage.add(usage)


"""What a verdict strategy works with: the same object under the name of what it does for one."""
