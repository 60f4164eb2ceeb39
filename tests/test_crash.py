"""SIGKILL a real wikic process at every step of an operation; the next command recovers to
exactly the state before or after the operation, with a clean git status."""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.helpers.wikitools import commit_pages, git, make_wiki, page_text, snapshot

DRIVER = textwrap.dedent(
    """
    import os, signal, sys
    from pathlib import Path
    import git as gitpython
    from wikic.operation import journal
    from wikic.operation import transaction as operation
    from wikic.operation.transaction import Plan, writing
    from wikic.paths import open_paths

    root, point = Path(sys.argv[1]), sys.argv[2]

    def die(*a, **k):
        os.kill(os.getpid(), signal.SIGKILL)

    def die_on_call(owner, name, n, when=lambda *a, **k: True):
        real = getattr(owner, name)
        count = {"n": 0}
        def wrapper(*args, **kwargs):
            if when(*args, **kwargs):
                count["n"] += 1
                if count["n"] == n:
                    die()
            return real(*args, **kwargs)
        setattr(owner, name, wrapper)

    if point == "before-prepare":
        die_on_call(journal.Journal, "prepare", 1)
    elif point == "during-prepare":
        die_on_call(journal, "write_durable", 3)
    elif point == "before-apply":
        die_on_call(journal.Journal, "apply", 1)
    elif point == "during-apply":
        die_on_call(journal.Journal, "_apply_one", 3)
    elif point == "before-commit":
        die_on_call(operation.Writer, "_git_commit", 1)
    elif point == "during-commit":
        die_on_call(gitpython.cmd.Git, "_call_process", 1, lambda self, method, *a, **k: method == "commit")
    elif point == "after-commit":
        die_on_call(journal.Journal, "set_state", 1, lambda self, state: state == "committed")
    elif point == "before-cleanup":
        die_on_call(journal.Journal, "discard", 1)

    paths = open_paths(root)
    with writing(paths, "test") as w:
        plan = Plan("test", "crash me")
        for i in range(4):
            plan.write(f"wiki/concepts/new-{i}.md", f"---\\ntype: concept\\ntitle: New {i}\\n---\\n\\nNew page {i}.\\n")
        plan.write("wiki/concepts/keep.md", "---\\ntype: concept\\ntitle: Keep\\n---\\n\\nUpdated.\\n")
        plan.delete("wiki/concepts/old.md")
        w.commit(plan)
    """
)
POINTS = [
    "before-prepare", "during-prepare", "before-apply", "during-apply",
    "before-commit", "during-commit", "after-commit", "before-cleanup",
]  # fmt: skip


@pytest.fixture(scope="module")
def states(tmp_path_factory: pytest.TempPathFactory):
    """A template wiki, and its snapshots before and after the driver's operation."""
    base = tmp_path_factory.mktemp("crash")
    wiki = make_wiki(base / "template")
    commit_pages(
        wiki, {"wiki/concepts/keep.md": page_text("Keep"), "wiki/concepts/old.md": page_text("Old")}
    )
    (base / "driver.py").write_text(DRIVER)
    done = base / "done"
    shutil.copytree(wiki.root, done)
    subprocess.run([sys.executable, str(base / "driver.py"), str(done), "none"], check=True)
    return base, snapshot(wiki.root), snapshot(done)


@pytest.mark.parametrize("point", POINTS)
def test_sigkill_then_recover(states, point: str, tmp_path: Path) -> None:
    base, before, after = states
    assert before != after
    root = tmp_path / "w"
    shutil.copytree(base / "template", root)
    proc = subprocess.run([sys.executable, str(base / "driver.py"), str(root), point])
    assert proc.returncode == -signal.SIGKILL
    # the next command (a reader) recovers
    subprocess.run(
        [sys.executable, "-m", "wikic", "-C", str(root), "status"], check=True, capture_output=True
    )
    assert git(root, "status", "--porcelain") == ""
    state = snapshot(root)
    assert state in (before, after), f"wiki is neither before nor after after a kill at {point}"
    assert not any((root / ".wikic" / "journal").iterdir())
    if point in ("after-commit", "before-cleanup"):
        assert state == after
    if point in ("before-prepare", "during-prepare", "before-apply", "during-apply"):
        assert state == before
