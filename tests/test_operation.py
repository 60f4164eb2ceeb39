from __future__ import annotations

import errno
from pathlib import Path

import pytest

from tests.helpers.wikitools import commit_pages, git, make_wiki, page_text, snapshot
from wikic.errors import GitStateError, LockBusyError, OperationError
from wikic.operation import journal as journal_mod
from wikic.operation.lock import writer_lock
from wikic.operation.transaction import Plan, writing
from wikic.undo import undo_last


@pytest.fixture
def wiki(tmp_path: Path):
    return make_wiki(tmp_path / "w")


def test_operation_commits_pages_index_and_log_together(wiki) -> None:
    commit_pages(wiki, {"wiki/concepts/a.md": page_text("Alpha")}, "add alpha")
    assert git(wiki.root, "status", "--porcelain") == ""
    files = git(wiki.root, "show", "--name-only", "--format=", "HEAD").split()
    assert sorted(files) == ["wiki/concepts/a.md", "wiki/index.md", "wiki/log.md"]
    assert "[[concepts/a|Alpha]]" in (wiki.wiki / "index.md").read_text()
    assert "] test | add alpha" in (wiki.wiki / "log.md").read_text()
    message = git(wiki.root, "log", "-1", "--format=%B")
    assert message.startswith("test: add alpha") and "Wikic-Op: " in message


def test_noop_write_makes_no_commit(wiki) -> None:
    commit_pages(wiki, {"wiki/concepts/a.md": page_text("Alpha")})
    head = git(wiki.root, "rev-parse", "HEAD")
    commit_pages(wiki, {"wiki/concepts/a.md": page_text("Alpha")})
    assert git(wiki.root, "rev-parse", "HEAD") == head


def test_never_writes_raw_or_state(wiki) -> None:
    for bad in ("raw/x.md", ".wikic/x", ".git/config", "../outside.md"):
        with pytest.raises(OperationError), writing(wiki, "test") as w:
            w.commit(Plan("test", "bad", {bad: "x"}))


def test_refuses_staged_user_changes_and_never_commits_foreign_files(wiki) -> None:
    (wiki.root / "notes.txt").write_text("mine")
    commit_pages(wiki, {"wiki/concepts/a.md": page_text("Alpha")})
    assert "notes.txt" in git(wiki.root, "status", "--porcelain")  # untracked, not committed
    git(wiki.root, "add", "notes.txt")
    before = snapshot(wiki.root)
    with pytest.raises(GitStateError, match="staged changes"):
        commit_pages(wiki, {"wiki/concepts/b.md": page_text("Beta")})
    assert snapshot(wiki.root) == before


def test_ctrl_c_during_apply_rolls_back(wiki, monkeypatch: pytest.MonkeyPatch) -> None:
    commit_pages(wiki, {"wiki/concepts/a.md": page_text("Alpha")})
    before = snapshot(wiki.root)
    calls = {"n": 0}
    real = journal_mod.Journal._apply_one

    def interrupted(self, entry):
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt
        return real(self, entry)

    monkeypatch.setattr(journal_mod.Journal, "_apply_one", interrupted)
    with pytest.raises(KeyboardInterrupt):
        commit_pages(
            wiki, {"wiki/concepts/a.md": page_text("Alpha 2"), "wiki/concepts/b.md": page_text("B")}
        )
    assert snapshot(wiki.root) == before
    assert git(wiki.root, "status", "--porcelain") == ""
    assert not any(wiki.journal.iterdir())


def test_full_disk_while_preparing_changes_nothing(wiki, monkeypatch: pytest.MonkeyPatch) -> None:
    before = snapshot(wiki.root)

    def no_space(path, data):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(journal_mod, "write_durable", no_space)
    with pytest.raises(OperationError, match="disk is full"):
        commit_pages(wiki, {"wiki/concepts/a.md": page_text("Alpha")})
    assert snapshot(wiki.root) == before


def test_failed_commit_rolls_back_files_and_index(wiki, monkeypatch: pytest.MonkeyPatch) -> None:
    before = snapshot(wiki.root)
    from wikic.operation import transaction as operation

    def failing_commit(*args, **kwargs):
        raise OperationError("git commit failed: disk full")

    monkeypatch.setattr(operation, "commit_paths", failing_commit)
    with pytest.raises(OperationError):
        commit_pages(wiki, {"wiki/concepts/a.md": page_text("Alpha")})
    assert snapshot(wiki.root) == before
    assert git(wiki.root, "status", "--porcelain") == ""


def test_lock_no_wait_fails_clearly(wiki) -> None:
    with (
        writer_lock(wiki.lock_file, op="ingest"),
        pytest.raises(LockBusyError, match="pid"),
        writing(wiki, "test", wait=0),
    ):
        pass


def test_undo_reverts_last_operation_and_keeps_log(wiki) -> None:
    commit_pages(wiki, {"wiki/concepts/a.md": page_text("Alpha")}, "first")
    after_first = snapshot(wiki.root)
    commit_pages(
        wiki,
        {
            "wiki/concepts/a.md": page_text("Alpha", "Changed."),
            "wiki/concepts/b.md": page_text("Beta"),
        },
        "second",
    )
    result = undo_last(wiki)
    assert result.undone.subject == "test: second"
    now = snapshot(wiki.root)
    log_text = now.pop("wiki/log.md").decode()
    expected = dict(after_first)
    expected.pop("wiki/log.md")
    assert now == expected
    assert "] test | second" in log_text and "] undo | test: second" in log_text
    # the next undo reverts "first", skipping the undo and the undone operation
    assert undo_last(wiki).undone.subject == "test: first"
    with pytest.raises(OperationError, match="no wikic operation to undo"):
        undo_last(wiki)


def test_undo_refuses_over_later_user_edits(wiki) -> None:
    commit_pages(wiki, {"wiki/concepts/a.md": page_text("Alpha")}, "first")
    (wiki.wiki / "concepts" / "a.md").write_text(page_text("Alpha", "my edit"))
    with pytest.raises(OperationError, match="uncommitted edits"):
        undo_last(wiki)
    git(wiki.root, "commit", "-qam", "my edit")
    with pytest.raises(OperationError, match="later commit"):
        undo_last(wiki)
