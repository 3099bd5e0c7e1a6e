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


class KeyRing:
    """The keys to remove from text: those registered (backends register theirs when built) and
    the values of the ``*_API_KEY`` variables in the environment, read at each look."""

    def __init__(self) -> None:
        self._keys: set[str] = set()
        self._lock = threading.Lock()

    def remember(self, secret: str | None) -> None:
        """Register ``secret``, unless it is too short to be one (a placeholder such as ``"x"``)."""
        if secret and len(secret) >= MIN_SECRET_CHARS:
            with self._lock:
                self._keys.add(secret)

    def known(self) -> list[str]:
        """Every key to remove now, longest first (a key that contains another goes first)."""
        from_env = (v for k, v in os.environ.items() if k.endswith("_API_KEY") and len(v) >= MIN_SECRET_CHARS)
        with self._lock:
            found = self._keys | set(from_env)
        return sorted(found, key=len, reverse=True)


KEYS = KeyRing()
"""The process's key ring: every message troth stores, renders or prints is redacted with it."""


def remember(secret: str | None) -> None:
    """Register ``secret`` so that :func:`redact` removes it from now on."""
    KEYS.remember(secret)


def known() -> list[str]:
    """Every secret to remove now; pass it to :func:`redact` when redacting many texts at once
    (the environment is read once)."""
    return KEYS.known()


def redact(text: str, secrets: Sequence[str] | None = None) -> str:
    """``text`` with every known secret (or every one of ``secrets``) replaced by ``[REDACTED]``."""
    for secret in known() if secrets is None else secrets:
        if secret in text:
            text = text.replace(secret, REDACTED)
    return text


def contains_secret(text: str) -> bool:
    """True when ``text`` holds a known secret."""
    return any(secret in text for secret in known())
