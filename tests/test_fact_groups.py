"""`## Facts` grouped under `### ` sub-headings naming the source section each fact came from:
only when a page's facts come from two or more sections, groups in order of first appearance,
new facts filed into their group, no empty or lone sub-heading after a retraction, bullets
written by hand kept, and every reader of facts (parse_facts, lint, the store) sees them all."""

from __future__ import annotations

import datetime as dt
import shutil
from pathlib import Path

import pytest

from tests.helpers.ingest_fakes import two_source_script
from tests.helpers.wikitools import make_wiki
from wikic.consolidate.targets import own_sections
from wikic.ingest.pipeline import IngestRequest, ingest
from wikic.ingest.render import TopicEdit, apply_topic_edit
from wikic.lint import LintOptions, run_lint
from wikic.lint.parse import section_claims
from wikic.maintain.merge import merge_pages
from wikic.paths import WikiPaths
from wikic.store.rows import page_claims, page_passages
from wikic.vault.document import parse_document, render_source_body
from wikic.vault.pages import Page, parse_page
from wikic.vault.sections import FACTS, bullets, split_body
from wikic.vault.topic_page import (
    Fact,
    SourceSections,
    fact_id,
    parse_facts,
    retract_source,
    section_heading,
)
from wikic.vault.tree import Vault

DAY = dt.date(2026, 11, 22)


def _fact(text: str, para: str, section: str = "", source: str = "a") -> Fact:
    return Fact(fact_id(text), text, (f"[[sources/{source}#^{para}]]",), section)


def _edit(
    facts: list[Fact], source: str = "a", sections: SourceSections | None = None
) -> TopicEdit:
    return TopicEdit(
        path="concepts/cache.md",
        title="Cache",
        type="concept",
        aliases=(),
        new_facts=tuple(facts),
        summary="The cache keeps keys.",
        contradictions=(),
        related=(),
        source_page=f"sources/{source}.md",
        source_title=source.upper(),
        section_of=sections.of if sections else None,
    )


def _facts_text(page: Page) -> str:
    return split_body(page.body).get(FACTS) or ""


KEEP = _fact("The cache keeps keys.", "p1", "Design")
GROW = _fact("The cache grows with the context.", "p2", "Design")
FLAG = _fact("The --cache flag turns the cache on.", "p5", "Usage")
TUNE = _fact("A smaller cache is faster.", "p2", "Tuning", source="b")
HAND = "- The cache is my favourite data structure."


def test_a_new_page_from_a_multi_section_source_groups_its_facts() -> None:
    page = apply_topic_edit(None, _edit([KEEP, FLAG, GROW]), DAY)
    assert _facts_text(page).strip() == "\n".join(
        [
            "### Design",
            "",
            KEEP.render(),
            GROW.render(),  # its group's, in order, though the source listed it after FLAG
            "",
            "### Usage",
            "",
            FLAG.render(),
        ]
    )
    assert "## Facts\n\n### Design\n\n- The cache keeps keys." in page.body


def test_facts_of_one_section_or_of_the_preamble_stay_a_flat_list() -> None:
    page = apply_topic_edit(None, _edit([KEEP, GROW]), DAY)
    assert _facts_text(page).strip() == f"{KEEP.render()}\n{GROW.render()}"
    intro = _fact("The cache is old.", "p1")  # before the first heading: no section
    page = apply_topic_edit(None, _edit([intro, KEEP, GROW]), DAY)
    assert "###" not in page.body


def _source_page(name: str, markdown: str) -> Page:
    doc = parse_document(markdown, filename=f"{name}.md")
    body = f"# {doc.title}\n\n## Text\n\n{render_source_body(doc, min_level=3)}"
    return Page(f"sources/{name}.md", {"type": "source", "title": doc.title}, body)


SOURCE_A = """# Cache notes

## Design

The cache keeps keys.

The cache grows with the context.

## `--cache` **flag** [[x]] | #tag ^p9

The --cache flag turns the cache on.
"""


def test_a_second_source_turns_a_flat_page_into_groups() -> None:
    first = apply_topic_edit(None, _edit([KEEP, GROW]), DAY)
    assert "###" not in first.body
    pages = {"sources/a.md": _source_page("a", SOURCE_A)}
    sections = SourceSections(pages.get)
    # the flat page's facts are filed under their section, read from the source page of `a`
    second = apply_topic_edit(first, _edit([TUNE], source="b", sections=sections), DAY)
    assert _facts_text(second).strip() == "\n".join(
        [
            "### A — Design",
            "",
            KEEP.render(),
            GROW.render(),
            "",
            "### B — Tuning",
            "",
            TUNE.render(),
        ]
    )
    assert second.props["sources"] == ["[[sources/a]]", "[[sources/b]]"]


