"""`wikic consolidate` on dated notes over several weeks, checked against the answers planted in
them (tests/data/episodes-weeks/expected.yaml: 15 notes, 3 weeks, 4 patterns, one evolving; and
the sample journal in raw/journal/), with a sloppy scripted model: it rewords, cuts sentences,
cites loosely, names patterns by one word and states lessons no note says.

What must hold whatever the model does: every planted pattern on one page or section citing all
its episodes (the third note creates it whenever it arrives); no one-off event on a semantic
page; every citation of every consolidated page held by the block it cites (`audit`); no cut
sentence; names that are phrases; the evolving pattern's change written in order, dated; and a
re-run over the same history changes nothing.
"""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.helpers.consolidate_fakes import add_notes, shown_items
from tests.helpers.wikitools import git, make_wiki, snapshot
from wikic.consolidate import ConsolidateRequest, consolidate
from wikic.consolidate.audit import audit
from wikic.llm.fake import FakeBackend, FakeCall
from wikic.paths import WikiPaths
from wikic.vault.links import parse_links
from wikic.vault.sections import split_body
from wikic.vault.tree import Vault

DATA = Path(__file__).parent / "data"
REPO = Path(__file__).resolve().parent.parent
CASES = {
    "weeks": (DATA / "episodes-weeks", DATA / "episodes-weeks" / "expected.yaml"),
    "journal": (REPO / "raw" / "journal", DATA / "journal-expected.yaml"),
}
TODAY = dt.date(2026, 6, 1)
_BLOCK_RE = re.compile(r"^\[(e\d+p\d+)\] (.*)$", re.MULTILINE)


def sloppy(call: FakeCall) -> dict[str, Any]:
    """A small model at its worst, within the schema: a digest sentence no note says, one cut
    at a comma, one true of only one of the blocks it cites; patterns named by one word, or
    stated as a lesson no note says."""
    blocks = _BLOCK_RE.findall(call.prompt)
    digest = []
    if len(blocks) >= 2:
        (a, text_a), (b, text_b) = blocks[0], blocks[1]
        digest = [
            {"text": "The whole team learned a great deal this week.", "cites": [a, b]},
            {"text": text_a.split(",")[0][:150] + ",", "cites": [a]},
            {"text": text_b.split(". ")[0].rstrip(".")[:150] + ".", "cites": [b, a]},
        ]
    patterns = []
    for n, item in enumerate(i for i in shown_items(call.prompt) if i.pattern):
        lone = n % 2 == 0
        patterns.append(
            {
                "id": item.id,
                "name": item.name.split()[0] if lone else item.name[:90],
                "statement": (
                    "This always happens to every service in production."
                    if lone
                    else (item.sentences or (item.name,))[0][:200]
                ),
                "target": "new",
            }
        )
    return {"digest": digest, "patterns": patterns[:4]}


def load(case: str) -> tuple[list[Path], dict[str, Any]]:
    notes, expected = CASES[case]
    return sorted(notes.glob("*.md")), yaml.safe_load(expected.read_text(encoding="utf-8"))


def run(paths: WikiPaths, **request: Any):
    backend = FakeBackend(sloppy)
    return consolidate(paths, ConsolidateRequest(**request), backend=lambda: backend, today=TODAY)


@pytest.fixture(scope="module", params=sorted(CASES))
def consolidated(request, tmp_path_factory) -> tuple[str, WikiPaths, Any, dict[str, Any]]:
    notes, expected = load(request.param)
    paths = make_wiki(tmp_path_factory.mktemp(request.param) / "w")
    add_notes(paths, notes)
    report = run(paths)
    assert report.exit_code == 0, [o.error for o in report.outcomes]
    return request.param, paths, report, expected


def sections(vault: Vault) -> list[tuple[str, set[str]]]:
    """(page#heading, the episodes its lines cite) of every section of every topic page."""
    found = []
    for page in vault:
        if page.type not in ("concept", "entity"):
            continue
        body = split_body(page.body)
        for heading, text in [("", body.lead), *body.sections]:
            cited = {lnk.target.removeprefix("sources/") for lnk in parse_links(text) if lnk.block}
            found.append((f"{page.path}#{heading}", cited))
    return found


def test_every_planted_pattern_is_on_one_section_citing_all_its_episodes(consolidated) -> None:
    _, paths, _, expected = consolidated
    found = sections(Vault.load(paths.wiki))
    for pattern in expected["patterns"]:
        wanted = set(pattern["episodes"])
        assert any(wanted <= cited for _, cited in found), (pattern["id"], found)


def test_no_section_mixes_two_patterns_and_no_one_off_is_promoted(consolidated) -> None:
    _, paths, _, expected = consolidated
    vault = Vault.load(paths.wiki)
    planted = [set(p["episodes"]) for p in expected["patterns"]]
    for where, cited in sections(vault):
        if cited:
            assert any(cited <= episodes for episodes in planted), (where, cited)
    for page in vault:
        if page.type in ("concept", "entity"):
            for one_off in expected["one_offs"]:
                assert one_off["word"].casefold() not in page.body.casefold(), (page.path, one_off)


