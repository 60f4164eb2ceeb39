"""`wikic watch`: compile sources as they arrive in raw/ (see `watch.run`)."""

from wikic.watch.run import Watcher, WatchEvent, WatchOptions
from wikic.watch.wakeups import wakeups_for

__all__ = ["WatchEvent", "WatchOptions", "Watcher", "wakeups_for"]
