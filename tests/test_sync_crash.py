"""SIGKILL `wikic sync` at each step: the next wikic command leaves the repository exactly as
before the sync or after it (never half-merged), and a following sync completes it. A merge
left open for a person is either not there or complete, with the way out named."""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.helpers.sync_fixtures import (
    PAGED,
    bare_remote,
    clone,
    do_sync,
    first_machine,
    git,
    hand_edit,
    ingest_source,
)
from tests.helpers.wikitools import snapshot
from wikic.cli import app
from wikic.errors import SyncConflictError
from wikic.paths import open_paths

DRIVER = textwrap.dedent(
    """
    import os, signal, sys
    from pathlib import Path
    from wikic.operation import landing
    from wikic.paths import open_paths
    from wikic.store.db import after_commit
    from wikic.sync import remote, run
    from wikic.sync import sync

    root, point = Path(sys.argv[1]), sys.argv[2]

    def die(*a, **k):
        os.kill(os.getpid(), signal.SIGKILL)

    def die_when(owner, name, when=lambda *a, **k: True, first=None):
        real = getattr(owner, name)
        def wrapper(*args, **kwargs):
            if first is not None:
                first(*args, **kwargs)
            if when(*args, **kwargs):
                die()
            return real(*args, **kwargs)
        setattr(owner, name, wrapper)

    def half_tree(repo, old, new):
        # git killed while it writes the work tree: one file new, its index lock left behind
        changed = landing.run_git(repo, "diff-tree", "-r", "--name-only", "-z", old, new)
        path = [p for p in changed.split("\\0") if p.endswith(".md")][0]
        data = landing.run_git(repo, "show", f"{new}:{path}")
        (Path(repo.working_tree_dir) / path).write_text(data)
        (Path(repo.git_dir) / "index.lock").write_text("")
        die()

    if point == "fetched":
        die_when(run, "merge_commits")
    elif point == "recorded":
        die_when(landing, "_read_tree")
    elif point == "half-tree":
        landing._read_tree = half_tree
    elif point == "tree":
        die_when(landing, "_write_git_file", lambda repo, name, text: name == "ORIG_HEAD")
    elif point == "ref-moved":
        die_when(landing, "_clear_record")
    elif point == "pushing":
        die_when(remote, "push")
    elif point == "merge-head":
        die_when(landing, "_write_git_file", lambda repo, name, text: name == "MERGE_HEAD")
    elif point != "none":
        raise SystemExit(f"unknown point {point}")
    sync(open_paths(root), on_commit=after_commit)
    """
)
POINTS = ["fetched", "recorded", "half-tree", "tree", "ref-moved", "pushing"]
BEFORE = {"fetched", "recorded", "half-tree", "tree"}
runner = CliRunner()


def _machines(root: Path, clash: bool) -> Path:
    """alice has synced a second source; bob has a third source and an edit of his own (with
    `clash`, one sentence alice edited too), not synced. Returns bob's folder."""
    remote = bare_remote(root / "remote.git")
    alice = first_machine(root / "alice", remote, "alice")
    ingest_source(alice, "kv-cache.md")
    do_sync(alice)
    bob = clone(remote, root / "bob", "bob")
    ingest_source(alice, "sliding-window.md")
    page = "wiki/concepts/kv-cache.md"
    sentence = "The KV cache grows linearly with the context length."
    if clash:
        hand_edit(alice, page, lambda t: t.replace(sentence, "It grows with the context."), "a")
    do_sync(alice)
    ingest_source(bob, "paged-attention.md", PAGED)
    hand_edit(bob, page, lambda t: t.replace(sentence, "It grows linearly, token by token."), "b")
    return bob.root


@pytest.fixture(scope="module")
def states(tmp_path_factory: pytest.TempPathFactory):
    """The template, the driver, and bob's files before and after a sync that is not killed."""
    base = tmp_path_factory.mktemp("sync-crash")
    _machines(base / "template", clash=False)
    (base / "driver.py").write_text(DRIVER)
    done = base / "done"
    _copy(base / "template", done)
    subprocess.run([sys.executable, str(base / "driver.py"), str(done / "bob"), "none"], check=True)
    return base, snapshot(base / "template" / "bob"), snapshot(done / "bob")


def _copy(template: Path, target: Path) -> Path:
    shutil.copytree(template, target)
    for name in ("alice", "bob"):
        git(target / name, "remote", "set-url", "origin", str(target / "remote.git"))
    return target / "bob"


def _recover(bob: Path) -> None:
    """The next wikic command (a reader) tidies up after the crash."""
    subprocess.run(
        [sys.executable, "-m", "wikic", "-C", str(bob), "status"], check=True, capture_output=True
    )


@pytest.mark.parametrize("point", POINTS)
def test_a_killed_sync_leaves_the_state_before_or_after_it(
    states, point: str, tmp_path: Path
) -> None:
    base, before, after = states
    assert before != after
    bob = _copy(base / "template", tmp_path / "copy")
    head = git(bob, "rev-parse", "HEAD").strip()
    proc = subprocess.run([sys.executable, str(base / "driver.py"), str(bob), point])
    assert proc.returncode == -signal.SIGKILL
    _recover(bob)
    assert git(bob, "status", "--porcelain") == ""
    assert not (bob / ".git" / "index.lock").exists() and not (bob / ".git" / "MERGE_HEAD").exists()
    assert not (bob / ".wikic" / "landing.json").exists()
    state = snapshot(bob)
    assert state == (before if point in BEFORE else after), f"neither before nor after at {point}"
    moved = git(bob, "rev-parse", "HEAD").strip() != head
    assert moved == (point not in BEFORE)
    report = do_sync(open_paths(bob))  # the next sync completes it
    assert report.synced
    assert snapshot(bob) == after
    remote_head = git(tmp_path / "copy" / "remote.git", "rev-parse", "main")
    assert remote_head == git(bob, "rev-parse", "HEAD")


@pytest.mark.parametrize("point", ["merge-head", "none"])
def test_a_killed_sync_that_leaves_a_merge_open_leaves_it_whole_or_not_at_all(
    point: str, tmp_path: Path
) -> None:
    bob = _machines(tmp_path, clash=True)
    head = git(bob, "rev-parse", "HEAD").strip()
    before = snapshot(bob)
    driver = tmp_path / "driver.py"
    driver.write_text(DRIVER)
    proc = subprocess.run(
        [sys.executable, str(driver), str(bob), point], capture_output=True, text=True
    )
    _recover(bob)
    assert git(bob, "rev-parse", "HEAD").strip() == head
    if point == "merge-head":
        assert proc.returncode == -signal.SIGKILL
        assert git(bob, "status", "--porcelain") == "" and snapshot(bob) == before
        with pytest.raises(SyncConflictError):  # the sync runs again, and stops where it must
            do_sync(open_paths(bob))
    else:
        assert proc.returncode == 1 and "SyncConflictError" in proc.stderr
    # open: conflicted as git leaves it, and every wikic command names the way out
    assert (bob / ".git" / "MERGE_HEAD").exists()
    assert "UU wiki/concepts/kv-cache.md" in git(bob, "status", "--porcelain")
    result = runner.invoke(app, ["-C", str(bob), "sync"])
    assert result.exit_code == 1
    assert "wiki/concepts/kv-cache.md" in result.stderr and "git merge --abort" in result.stderr
    git(bob, "merge", "--abort")
    assert git(bob, "status", "--porcelain") == "" and snapshot(bob) == before
