"""Where results and judge calls are kept: the Store interface, SQLite (the default) and Parquet."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal, overload

from troth.errors import NoStoreError
from troth.store.base import DEFAULT_PATH, ENV_STORE, RunRecord, Store
from troth.store.parquet import ParquetStore
from troth.store.sqlite import SQLiteStore

__all__ = ["ParquetStore", "RunRecord", "SQLiteStore", "Store", "open_store", "store_path"]


def store_path(store: str | os.PathLike[str] | None = None) -> Path:
    """The store given, else ``$TROTH_STORE``, else ``./.troth/troth.db``."""
    return Path(store) if store is not None else Path(os.environ.get(ENV_STORE) or DEFAULT_PATH)


@overload
def open_store(store: str | os.PathLike[str] | Store | Literal[True] = True, *, read_only: bool = False) -> Store: ...


@overload
def open_store(store: Literal[False] | None, *, read_only: bool = False) -> None: ...


def open_store(store: str | os.PathLike[str] | Store | bool | None = True, *, read_only: bool = False) -> Store | None:
    """The one way to a store. ``None``/``False`` keeps nothing; a path opens SQLite there (a
    ``.parquet`` path: a folder of Parquet parts); ``True`` uses ``$TROTH_STORE`` or
    ``./.troth/troth.db``; a Store is used as is. ``read_only``: the store must exist
    (:class:`~troth.errors.NoStoreError`, a ValueError) and is never written (SQLite opened
    read-only)."""
    if store is None or store is False:
        return None
    if not isinstance(store, (str, os.PathLike, bool)):
        return store
    path = store_path(None if isinstance(store, bool) else store)
    parquet = os.fspath(path).rstrip("/").endswith(".parquet")
    if read_only and not (path.is_dir() if parquet else path.is_file()):
        raise NoStoreError(path)
    if parquet:
        return ParquetStore(path)
    return SQLiteStore(path, read_only=read_only)
