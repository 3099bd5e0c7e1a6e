"""Checking a Judge's arguments when it is made (a clear error naming the argument)."""

from __future__ import annotations


def check_band(band: object) -> None:
    if band is None:
        return
    if not isinstance(band, tuple) or len(band) != 2 or not all(isinstance(x, (int, float)) for x in band):
        raise TypeError(f"uncertain_band must be a (low, high) pair of probabilities, not {band!r}")
    if not 0.0 <= band[0] < band[1] <= 1.0:
        raise ValueError(f"uncertain_band must satisfy 0 <= low < high <= 1, not {band!r}")


def check_arguments(
    model: object,
    timeout: float,
    yes_threshold: float | None,
    max_retries: int,
    output_retries: int,
    max_tokens: int | None,
    max_tokens_limit: int | None,
) -> None:
    if not isinstance(model, str) or not model.strip():
        raise TypeError(f"model must be a non-empty string, not {model!r}")
    if timeout <= 0:
        raise ValueError(f"timeout must be > 0, not {timeout!r}")
    if yes_threshold is not None and not 0.0 < yes_threshold < 1.0:
        raise ValueError(f"yes_threshold must be between 0 and 1, not {yes_threshold!r}")
    if max_retries < 0 or output_retries < 0:
        raise ValueError("max_retries and output_retries must be >= 0")
    if max_tokens is not None and max_tokens <= 0:
        raise ValueError("max_tokens must be > 0 and no larger than max_tokens_limit")
    if max_tokens is not None and max_tokens_limit is not None and max_tokens_limit < max_tokens:
        raise ValueError("max_tokens must be > 0 and no larger than max_tokens_limit")
