"""Where results and judge calls are kept: the Store interface and its SQLite implementation."""

from troth.store.base import RunRecord, Store, open_store
from troth.store.sqlite import SQLiteStore

__all__ = ["RunRecord", "SQLiteStore", "Store", "open_store"]
