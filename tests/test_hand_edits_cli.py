"""Hand edits on a source page survive `ingest --force` and `ingest --rebuild` in a real wikic
process: a rewritten summary, a `## Notes` section, a typo fixed in the source's text. When the
source itself changes the edited paragraph, its new text wins and the user is told."""

from __future__ import annotations

import shutil
from pathlib import Path

import git as git_repo

from tests.helpers.fake_cli import run_fake_wikic
from tests.helpers.wikitools import git, make_wiki, page_text
from wikic.operation.history import Compiled, compiled_note, last_compiled
from wikic.operation.transaction import Plan, writing
from wikic.paths import WikiPaths
from wikic.undo import undo_last

DATA = Path(__file__).parent / "data" / "ingest"
MY_SUMMARY = "My own summary: the cache and how prefixes reuse it."
NOTES = "## Notes\n\nChecked against the paper; see also [[concepts/kv-cache|KV cache]]."
FIXED = "A Transformer decoder stores the keys and values"


def test_hand_edits_of_a_source_page_survive_force_and_rebuild(tmp_path: Path) -> None:
    wiki = make_wiki(tmp_path / "w")
    shutil.copy(DATA / "kv-cache.md", wiki.raw / "kv-cache.md")
    first = run_fake_wikic("ingest", "--all", cwd=wiki.root)
    assert first.returncode == 0, first.stderr
    page = wiki.wiki / "sources" / "kv-cache.md"
    text = page.read_text()
    summary = "How decoders keep past keys and values, and how prefix caching reuses them."
    assert f"\n{summary}\n" in text and "A transformer decoder stores" in text
    text = text.replace(f"\n{summary}\n", f"\n{MY_SUMMARY}\n", 1)
    paragraph = "A transformer decoder stores the keys and values of past tokens in a KV cache. The"
    text = text.replace(paragraph, paragraph.replace("A transformer", "A Transformer"))  # ^p1
    text = text.replace("\ntags:\n- source\n", "\ntags:\n- source\n- to-read\n")
    page.write_text(text.rstrip("\n") + "\n\n" + NOTES + "\n")
    git(wiki.root, "commit", "-qam", "my edits")

    def kept(now: str) -> None:
        assert f"# The KV cache\n\n{MY_SUMMARY}\n\n## Key claims" in now
        assert f"{FIXED} of past tokens in a KV cache." in now
        assert now.endswith("^p3\n\n" + NOTES + "\n")
        assert "- to-read\n" in now

    forced = run_fake_wikic("ingest", "--force", "raw/kv-cache.md", cwd=wiki.root)
    assert forced.returncode == 0, forced.stderr
    kept(page.read_text())
    assert (
        "kept     your edits: the summary, the text (^p1), ## Notes, the property tags"
        in forced.stdout
    )
    log_md = (wiki.wiki / "log.md").read_text()
    assert "- kept your edits of [[sources/kv-cache|The KV cache]]: the summary" in log_md

    rebuilt = run_fake_wikic("ingest", "--rebuild", cwd=wiki.root)
    assert rebuilt.returncode == 0, rebuilt.stderr
    kept(page.read_text())
    assert git(wiki.root, "status", "--porcelain", "--", "wiki") == ""

    # the source now says something else in the paragraph the user fixed: the source wins there
    raw = wiki.raw / "kv-cache.md"
    raw.write_text(raw.read_text().replace("A transformer decoder stores", "A decoder keeps"))
    changed = run_fake_wikic("ingest", "--all", cwd=wiki.root)
    assert changed.returncode == 0, changed.stderr
    now = page.read_text()
    assert "A decoder keeps the keys and values of past tokens" in now and FIXED not in now
    assert MY_SUMMARY in now and now.endswith(NOTES + "\n")
    assert (
        "Warning: wiki/sources/kv-cache.md: your edit of the text (^p1) was replaced, because "
        "raw/kv-cache.md changed it too (your version is in git: git log -p -- "
        "wiki/sources/kv-cache.md)" in " ".join(changed.stderr.split())
    )
    assert git(wiki.root, "status", "--porcelain", "--", "wiki") == ""


# -- what the last ingest compiled, from git ------------------------------------------------


def _ingest(paths: WikiPaths, text: str, note: str | None = None) -> str:
    with writing(paths, "ingest") as writer:
        plan = Plan("ingest", "a source", note=note)
        plan.write("wiki/sources/a.md", text)
        result = writer.commit(plan)
    assert result.commit is not None
    return result.commit


def test_the_last_compile_is_read_from_git_notes_and_undone_ones_do_not_count(
    tmp_path: Path,
) -> None:
    wiki = make_wiki(tmp_path / "w")
    repo = git_repo.Repo(wiki.root)
    page = wiki.wiki / "sources" / "a.md"
    first = _ingest(wiki, page_text("A", "Compiled once."))
    assert last_compiled(repo, page, "ingest") == Compiled(first, page_text("A", "Compiled once."))
    page.write_text(page_text("A", "Compiled once. Edited."))
    git(wiki.root, "commit", "-qam", "my edit")
    assert last_compiled(repo, page, "ingest") == Compiled(first, page_text("A", "Compiled once."))
    # a compile that replayed edits carries what it compiled in its note
    note = compiled_note({"wiki/sources/a.md": page_text("A", "Compiled twice.")})
    second = _ingest(wiki, page_text("A", "Compiled twice. Edited."), note)
    assert last_compiled(repo, page, "ingest") == Compiled(
        second, page_text("A", "Compiled twice.")
    )
    git(wiki.root, "notes", "--ref", "refs/notes/wikic", "remove", second)  # a clone lacks it
    assert last_compiled(repo, page, "ingest") == Compiled(second, None)
    assert undo_last(wiki).undone.sha == second  # type: ignore[union-attr]
    assert last_compiled(repo, page, "ingest") == Compiled(first, page_text("A", "Compiled once."))
