"""troth: is an LLM's answer faithful to its context?"""

from troth.compare import Comparison, compare_evals
from troth.engines import LocalEngine, RayEngine
from troth.engines.base import Engine, EvalJob
from troth.engines.runner import arun_evals, run_evals
from troth.errors import (
    ChangedItemsError,
    ConfigError,
    ContextFunctionError,
    ContextTooLongError,
    InvalidTextError,
    InvalidTraceError,
    InvalidTranscriptError,
    JudgeBrokenError,
    JudgeConnectionError,
    JudgeCrashedError,
    JudgeError,
    JudgeOutputError,
    JudgeResponseError,
    JudgeTruncatedError,
    MissingAPIKeyError,
    MissingDependencyError,
    ModelLoadError,
    ModelNotFoundError,
    OutputTooLongError,
    ScorerRunError,
    TrothError,
    UnknownModelError,
)
from troth.evals import EvalResult, EvalSummary, Item, ItemError, ItemResult, ScorerEntry, read_traces
from troth.judges import Judge
from troth.live import Budget, Monitor, MonitorStats, Sampling
from troth.prices import set_prices
from troth.ratelimit import RateLimit
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
from troth.store import ParquetStore
from troth.values import Evidence, ScoreResult, ScorerRun, StepUsage, Verdict, Verdicts

__version__ = "0.1.0"

__all__ = [
    "Budget",
    "ChangedItemsError",
    "Comparison",
    "ConfigError",
    "ContextFunctionError",
    "ContextTooLongError",
    "Engine",
    "EvalJob",
    "EvalResult",
    "EvalSummary",
    "Evidence",
    "InvalidTextError",
    "InvalidTraceError",
    "InvalidTranscriptError",
    "Item",
    "ItemError",
    "ItemResult",
    "Judge",
    "JudgeBrokenError",
    "JudgeConnectionError",
    "JudgeCrashedError",
    "JudgeError",
    "JudgeOutputError",
    "JudgeResponseError",
    "JudgeTruncatedError",
    "LocalEngine",
    "MissingAPIKeyError",
    "MissingDependencyError",
    "ModelLoadError",
    "ModelNotFoundError",
    "Monitor",
    "MonitorStats",
    "OutputTooLongError",
    "ParquetStore",
    "PromptStep",
    "RateLimit",
    "RayEngine",
    "Sampling",
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
    "compare_evals",
    "create_answer_relevancy_scorer",
    "create_faithfulness_scorer",
    "create_hallucination_scorer",
    "create_scorer",
    "read_traces",
    "run_evals",
    "set_prices",
]
