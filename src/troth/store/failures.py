"""A store's failure in words: the cause of an SQLite or file-system error (read-only, disk full,
locked, corrupt), as the :class:`~troth.errors.StoreError` that names the store's path."""

from __future__ import annotations

import errno

from troth.errors import StoreError

CAUSES: tuple[tuple[tuple[str, ...], str], ...] = (
    (("readonly", "read-only", "read only"), "it is read-only"),
    (("disk is full", "no space left"), "the disk is full"),
    (("locked", "busy"), "it is locked by another writer"),
    (("malformed", "not a database", "file is encrypted"), "it is corrupt"),
    (("unable to open", "no such file", "permission denied", "access permission"), "it cannot be opened"),
)
ERRNO_CAUSES = {
    errno.EROFS: "it is read-only",
    errno.ENOSPC: "the disk is full",
    errno.EDQUOT: "the disk is full",
    errno.EACCES: "it is not writable here",
    errno.EPERM: "it is not writable here",
}


def store_error(path: object, action: str, exc: BaseException) -> StoreError:
    """The StoreError for ``exc`` met while doing ``action`` (open, read, write) to the store at ``path``."""
    if isinstance(exc, StoreError):
        return exc
    text = str(exc)
    cause = ERRNO_CAUSES.get(exc.errno or 0) if isinstance(exc, OSError) else None
    if cause is None:
        lowered = text.lower()
        cause = next((words for keys, words in CAUSES if any(k in lowered for k in keys)), "it failed")
    return StoreError(path, action, cause, f"{type(exc).__name__}: {text}")
