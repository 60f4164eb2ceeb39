"""Ctrl-C takes effect between operations: a SIGINT that arrives while an operation lands is
delivered once it has landed (commit made), never halfway."""

from __future__ import annotations

import signal
import subprocess
import threading
from pathlib import Path

import pytest

from tests.helpers.wikitools import git, make_wiki, page_text
from wikic.operation import journal
from wikic.operation.signals import signals_deferred
from wikic.operation.transaction import Plan, writing


def _ctrl_c() -> None:
    """Ctrl-C at the main thread: a signal sent to the whole process may be taken by another
    thread of the test process (and run its Python handler at a moment the test cannot pin)."""
    signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGINT)


def test_a_signal_in_the_block_is_delivered_once_after_it() -> None:
    reached = []
    with pytest.raises(KeyboardInterrupt), signals_deferred():
        _ctrl_c()
        _ctrl_c()
        reached.append("end of block")
    assert reached == ["end of block"]


def test_children_started_in_the_block_do_not_get_ctrl_c() -> None:
    with signals_deferred():
        blocked = subprocess.run(
            ["grep", "SigBlk", "/proc/self/status"], capture_output=True, text=True
        ).stdout
    mask = int(blocked.split()[1], 16)
    assert mask & (1 << (signal.SIGINT - 1)) and mask & (1 << (signal.SIGTERM - 1))


def test_ctrl_c_while_files_land_lets_the_operation_finish(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wiki = make_wiki(tmp_path / "w")
    real = journal.Journal.apply

    def interrupted(self: journal.Journal) -> None:
        _ctrl_c()  # Ctrl-C right as the files start to land
        real(self)

    monkeypatch.setattr(journal.Journal, "apply", interrupted)
    with pytest.raises(KeyboardInterrupt), writing(wiki, "test") as writer:
        plan = Plan("test", "lands whole")
        for i in range(3):
            plan.write(f"wiki/concepts/c{i}.md", page_text(f"C{i}"))
        writer.commit(plan)
    assert all((wiki.wiki / "concepts" / f"c{i}.md").exists() for i in range(3))
    assert git(wiki.root, "log", "-1", "--format=%s") == "test: lands whole\n"
    assert git(wiki.root, "status", "--porcelain", "--", "wiki") == ""