def test_later_facts_join_their_sources_group_or_start_one() -> None:
    """On a page two sources share, a group names its source: a section of the same heading
    in another source is another group (whose claims they are is what a reader asks)."""
    page = apply_topic_edit(None, _edit([KEEP, FLAG]), DAY)
    more = _fact("The cache holds values too.", "p7", "design", source="b")  # same heading
    page = apply_topic_edit(page, _edit([more, TUNE, GROW], source="b"), DAY)
    assert [(f.section, f.id) for f in parse_facts(split_body(page.body))] == [
        ("A — Design", KEEP.id),
        ("A — Design", GROW.id),
        ("A — Usage", FLAG.id),
        ("B — design", more.id),
        ("B — Tuning", TUNE.id),
    ]
    assert _facts_text(page).count("### A — Design") == 1
    # a third source leaves the groups named so as they are
    third = _fact("A cache can be shared.", "p1", "Design", source="c")
    page = apply_topic_edit(page, _edit([third], source="c"), DAY)
    headings = [f.section for f in parse_facts(split_body(page.body))]
    assert headings[-1] == "C — Design" and "A — A — Design" not in headings


def test_the_same_sentence_from_a_second_source_keeps_its_place() -> None:
    page = apply_topic_edit(None, _edit([KEEP, FLAG]), DAY)
    again = _fact(KEEP.text, "p4", "Elsewhere", source="b")
    page = apply_topic_edit(page, _edit([again], source="b"), DAY)
    (kept, _) = parse_facts(split_body(page.body))
    assert kept.section == "A — Design"
    assert kept.citations == ("[[sources/a#^p1]]", "[[sources/b#^p4]]")
    assert "Elsewhere" not in page.body


def test_retracting_a_source_leaves_no_empty_or_lone_sub_heading() -> None:
    page = apply_topic_edit(None, _edit([KEEP, FLAG]), DAY)
    page = apply_topic_edit(page, _edit([TUNE], source="b"), DAY)
    assert _facts_text(page).count("### ") == 3
    retracted, dropped = retract_source(page, "sources/b.md", {})
    assert dropped == 1
    text = _facts_text(retracted)
    assert "Tuning" not in text and text.count("### ") == 2
    assert "### Design" in text and "### Usage" in text  # one source left: not named again
    assert not text.rstrip().endswith("###")
    # down to one section: a flat list again
    alone, _ = retract_source(retracted, "sources/a.md", {KEEP.id: "p1", GROW.id: "p2"})
    assert _facts_text(alone).strip() == KEEP.render()
    assert "###" not in alone.body


def test_a_hand_written_bullet_outside_the_groups_survives() -> None:
    page = apply_topic_edit(None, _edit([KEEP, FLAG]), DAY)
    text = page.body.replace("## Facts\n\n", f"## Facts\n\n{HAND}\n\n", 1)
    page = Page(page.path, page.props, text)
    page = apply_topic_edit(page, _edit([TUNE], source="b"), DAY)
    facts_text = _facts_text(page)
    assert facts_text.strip().startswith(f"{HAND}\n\n### A — Design")
    assert HAND[2:] in [f.text for f in parse_facts(split_body(page.body))]
    retracted, _ = retract_source(page, "sources/b.md", {})
    assert HAND in retracted.body  # it cited nothing, so no retraction takes it


def test_a_hand_written_bullet_stays_when_a_flat_list_is_grouped() -> None:
    page = apply_topic_edit(None, _edit([KEEP, GROW]), DAY)
    text = page.body.replace(GROW.render(), f"{GROW.render()}\n{HAND}")
    page = Page(page.path, page.props, text)
    pages = {"sources/a.md": _source_page("a", SOURCE_A)}
    grouped = apply_topic_edit(page, _edit([TUNE], "b", SourceSections(pages.get)), DAY)
    facts_text = _facts_text(grouped)
    assert facts_text.strip().startswith(f"{HAND}\n\n### A — Design\n\n{KEEP.render()}")
    assert len(parse_facts(split_body(grouped.body))) == 4


GROUPED = f"""# Cache

The cache keeps keys.

## Facts

- A note the user wrote, with a [[sources/a#^p3]] citation.

### Design

{KEEP.render()}
- The cache grows with the context,
  over two lines. [[sources/a#^p2]] ^f-222222

### Usage

{FLAG.render()}

## Related

- [[concepts/kv|KV]]
"""


def test_every_reader_of_facts_sees_every_grouped_fact() -> None:
    page = parse_page("concepts/cache.md", f"---\ntype: concept\ntitle: Cache\n---\n{GROUPED}")
    body = split_body(page.body)
    facts = parse_facts(body)
    assert [(f.section, f.id) for f in facts] == [
        ("", fact_id("A note the user wrote, with a citation.")),
        ("Design", KEEP.id),
        ("Design", "f-222222"),
        ("Usage", FLAG.id),
    ]
    assert facts[2].text == "The cache grows with the context, over two lines."
    assert len(bullets(body.get(FACTS))) == 4
    lint_claims = section_claims(page.body, FACTS, [])
    assert [c.block for c in lint_claims] == [None, KEEP.id, "f-222222", FLAG.id]
    claims = page_claims(page, body)
    assert [c.block for c in claims] == [None, KEEP.id, "f-222222", FLAG.id]
    passages = [p for p in page_passages(page, body, claims) if p.kind == "fact"]
    assert [p.section for p in passages] == ["", "Design", "Design", "Usage"]
    assert own_sections(page) == []  # consolidation never targets a group


