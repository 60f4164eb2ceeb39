"""`consolidate.audit`: what it takes for a consolidated sentence to hold up against the blocks
it cites, and what counts as cut; on small constructed pages."""

from __future__ import annotations

from tests.helpers.consolidate_fakes import episode_page
from tests.helpers.wikitools import commit_pages, make_wiki
from wikic.consolidate.audit import audit, lacks, pieces
from wikic.lint import LintOptions, run_lint
from wikic.vault.tree import Vault

BLOCK = "The nightly export job died on the staging runner: the orders file passed 2 GB."


def test_a_block_holds_a_sentence_with_its_numbers_names_and_most_of_its_words() -> None:
    assert lacks(BLOCK, BLOCK) is None
    assert lacks("The export job died on the staging runner.", BLOCK) is None
    assert "'3'" in str(lacks("The orders file passed 3 GB.", BLOCK))  # a number it lacks
    assert "'Jonas'" in str(
        lacks("The export job died on the runner of Jonas.", BLOCK)
    )  # a name it lacks
    assert "'max_tokens'" in str(lacks("The export job ignored max_tokens.", BLOCK))  # code
    # "nightly export job" is held; "database", "migration", "stalled" are not
    assert "holds" in str(lacks("The nightly database migration stalled for hours.", BLOCK))
    assert lacks("Exported orders.", BLOCK) is None  # words compared by their first letters


def test_a_line_is_split_into_the_text_before_each_run_of_citations() -> None:
    line = (
        "- 2026-05-12: Raising pool_size did not fix it. [[sources/b#^p1]] "
        "Before, on 2026-05-09: Raising pool_size fixed it. [[sources/a#^p1]] [[sources/a#^p2]]"
        " ^c-2026-w20-1a2b3c"
    )
    assert list(pieces(line)) == [
        ("Raising pool_size did not fix it.", [("sources/b", "p1")]),
        ("Raising pool_size fixed it.", [("sources/a", "p1"), ("sources/a", "p2")]),
    ]


def _vault(tmp_path, pages: dict[str, str]) -> Vault:
    for rel, text in pages.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text, encoding="utf-8")
    return Vault.load(tmp_path)


def _digest(lead: str, items: str = "") -> str:
    return (
        "---\ntype: digest\ntitle: Week 2026-W18\nsummary: The export job died.\n---\n\n"
        f"# Week 2026-W18\n\n{lead}\n\n## One-off events\n\n{items}\n"
    )


def test_audit_finds_unsupported_missing_and_cut_sentences(tmp_path) -> None:
    source = episode_page("2026-04-27-monday", "Monday", [BLOCK, "Dentist at 16:00."])
    ok = (
        "The nightly export job died on the staging runner. [[sources/2026-04-27-monday#^p1]] "
        "Dentist at 16:00. [[sources/2026-04-27-monday#^p2]]"
    )
    vault = _vault(
        tmp_path,
        {"sources/2026-04-27-monday.md": source, "digests/2026-W18.md": _digest(ok)},
    )
    assert audit(vault) == []
    bad = (
        "The export job died at 16:00. [[sources/2026-04-27-monday#^p1]] "  # the time is p2's
        "The dentist moved the appointment, [[sources/2026-04-27-monday#^p2]]"  # cut at a comma
    )
    items = "- 2026-04-27: Dentist at 16:00. [[sources/2026-04-27-monday#^p9]]"  # no such block
    vault = _vault(tmp_path, {"digests/2026-W18.md": _digest(bad, items)})
    found = {(p.kind, p.text[:20]) for p in audit(vault)}
    assert found == {
        ("unsupported", "The export job died "),
        ("cut", "The dentist moved th"),
        ("unsupported", "The dentist moved th"),  # "moved", "appointment" are not in p2
        ("missing-block", "Dentist at 16:00."),
    }


def test_audit_reads_marked_lines_and_the_lead_of_pattern_pages_only(tmp_path) -> None:
    source = episode_page("2026-04-27-monday", "Monday", [BLOCK])
    concept = (
        "---\ntype: concept\ntitle: Export job\ntags: [concept, pattern]\n"
        "summary: The export job died on the staging runner.\n---\n\n# Export job\n\n"
        "The export job died on the staging runner. [[sources/2026-04-27-monday#^p1]]\n\n"
        "## Evidence\n\n"
        "- 2026-04-27: The orders file passed 2 GB. [[sources/2026-04-27-monday#^p1]] "
        "^c-2026-w18-000000\n"
        "- A person's own note on Jonas. [[sources/2026-04-27-monday#^p1]]\n"  # not marked
    )
    vault = _vault(
        tmp_path,
        {"sources/2026-04-27-monday.md": source, "concepts/export-job.md": concept},
    )
    assert audit(vault) == []
    (tmp_path / "concepts/export-job.md").write_text(concept.replace("2 GB", "4 GB"))
    assert [p.kind for p in audit(Vault.load(tmp_path))] == ["unsupported"]


def test_lint_finds_a_cut_sentence_anywhere_in_a_digest_or_a_consolidated_line(tmp_path) -> None:
    paths = make_wiki(tmp_path / "w")
    source = episode_page("2026-04-27-monday", "Monday", [BLOCK, "Dentist at 16:00."])
    cite, cite2 = "[[sources/2026-04-27-monday#^p1]]", "[[sources/2026-04-27-monday#^p2]]"
    digest = _digest(
        f"The nightly export job died on the staging runner, {cite} Dentist at 16:00. {cite2}",
        f"- 2026-04-27: Dentist at 16:00. {cite2}",
    )
    concept = (
        "---\ntype: concept\ntitle: Export job\nsummary: The export job died.\n---\n\n"
        f"# Export job\n\nThe export job died. {cite}\n\n## Evidence\n\n"
        f"- 2026-04-27: The orders file passed {cite} ^c-2026-w18-000000\n"
    )
    commit_pages(
        paths,
        {
            "wiki/sources/2026-04-27-monday.md": source,
            "wiki/digests/2026-W18.md": digest,
            "wiki/concepts/export-job.md": concept,
        },
    )
    found = [f for f in run_lint(paths, LintOptions()).findings if f.rule == "cut-summary"]
    assert sorted((f.page, f.message[:40]) for f in found) == [
        ("wiki/concepts/export-job.md", "sentence ends mid-sentence (after 'passe"),
        ("wiki/digests/2026-W18.md", "sentence ends mid-sentence (after 'runne"),
    ]
