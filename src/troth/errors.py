"""Exceptions raised by troth.

TrothError
├── ConfigError (ValueError)            bad configuration, raised before any request
│   ├── UnknownModelError               "provider/model" not recognised (with suggestions)
│   ├── MissingAPIKeyError              the provider's key variable is unset
│   ├── MissingDependencyError          an optional extra is not installed
│   ├── ModelNotFoundError              no local GGUF model could be found
│   ├── ModelLoadError                  a local model file is corrupt or cannot be loaded
│   └── ChangedItemsError               resume="strict" and items changed since they were scored
├── ContextTooLongError (ValueError)    context exceeds the configured limit
├── OutputTooLongError (ValueError)     output exceeds the configured limit
├── ContextFunctionError                the user's get_context function raised
├── StoreError                          the store cannot be opened or written (names path and cause)
│   └── NoStoreError (ValueError)       nothing to read: no store at the path given
├── InvalidTextError (ValueError)       text that is not valid Unicode (a lone surrogate)
├── InvalidTranscriptError (ValueError) a chat transcript with a field of the wrong type (named)
├── JudgeError                          a judge call failed
│   ├── JudgeConnectionError            HTTP failure / timeout after retries
│   ├── JudgeResponseError              a reply that is not a valid chat completion, after retries
│   ├── JudgeOutputError                invalid structured output after retries (names the step)
│   ├── JudgeTruncatedError             completion cut off by the token limit (names the step)
│   ├── JudgeCrashedError               the local model's process died (names the model and signal)
│   └── JudgeBrokenError                the local model crashed more often than its restart budget
└── ScorerRunError                      a scorer step failed; carries failed_step and partial

Every message is passed through :func:`troth.redaction.redact`: no API key the judges know
reaches an exception, and from there the store, a report or the terminal.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TypedDict, Unpack

from troth.redaction import redact

if TYPE_CHECKING:
    from troth.values import StepUsage


class TrothError(Exception):
    """Base class of every error raised by troth; ``step`` names the step it failed in, if any."""

    step: str | None = None

    def __init__(self, *args: object) -> None:
        super().__init__(*(redact(a) if isinstance(a, str) else a for a in args))


class ConfigError(TrothError, ValueError):
    """Invalid configuration, detected before any request is sent."""


class UnknownModelError(ConfigError):
    """A model string names no known provider."""

    def __init__(self, model: str, suggestions: Sequence[str] = (), hint: str = "") -> None:
        self.model = model
        self.suggestions = list(suggestions)
        msg = f"unknown model {model!r}"
        if self.suggestions:
            msg += "; did you mean " + " or ".join(repr(s) for s in self.suggestions) + "?"
        if hint:
            msg += f" {hint}"
        super().__init__(msg)


class MissingAPIKeyError(ConfigError):
    """The API key for a provider is not set."""

    def __init__(self, provider: str, env_var: str) -> None:
        self.provider = provider
        self.env_var = env_var
        super().__init__(
            f"no API key for provider {provider!r}: set the environment variable {env_var} or pass api_key= to Judge"
        )


class MissingDependencyError(ConfigError, ImportError):
    """An optional dependency is not installed."""

    def __init__(self, package: str, install: str, needed_by: str | None = None) -> None:
        self.package = package
        self.install = install
        if needed_by is None:
            super().__init__(f"{package} is not installed; install it with: {install}")
        else:
            super().__init__(f"{needed_by} needs {package}, not installed; install it with: {install}")


class ModelNotFoundError(ConfigError):
    """No local model file could be found."""


class ModelLoadError(ConfigError):
    """A local model file exists but cannot be used (not GGUF, corrupt, wrong checksum)."""


class ChangedItemsError(ConfigError):
    """``resume="strict"``: items of the evaluation changed since they were scored."""


class ContextTooLongError(TrothError, ValueError):
    """The context is longer than the configured limit."""

    step = "prepare"


class OutputTooLongError(TrothError, ValueError):
    """The output to check is longer than the configured limit (checked before any judge call)."""

    step = "prepare"


class InvalidTextError(TrothError, ValueError):
    """A text to check holds characters no judge can be sent (lone surrogates)."""

    step = "prepare"


class StoreError(TrothError):
    """The store at ``path`` cannot be opened, read or written; ``cause`` says why in words
    (read-only, disk full, locked, corrupt) and the message names the path too."""

    step = "store"

    def __init__(self, path: object, action: str, cause: str, detail: str = "") -> None:
        self.path, self.action, self.cause = str(path), action, cause
        super().__init__(f"cannot {action} the store at {path}: {cause}" + (f" ({detail})" if detail else ""))


class NoStoreError(StoreError, ValueError):
    """A store to read from (``open_store(..., read_only=True)``) does not exist."""

    def __init__(self, path: object) -> None:
        self.path, self.action, self.cause = str(path), "open", "there is none"
        TrothError.__init__(self, f"no store at {path}: run an evaluation first, or pass --store")


class InvalidTranscriptError(TrothError, ValueError):
    """A chat transcript whose field has a type it cannot have; the message names the field
    (``messages[2].toolInvocations``)."""

    step = "prepare"


class InvalidTraceError(TrothError, ValueError):
    """A trace export that cannot be read, or a span in it that cannot make an item; the message
    names the file, line and span."""

    step = "data"


class ContextFunctionError(TrothError):
    """The ``get_context`` function given to a scorer raised; the cause is chained."""

    step = "get_context"


class Where(TypedDict, total=False):
    """Where a judge call failed: the scorer step and the judge's model."""

    step: str | None
    model: str | None


