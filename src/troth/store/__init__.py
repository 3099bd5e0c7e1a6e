"""Where results and judge calls are kept: the Store interface, SQLite (the default) and Parquet."""

from __future__ import annotations

import os

from troth.store.base import DEFAULT_PATH, ENV_STORE, RunRecord, Store
from troth.store.parquet import ParquetStore
from troth.store.sqlite import SQLiteStore

__all__ = ["ParquetStore", "RunRecord", "SQLiteStore", "Store", "open_store"]


def open_store(store: str | os.PathLike[str] | Store | bool | None = True) -> Store | None:
    """``None``/``False`` keeps nothing; a path opens SQLite there (a ``.parquet`` path: a folder
    of Parquet parts); ``True`` uses ``$TROTH_STORE`` or ``./.troth/troth.db``; a Store is used as is."""
    if store is None or store is False:
        return None
    if store is True:
        return SQLiteStore(os.environ.get(ENV_STORE) or DEFAULT_PATH)
    if isinstance(store, (str, os.PathLike)):
        return ParquetStore(store) if os.fspath(store).rstrip("/").endswith(".parquet") else SQLiteStore(store)
    return store
