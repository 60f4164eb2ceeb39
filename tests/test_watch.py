"""`wikic watch`, in process: the tracker's rules on constructed observations (a fake clock), and
the watcher's steps on a wiki with the scripted fake model. tests/test_watch_process.py runs the
real process."""

from __future__ import annotations

import datetime as dt
import shutil
import threading
from pathlib import Path

import pytest

from tests.helpers.ingest_fakes import two_source_script
from tests.helpers.wikitools import git, make_wiki
from wikic.errors import ModelError
from wikic.llm.backend import Backend
from wikic.paths import WikiPaths
from wikic.watch import Watcher, WatchEvent, WatchOptions, wakeups_for
from wikic.watch import wakeups as wakeups_module
from wikic.watch.tracker import Notice, Tracker

DATA = Path(__file__).parent / "data" / "ingest"


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def tracker(clock: Clock, settle: float = 2.0) -> Tracker:
    # file mtimes (second member of a stat, in ns) are "now" on the wall clock: fresh files
    return Tracker(settle, clock=clock, wall=lambda: clock.now)


def at(clock: Clock, size: int) -> tuple[int, int]:
    return (size, int(clock.now * 1e9))


# -- the tracker ----------------------------------------------------------------------------


def test_a_file_is_ready_once_it_has_not_changed_for_the_settle_time() -> None:
    clock = Clock()
    t = tracker(clock)
    t.start({}, ())
    first = at(clock, 10)
    assert t.observe({"raw/a.md": first}) == [Notice("added", "raw/a.md")]
    assert t.ready() == {} and t.next_due() == 2.0
    clock.now += 1.5
    grown = at(clock, 20)  # still being written
    assert t.observe({"raw/a.md": grown}) == []  # one notice per arrival, not per write
    clock.now += 1.5
    assert t.observe({"raw/a.md": grown}) == [] and t.ready() == {}
    clock.now += 0.5
    t.observe({"raw/a.md": grown})
    assert t.ready() == {"raw/a.md": grown}
    t.handled("raw/a.md", grown)
    assert t.ready() == {} and t.next_due() is None


def test_an_old_file_seen_twice_unchanged_is_ready_at_once() -> None:
    clock = Clock()
    t = tracker(clock)
    old = (10, int((clock.now - 60) * 1e9))
    t.start({"raw/a.md": old}, {"raw/a.md"})  # pending: new or changed when watching starts
    assert t.ready() == {}  # seen once
    t.observe({"raw/a.md": old})
    assert t.ready() == {"raw/a.md": old}


def test_compiled_files_wait_for_a_change_and_a_failed_one_is_not_retried_until_then() -> None:
    clock = Clock()
    t = tracker(clock, settle=0.0)
    old = (10, int((clock.now - 60) * 1e9))
    t.start({"raw/done.md": old, "raw/bad.md": old}, {"raw/bad.md"})
    t.observe({"raw/done.md": old, "raw/bad.md": old})
    assert t.ready() == {"raw/bad.md": old}
    t.handled("raw/bad.md", old)  # it failed
    t.observe({"raw/done.md": old, "raw/bad.md": old})
    assert t.ready() == {}
    fixed = at(clock, 11)
    assert t.observe({"raw/done.md": old, "raw/bad.md": fixed}) == [Notice("changed", "raw/bad.md")]
    assert t.ready() == {"raw/bad.md": fixed}


def test_a_file_that_goes_is_reported_once() -> None:
    clock = Clock()
    t = tracker(clock)
    t.start({"raw/a.md": at(clock, 1)}, ())
    assert t.observe({}) == [Notice("deleted", "raw/a.md")]
    assert t.observe({}) == []


# -- the watcher, a step at a time ----------------------------------------------------------


@pytest.fixture
def wiki(tmp_path: Path) -> WikiPaths:
    paths = make_wiki(tmp_path / "w")
    shutil.copy(DATA / "kv-cache.md", paths.raw / "kv-cache.md")
    return paths


def watcher(
    wiki: WikiPaths, events: list[WatchEvent], backend: Backend | None = None, **options: object
) -> Watcher:
    fake = backend or two_source_script().backend()
    return Watcher(
        wiki,
        WatchOptions(settle=0.0, **options),  # type: ignore[arg-type]
        extract_backend=lambda: fake,
        write_backend=lambda: fake,
        on_event=events.append,
    )


def kinds(events: list[WatchEvent]) -> list[tuple[str, str]]:
    return [(e.kind, e.path) for e in events]


