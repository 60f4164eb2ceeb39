"""`wikic consolidate` on a FakeBackend: episode detection, period planning and batching, the
≥ 3-episode rule enforced by code, target choice, the page edits (digest, pattern, link,
compress), idempotence and --force replacing only consolidation's own lines."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import replace

import pytest

from tests.helpers.consolidate_fakes import ConsolidateScript, ScriptedPattern, add_episodes
from tests.helpers.wikitools import commit_pages, git, make_wiki, page_text
from wikic.config import Config, parse_config
from wikic.consolidate import ConsolidateRequest, consolidate
from wikic.consolidate.audit import audit
from wikic.consolidate.episodes import Episode, EpisodeBlock, find_episodes, page_blocks
from wikic.consolidate.plan import batch, plan_periods
from wikic.consolidate.render import is_ours, marked, strip_period
from wikic.errors import UsageError
from wikic.lint import LintOptions, run_lint
from wikic.paths import WikiPaths
from wikic.status import wiki_status
from wikic.vault.episodes import episode_date, period_bounds, period_key
from wikic.vault.links import parse_links
from wikic.vault.pages import parse_page
from wikic.vault.prose import escape
from wikic.vault.tree import Vault

TODAY = dt.date(2026, 4, 13)
PORT = "port 8080"
NOTES = {
    "2026-04-01-log": [
        "The CI build failed again because the integration tests share port 8080.",
        "Lunch with Ana about the offsite agenda.",
    ],
    "2026-04-02-log": [
        "Another CI failure: two integration test jobs fought over port 8080.",
        "Reviewed the parser patch with Sam.",
    ],
    "2026-04-03-log": [
        "CI went red once more when integration tests ran in parallel on port 8080.",
        "Dentist appointment at four.",
    ],
    "2026-04-04-log": [
        "The release notes for version 2.1 went out to the mailing list.",
        "Sent the offsite agenda to Ana.",
    ],
}
PATTERN = ScriptedPattern(
    "port 8080", statement="The CI build failed because the integration tests share port 8080."
)
NAME = "The CI build failed again because the integration tests share port 8080"  # code's
PAGE = "concepts/the-ci-build-failed-again-because-the-integration-tests-share-port-8080.md"
DIGEST = [("The CI build failed on three days because integration tests share port 8080.", (PORT,))]


@pytest.fixture
def wiki(tmp_path) -> WikiPaths:
    paths = make_wiki(tmp_path / "w")
    add_episodes(paths, NOTES)
    return paths


def run(paths: WikiPaths, script: ConsolidateScript, **request):
    backend = script.backend()
    report = consolidate(paths, ConsolidateRequest(**request), backend=lambda: backend, today=TODAY)
    return report, backend


def page(paths: WikiPaths, rel: str):
    return parse_page(rel, (paths.root / rel).read_text(encoding="utf-8"))


def lint_problems(paths: WikiPaths) -> list[str]:
    report = run_lint(paths, LintOptions())
    return [f"{f.rule} {f.page}: {f.message}" for f in report.findings if f.level != "info"]


# -- episodes and periods ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rel", "front", "dirs", "expected"),
    [
        ("raw/2026-04-03-standup.md", {}, [], dt.date(2026, 4, 3)),
        ("raw/notes/standup-2026-04-03.md", {}, [], dt.date(2026, 4, 3)),
        ("raw/journal/2026/04/03.md", {}, [], dt.date(2026, 4, 3)),
        ("raw/paper.md", {"date": dt.date(2026, 4, 5)}, [], dt.date(2026, 4, 5)),
        ("raw/paper.md", {"date": "2026-04-05T10:00"}, [], dt.date(2026, 4, 5)),
        ("raw/2026-04-03-x.md", {"date": "2026-04-09"}, [], dt.date(2026, 4, 9)),  # property wins
        ("raw/journal/monday.md", {}, ["raw/journal"], dt.date(2026, 1, 2)),  # dated by mtime
        ("raw/journal-old/monday.md", {}, ["raw/journal"], None),  # not inside the folder
        ("raw/paper.md", {}, [], None),
        ("raw/2026-02-30-bad.md", {}, [], None),  # no such day
        ("raw/v2026-0401.md", {"date": "soon"}, [], None),
    ],
)
def test_episode_date(rel, front, dirs, expected) -> None:
    config = parse_config({"consolidate": {"episode_dirs": dirs}})
    assert episode_date(rel, front, config, modified=dt.date(2026, 1, 2)) == expected


def test_periods() -> None:
    assert period_key(dt.date(2026, 4, 3), "week") == "2026-W14"
    assert period_key(dt.date(2026, 4, 6), "week") == "2026-W15"
    assert period_key(dt.date(2027, 1, 1), "week") == "2026-W53"  # ISO year, not calendar year
    assert period_key(dt.date(2026, 4, 3), "day") == "2026-04-03"
    assert period_bounds("2026-W14") == (dt.date(2026, 3, 30), dt.date(2026, 4, 5))
    assert period_bounds("2026-04-03") == (dt.date(2026, 4, 3), dt.date(2026, 4, 3))


def _ep(day: int, words: int = 10, blocks: int = 1, done: bool = False) -> Episode:
    text = " ".join(["word"] * words)
    return Episode(
        page=f"sources/2026-04-{day:02d}.md",
        raw=f"raw/2026-04-{day:02d}.md",
        title="t",
        date=dt.date(2026, 4, day),
        summary="",
        blocks=tuple(EpisodeBlock(f"p{i + 1}", text, (text,)) for i in range(blocks)),
        consolidated=TODAY if done else None,
        links=frozenset(),
    )


def count_words(text: str) -> int:
    return len(text.split())


def test_plan_groups_by_period_in_date_order_and_skips_consolidated_periods() -> None:
    episodes = [_ep(7), _ep(1, done=True), _ep(2, done=True), _ep(6, done=True)]
    plans = plan_periods(episodes, period="week", budget_tokens=1000, count_tokens=count_words)
    assert [p.key for p in plans] == ["2026-W15"]  # W14 is fully consolidated
    assert [e.date.day for e in plans[0].episodes] == [6, 7]
    assert plans[0].redo  # 04-06 was consolidated before: its lines get replaced
    forced = plan_periods(
        episodes, period="week", force=True, budget_tokens=1000, count_tokens=count_words
    )
    assert [p.key for p in forced] == ["2026-W14", "2026-W15"]
    days = plan_periods(
        episodes,
        period="day",
        force=True,
        since=dt.date(2026, 4, 2),
        until=dt.date(2026, 4, 6),
        budget_tokens=1000,
        count_tokens=count_words,
    )
    assert [p.key for p in days] == ["2026-04-02", "2026-04-06"]
    assert plans[0].digest_page == "digests/2026-W15.md"


def test_batches_fit_the_budget_keep_order_and_cut_an_oversized_episode() -> None:
    episodes = [_ep(1, words=40), _ep(2, words=40), _ep(3, words=40), _ep(4, words=30, blocks=5)]
    batches = batch(episodes, 100, count_words)
    assert [[e.date.day for e in b] for b in batches] == [[1, 2], [3], [4]]
    assert len(batches[2][0].blocks) == 2  # 5 blocks of 36 tokens: only two fit in 100
    for b in batches:
        cost = sum(count_words(e.title) + sum(count_words(x.text) + 6 for x in e.blocks) for e in b)
        assert cost <= 100


def test_blocks_come_from_the_source_page(wiki) -> None:
    blocks = page_blocks(page(wiki, "wiki/sources/2026-04-02-log.md"))
    assert [b.id for b in blocks] == ["p1", "p2"]
    assert blocks[0].text == NOTES["2026-04-02-log"][0]
    episodes = find_episodes(wiki, Vault.load(wiki.wiki))
    assert [e.date.day for e in episodes] == [1, 2, 3, 4]


# -- consolidation -----------------------------------------------------------------------------


def test_pattern_from_three_episodes_becomes_a_cited_concept_page(wiki) -> None:
    report, backend = run(wiki, ConsolidateScript(DIGEST, [PATTERN]))
    assert report.exit_code == 0
    (outcome,) = report.outcomes
    assert outcome.status == "consolidated" and outcome.period == "2026-W14"
    (pattern,) = outcome.patterns
    assert pattern["name"] == NAME  # code's phrase for it: what recurs, not a shared word
    assert pattern["page"] == PAGE
    concept = page(wiki, "wiki/" + PAGE)
    cited = {(lnk.target, lnk.block) for lnk in parse_links(concept.body) if lnk.block}
    assert cited == {(f"sources/2026-04-0{d}-log", "p1") for d in (1, 2, 3)}
    for day in (1, 2, 3):  # every episode's sentence, verbatim
        assert NOTES[f"2026-04-0{day}-log"][0] in concept.body
    assert "Lunch" not in concept.body and "Dentist" not in concept.body
    assert "offsite" not in concept.body
    assert concept.props["type"] == "concept"
    # the page opens with the model's statement, cited to the note that holds it
    lead = concept.body.split("## ")[0]
    assert f"{PATTERN.statement} [[sources/2026-04-01-log#^p1]]" in lead
    assert lint_problems(wiki) == []
    # one commit for the period, with the log entry
    assert git(wiki.root, "log", "-1", "--format=%s").startswith("consolidate: Week 2026-W14")
    log = (wiki.log_md).read_text()
    assert "## [2026-04-13] consolidate | Week 2026-W14" in log
    assert f"pattern “{NAME}” (new page [[{PAGE[:-3]}#Evidence|{NAME}]])" in log
    # the prompt shows every block with its id, and what recurs with an id the model may name
    prompt = backend.history[0].prompt
    assert "[e4p1] The release notes" in prompt
    assert f"[r1] PATTERN, 3 notes (2026-04-01, 2026-04-02, 2026-04-03): {NAME}" in prompt


def test_digest_sentences_are_held_by_what_they_cite_and_one_offs_are_listed(wiki) -> None:
    script = ConsolidateScript(
        [
            *DIGEST,
            ("Ana and the team planned the offsite over a long lunch with pizza.", ("Lunch",)),
            ("CI went red once more when integration tests ran in parallel,", ("CI went",)),
        ],
        [PATTERN],
    )
    report, _ = run(wiki, script)
    digest = page(wiki, "wiki/digests/2026-W14.md")
    assert digest.props["type"] == "digest" and digest.props["period"] == "2026-W14"
    lead = digest.body.split("## ")[0].split("\n\n", 1)[1].strip()
    sentences = re.split(r"(?<=\]\])\s+(?=[A-Z])", lead)
    for sentence in sentences:
        assert re.search(r"\[\[sources/2026-04-0\d-log#\^p\d\]\]$", sentence), sentence
    # the model's sentence, cited only to the note that holds it (not "three days")
    assert sentences[0] == f"{DIGEST[0][0]} [[sources/2026-04-01-log#^p1]]"
    assert "pizza" not in digest.body  # no note says it
    assert "in parallel," not in digest.body  # cut at a comma
    once = digest.body.split("## Once this period")[1].split("## ")[0]
    assert "- 2026-04-03: Dentist appointment at four. [[sources/2026-04-03-log#^p2]]" in once
    linked = {lnk.target for lnk in parse_links(digest.body.split("## Episodes")[1])}
    assert linked == {f"sources/{slug}" for slug in NOTES}
    assert any("no note holds" in n for n in report.outcomes[0].notes)
    assert audit(Vault.load(wiki.wiki)) == []


def test_what_recurs_in_two_episodes_only_is_no_pattern_whatever_the_model_claims(wiki) -> None:
    two = ScriptedPattern("offsite agenda", name="the offsite agenda with Ana")
    report, backend = run(wiki, ConsolidateScript(DIGEST, [PATTERN, two]))
    prompt = backend.history[0].prompt
    assert re.search(r"\[r2\] 2 notes \(2026-04-01, 2026-04-04\): .*offsite agenda", prompt)
    (outcome,) = report.outcomes
    assert [p["name"] for p in outcome.patterns] == [NAME]  # r2 is not in the schema's enum
    (rejected,) = outcome.rejected
    assert "offsite agenda" in str(rejected["name"])
    assert rejected["why"] == "2 distinct episode(s) so far, 3 needed"
    assert "recurs, not yet a pattern:" in wiki.log_md.read_text()
    # the episodes are consolidated all the same: their one-off content stays in them
    assert page(wiki, "wiki/sources/2026-04-01-log.md").props["consolidated"] == TODAY


def test_words_shared_by_coincidence_are_no_pattern(tmp_path) -> None:
    paths = make_wiki(tmp_path / "w")
    add_episodes(
        paths,
        {
            "2026-04-01-a": ["The dentist appointment is on Friday."],
            "2026-04-02-b": ["Friday pizza with the whole team."],
            "2026-04-03-c": ["Submitted the tax form before Friday."],
        },
    )
    report, backend = run(paths, ConsolidateScript([], []))
    (outcome,) = report.outcomes
    assert outcome.patterns == [] and outcome.created == [] and outcome.rejected == []
    assert "nothing said again in different notes yet" in backend.history[0].prompt


def test_pattern_goes_to_the_most_specific_existing_section(wiki) -> None:
    commit_pages(
        wiki,
        {
            "wiki/concepts/continuous-integration.md": page_text(
                "Continuous integration",
                "CI runs the integration tests on every push.\n\n"
                "## Flaky integration tests\n\n- Integration tests sometimes fail in CI.\n",
            ),
            "wiki/concepts/cooking.md": page_text("Cooking", "Pasta and pizza recipes."),
        },
    )
    script = ConsolidateScript(
        DIGEST,
        [replace(PATTERN, target="concepts/continuous-integration#Flaky integration tests")],
    )
    report, backend = run(wiki, script)
    prompt = backend.history[0].prompt
    # the section before its page: the most specific first
    section = prompt.index("concepts/continuous-integration#Flaky integration tests")
    assert section < prompt.index("concepts/continuous-integration (Continuous integration)")
    assert "concepts/cooking" not in prompt  # not similar to what recurs
    (pattern,) = report.outcomes[0].patterns
    assert (pattern["page"], pattern["section"]) == (
        "concepts/continuous-integration.md",
        "Flaky integration tests",
    )
    assert report.outcomes[0].created == []
    ci = page(wiki, "wiki/concepts/continuous-integration.md").body
    section_text = ci.split("## Flaky integration tests")[1]
    assert "Integration tests sometimes fail in CI." in section_text  # the user's line stays
    assert section_text.count("[[sources/2026-04-0") >= 3
    episode = page(wiki, "wiki/sources/2026-04-02-log.md").body
    assert "[[concepts/continuous-integration#Flaky integration tests" in episode
    assert [p for p in lint_problems(wiki) if "cooking" not in p] == []


def test_code_picks_a_section_named_by_what_recurs_when_the_model_says_new(wiki) -> None:
    commit_pages(
        wiki,
        {
            "wiki/concepts/continuous-integration.md": page_text(
                "Continuous integration",
                "CI runs the integration tests on every push.\n\n"
                "## Flaky integration tests\n\n- Integration tests sometimes fail in CI.\n",
            ),
        },
    )
    report, _ = run(wiki, ConsolidateScript(DIGEST, [PATTERN]))  # target "new"
    (pattern,) = report.outcomes[0].patterns
    assert pattern["section"] == "Flaky integration tests"  # two of its words name it


def test_later_episodes_saying_otherwise_get_a_dated_change_entry(tmp_path) -> None:
    paths = make_wiki(tmp_path / "w")
    fixed = "Raising max_tokens fixed the truncated JSON from the small model."
    not_fixed = "Raising max_tokens did not fix the truncated JSON from the small model after all."
    add_episodes(
        paths,
        {
            "2026-04-06-log": [fixed],
            "2026-04-07-log": ["The small model produced truncated JSON again, with max_tokens."],
            "2026-04-09-log": [not_fixed, "A grammar constraint fixed it."],
        },
    )
    report, _ = run(paths, ConsolidateScript([], []))  # the model sees no change: code does
    (pattern,) = report.outcomes[0].patterns
    assert pattern["changed"]
    body = page(paths, "wiki/" + str(pattern["page"])).body
    changes = body.split("### How this changed")[1]
    assert changes.strip().startswith(
        f"- 2026-04-09: {escape(not_fixed)} [[sources/2026-04-09-log#^p1]] "
        f"Before, on 2026-04-06: {escape(fixed)} [[sources/2026-04-06-log#^p1]] ^c-2026-w15-"
    )
    assert "fixed" not in str(pattern["name"])  # a change does not name what recurs
    assert "contradiction" not in body.casefold()
    assert audit(Vault.load(paths.wiki)) == []


def test_compress_sets_flat_consolidated_and_gist_properties(wiki) -> None:
    run(wiki, ConsolidateScript(DIGEST, [PATTERN]))
    for slug, paragraphs in NOTES.items():
        ep = page(wiki, f"wiki/sources/{slug}.md")
        assert ep.props["consolidated"] == TODAY
        assert ep.props["gist"] == paragraphs[0]
        assert "[[digests/2026-W14|" in ep.body  # LINK to the digest
        assert all(not isinstance(v, dict) for v in ep.props.values())
    assert (wiki.raw / "2026-04-01-log.md").exists()  # raw files stay


def test_a_long_first_sentence_is_a_whole_gist(tmp_path) -> None:
    paths = make_wiki(tmp_path / "w")
    long = "The build " + "and the cache " * 30 + "broke."
    add_episodes(paths, {"2026-04-01-log": [long]})
    run(paths, ConsolidateScript([], []))
    assert page(paths, "wiki/sources/2026-04-01-log.md").props["gist"] == long


def test_rerun_is_a_noop_and_new_episode_redoes_its_period(wiki) -> None:
    run(wiki, ConsolidateScript(DIGEST, [PATTERN]))
    head = git(wiki.root, "rev-parse", "HEAD")
    report, backend = run(wiki, ConsolidateScript(DIGEST, [PATTERN]))
    assert report.outcomes == [] and backend.history == []
    assert git(wiki.root, "rev-parse", "HEAD") == head
    assert wiki_status(wiki).episodes_pending == 0
    add_episodes(wiki, {"2026-04-05-log": ["Integration tests on port 8080 broke CI once more."]})
    assert wiki_status(wiki).episodes_pending == 1
    report, _ = run(wiki, ConsolidateScript(DIGEST, [PATTERN]))
    (outcome,) = report.outcomes
    assert outcome.redo and len(outcome.episodes) == 5
    body = page(wiki, "wiki/" + PAGE).body
    assert body.count("2026-04-02-log#^p1]] ^c-") == 1  # replaced, not duplicated
    assert "[[sources/2026-04-05-log#^p1]]" in body
    assert lint_problems(wiki) == []


def test_force_replaces_its_own_lines_and_keeps_edited_ones(wiki) -> None:
    run(wiki, ConsolidateScript(DIGEST, [PATTERN]))
    rel = "wiki/" + PAGE
    text = (wiki.root / rel).read_text()
    edited = text.replace(
        "2026-04-02: Another CI failure", "2026-04-02: (checked) Another CI failure"
    )
    commit_pages(wiki, {rel: edited})
    report, _ = run(wiki, ConsolidateScript(DIGEST, [PATTERN]), force=True)
    assert report.outcomes[0].redo
    body = (wiki.root / rel).read_text()
    assert "(checked) Another CI failure" in body  # the person's edit stays
    assert body.count("Another CI failure") == 1  # the edited line still covers that block
    assert body.count("2026-04-01: The CI build failed") == 1
    assert lint_problems(wiki) == []


def test_marks_recognise_unedited_lines_only() -> None:
    line = marked("- a fact [[sources/x#^p1]]", "2026-W14")
    assert is_ours(line, "2026-W14")
    assert not is_ours(line, "2026-W15")
    assert not is_ours(line.replace("a fact", "a better fact"), "2026-W14")


def test_a_redo_keeps_a_section_that_was_empty_before() -> None:
    text = "# T\n\n## Text\n\n## Notes\n\nA. ^p1\n\n## Done\n\n" + marked("- x", "2026-W14")
    assert strip_period(text, "2026-W14") == "# T\n\n## Text\n\n## Notes\n\nA. ^p1\n"


def test_dry_run_plans_without_model_or_writes(wiki) -> None:
    head = git(wiki.root, "rev-parse", "HEAD")
    report, backend = run(wiki, ConsolidateScript(), dry_run=True)
    assert [o.status for o in report.outcomes] == ["planned"]
    assert backend.history == []
    assert git(wiki.root, "rev-parse", "HEAD") == head


def test_bad_range_is_a_usage_error() -> None:
    with pytest.raises(UsageError):
        ConsolidateRequest(since=dt.date(2026, 4, 5), until=dt.date(2026, 4, 1))


def test_episode_dirs_make_undated_notes_episodes(tmp_path) -> None:
    paths = make_wiki(tmp_path / "w")
    cfg = paths.root / "wikic.yaml"
    cfg.write_text(cfg.read_text().replace("episode_dirs: []", "episode_dirs: [raw/journal]"))
    from wikic.paths import open_paths

    paths = open_paths(paths.root)
    (paths.raw / "journal").mkdir()
    add_episodes(paths, {"journal/monday": ["Standup ran long."]})
    assert [e.raw for e in find_episodes(paths, Vault.load(paths.wiki))] == [
        "raw/journal/monday.md"
    ]
    assert Config().consolidate.episode_dirs == []


def test_a_pattern_of_earlier_weeks_is_extended_by_a_later_episode(wiki) -> None:
    run(wiki, ConsolidateScript(DIGEST, [PATTERN]))
    add_episodes(wiki, {"2026-04-07-log": ["Port 8080 clashed between integration tests in CI."]})
    report, backend = run(wiki, ConsolidateScript(DIGEST, []))
    assert "PATTERN, 4 notes (2026-04-01, 2026-04-02, 2026-04-03, 2026-04-07)" in (
        backend.history[0].prompt
    )
    (outcome,) = report.outcomes
    assert outcome.period == "2026-W15"
    (pattern,) = outcome.patterns  # the section citing its earlier notes: the same pattern
    assert (pattern["page"], pattern["section"]) == (PAGE, "Evidence")
    assert outcome.created == []
    body = page(wiki, "wiki/" + PAGE).body
    assert "[[sources/2026-04-07-log#^p1]]" in body
    assert body.count("2026-04-01: The CI build failed") == 1  # W14's lines untouched
    assert f"[[{PAGE[:-3]}#Evidence|" in page(wiki, "wiki/sources/2026-04-07-log.md").body
    assert lint_problems(wiki) == []


def test_two_notes_of_one_week_and_one_of_the_next_make_a_pattern_citing_all(tmp_path) -> None:
    paths = make_wiki(tmp_path / "w")
    add_episodes(paths, {k: NOTES[k] for k in ("2026-04-01-log", "2026-04-02-log")})
    first, _ = run(paths, ConsolidateScript([], []))
    assert first.outcomes[0].patterns == []  # two notes: not yet
    add_episodes(paths, {"2026-04-08-log": ["CI failed again: integration tests share port 8080."]})
    report, _ = run(paths, ConsolidateScript([], []))
    (outcome,) = report.outcomes
    assert outcome.period == "2026-W15"
    (pattern,) = outcome.patterns
    assert pattern["episodes"] == [f"sources/2026-04-0{d}-log.md" for d in (1, 2, 8)]
    body = page(paths, "wiki/" + str(pattern["page"])).body
    assert "[[sources/2026-04-01-log#^p1]]" in body and "[[sources/2026-04-08-log#^p1]]" in body
    # the earlier notes link the pattern too
    assert "#Evidence|" in page(paths, "wiki/sources/2026-04-01-log.md").body
    assert lint_problems(paths) == []


def test_force_removes_a_pattern_page_the_redo_no_longer_finds(wiki) -> None:
    run(wiki, ConsolidateScript(DIGEST, [PATTERN]))
    assert (wiki.wiki / PAGE).exists()
    rel = "wiki/sources/2026-04-03-log.md"  # one episode no longer says it
    text = (wiki.root / rel).read_text().replace(NOTES["2026-04-03-log"][0], "A quiet day.")
    commit_pages(wiki, {rel: text})
    report, _ = run(wiki, ConsolidateScript(DIGEST, []), force=True)
    assert report.outcomes[0].patterns == []
    assert "2 distinct episode(s)" in str(report.outcomes[0].rejected[0]["why"])
    assert not (wiki.wiki / PAGE).exists()
    assert f"[[{PAGE[:-3]}" not in page(wiki, "wiki/sources/2026-04-01-log.md").body
    assert lint_problems(wiki) == []


def test_a_target_the_evidence_does_not_name_is_refused(wiki) -> None:
    commit_pages(wiki, {"wiki/concepts/mailing-list.md": page_text("Mailing list", "CI mails.")})
    wrong = replace(PATTERN, target="concepts/mailing-list")
    report, backend = run(wiki, ConsolidateScript(DIGEST, [wrong]))
    assert "concepts/mailing-list (Mailing list)" in backend.history[0].prompt
    (pattern,) = report.outcomes[0].patterns
    assert pattern["page"] == PAGE


def test_the_model_names_a_pattern_only_with_a_phrase_the_notes_say(wiki) -> None:
    names = {
        "port": "port",  # one word
        "CI port fights": "CI port fights",  # "fights" is in no note
        "integration tests share port 8080": "integration tests share port 8080",
    }
    found = {}
    for proposed in names:
        paths = make_wiki(wiki.root.parent / proposed.replace(" ", "-"))
        add_episodes(paths, NOTES)
        report, _ = run(paths, ConsolidateScript(DIGEST, [replace(PATTERN, name=proposed)]))
        found[proposed] = report.outcomes[0].patterns[0]["name"]
    assert found == {
        "port": NAME,
        "CI port fights": NAME,
        "integration tests share port 8080": "integration tests share port 8080",
    }


def test_a_dated_article_is_no_episode_but_a_note_named_by_its_date_is() -> None:
    """A dated blog post or design document (a name, a title and sections of its own) is about
    its subject; a note named or titled by its day is an episode whatever its length."""
    from wikic.vault.episodes import reads_as_article

    config = Config()
    sections = "\n\n## Overview\n\n" + "word " * 200 + "\n\n## Next steps\n\n" + "word " * 120
    article = "# Cranelift backend for rustc" + sections
    assert reads_as_article(article, stem="2020-04-03-cranelift-backend-for-rustc")
    rel = "raw/2020-04-03-cranelift-backend-for-rustc.md"
    assert episode_date(rel, {}, config, text=article) is None
    assert episode_date(rel, {}, config) == dt.date(2020, 4, 3)  # without its text: by its name
    # named by its date alone, or titled by note words: a note of that day
    assert episode_date("raw/2020-04-03.md", {}, config, text=article) == dt.date(2020, 4, 3)
    standup = "# Standup 2020-04-03" + sections
    assert not reads_as_article(standup, stem="2020-04-03-team-standup")
    # short, or without sections: a note
    assert not reads_as_article("# Cranelift backend for rustc\n\nShort note.\n", stem="x-y")
    titled = "---\ntitle: Target Tier Policy\n---\n" + sections
    assert reads_as_article(titled, {"title": "Target Tier Policy"}, stem="2019-09-20-tier-policy")
