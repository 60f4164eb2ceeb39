"""Golden pages (a compiled wiki's markdown against files kept under tests/golden/) and the
isolated user folders every test runs in."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest


def wiki_pages(wiki: Path) -> dict[str, str]:
    """Every page under `wiki` but the log (its dates and times change), by relative path."""
    return {
        p.relative_to(wiki).as_posix(): p.read_text()
        for p in sorted(wiki.rglob("*.md"))
        if p.name != "log.md"
    }


def assert_matches_golden(wiki: Path, golden: Path) -> None:
    """The pages of `wiki` equal the goldens; `WIKIC_UPDATE_GOLDEN=1` rewrites the goldens."""
    produced = wiki_pages(wiki)
    if os.environ.get("WIKIC_UPDATE_GOLDEN"):
        shutil.rmtree(golden, ignore_errors=True)
        for rel, text in produced.items():
            (golden / rel).parent.mkdir(parents=True, exist_ok=True)
            (golden / rel).write_text(text)
    expected = {
        p.relative_to(golden).as_posix(): p.read_text() for p in sorted(golden.rglob("*.md"))
    }
    assert produced == expected


def isolate_user_dirs(mp: pytest.MonkeyPatch, home: Path) -> None:
    """Point HOME, the caches, the model store and git's config at `home` (a temp folder), with
    a git identity, so nothing touches the real user's files; and switch first-use model
    installs off."""
    mp.setenv("HOME", str(home))
    mp.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    mp.setenv("WIKIC_MODELS_DIR", str(home / ".cache" / "wikic" / "models"))
    mp.delenv("WIKIC_DIR", raising=False)
    # a test never downloads a model by accident: the first-use install refuses (its own tests
    # lift this; the `installed_model` fixture installs explicitly)
    mp.setenv("WIKIC_OFFLINE", "1")
    isolate_git_identity(mp, home)


def isolate_git_identity(mp: pytest.MonkeyPatch, home: Path) -> None:
    """Git's config at `home/.gitconfig` with the test identity (wikic commits as the git
    identity, and tests that use git directly need one); no system config, no $WIKIC_AUTHOR."""
    mp.setenv("GIT_CONFIG_GLOBAL", str(home / ".gitconfig"))
    mp.setenv("GIT_CONFIG_NOSYSTEM", "1")
    mp.delenv("WIKIC_AUTHOR", raising=False)
    for name in ("NAME", "EMAIL"):
        for who in ("AUTHOR", "COMMITTER"):
            mp.delenv(f"GIT_{who}_{name}", raising=False)
    (home / ".gitconfig").write_text("[user]\n\tname = Test User\n\temail = test@example.com\n")
