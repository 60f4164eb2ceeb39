"""`wikic sync` and `--sync` from the command line: a remote out of reach keeps the commits
and says so in one line (and the next sync sends them), a remote that moved meanwhile is
integrated again, and every commit names who ran it (`--author`, $WIKIC_AUTHOR, git's)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.helpers.sync_fixtures import (
    DATA,
    bare_remote,
    clone,
    do_sync,
    first_machine,
    git,
    ingest_source,
    log_entries,
    script,
)
from wikic.cli import app, backends
from wikic.errors import OperationError
from wikic.paths import WikiPaths, open_paths
from wikic.sync import remote as net

runner = CliRunner()


@pytest.fixture
def machines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[WikiPaths, WikiPaths]:
    remote = bare_remote(tmp_path / "remote.git")
    alice = first_machine(tmp_path / "alice", remote, "alice")
    bob = clone(remote, tmp_path / "bob", "bob")
    fake = script().backend()
    monkeypatch.setattr(backends, "for_role", lambda paths, role, model=None: fake)
    return alice, bob


def _put(paths: WikiPaths, name: str) -> str:
    paths.raw.mkdir(exist_ok=True)
    shutil.copy(DATA / name, paths.raw / name)
    git(paths.root, "add", "raw")
    git(paths.root, "commit", "-qm", f"add {name}")
    return str(paths.raw / name)


def _remote_log(tmp_path: Path) -> str:
    return git(tmp_path / "remote.git", "log", "--format=%an %s", "main")


def test_an_unreachable_remote_keeps_the_commits_and_the_next_sync_sends_them(
    machines, tmp_path: Path
) -> None:
    alice, _ = machines
    git(alice.root, "remote", "set-url", "origin", str(tmp_path / "gone.git"))
    result = runner.invoke(
        app, ["-C", str(alice.root), "ingest", "--sync", _put(alice, "kv-cache.md")]
    )
    assert result.exit_code == 0, result.output
    warning = [line for line in result.stderr.splitlines() if "not synced" in line]
    assert len(warning) == 1 and "origin could not be reached" in warning[0]
    assert "ingest: The KV cache" in git(alice.root, "log", "-1", "--format=%s")
    result = runner.invoke(app, ["-C", str(alice.root), "sync"])
    assert result.exit_code == 75, result.output
    git(alice.root, "remote", "set-url", "origin", str(tmp_path / "remote.git"))
    result = runner.invoke(app, ["-C", str(alice.root), "sync", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["sent"] == 2  # the source and its ingest
    assert "ingest: The KV cache" in _remote_log(tmp_path)


def test_no_remote_is_an_error_for_sync_and_a_notice_after_a_write(
    tmp_path: Path, monkeypatch
) -> None:
    from wikic.init import init_wiki

    init_wiki(tmp_path / "w")
    paths = open_paths(tmp_path / "w")
    result = runner.invoke(app, ["-C", str(paths.root), "sync"])
    assert result.exit_code == 1
    assert "no remote" in result.stderr and "git remote add origin" in result.stderr
    fake = script().backend()
    monkeypatch.setattr(backends, "for_role", lambda paths, role, model=None: fake)
    result = runner.invoke(
        app, ["-C", str(paths.root), "ingest", "--sync", _put(paths, "kv-cache.md")]
    )
    assert result.exit_code == 0, result.output
    assert "not synced: this wiki's git repository has no remote" in result.stderr


def test_sync_auto_syncs_after_every_writing_command(machines, tmp_path: Path) -> None:
    alice, bob = machines
    config = alice.root / "wikic.yaml"
    config.write_text(config.read_text().replace("sync: manual", "sync: auto"))
    git(alice.root, "commit", "-qam", "sync automatically")
    result = runner.invoke(app, ["-C", str(alice.root), "ingest", _put(alice, "kv-cache.md")])
    assert result.exit_code == 0, result.output
    assert "Synced with origin/main" in result.stderr
    assert "ingest: The KV cache" in _remote_log(tmp_path)
    result = runner.invoke(app, ["-C", str(bob.root), "sync"])
    assert result.exit_code == 0, result.output
    assert (bob.wiki / "concepts" / "kv-cache.md").exists()
    result = runner.invoke(
        app, ["-C", str(bob.root), "rename", "concepts/kv-cache", "Key-value cache", "--sync"]
    )
    assert result.exit_code == 0, result.output
    assert "alice rename" not in _remote_log(tmp_path) and "bob rename" in _remote_log(tmp_path)


def test_a_push_the_remote_refused_because_it_moved_integrates_again(
    machines, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice, bob = machines
    ingest_source(alice, "kv-cache.md")
    ingest_source(bob, "sliding-window.md")
    real_push = net.push
    calls = []

    def push_after_alice(repo, up) -> None:  # type: ignore[no-untyped-def]
        calls.append(Path(repo.working_tree_dir).name)
        if calls == ["bob"]:  # alice pushes between bob's fetch and bob's push
            assert do_sync(alice).synced
        real_push(repo, up)

    monkeypatch.setattr(net, "push", push_after_alice)
    report = do_sync(bob)
    assert report.synced and calls == ["bob", "alice", "bob"] and report.merge_commit
    assert "ingest: The KV cache" in git(bob.root, "log", "--format=%s")
    assert git(tmp_path / "remote.git", "rev-parse", "main") == git(bob.root, "rev-parse", "HEAD")


def test_a_remote_that_keeps_moving_stops_after_bounded_attempts(
    machines, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice, _ = machines
    ingest_source(alice, "kv-cache.md")

    def always_rejected(repo, up) -> None:  # type: ignore[no-untyped-def]
        raise net.PushRejected("fetch first")

    monkeypatch.setattr(net, "push", always_rejected)
    with pytest.raises(OperationError, match="3 attempts"):
        do_sync(alice)
    assert "ingest: The KV cache" in git(alice.root, "log", "-1", "--format=%s")


def test_every_commit_names_who_ran_it(machines, monkeypatch: pytest.MonkeyPatch) -> None:
    alice, _ = machines
    root = str(alice.root)
    result = runner.invoke(
        app,
        [
            "-C",
            root,
            "--author",
            "Agent Two <two@agents.example>",
            "ingest",
            _put(alice, "kv-cache.md"),
        ],
    )
    assert result.exit_code == 0, result.output
    assert (
        git(alice.root, "log", "-1", "--format=%an <%ae>").strip()
        == "Agent Two <two@agents.example>"
    )
    monkeypatch.setenv("WIKIC_AUTHOR", "Agent Three")
    result = runner.invoke(app, ["-C", root, "rename", "concepts/kv-cache", "Key-value cache"])
    assert result.exit_code == 0, result.output
    assert git(alice.root, "log", "-1", "--format=%an").strip() == "Agent Three"
    monkeypatch.delenv("WIKIC_AUTHOR")
    result = runner.invoke(app, ["-C", root, "undo"])
    assert result.exit_code == 0, result.output
    assert git(alice.root, "log", "-1", "--format=%an").strip() == "alice"  # git's identity
    assert [e.author for e in log_entries(alice)][-3:] == ["Agent Two", "Agent Three", "alice"]
    result = runner.invoke(app, ["-C", root, "log", "-n", "3"])
    assert "ingest | The KV cache (by Agent Two)" in result.stdout
    data = json.loads(runner.invoke(app, ["-C", root, "log", "-n", "1", "--json"]).stdout)
    assert data[0]["author"] == "alice"
    result = runner.invoke(app, ["-C", root, "--author", "<nobody@x>", "log"])
    assert result.exit_code == 2 and "bad author" in result.output


def test_an_mcp_server_with_sync_auto_syncs_its_writes_under_its_author(
    machines, tmp_path: Path
) -> None:
    from wikic.mcp import ServiceOptions, WikiService, with_author

    alice, _ = machines
    config = alice.root / "wikic.yaml"
    config.write_text(config.read_text().replace("sync: manual", "sync: auto"))
    git(alice.root, "commit", "-qam", "sync automatically")
    _put(alice, "kv-cache.md")
    paths = with_author(open_paths(alice.root), "Claude <claude@agents.example>")
    fake = script().backend()
    service = WikiService(paths, ServiceOptions(allow_write=True), backend_for=lambda role: fake)
    try:
        result = service.ingest(["kv-cache.md"], all_new=False, force=False, dry_run=False)
    finally:
        service.close()
    assert result["sync"]["synced"] and result["sync"]["sent"] == 3
    assert "Claude ingest: The KV cache" in _remote_log(tmp_path)
