"""Keys the judges know, and their removal from any text troth stores, renders or prints.

A backend registers its API key when it is built; :func:`redact` replaces every registered key
(and the value of every ``*_API_KEY`` variable in the environment) with ``[REDACTED]``. Values
shorter than :data:`MIN_SECRET_CHARS` are not treated as secrets (placeholders such as ``"x"``).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence

MIN_SECRET_CHARS = 8
REDACTED = "[REDACTED]"

_known: set[str] = set()
_lock = threading.Lock()


def remember(secret: str | None) -> None:
    """Register ``secret`` so that :func:`redact` removes it from now on."""
    if secret and len(secret) >= MIN_SECRET_CHARS:
        with _lock:
            _known.add(secret)


def known() -> list[str]:
    """Every secret to remove now (registered keys and ``*_API_KEY`` values), longest first; pass
    it to :func:`redact` when redacting many texts at once (the environment is read once)."""
    from_env = (v for k, v in os.environ.items() if k.endswith("_API_KEY") and len(v) >= MIN_SECRET_CHARS)
    with _lock:
        found = _known | set(from_env)
    return sorted(found, key=len, reverse=True)  # a key that contains another goes first


def redact(text: str, secrets: Sequence[str] | None = None) -> str:
    """``text`` with every known secret (or every one of ``secrets``) replaced by ``[REDACTED]``."""
    for secret in known() if secrets is None else secrets:
        if secret in text:
            text = text.replace(secret, REDACTED)
    return text


def contains_secret(text: str) -> bool:
    """True when ``text`` holds a known secret."""
    return any(secret in text for secret in known())
