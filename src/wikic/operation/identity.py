"""Who a wikic commit names as its author, so agents and people sharing a wiki are told apart.

In order: `--author` (the CLI's and the MCP server's) or `$WIKIC_AUTHOR`, which set
`git.author_name` for one run (`with_author`); `git.author_name` of wikic.yaml; the git identity
git itself would use (`user.name`/`user.email`, `$GIT_AUTHOR_NAME`); else "wikic".
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

import git

from wikic.config import GitConfig
from wikic.errors import UsageError
from wikic.paths import WikiPaths

AUTHOR_ENV = "WIKIC_AUTHOR"
DEFAULT_NAME = "wikic"
DEFAULT_EMAIL = "wikic@localhost"
_AUTHOR_RE = re.compile(r"\s*([^<>]*?)\s*(?:<([^<>\s]+@[^<>\s]+)>)?\s*")
_IDENT_RE = re.compile(r"^(.*?) <([^<>]*)> \d+ [+-]\d{4}$")


@dataclass(frozen=True)
class Identity:
    name: str
    email: str

    def env(self) -> dict[str, str]:
        """The environment that makes git commit as this identity (author and committer)."""
        return {
            "GIT_AUTHOR_NAME": self.name,
            "GIT_AUTHOR_EMAIL": self.email,
            "GIT_COMMITTER_NAME": self.name,
            "GIT_COMMITTER_EMAIL": self.email,
        }


def parse_author(author: str) -> tuple[str, str | None]:
    """("Name", email or None) from "Name" or "Name <email>"; UsageError for anything else."""
    m = _AUTHOR_RE.fullmatch(author)
    name = m.group(1) if m else ""
    if not m or not name or any(c in name for c in "\n\r\x00"):
        raise UsageError(
            f"bad author {author!r}",
            hint='Use a name, or "Name <email>", e.g. "Claude <ai@x.org>".',
        )
    return name, m.group(2)


def author_from(explicit: str | None) -> str | None:
    """The author a command was given: its `--author`, else `$WIKIC_AUTHOR`, else None."""
    return explicit or os.environ.get(AUTHOR_ENV) or None


def with_author(paths: WikiPaths, author: str | None) -> WikiPaths:
    """`paths` whose commits are authored by `author` ("Name" or "Name <email>"); None keeps
    the wiki's own setting (wikic.yaml, else the git identity)."""
    if author is None:
        return paths
    name, email = parse_author(author)
    git_cfg = paths.config.git.model_copy(update={"author_name": name, "author_email": email})
    return WikiPaths(paths.root, paths.config.model_copy(update={"git": git_cfg}))


def commit_identity(config: GitConfig, repo: git.Repo | None) -> Identity:
    """The author (and committer) of the commits wikic makes in `repo`."""
    if config.author_name:
        return Identity(config.author_name, config.author_email or DEFAULT_EMAIL)
    found = git_identity(repo) if repo is not None else None
    if found is not None:
        return found
    return Identity(DEFAULT_NAME, config.author_email or DEFAULT_EMAIL)


def git_identity(repo: git.Repo) -> Identity | None:
    """The identity git would commit with here (its config and environment), or None when git
    has none (it would refuse to commit)."""
    try:
        ident = str(repo.git.var("GIT_AUTHOR_IDENT"))
    except git.GitCommandError:
        return None
    m = _IDENT_RE.match(ident.strip())
    if m is None or not m.group(1).strip():
        return None
    return Identity(m.group(1).strip(), m.group(2).strip() or DEFAULT_EMAIL)
