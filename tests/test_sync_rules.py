"""The merge rules of `wikic sync`, each on small constructed inputs: lines, pages (facts,
properties, lists, openings), log.md, links to moved pages, and who a commit names."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import git
import pytest

from wikic.config import Config, GitConfig
from wikic.operation.identity import commit_identity, parse_author, with_author
from wikic.paths import WikiPaths
from wikic.sync.diff3 import has_markers, merge_lines, union_of_insertions
from wikic.sync.logmerge import merge_log
from wikic.sync.merge import follow_moves
from wikic.sync.pages import Makers, merge_page, united
from wikic.vault.logbook import LOG_HEADER, LogEntry, append_entry, parse_entries
from wikic.vault.pages import parse_page
from wikic.vault.sections import split_body
from wikic.vault.topic_page import parse_facts

WIKIC = Makers.fixed(True, True)  # wikic made both sides' changes
PEOPLE = Makers.fixed(False, False)


# -- lines -------------------------------------------------------------------------------


def test_lines_one_side_changed_are_taken_from_it() -> None:
    merged = merge_lines(["a", "b", "c", "d"], ["a", "B", "c", "d"], ["a", "b", "c", "D"])
    assert merged.lines == tuple(["a", "B", "c", "D"]) and merged.conflicts == 0


def test_lines_changed_two_ways_are_a_conflict_between_gits_markers() -> None:
    merged = merge_lines(["a", "b"], ["a", "x"], ["a", "y"], labels=("HEAD", "origin/main"))
    assert merged.conflicts == 1
    assert merged.lines == ("a", "<<<<<<< HEAD", "x", "=======", "y", ">>>>>>> origin/main")
    assert has_markers("\n".join(merged.lines))


def test_two_insertions_at_one_place_may_both_be_kept_but_an_edit_never_is() -> None:
    both = merge_lines(["a"], ["a", "x"], ["a", "y"], settle=union_of_insertions)
    assert both.lines == ("a", "x", "y") and both.conflicts == 0
    edited = merge_lines(["a"], ["b"], ["c"], settle=union_of_insertions)
    assert edited.conflicts == 1


def test_a_markdown_heading_underline_is_not_a_conflict_marker() -> None:
    assert not has_markers("Title\n=======\n\ntext")


# -- pages -------------------------------------------------------------------------------


def _page(facts: list[str], *, sources: list[str], extra: str = "", props: str = "") -> str:
    cites = "\n".join(f"- {f}" for f in facts)
    listed = "".join(f"- '[[sources/{s}]]'\n" for s in sources)
    return (
        f"---\ntype: concept\ntitle: KV cache\n{props}sources:\n{listed}updated: 2026-04-01\n---\n\n"
        f"# KV cache\n\nThe KV cache stores keys.\n\n## Facts\n\n{cites}\n{extra}"
    )


A = "The KV cache stores keys. [[sources/a#^p1]] ^f-aaaaaa"
B = "The KV cache grows linearly. [[sources/b#^p1]] ^f-bbbbbb"
C = "The KV cache is per request. [[sources/c#^p2]] ^f-cccccc"


def _facts(text: str) -> dict[str, tuple[str, tuple[str, ...]]]:
    page = parse_page("concepts/kv-cache.md", text)
    return {f.id: (f.text, f.citations) for f in parse_facts(split_body(page.body))}


def test_facts_both_sides_added_are_kept_once_each_with_the_sources_united() -> None:
    base = _page([A], sources=["a"])
    ours = _page([A, B], sources=["a", "b"])
    theirs = _page([A, C, B], sources=["a", "c", "b"])
    merged = merge_page("concepts/kv-cache.md", base, ours, theirs, WIKIC)
    assert merged.conflicts == ()
    facts = _facts(merged.text or "")
    assert sorted(facts) == ["f-aaaaaa", "f-bbbbbb", "f-cccccc"]
    page = parse_page("concepts/kv-cache.md", merged.text or "")
    assert page.sources == ["[[sources/a]]", "[[sources/b]]", "[[sources/c]]"]


def test_one_fact_cited_anew_on_both_sides_has_every_citation() -> None:
    base = _page([A], sources=["a"])
    ours = _page(
        ["The KV cache stores keys. [[sources/a#^p1]] [[sources/b#^p4]] ^f-aaaaaa"],
        sources=["a", "b"],
    )
    theirs = _page(
        ["The KV cache stores keys. [[sources/a#^p1]] [[sources/c#^p9]] ^f-aaaaaa"],
        sources=["a", "c"],
    )
    merged = merge_page("concepts/kv-cache.md", base, ours, theirs, WIKIC)
    assert _facts(merged.text or "")["f-aaaaaa"][1] == (
        "[[sources/a#^p1]]", "[[sources/b#^p4]]", "[[sources/c#^p9]]",
    )  # fmt: skip


def test_a_fact_one_side_dropped_and_the_other_left_alone_goes() -> None:
    base = _page([A, B], sources=["a", "b"])
    ours = _page([A], sources=["a"])  # b's source changed: its fact retracted
    theirs = _page([A, B, C], sources=["a", "b", "c"])
    facts = _facts(merge_page("concepts/kv-cache.md", base, ours, theirs, WIKIC).text or "")
    assert sorted(facts) == ["f-aaaaaa", "f-cccccc"]


def test_a_fact_sentence_one_person_fixed_keeps_the_fix_and_the_other_sides_citation() -> None:
    base = _page([A], sources=["a"])
    ours = _page(["The KV cache stores the keys. [[sources/a#^p1]] ^f-aaaaaa"], sources=["a"])
    theirs = _page(
        ["The KV cache stores keys. [[sources/a#^p1]] [[sources/d#^p1]] ^f-aaaaaa"],
        sources=["a", "d"],
    )
    makers = Makers.fixed(False, True)
    facts = _facts(merge_page("concepts/kv-cache.md", base, ours, theirs, makers).text or "")
    assert facts["f-aaaaaa"] == (
        "The KV cache stores the keys.", ("[[sources/a#^p1]]", "[[sources/d#^p1]]"),
    )  # fmt: skip


def test_one_sentence_people_edited_two_ways_is_a_conflict_naming_the_fact() -> None:
    base = _page([A], sources=["a"])
    ours = _page(["The KV cache stores the keys. [[sources/a#^p1]] ^f-aaaaaa"], sources=["a"])
    theirs = _page(["A KV cache keeps keys. [[sources/a#^p1]] ^f-aaaaaa"], sources=["a"])
    merged = merge_page("concepts/kv-cache.md", base, ours, theirs, PEOPLE)
    assert merged.text is None
    assert merged.conflicts == ("## Facts: the fact ^f-aaaaaa was edited two ways",)
    # the same edits, one made by wikic: the person's wins
    merged = merge_page("concepts/kv-cache.md", base, ours, theirs, Makers.fixed(True, False))
    assert _facts(merged.text or "")["f-aaaaaa"][0] == "A KV cache keeps keys."


def test_properties_merge_key_by_key() -> None:
    base = _page([A], sources=["a"], props="aliases:\n- KV\n- K-V\n")
    ours = _page([A], sources=["a"], props="aliases:\n- KV\n- Key-value cache\n").replace(
        "updated: 2026-04-01", "updated: 2026-04-03"
    )
    theirs = _page([A], sources=["a"], props="aliases:\n- KV\n- K-V\n- KV store\n").replace(
        "updated: 2026-04-01", "updated: 2026-04-02"
    )
    page = parse_page("x.md", merge_page("x.md", base, ours, theirs, PEOPLE).text or "")
    assert page.aliases == ["KV", "Key-value cache", "KV store"]  # K-V: removed by ours
    assert page.props["updated"] == dt.date(2026, 4, 3)
    assert united(["a", "b"], ["a", "b", "c"], ["b", "d"]) == ["b", "c", "d"]


def test_a_title_people_changed_two_ways_is_a_conflict() -> None:
    base = _page([A], sources=["a"])
    ours, theirs = (
        base.replace("title: KV cache", "title: K"),
        base.replace("title: KV cache", "title: V"),
    )
    merged = merge_page("x.md", base, ours, theirs, PEOPLE)
    assert merged.conflicts == ("the property 'title' was changed two ways",)


def test_two_openings_wikic_wrote_are_not_both_kept_but_a_persons_paragraph_is() -> None:
    ours = "---\ntype: concept\ntitle: X\n---\n\n# X\n\nOurs says what X is.\n"
    theirs = "---\ntype: concept\ntitle: X\n---\n\n# X\n\nTheirs says it.\n"
    lead = split_body(
        parse_page("x.md", merge_page("x.md", None, ours, theirs, WIKIC).text or "").body
    ).lead
    assert "Ours says" in lead and "Theirs" not in lead
    base = ours
    noted = ours.replace("what X is.\n", "what X is.\n\nA person's note.\n")
    changed = ours.replace("## ", "## ") + "\n## Facts\n\n- " + C + "\n"
    merged = merge_page("x.md", base, changed, noted, Makers.fixed(True, False)).text or ""
    assert "A person's note." in merged and "f-cccccc" in merged


def test_sources_and_related_merge_by_the_page_they_link() -> None:
    base = _page([A], sources=["a"], extra="\n## Related\n\n- [[concepts/x|X]]\n")
    ours = _page(
        [A], sources=["a"], extra="\n## Related\n\n- [[concepts/x|X]]\n- [[concepts/y|Y]]\n"
    )
    theirs = _page(
        [A], sources=["a"], extra="\n## Related\n\n- [[concepts/x|The X]]\n- [[concepts/z|Z]]\n"
    )
    body = split_body(
        parse_page("x.md", merge_page("x.md", base, ours, theirs, WIKIC).text or "").body
    )
    assert (
        body.get("Related") or ""
    ).strip() == "- [[concepts/x|The X]]\n- [[concepts/y|Y]]\n- [[concepts/z|Z]]"


def test_a_page_that_does_not_parse_is_a_conflict_not_a_guess() -> None:
    merged = merge_page(
        "x.md", "---\ntitle: X\n---\n", "---\ntitle: [\n---\n", "---\ntitle: Y\n---\n", WIKIC
    )
    assert merged.text is None and "invalid YAML" in merged.conflicts[0]


# -- log.md ------------------------------------------------------------------------------


def _log(*entries: tuple[str, str, str]) -> str:
    text = LOG_HEADER
    for day, title, author in entries:
        text = append_entry(
            text, LogEntry(dt.date.fromisoformat(day), "ingest", title, ("x",), author)
        )
    return text


def test_log_entries_of_both_sides_are_kept_once_in_the_order_they_were_made() -> None:
    base = _log(("2026-04-01", "Base", "a"))
    ours = _log(
        ("2026-04-01", "Base", "a"), ("2026-04-02", "Ours 1", "a"), ("2026-04-03", "Ours 2", "a")
    )
    theirs = _log(
        ("2026-04-01", "Base", "a"),
        ("2026-04-02", "Theirs 1", "b"),
        ("2026-04-02", "Theirs 2", "b"),
    )
    merged = merge_log(base, ours, theirs, ((0, 10, 40), (0, 20, 30)))
    assert [e.title for e in parse_entries(merged)] == [
        "Base",
        "Ours 1",
        "Theirs 1",
        "Theirs 2",
        "Ours 2",
    ]
    assert merge_log(base, ours, ours) == ours


def test_an_earlier_entry_one_side_relinked_takes_that_version() -> None:
    base = _log(("2026-04-01", "Base", "a")).replace("- x", "- [[concepts/old|Old]]")
    ours = base.replace("[[concepts/old|Old]]", "[[concepts/new|Old]]")
    theirs = _log(("2026-04-01", "Base", "a"), ("2026-04-02", "T", "b")).replace(
        "- x\n\n##", "- [[concepts/old|Old]]\n\n##", 1
    )
    merged = merge_log(base, ours, theirs)
    assert "[[concepts/new|Old]]" in merged and "[[concepts/old" not in merged
    assert [e.title for e in parse_entries(merged)] == ["Base", "T"]


def test_a_log_someone_cut_by_hand_still_loses_no_entry() -> None:
    base = _log(("2026-04-01", "A", "a"), ("2026-04-02", "B", "a"))
    ours = _log(("2026-04-02", "B", "a"), ("2026-04-03", "C", "a"))  # A cut by hand
    theirs = _log(("2026-04-01", "A", "a"), ("2026-04-02", "B", "a"), ("2026-04-04", "D", "b"))
    assert [e.title for e in parse_entries(merge_log(base, ours, theirs))] == ["A", "B", "C", "D"]


def test_an_entry_names_who_ran_it() -> None:
    text = _log(("2026-04-01", "Base", "Agent Two"))
    assert "## [2026-04-01] ingest | Base\n- by Agent Two\n- x\n" in text
    (entry,) = parse_entries(text)
    assert (entry.author, entry.bullets) == ("Agent Two", ("x",))


# -- links and authors ---------------------------------------------------------------------


def test_links_to_a_moved_page_follow_it_keeping_block_and_alias() -> None:
    text = "See [[concepts/old|Old]], [[concepts/old#^f-1]] and [[concepts/other]]; `[[concepts/old]]`."
    assert follow_moves(text, {"concepts/old": "concepts/new"}) == (
        "See [[concepts/new|Old]], [[concepts/new#^f-1]] and [[concepts/other]]; `[[concepts/old]]`."
    )


def test_the_author_is_the_given_one_then_wikic_yaml_then_gits_identity(tmp_path: Path) -> None:
    repo = git.Repo.init(tmp_path)
    repo.git.config("user.name", "Git Person")
    repo.git.config("user.email", "person@example.com")
    assert commit_identity(GitConfig(), repo).name == "Git Person"
    assert commit_identity(GitConfig(author_name="Yaml Agent"), repo).email == "wikic@localhost"
    paths = with_author(WikiPaths(tmp_path, Config()), "Claude <c@ai.org>")
    ident = commit_identity(paths.config.git, repo)
    assert (ident.name, ident.email) == ("Claude", "c@ai.org")
    assert commit_identity(GitConfig(), None).name == "wikic"
    with pytest.raises(Exception, match="bad author"):
        parse_author("<only@mail>")