def test_section_headings_are_plain_text_for_obsidian() -> None:
    assert section_heading("`--cache` **flag** [[x]] | #tag ^p9") == "--cache flag x / tag p9"
    assert section_heading("C# bindings") == "C♯ bindings"
    assert section_heading("The __init__ file and wr_seq") == "The init file and wr_seq"
    assert section_heading("Vec<T> and <b>") == "Vec&lt;T> and &lt;b>"
    assert section_heading("  ") == ""


def test_source_sections_read_a_source_page() -> None:
    pages = {"sources/a.md": _source_page("a", SOURCE_A)}
    sections = SourceSections(pages.get)
    assert sections.of(_fact("x", "p1")) == "Design"
    assert sections.of(_fact("x", "p3")) == "--cache flag x / tag p9"
    assert sections.of(_fact("x", "p9")) == ""  # no such paragraph
    assert sections.of(_fact("x", "p1", source="gone")) == ""


@pytest.fixture
def two_sources(tmp_path: Path) -> WikiPaths:
    """The two sources of tests/test_ingest.py, one section each (their titles)."""
    paths = make_wiki(tmp_path / "w")
    for name in ("kv-cache.md", "sliding-window.md"):
        shutil.copy(Path(__file__).parent / "data" / "ingest" / name, paths.raw / name)
    backend = two_source_script().backend()
    report = ingest(  # one batch, one commit per source in order
        paths,
        IngestRequest(all_new=True),
        extract_backend=lambda: backend,
        write_backend=lambda: backend,
        today=DAY,
    )
    assert [o.status for o in report.outcomes] == ["ingested", "ingested"], report.outcomes
    return paths


def _sections(paths: WikiPaths, page: str) -> list[str]:
    body = split_body(Vault.load(paths.wiki).pages[page].body)
    return [f.section for f in parse_facts(body)]


def test_ingest_groups_a_flat_page_when_a_second_source_adds_a_section(
    two_sources: WikiPaths,
) -> None:
    # Gemma 3 was a flat list of one fact after the first source; the second made it two groups
    assert _sections(two_sources, "entities/gemma-3.md") == [
        "The KV cache",
        "Sliding-window attention",
        "Sliding-window attention",  # the rest of its paragraph (a thin topic takes it)
    ]
    assert _sections(two_sources, "concepts/prefix-caching.md") == ["", ""]  # one section: flat
    findings = run_lint(two_sources, LintOptions()).findings
    assert {f.rule for f in findings if f.level in ("error", "warning")} == set()


def test_merge_files_the_merged_facts_under_their_sections(two_sources: WikiPaths) -> None:
    merge_pages(two_sources, "concepts/sliding-window-attention", "concepts/prefix-caching")
    sections = _sections(two_sources, "concepts/prefix-caching.md")
    assert sections == [
        "The KV cache",
        "The KV cache",
        "Sliding-window attention",
        "Sliding-window attention",
    ]
    text = (two_sources.wiki / "concepts" / "prefix-caching.md").read_text(encoding="utf-8")
    assert text.count("### The KV cache") == 1


def test_a_reingest_that_drops_a_section_leaves_a_flat_list(two_sources: WikiPaths) -> None:
    gemma = two_sources.wiki / "entities" / "gemma-3.md"
    assert "### The KV cache" in gemma.read_text(encoding="utf-8")
    raw = two_sources.raw / "kv-cache.md"
    text = raw.read_text(encoding="utf-8")
    raw.write_text(text.replace("Gemma 3 interleaves 5 local sliding-window layers", "Gone"))
    backend = two_source_script().backend()
    report = ingest(
        two_sources,
        IngestRequest(paths=(raw,), force=True),
        extract_backend=lambda: backend,
        write_backend=lambda: backend,
        today=DAY,
    )
    assert [o.status for o in report.outcomes] == ["ingested"], report.outcomes
    assert "###" not in gemma.read_text(encoding="utf-8")
    assert _sections(two_sources, "entities/gemma-3.md") == ["", ""]


def test_a_source_paragraph_is_retrieved_with_its_heading_and_release() -> None:
    from wikic.store.rows import section_label

    page = _source_page(
        "changelog",
        "## 0.4 (2023-06-17)\n\nThis release adds chats.\n\n### Continue previous chat\n\n"
        "Use `-c` to continue the last chat.\n\n## 0.3\n\nFirst release with templates.\n",
    )
    body = split_body(page.body)
    paragraphs = [(p.text, p.section) for p in page_passages(page, body, []) if p.kind == "para"]
    assert paragraphs == [
        ("This release adds chats.", "0.4 (2023-06-17)"),
        ("Use `-c` to continue the last chat.", "0.4 (2023-06-17): Continue previous chat"),
        ("First release with templates.", "0.3"),
    ]
    assert section_label(("Details", "Tier 2 target policy")) == "Tier 2 target policy"
    assert section_label(()) == ""