def test_every_citation_of_every_consolidated_page_holds_and_nothing_is_cut(consolidated) -> None:
    _, paths, _, _ = consolidated
    vault = Vault.load(paths.wiki)
    assert [f"{p.kind} {p.page}: {p.text} — {p.detail}" for p in audit(vault)] == []
    digests = [p for p in vault if p.type == "digest"]
    assert digests and all("[[sources/" in p.body for p in digests)
    assert "learned a great deal" not in "".join(p.body for p in vault)


def test_patterns_are_named_by_phrases(consolidated) -> None:
    _, _, report, _ = consolidated
    names = [str(p["name"]) for o in report.outcomes for p in o.patterns]
    assert names
    for name in names:
        assert len(name.split()) >= 3, name


def test_the_evolving_pattern_says_how_it_changed_in_order_and_dated(consolidated) -> None:
    _, paths, _, expected = consolidated
    (evolving,) = [p for p in expected["patterns"] if p.get("changed")]
    before, after = evolving["changed"]["before"], evolving["changed"]["after"]
    pages = [p for p in Vault.load(paths.wiki) if f"[[sources/{after}#^p" in p.body]
    changed = [
        p.body.split("### How this changed", 1)[1] for p in pages if "### How this" in p.body
    ]
    assert changed, [p.path for p in pages]
    (entry,) = [x for x in changed[0].split("\n") if f"sources/{after}#" in x]
    day = after[:10]
    assert entry.startswith(f"- {day}: ") and f"Before, on {before[:10]}: " in entry
    assert entry.index(f"sources/{after}#") < entry.index(f"sources/{before}#")


def test_digests_put_what_recurs_first_and_list_one_offs_by_date(consolidated) -> None:
    _, paths, _, expected = consolidated
    vault = Vault.load(paths.wiki)
    for digest in (p for p in vault if p.type == "digest"):
        lead = split_body(digest.body).lead.split("\n\n", 1)
        paragraph = lead[1] if len(lead) == 2 else ""
        assert len(re.findall(r"\]\](?: |$)", paragraph)) <= 5, digest.path  # five sentences
        once = split_body(digest.body).get("Once this period") or ""
        for line in once.strip().split("\n") if once.strip() else []:
            assert re.match(r"- \d{4}-\d{2}-\d{2}: .+ \[\[sources/[^\]]+#\^p\d+\]\]$", line)
    everything = "".join(p.body for p in vault if p.type == "digest")
    listed = [o for o in expected["one_offs"] if o["word"].casefold() in everything.casefold()]
    assert len(listed) >= len(expected["one_offs"]) - 2  # one-offs stay visible in digests


def test_a_rerun_over_the_same_history_changes_nothing(consolidated) -> None:
    _, paths, _, _ = consolidated
    head = git(paths.root, "rev-parse", "HEAD")
    assert run(paths).outcomes == []
    assert git(paths.root, "rev-parse", "HEAD") == head
    before = snapshot(paths.root)
    report = run(paths, force=True)
    assert all(o.status == "consolidated" for o in report.outcomes)
    after = snapshot(paths.root)
    changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
    assert [k for k in changed if not k.startswith(".git") and k != "wiki/log.md"] == []


def test_the_third_note_creates_the_pattern_whenever_it_arrives(tmp_path) -> None:
    """Notes arriving a week at a time, consolidated each week, give the patterns the notes
    give all at once: a pattern with two notes a week is created by its third note."""
    notes, expected = load("weeks")
    paths = make_wiki(tmp_path / "w")
    weeks: dict[str, list[Path]] = {}
    for note in notes:
        year, week, _ = dt.date.fromisoformat(note.name[:10]).isocalendar()
        weeks.setdefault(f"{year}-W{week:02d}", []).append(note)
    created: dict[str, list[str]] = {}
    for key, members in weeks.items():
        add_notes(paths, members)
        report = run(paths)
        created[key] = [str(p["page"]) for o in report.outcomes for p in o.patterns]
    export = next(p for p in expected["patterns"] if p["id"] == "export-out-of-memory")
    assert created["2026-W18"] == []  # two notes of it that week: not yet
    (page,) = [
        x for x in created["2026-W19"] if "2026-04-27-monday" in (paths.wiki / x).read_text()
    ]
    text = (paths.wiki / page).read_text()
    assert all(f"[[sources/{e}#^p" in text for e in export["episodes"])
    found = sections(Vault.load(paths.wiki))
    for pattern in expected["patterns"]:
        assert any(set(pattern["episodes"]) <= cited for _, cited in found), pattern["id"]
    assert audit(Vault.load(paths.wiki)) == []
