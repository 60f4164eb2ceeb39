"""One wiki on several machines: `wikic sync` shares it through a git remote (fetch, merge by
the page logic, push), generated files never in conflict. Not the store's `store.sync`, which
keeps the derived search index current after a commit."""

from wikic.sync.run import SyncReport, sync, sync_after_write

__all__ = ["SyncReport", "sync", "sync_after_write"]
