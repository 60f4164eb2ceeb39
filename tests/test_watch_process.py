"""`wikic watch` as a real process (the scripted fake model, slowed down): files added, changed
and deleted while it runs, one still being written, an unreadable one, a concurrent `wikic
ingest`, and Ctrl-C in the middle of an operation. The wiki ends consistent, with one commit per
compile of each source, and nothing is lost: the source being compiled at Ctrl-C is compiled by
the next run."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path

from tests.helpers.fake_cli import fake_wikic_command, fake_wikic_env, run_fake_wikic
from tests.helpers.wikitools import git, make_wiki
from wikic.lint.runner import LintOptions, run_lint

DATA = Path(__file__).parent / "data" / "ingest"
TIMEOUT = 90.0


class Lines:
    """The process's stdout, read as it comes."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        self.lines: list[str] = []
        self.changed = threading.Condition()
        self.reader = threading.Thread(target=self._read, args=(proc,), daemon=True)
        self.reader.start()

    def _read(self, proc: subprocess.Popen[str]) -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            with self.changed:
                self.lines.append(line.rstrip("\n"))
                self.changed.notify_all()

    def wait_for(self, event: str, path: str) -> dict[str, str]:
        def found() -> dict[str, str] | None:
            for line in self.lines:
                e = json.loads(line)
                if e["event"] == event and e["path"] == path:
                    return dict(e)
            return None

        with self.changed:
            assert self.changed.wait_for(found, TIMEOUT), f"no {event} {path}: {self.lines}"
            hit = found()
            assert hit is not None
            return hit

    def events(self, path: str) -> list[str]:
        return [e["event"] for e in map(json.loads, self.lines) if e["path"] == path]


def wait_until(check: Callable[[], bool]) -> None:
    deadline = time.monotonic() + TIMEOUT
    while not check():
        assert time.monotonic() < deadline
        time.sleep(0.05)


def test_watch_keeps_the_wiki_current_and_stops_cleanly(tmp_path: Path) -> None:
    wiki = make_wiki(tmp_path / "w")
    (wiki.root / "wikic.yaml").write_text("watch:\n  settle_seconds: 1.0\n  poll_seconds: 0.2\n")
    git(wiki.root, "commit", "-qam", "settle quickly")
    shutil.copy(DATA / "kv-cache.md", wiki.raw / "kv-cache.md")  # waiting when it starts
    proc = subprocess.Popen(
        fake_wikic_command("watch", "--json"),
        cwd=wiki.root,
        env=fake_wikic_env(WIKIC_FAKE_DELAY="0.3"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # Ctrl-C goes to its process group, git children included
    )
    try:
        out = Lines(proc)
        out.wait_for("ingested", "raw/kv-cache.md")

        # one file written in pieces over more than the settle time, one that is not text,
        # one added at once
        growing = wiki.raw / "growing.md"
        with growing.open("w") as fh:
            fh.write("# Growing notes\n\nThe first paragraph arrived early.\n")
            for n in range(6):
                fh.flush()
                time.sleep(0.4)
                fh.write(f"\nParagraph {n} arrived later.\n")
            fh.write("\nThe last paragraph closes the file.\n")
        (wiki.raw / "bad.md").write_bytes(b"\xff\xfe\x00\x01 not text")
        shutil.copy(DATA / "sliding-window.md", wiki.raw / "sliding-window.md")
        out.wait_for("ingested", "raw/growing.md")
        out.wait_for("ingested", "raw/sliding-window.md")
        assert "binary" in out.wait_for("failed", "raw/bad.md")["detail"]
        assert out.events("raw/growing.md") == ["added", "ingested"]  # once, when complete
        page = (wiki.wiki / "sources" / "growing.md").read_text()
        assert "The last paragraph closes the file." in page

        # a change, and a concurrent `wikic ingest` of a new source
        kv = wiki.raw / "kv-cache.md"
        kv.write_text(kv.read_text() + "\nThe KV cache can be quantized to 8 bits.\n")
        (wiki.raw / "both.md").write_text("# Both\n\nWhoever comes first compiles this note.\n")
        other = run_fake_wikic("ingest", "raw/both.md", cwd=wiki.root, timeout=TIMEOUT)
        assert other.returncode == 0, other.stderr
        assert "raw/both.md" in other.stdout  # "ingested" or "unchanged": whoever came first
        out.wait_for("changed", "raw/kv-cache.md")
        wait_until(lambda: "ingested" in out.events("raw/kv-cache.md")[1:])
        wait_until(lambda: any(e in out.events("raw/both.md") for e in ("ingested", "unchanged")))

        # a deletion: the page stays, the user is told how to remove it
        (wiki.raw / "sliding-window.md").unlink()
        assert (
            "wikic delete sources/sliding-window --force"
            in (out.wait_for("deleted", "raw/sliding-window.md")["detail"])
        )

        # Ctrl-C while a source is being compiled
        lock = wiki.state / "write.lock"
        (wiki.raw / "last.md").write_text("# Last\n\nThis note arrives just before Ctrl-C.\n")
        out.wait_for("added", "raw/last.md")
        wait_until(lambda: lock.exists() and '"op": "ingest"' in lock.read_text())
        time.sleep(0.2)  # in the middle of the model calls
        os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=TIMEOUT)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert "Stopped; the wiki is as after the last commit." in err

    # consistent: nothing uncommitted, no interrupted operation, lint finds no error
    assert git(wiki.root, "status", "--porcelain", "--", "wiki") == ""
    assert not (wiki.state / "journal").exists() or not any((wiki.state / "journal").iterdir())
    assert run_lint(wiki, LintOptions()).counts()["error"] == 0
    assert not (wiki.wiki / "sources" / "last.md").exists()
    subjects = git(wiki.root, "log", "--format=%s").splitlines()
    ingests = sorted(s for s in subjects if s.startswith("ingest: "))
    assert ingests == [
        "ingest: Both",
        "ingest: Growing notes",
        "ingest: Sliding-window attention",
        "ingest: The KV cache",  # compiled, then its change
        "ingest: The KV cache",
    ]
    # nothing lost: the next run compiles what the interrupted one did not
    again = run_fake_wikic("ingest", "--all", cwd=wiki.root, timeout=TIMEOUT)
    assert "ingested   raw/last.md" in again.stdout, again.stdout + again.stderr
    assert "failed     raw/bad.md" in again.stderr
