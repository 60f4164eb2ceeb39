"""Two wikic processes writing one wiki at once: both operations land, nothing is lost."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from tests.helpers.wikitools import git, make_wiki

WRITER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from wikic.operation.transaction import Plan, writing
    from wikic.paths import open_paths

    root, name, marks = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3])

    def queued(message):
        print(message, flush=True)
        (marks / f"waiting-{name}").touch()

    paths = open_paths(root)
    with writing(paths, "test", on_wait=queued) as w:
        # hold the lock until a writer has queued up behind it (this one did, if it came second):
        # a fixed sleep lost the race when the other process took longer to start
        deadline = time.monotonic() + 30
        while not any(marks.glob("waiting-*")) and time.monotonic() < deadline:
            time.sleep(0.05)
        plan = Plan("test", f"writer {name}")
        plan.write(f"wiki/concepts/{name}.md", f"---\\ntype: concept\\ntitle: {name}\\n---\\n\\n{name}\\n")
        w.commit(plan)
    """
)


def test_two_writers_both_land(tmp_path: Path) -> None:
    wiki = make_wiki(tmp_path / "w")
    script = tmp_path / "writer.py"
    script.write_text(WRITER)
    marks = tmp_path / "marks"
    marks.mkdir()
    procs = [
        subprocess.Popen(
            [sys.executable, str(script), str(wiki.root), name, str(marks)],
            stdout=subprocess.PIPE,
            text=True,
        )
        for name in ("one", "two")
    ]
    outputs = [p.communicate(timeout=60)[0] for p in procs]
    assert all(p.returncode == 0 for p in procs)
    assert any("Waiting for pid" in out for out in outputs)
    assert (wiki.wiki / "concepts" / "one.md").exists() and (
        wiki.wiki / "concepts" / "two.md"
    ).exists()
    log_text = (wiki.wiki / "log.md").read_text()
    assert "test | writer one" in log_text and "test | writer two" in log_text
    index = (wiki.wiki / "index.md").read_text()
    assert "[[concepts/one|one]]" in index and "[[concepts/two|two]]" in index
    assert git(wiki.root, "status", "--porcelain") == ""
    assert len(git(wiki.root, "log", "--format=%H").split()) == 3
