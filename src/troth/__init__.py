"""troth: is an LLM's answer faithful to its context?"""

from troth.errors import (
    ConfigError,
    ContextTooLongError,
    JudgeConnectionError,
    JudgeError,
    JudgeOutputError,
    JudgeTruncatedError,
    MissingAPIKeyError,
    MissingDependencyError,
    ModelLoadError,
    ModelNotFoundError,
    ScorerRunError,
    TrothError,
    UnknownModelError,
)
from troth.evals import EvalResult, EvalSummary, ItemError, ItemResult, ScorerEntry, arun_evals, run_evals
from troth.judges import Judge
from troth.scorers import (
    PromptStep,
    Scorer,
    StepContext,
    StepResults,
    create_answer_relevancy_scorer,
    create_faithfulness_scorer,
    create_hallucination_scorer,
    create_scorer,
)
from troth.types import Evidence, ScoreResult, ScorerRun, StepUsage, Verdict, Verdicts

__version__ = "0.1.0"

__all__ = [
    "ConfigError",
    "ContextTooLongError",
    "EvalResult",
    "EvalSummary",
    "Evidence",
    "ItemError",
    "ItemResult",
    "Judge",
    "JudgeConnectionError",
    "JudgeError",
    "JudgeOutputError",
    "JudgeTruncatedError",
    "MissingAPIKeyError",
    "MissingDependencyError",
    "ModelLoadError",
    "ModelNotFoundError",
    "PromptStep",
    "ScoreResult",
    "Scorer",
    "ScorerEntry",
    "ScorerRun",
    "ScorerRunError",
    "StepContext",
    "StepResults",
    "StepUsage",
    "TrothError",
    "UnknownModelError",
    "Verdict",
    "Verdicts",
    "__version__",
    "arun_evals",
    "create_answer_relevancy_scorer",
    "create_faithfulness_scorer",
    "create_hallucination_scorer",
    "create_scorer",
    "run_evals",
]
