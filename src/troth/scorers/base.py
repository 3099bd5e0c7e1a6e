"""The scorer pipeline: preprocess -> analyze -> generate_score -> generate_reason.

Each step is a plain function (sync or async) taking a :class:`StepContext`, or a
:class:`PromptStep` answered by the judge. Builders are immutable: every builder method
returns a new :class:`Scorer`.
"""

from __future__ import annotations

import functools
import inspect
import math
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from typing import Any, Protocol, TypedDict, TypeVar, Unpack, runtime_checkable

from troth._keywords import check_keywords
from troth._sync import run_sync
from troth.errors import ConfigError, ScorerRunError
from troth.judges.judge import Judge
from troth.scorers.steps import STEPS, PromptStep, Step, StepContext, StepFn, StepResults
from troth.values import ScoreResult, ScorerRun, StepUsage

__all__ = [
    "STEPS",
    "PromptStep",
    "Scorer",
    "Step",
    "StepContext",
    "StepFn",
    "StepResults",
    "create_scorer",
    "resolve_judge",
]


async def _maybe_await(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


def _check_step(name: str, step: object) -> Step:
    if isinstance(step, PromptStep) or callable(step):
        return step
    raise TypeError(f"{name} step must be a function or a PromptStep, not {type(step).__name__}")


@dataclass(frozen=True)
class Recipe:
    """How a factory built a scorer: ``factory(*args, **kwargs)`` (the factory importable by name)."""

    factory: Callable[..., Scorer]
    args: tuple[Any, ...]
    kwargs: dict[str, Any]


def _rebuild(factory: Callable[..., Scorer], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Scorer:
    return factory(*args, **kwargs)


F = TypeVar("F", bound=Callable[..., Any])


def rebuildable(factory: F) -> F:
    """Decorate a module-level scorer factory: the scorers it returns pickle as the call that made them."""

    @functools.wraps(factory)
    def build(*args: Any, **kwargs: Any) -> Scorer:
        scorer: Scorer = factory(*args, **kwargs)
        return replace(scorer, recipe=Recipe(build, args, kwargs))

    return build  # type: ignore[return-value]


class RunOptions(TypedDict, total=False):
    """The keyword options of :meth:`Scorer.run` and :meth:`Scorer.arun`."""

    run_id: str | None
    context: Any
    ground_truth: Any
    metadata: dict[str, Any] | None


@dataclass(frozen=True)
class Scorer:
    """A scorer built from up to four steps; run it with :meth:`run` or :meth:`arun`."""

    id: str
    description: str = ""
    judge: Judge | None = None
    version: str = "1"
    prompt_version: str | None = None
    preprocess_step: Step | None = None
    analyze_step: Step | None = None
    score_step: StepFn | None = None
    reason_step: Step | None = None
    prepare: Callable[[ScorerRun], ScorerRun | Awaitable[ScorerRun]] | None = None
    recipe: Recipe | None = field(default=None, compare=False, repr=False)

    def __reduce_ex__(self, protocol: Any) -> Any:
        """Pickled as its recipe when a factory made it (its steps are closures), so a built-in
        scorer can be sent to another process; otherwise as a plain dataclass."""
        if self.recipe is not None:
            return (_rebuild, (self.recipe.factory, self.recipe.args, self.recipe.kwargs))
        return super().__reduce_ex__(protocol)

    # -- builder (a changed scorer no longer matches its recipe) ------------------------
    def preprocess(self, step: Step) -> Scorer:
        return replace(self, preprocess_step=_check_step("preprocess", step), recipe=None)

    def analyze(self, step: Step) -> Scorer:
        return replace(self, analyze_step=_check_step("analyze", step), recipe=None)

    def generate_score(self, step: StepFn) -> Scorer:
        if isinstance(step, PromptStep) or not callable(step):
            raise TypeError("generate_score step must be a function returning a number")
        return replace(self, score_step=step, recipe=None)

    def generate_reason(self, step: Step) -> Scorer:
        return replace(self, reason_step=_check_step("generate_reason", step), recipe=None)

    # -- running -------------------------------------------------------------------------
    def run(self, input: Any = None, output: Any = None, **options: Unpack[RunOptions]) -> ScoreResult:
        """Score one item (sync wrapper over :meth:`arun`, with the same keyword options)."""
        check_keywords("run", options, RunOptions)

        async def once() -> ScoreResult:
            try:
                return await self.arun(input, output, **options)
            finally:  # this event loop ends here: close its connections
                for judge in self.judges():
                    await judge.aclose()

        return run_sync(once)

    async def arun(
        self,
        input: Any = None,
        output: Any = None,
        *,
        run_id: str | None = None,
        context: Any = None,
        ground_truth: Any = None,
        metadata: dict[str, Any] | None = None,
    ) -> ScoreResult:
        """Score one item. Raises :class:`ScorerRunError` naming the failed step."""
        if self.score_step is None:
            raise ConfigError(f"scorer {self.id!r} has no generate_score step")
        if run_id is not None and not isinstance(run_id, str):
            raise TypeError(f"run_id must be a string, not {type(run_id).__name__}")
        run = ScorerRun(
            input=input,
            output=output,
            run_id=run_id or str(uuid.uuid4()),
            context=context,
            ground_truth=ground_truth,
            metadata=dict(metadata or {}),
        )
        if self.prepare is not None:
            run = await _maybe_await(self.prepare(run))
        for judge in self.judges():
            judge.backend()  # configuration errors (missing key) before any request
        steps = _Execution(self, run)
        results = steps.results
        results.preprocess = await steps.execute("preprocess", self.preprocess_step)
        steps.partial["preprocess_step_result"] = results.preprocess
        results.analyze = await steps.execute("analyze", self.analyze_step)
        steps.partial["analyze_step_result"] = results.analyze
        raw_score = await steps.execute("generate_score", self.score_step)
        if isinstance(raw_score, bool) or not isinstance(raw_score, (int, float)) or not math.isfinite(raw_score):
            problem = TypeError(f"generate_score must return a finite number, not {raw_score!r}")
            raise ScorerRunError(self.id, "generate_score", dict(steps.partial), problem)
        results.score = float(raw_score)
        steps.partial["score"] = results.score
        reason = await steps.execute("generate_reason", self.reason_step)
        if reason is not None and not isinstance(reason, str):
            reason = (reason.reason if isinstance(reason, _HasReason) else None) or str(reason)
        return ScoreResult(
            run_id=run.run_id,
            scorer_id=self.id,
            prompt_version=self.prompt_version,
            preprocess_step_result=results.preprocess,
            preprocess_prompt=steps.prompts.get("preprocess"),
            analyze_step_result=results.analyze,
            analyze_prompt=steps.prompts.get("analyze"),
            score=results.score,
            reason=reason,
            generate_reason_prompt=steps.prompts.get("generate_reason"),
            usage=steps.usage,
            flags=list(results.flags),
            context=_segments(run.context),
        )

    def judges(self) -> list[Judge]:
        """The scorer's judge, those of its prompt steps, and their second opinions."""
        found = [self.judge] if self.judge else []
        for step in (self.preprocess_step, self.analyze_step, self.reason_step):
            if isinstance(step, PromptStep) and step.judge is not None:
                found.append(step.judge)
        return found + [j.second_opinion for j in found if j.second_opinion is not None]


@runtime_checkable
class _HasReason(Protocol):
    reason: Any


class _Execution:
    """The steps of one run: their shared results, prompts and usage, and what finished."""

    def __init__(self, scorer: Scorer, run: ScorerRun) -> None:
        self.scorer, self.run = scorer, run
        self.results = StepResults()
        self.prompts: dict[str, str | None] = {}
        self.usage: dict[str, StepUsage] = {}
        self.partial: dict[str, Any] = {}

    async def execute(self, name: str, step: Step | None) -> Any:
        """Run one step; a failure other than a configuration error becomes ScorerRunError."""
        if step is None:
            return None
        ctx = StepContext(run=self.run, results=self.results, judge=self.scorer.judge, step=name)
        try:
            if isinstance(step, PromptStep):
                prompt = await _maybe_await(step.create_prompt(ctx))
                parsed = await ctx.ask(prompt, step.output_schema, system=step.system, judge=step.judge)
                value = step.transform(parsed) if step.transform else parsed
            else:
                value = await _maybe_await(step(ctx))
        except ConfigError:
            raise
        except Exception as exc:
            raise ScorerRunError(self.scorer.id, name, dict(self.partial), exc) from exc
        self.prompts[name] = "\n\n---\n\n".join(ctx.prompts) if ctx.prompts else None
        if ctx.usage is not None:
            self.usage[name] = ctx.usage
        self.usage.update({f"{name}.{key}": c.usage for key, c in ctx.stages.items() if c.usage is not None})
        return value


def resolve_judge(model: str | Judge | None) -> Judge | None:
    """A Judge from a ``"provider/model"`` string (or the Judge itself)."""
    if model is None or isinstance(model, Judge):
        return model
    if isinstance(model, str):
        return Judge(model)
    raise TypeError(f"model must be a 'provider/model' string or a Judge, not {type(model).__name__}")


def create_scorer(
    *,
    id: str,
    description: str = "",
    model: Judge | str | None = None,
    version: str = "1",
    prompt_version: str | None = None,
    judge: Judge | str | None = None,
) -> Scorer:
    """Start building a scorer; add steps with ``.preprocess/.analyze/.generate_score/.generate_reason``.

    ``model`` is its judge (a :class:`~troth.Judge` or ``"provider/model"``), as for the built-in
    scorers' factories; ``judge`` is the earlier name of the same argument."""
    if not isinstance(id, str) or not id.strip():
        raise ValueError("id must be a non-empty string")
    if model is not None and judge is not None:
        raise TypeError("create_scorer takes model= or judge= (its earlier name), not both")
    chosen = model if model is not None else judge
    return Scorer(
        id=id, description=description, judge=resolve_judge(chosen), version=version, prompt_version=prompt_version
    )


def _segments(context: Any) -> list[str] | None:
    """The run's context as recorded on its result: a list of strings, None when empty or not one."""
    ok = isinstance(context, list) and all(isinstance(c, str) for c in context)
    return list(context) if ok and context else None
