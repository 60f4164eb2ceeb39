"""What `wikic sync` cannot merge — one sentence two people edited two ways — stops it with
the file named and the merge left open as git leaves one, nothing lost; the next sync finishes
it once a person resolved it, and `git merge --abort` goes back."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.sync_fixtures import (
    assert_consistent,
    bare_remote,
    clone,
    do_sync,
    files_with_markers,
    first_machine,
    git,
    hand_edit,
    ingest_source,
)
from wikic.errors import GitStateError, SyncConflictError
from wikic.operation.transaction import Plan, writing
from wikic.paths import WikiPaths, open_paths

PAGE = "wiki/concepts/kv-cache.md"
SENTENCE = "The KV cache grows linearly with the context length."


@pytest.fixture
def clash(tmp_path: Path) -> tuple[WikiPaths, WikiPaths, str]:
    """alice and bob each rewrite one fact sentence of the KV cache page by hand (and alice
    also ingests another source); alice has synced, bob has not. Returns bob's HEAD too."""
    remote = bare_remote(tmp_path / "remote.git")
    alice = first_machine(tmp_path / "alice", remote, "alice")
    ingest_source(alice, "kv-cache.md")
    do_sync(alice)
    bob = clone(remote, tmp_path / "bob", "bob")
    hand_edit(alice, PAGE, lambda t: t.replace(SENTENCE, "The KV cache grows with context."), "a")
    ingest_source(alice, "sliding-window.md")
    hand_edit(bob, PAGE, lambda t: t.replace(SENTENCE, "KV caches grow linearly."), "b")
    assert do_sync(alice).synced
    return alice, bob, git(bob.root, "rev-parse", "HEAD").strip()


def test_a_sentence_people_edited_two_ways_stops_the_sync_naming_the_file(clash) -> None:
    _, bob, head = clash
    with pytest.raises(SyncConflictError) as err:
        do_sync(bob)
    assert "wiki/concepts/kv-cache.md" in err.value.message
    assert "edited two ways" in err.value.message
    assert "git merge --abort" in (err.value.hint or "")
    # as git leaves a conflict: HEAD unmoved, MERGE_HEAD set, the file unmerged with markers
    assert git(bob.root, "rev-parse", "HEAD").strip() == head
    assert (Path(bob.root) / ".git" / "MERGE_HEAD").exists()
    assert git(bob.root, "diff", "--name-only", "--diff-filter=U").split() == [PAGE]
    assert files_with_markers(bob.root) == [PAGE]
    text = (bob.root / PAGE).read_text()
    assert "KV caches grow linearly." in text and "The KV cache grows with context." in text
    # everything else of the merge is in place: alice's new source and pages, index, log
    assert (bob.wiki / "sources/sliding-window.md").exists()
    assert "sliding-window" in bob.index_md.read_text()
    # and no other wikic command writes until it is finished
    with pytest.raises(GitStateError, match="middle of a merge"), writing(bob, "test"):
        pass


def test_the_next_sync_finishes_a_merge_a_person_resolved(clash) -> None:
    alice, bob, head = clash
    with pytest.raises(SyncConflictError):
        do_sync(bob)
    with pytest.raises(SyncConflictError, match="not finished"):
        do_sync(bob)  # nothing resolved yet: it says so and changes nothing
    theirs = git(bob.root, "show", f":3:{PAGE}")
    (bob.root / PAGE).write_text(
        theirs.replace("The KV cache grows with context.", "KV caches grow with every token kept.")
    )
    git(bob.root, "add", PAGE)
    report = do_sync(bob)
    assert report.synced and report.notes == ("finished the merge the last sync left open",)
    assert not (bob.root / ".git" / "MERGE_HEAD").exists()
    parents = git(bob.root, "log", "-1", "--format=%P").split()
    assert head in parents and len(parents) == 2
    assert_consistent(bob)
    assert do_sync(alice).synced
    assert "KV caches grow with every token kept." in (alice.root / PAGE).read_text()
    assert git(alice.root, "rev-parse", "HEAD") == git(bob.root, "rev-parse", "HEAD")


def test_git_merge_abort_goes_back_to_before_the_sync(clash) -> None:
    _, bob, head = clash
    before = (bob.root / PAGE).read_text()
    with pytest.raises(SyncConflictError):
        do_sync(bob)
    git(bob.root, "merge", "--abort")
    assert git(bob.root, "rev-parse", "HEAD").strip() == head
    assert git(bob.root, "status", "--porcelain") == ""
    assert (bob.root / PAGE).read_text() == before
    assert not (bob.wiki / "sources/sliding-window.md").exists()
    # the wiki works as before: a wikic operation commits
    with writing(bob, "test") as w:
        plan = Plan("test", "after abort")
        plan.write("wiki/concepts/x.md", "---\ntype: concept\ntitle: X\n---\n\nX.\n")
        assert w.commit(plan).commit


def test_uncommitted_edits_the_sync_would_overwrite_stop_it_before_anything_moves(
    tmp_path: Path,
) -> None:
    remote = bare_remote(tmp_path / "remote.git")
    alice = first_machine(tmp_path / "alice", remote, "alice")
    bob = clone(remote, tmp_path / "bob", "bob")
    ingest_source(alice, "kv-cache.md")
    do_sync(alice)
    head = git(bob.root, "rev-parse", "HEAD")
    (bob.raw).mkdir(exist_ok=True)
    (bob.raw / "kv-cache.md").write_text("bob's own, not committed\n")
    with pytest.raises(GitStateError, match=r"raw/kv-cache\.md"):
        do_sync(bob)
    assert git(bob.root, "rev-parse", "HEAD") == head
    assert (bob.raw / "kv-cache.md").read_text() == "bob's own, not committed\n"
    assert open_paths(bob.root)  # still a wiki
