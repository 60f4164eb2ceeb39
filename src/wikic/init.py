"""`wikic init`: create a wiki in a new or existing directory, git repo or Obsidian vault.

Writes AGENTS.md, wikic.yaml, wiki/index.md, wiki/log.md and a `.wikic/` line in .gitignore,
creates raw/, and commits exactly those files. Never overwrites an existing wiki or a file of
the user's, never touches `.obsidian/`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from wikic.config import CONFIG_NAME, Config, template_text
from wikic.errors import WikicError, WikiExistsError
from wikic.operation.gitrepo import init_repo, open_repo
from wikic.operation.transaction import OpResult, Plan, writing
from wikic.paths import AGENTS_NAME, STATE_DIR, WikiPaths
from wikic.store.db import after_commit
from wikic.vault.catalog import render_index
from wikic.vault.logbook import LOG_HEADER

GITIGNORE_LINE = f"/{STATE_DIR}/"


@dataclass(frozen=True)
class InitResult:
    root: Path
    created_repo: bool
    result: OpResult


def agents_template() -> str:
    return (Path(__file__).parent / "templates" / AGENTS_NAME).read_text(encoding="utf-8")


def init_wiki(directory: Path) -> InitResult:
    root = directory.expanduser().resolve()
    if root.exists() and not root.is_dir():
        raise WikicError(f"{directory} exists and is not a directory")
    _refuse_existing(root)
    root.mkdir(parents=True, exist_ok=True)
    repo = open_repo(root)
    created_repo = repo is None
    if repo is None:
        repo = init_repo(root)
    paths = WikiPaths(root, Config())
    paths.raw.mkdir(parents=True, exist_ok=True)
    paths.state.mkdir(parents=True, exist_ok=True)

    plan = Plan("init", root.name or "wiki")
    plan.write(AGENTS_NAME, agents_template())
    plan.write(CONFIG_NAME, template_text())
    plan.write(".gitignore", _gitignore_with_state(root / ".gitignore"))
    plan.write("wiki/index.md", render_index([]))
    plan.write("wiki/log.md", LOG_HEADER)
    plan.log_bullets.append(
        "created the wiki: AGENTS.md, wikic.yaml, raw/, wiki/index.md, wiki/log.md"
    )
    with writing(paths, "init", wait=0, on_commit=after_commit) as writer:
        result = writer.commit(plan)
    return InitResult(root, created_repo, result)


def _refuse_existing(root: Path) -> None:
    if (root / CONFIG_NAME).exists():
        raise WikiExistsError(
            f"{root} is already a wiki ({CONFIG_NAME} exists); nothing was changed",
            hint="Use it as it is, or choose another directory.",
        )
    for rel in (AGENTS_NAME, "wiki/index.md", "wiki/log.md"):
        if (root / rel).exists():
            raise WikiExistsError(
                f"{root / rel} already exists and wikic would overwrite it; nothing was changed",
                hint="Run `wikic init` in a new sub-directory (e.g. `wikic init my-wiki`).",
            )


def _gitignore_with_state(path: Path) -> str:
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    lines = {line.strip() for line in text.splitlines()}
    if {GITIGNORE_LINE, f"{STATE_DIR}/", STATE_DIR, f"/{STATE_DIR}"} & lines:
        return text
    prefix = text if not text or text.endswith("\n") else text + "\n"
    return f"{prefix}# wikic machine state (search index, prefix cache, journal, lock)\n{GITIGNORE_LINE}\n"