class JudgeError(TrothError):
    """A judge call failed."""

    def __init__(self, message: str, *, step: str | None = None, model: str | None = None) -> None:
        self.step = step
        self.model = model
        self.usage: StepUsage | None = None  # what the failed call spent, when known
        prefix = f"[{step}] " if step else ""
        super().__init__(prefix + message)


class JudgeConnectionError(JudgeError):
    """The judge could not be reached or kept failing (HTTP errors, timeouts) after retries."""

    def __init__(
        self,
        message: str,
        *,
        status_code: int | None = None,
        retry_after: float | None = None,
        over_budget: bool = False,
        **where: Unpack[Where],
    ) -> None:
        self.status_code, self.retry_after, self.over_budget = status_code, retry_after, over_budget
        super().__init__(message, **where)


class JudgeOutputError(JudgeError):
    """The judge's answer stayed invalid after the allowed retries."""

    def __init__(
        self, message: str, *, attempts: int = 0, last_output: str | None = None, **where: Unpack[Where]
    ) -> None:
        self.attempts = attempts
        self.last_output = redact(last_output) if last_output is not None else None
        super().__init__(message, **where)


class JudgeResponseError(JudgeError):
    """The judge answered, but not with a valid chat completion (a body that is not JSON, no
    choices, a message without text); retried like an invalid answer."""


class JudgeTruncatedError(JudgeError):
    """The judge's completion was cut off by the token limit."""


class JudgeCrashedError(JudgeError):
    """The process running a local model died while answering (a native crash): the call that
    was in flight fails; the process is restarted for the next call while the budget lasts."""

    def __init__(
        self, message: str, *, returncode: int | None = None, signal: str | None = None, **where: Unpack[Where]
    ) -> None:
        self.returncode, self.signal = returncode, signal
        super().__init__(message, **where)


class JudgeBrokenError(JudgeError):
    """A local model crashed more times than its restart budget allows: every later call fails
    at once with this error, and no process is started again."""


class ScorerRunError(TrothError):
    """A scorer step failed.

    ``failed_step`` names the step; ``partial`` holds the results of the steps that completed.
    """

    def __init__(self, scorer_id: str, failed_step: str, partial: dict[str, Any], cause: BaseException) -> None:
        self.scorer_id = scorer_id
        self.failed_step = self.step = failed_step
        self.partial = partial
        super().__init__(f"scorer {scorer_id!r} failed in step {failed_step!r}: {cause}")
