"""Where everything of one wiki lives on disk, and how a wiki is found from a directory.

A wiki is a directory holding `wikic.yaml`. Machine state lives in `.wikic/` (gitignored);
everything in it can be rebuilt from the pages, except the prefix cache which is only a cache.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from wikic.config import CONFIG_NAME, Config, load_config
from wikic.errors import NotAWikiError

STATE_DIR = ".wikic"
AGENTS_NAME = "AGENTS.md"


@dataclass(frozen=True)
class WikiPaths:
    root: Path
    config: Config

    @property
    def agents_md(self) -> Path:
        return self.root / AGENTS_NAME

    @property
    def raw(self) -> Path:
        return self.root / self.config.paths.raw

    @property
    def wiki(self) -> Path:
        return self.root / self.config.paths.wiki

    @property
    def index_md(self) -> Path:
        return self.wiki / "index.md"

    @property
    def log_md(self) -> Path:
        return self.wiki / "log.md"

    @property
    def state(self) -> Path:
        return self.root / STATE_DIR

    @property
    def journal(self) -> Path:
        return self.state / "journal"

    @property
    def lock_file(self) -> Path:
        return self.state / "write.lock"

    @property
    def db(self) -> Path:
        return self.state / "wikic.sqlite"

    @property
    def kv_cache(self) -> Path:
        configured = self.config.cache.dir
        return Path(configured).expanduser() if configured else self.state / "kv"

    def rel(self, path: Path) -> str:
        """`path` relative to the wiki root, with forward slashes (as git and logs show it)."""
        return path.resolve().relative_to(self.root.resolve()).as_posix()


def find_root(start: Path) -> Path | None:
    """The nearest directory at or above `start` that holds wikic.yaml."""
    start = start.resolve()
    for directory in (start, *start.parents):
        if (directory / CONFIG_NAME).is_file():
            return directory
    return None


def open_paths(directory: Path | None = None) -> WikiPaths:
    """Find the wiki from `directory` (default: cwd) and load its config."""
    start = directory if directory is not None else Path.cwd()
    if directory is not None and not directory.exists():
        raise NotAWikiError(f"{directory} does not exist")
    root = find_root(start)
    if root is None:
        raise NotAWikiError(
            f"no wiki found at {start} or above (no {CONFIG_NAME})",
            hint="Run `wikic init` to create one, or pass --wiki DIR.",
        )
    return WikiPaths(root, load_config(root / CONFIG_NAME))