def test_sources_are_compiled_as_they_come_and_an_unreadable_one_does_not_stop_the_others(
    wiki: WikiPaths,
) -> None:
    events: list[WatchEvent] = []
    w = watcher(wiki, events)
    w.start("polling every 1 s")
    assert events[0].kind == "started" and events[0].detail.endswith("1 source(s) to compile")
    w.step()  # seen twice: it is old enough
    assert kinds(events[1:]) == [("ingested", "raw/kv-cache.md"), ("lint", "")]
    assert events[1].detail == "→ sources/kv-cache.md (3 created, 0 updated)"
    del events[:]
    (wiki.raw / "bad.md").write_bytes(b"\xff\xfe not UTF-8")
    shutil.copy(DATA / "sliding-window.md", wiki.raw / "sliding-window.md")
    w.step()
    w.step()
    assert kinds(events) == [
        ("added", "raw/bad.md"),
        ("added", "raw/sliding-window.md"),
        ("failed", "raw/bad.md"),
        ("ingested", "raw/sliding-window.md"),
        ("lint", ""),
    ]
    assert events[2].detail.startswith("not valid UTF-8")
    del events[:]
    w.step()
    assert events == []  # nothing new; the failed one waits for a change
    (wiki.raw / "kv-cache.md").unlink()
    w.step()
    assert kinds(events) == [("deleted", "raw/kv-cache.md"), ("lint", "")]
    assert events[0].detail == (
        "its page sources/kv-cache stays (`wikic delete sources/kv-cache --force` removes it)"
    )
    subjects = git(wiki.root, "log", "--format=%s").split("\n")
    assert [s for s in subjects if s.startswith("ingest")] == [
        "ingest: Sliding-window attention",
        "ingest: The KV cache",
    ]


def test_a_source_another_process_compiled_meanwhile_is_left_alone(wiki: WikiPaths) -> None:
    events: list[WatchEvent] = []
    w = watcher(wiki, events, lint=False)
    w.start("file events")
    w.compile({"raw/kv-cache.md": (0, 0)})
    w.compile({"raw/kv-cache.md": (1, 1)})  # as if it had changed, but another ingest did it
    assert kinds(events[1:]) == [("ingested", "raw/kv-cache.md"), ("unchanged", "raw/kv-cache.md")]


def test_a_model_that_cannot_be_had_stops_the_watch(wiki: WikiPaths) -> None:
    def missing() -> Backend:
        raise ModelError("Model 'm' is not installed")

    w = Watcher(
        wiki, WatchOptions(settle=0.0), extract_backend=missing, write_backend=missing,
        on_event=lambda e: None,
    )  # fmt: skip
    w.start("file events")
    with pytest.raises(ModelError):
        w.step()


def test_consolidate_runs_once_a_day_at_its_hour(wiki: WikiPaths) -> None:
    events: list[WatchEvent] = []
    w = watcher(wiki, events, consolidate_hour=3, lint=False)
    clock = [dt.datetime(2026, 5, 1, 2, 59)]
    w.now = lambda: clock[0]
    for when in [(1, 2, 59), (1, 3, 0), (1, 3, 30), (1, 4, 0), (2, 3, 5)]:
        clock[0] = dt.datetime(2026, 5, when[0], when[1], when[2])
        w.consolidate_if_due()
    assert [(e.kind, e.at) for e in events] == [
        ("consolidated", dt.datetime(2026, 5, 1, 3, 0)),
        ("consolidated", dt.datetime(2026, 5, 2, 3, 5)),
    ]
    assert events[0].detail == "nothing to do"


def test_without_file_events_it_polls(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    def unavailable(*args: object, **kwargs: object) -> None:
        raise OSError("inotify watch limit reached")

    stop = threading.Event()
    assert wakeups_for(tmp_path, stop, 0.5, poll=True).how == "polling every 0.5 s"
    monkeypatch.setattr(wakeups_module.FileEvents, "__init__", unavailable)
    assert wakeups_for(tmp_path, stop, 0.5, poll=False).how == "polling every 0.5 s"


def test_file_events_wake_the_watcher(tmp_path: Path) -> None:
    stop = threading.Event()
    events = wakeups_for(tmp_path, stop, 5.0, poll=False)
    assert events.how == "file events"
    timer = threading.Timer(0.3, lambda: (tmp_path / "a.md").write_text("x"))
    timer.start()
    started = dt.datetime.now()
    events.wait(5.0)
    timer.join()
    assert (dt.datetime.now() - started).total_seconds() < 4.0  # woken by the change
    stop.set()


def test_a_file_that_cannot_be_read_is_a_failed_source_not_a_crash(
    wiki: WikiPaths, monkeypatch: pytest.MonkeyPatch
) -> None:
    events: list[WatchEvent] = []
    w = watcher(wiki, events, lint=False)
    w.start("file events")
    w.step()
    real = Path.read_bytes

    def denied(self: Path) -> bytes:  # chmod 000 does not stop root, who runs CI
        if self.name == "kv-cache.md":
            raise PermissionError(13, "Permission denied")
        return real(self)

    monkeypatch.setattr(Path, "read_bytes", denied)
    (wiki.raw / "kv-cache.md").write_text("# The KV cache\n\nChanged, and now unreadable.\n")
    w.step()
    w.step()
    assert kinds(events[-2:]) == [("changed", "raw/kv-cache.md"), ("failed", "raw/kv-cache.md")]
    assert events[-1].detail == "cannot be read (Permission denied)"
