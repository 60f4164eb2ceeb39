"""`wikic consolidate` on a FakeBackend: episode detection, period planning and batching, the
≥ 3-episode rule enforced by code, target choice, the page edits (digest, pattern, link,
compress), idempotence and --force replacing only consolidation's own lines."""

from __future__ import annotations

import datetime as dt
import re

import pytest

from tests.helpers.consolidate_fakes import ConsolidateScript, ScriptedPattern, add_episodes
from tests.helpers.wikitools import commit_pages, git, make_wiki, page_text
from wikic.config import Config, parse_config
from wikic.consolidate import ConsolidateRequest, consolidate
from wikic.consolidate.episodes import Episode, EpisodeBlock, find_episodes, page_blocks
from wikic.consolidate.plan import batch, plan_periods
from wikic.consolidate.render import is_ours, marked
from wikic.errors import UsageError
from wikic.lint import LintOptions, run_lint
from wikic.paths import WikiPaths
from wikic.status import wiki_status
from wikic.vault.episodes import episode_date, period_bounds, period_key
from wikic.vault.links import parse_links
from wikic.vault.pages import parse_page
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
PATTERN = ScriptedPattern("port 8080", "Integration tests fail in CI when they share port 8080.")
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
    assert pattern["page"] == "concepts/port-8080.md"
    concept = page(wiki, "wiki/" + str(pattern["page"]))
    cited = {(lnk.target, lnk.block) for lnk in parse_links(concept.body) if lnk.block}
    assert cited == {(f"sources/2026-04-0{d}-log", "p1") for d in (1, 2, 3)}
    for day in (1, 2, 3):  # every episode's sentence, verbatim
        assert NOTES[f"2026-04-0{day}-log"][0] in concept.body
    assert "Lunch" not in concept.body and "Dentist" not in concept.body
    assert "offsite" not in concept.body
    assert concept.props["type"] == "concept"
    assert lint_problems(wiki) == []
    # one commit for the period, with the log entry
    assert git(wiki.root, "log", "-1", "--format=%s").startswith("consolidate: Week 2026-W14")
    log = (wiki.log_md).read_text()
    assert "## [2026-04-13] consolidate | Week 2026-W14" in log
    assert "pattern “port 8080” (new page [[concepts/port-8080#Evidence|port 8080]])" in log
    # the prompt shows every block with its id
    assert "[e4p1] The release notes" in backend.history[0].prompt


def test_digest_cites_episode_blocks_in_every_sentence_and_links_every_episode(wiki) -> None:
    script = ConsolidateScript(
        [
            *DIGEST,
            ("Ana and the team planned the offsite over a long lunch with pizza.", ("Lunch",)),
        ],
        [PATTERN],
    )
    report, _ = run(wiki, script)
    digest = page(wiki, "wiki/digests/2026-W14.md")
    assert digest.props["type"] == "digest" and digest.props["period"] == "2026-W14"
    lead = digest.body.split("## ")[0].split("\n\n", 1)[1].strip()
    sentences = re.split(r"(?<=\]\])\s+(?=[A-Z])", lead)
    assert len(sentences) == 2
    for sentence in sentences:
        assert re.search(r"\[\[sources/2026-04-0\d-log#\^p\d\]\]$", sentence), sentence
    # the second sentence is not made of its block's words: the block's own sentence instead
    assert "pizza" not in digest.body
    assert "Lunch with Ana about the offsite agenda. [[sources/2026-04-01-log#^p2]]" in digest.body
    linked = {lnk.target for lnk in parse_links(digest.body.split("## Episodes")[1])}
    assert linked == {f"sources/{slug}" for slug in NOTES}
    assert any("not supported" in n for n in report.outcomes[0].notes)


def test_code_rejects_a_pattern_from_two_episodes_whatever_the_model_claims(wiki) -> None:
    two = ScriptedPattern("offsite agenda", "The offsite agenda recurs in every note about Ana.")
    report, backend = run(wiki, ConsolidateScript(DIGEST, [two]))
    assert "offsite agenda (2 episodes)" in backend.history[0].prompt
    (outcome,) = report.outcomes
    assert outcome.patterns == []
    assert outcome.rejected[0]["name"] == "offsite agenda"
    assert "2 distinct episode(s), 3 needed" in str(outcome.rejected[0]["why"])
    assert not (wiki.wiki / "concepts").exists() or not list((wiki.wiki / "concepts").iterdir())
    assert "weak evidence, not extracted: “offsite agenda”" in wiki.log_md.read_text()
    # the episodes are consolidated all the same: their one-off content stays in them
    assert page(wiki, "wiki/sources/2026-04-01-log.md").props["consolidated"] == TODAY


def test_a_term_shared_by_coincidence_is_not_a_pattern(tmp_path) -> None:
    paths = make_wiki(tmp_path / "w")
    add_episodes(
        paths,
        {
            "2026-04-01-a": ["The dentist appointment is on Friday."],
            "2026-04-02-b": ["Friday pizza with the whole team."],
            "2026-04-03-c": ["Submitted the tax form before Friday."],
        },
    )
    report, _ = run(paths, ConsolidateScript([], [ScriptedPattern("Friday", "Friday recurs.")]))
    (outcome,) = report.outcomes
    assert outcome.patterns == [] and outcome.created == []
    assert any("share nothing else" in n for n in outcome.notes)


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
        [
            ScriptedPattern(
                PATTERN.name,
                PATTERN.statement,
                target="concepts/continuous-integration#Flaky integration tests",
            )
        ],
    )
    report, backend = run(wiki, script)
    prompt = backend.history[0].prompt
    assert "concepts/continuous-integration (Continuous integration)" in prompt
    assert "concepts/continuous-integration#Flaky integration tests" in prompt
    assert "concepts/cooking" not in prompt  # not similar to any episode
    (pattern,) = report.outcomes[0].patterns
    assert (pattern["page"], pattern["section"]) == (
        "concepts/continuous-integration.md",
        "Flaky integration tests",
    )
    assert report.outcomes[0].created == []
    ci = page(wiki, "wiki/concepts/continuous-integration.md").body
    section = ci.split("## Flaky integration tests")[1]
    assert "Integration tests sometimes fail in CI." in section  # the user's line stays
    assert section.count("[[sources/2026-04-0") >= 3
    episode = page(wiki, "wiki/sources/2026-04-02-log.md").body
    assert "[[concepts/continuous-integration#Flaky integration tests" in episode
    assert [p for p in lint_problems(wiki) if "cooking" not in p] == []


def test_targets_leave_out_pages_the_episode_already_links(wiki) -> None:
    commit_pages(wiki, {"wiki/concepts/ci-port.md": page_text("CI port", "Port 8080 in CI.")})
    for day in (1, 2, 3):
        rel = f"wiki/sources/2026-04-0{day}-log.md"
        text = (
            (wiki.root / rel)
            .read_text()
            .replace("## Text", "## Pages\n\n- [[concepts/ci-port|CI port]]\n\n## Text")
        )
        commit_pages(wiki, {rel: text})
    _, backend = run(wiki, ConsolidateScript(DIGEST, []))
    assert "concepts/ci-port" not in backend.history[0].prompt.split("EXISTING PAGES")[1]


def test_later_episodes_saying_otherwise_get_a_dated_change_entry(tmp_path) -> None:
    paths = make_wiki(tmp_path / "w")
    add_episodes(
        paths,
        {
            "2026-04-06-log": ["Raising max_tokens fixed the truncated JSON from the small model."],
            "2026-04-07-log": ["The small model produced truncated JSON again."],
            "2026-04-09-log": [
                "Raising max_tokens did not fix the truncated JSON; a grammar constraint did."
            ],
        },
    )
    pattern = ScriptedPattern(
        "truncated JSON",
        "The small model produced truncated JSON.",
        changed=(
            "a grammar constraint",
            "Raising max_tokens fixed",
            "a grammar constraint fixed the truncated JSON, raising max_tokens did not",
        ),
    )
    run(
        paths,
        ConsolidateScript([("The small model produced truncated JSON.", ("JSON",))], [pattern]),
    )
    body = page(paths, "wiki/concepts/truncated-json.md").body
    assert body.count("[[sources/2026-04-0") >= 6  # the statement and one line per episode
    changes = body.split("### How this changed")[1]
    assert changes.strip().startswith("- 2026-04-09: a grammar constraint fixed")  # ordered by date
    assert "[[sources/2026-04-06-log#^p1]] [[sources/2026-04-09-log#^p1]]" in changes
    assert "contradiction" not in body.casefold()


def test_compress_sets_flat_consolidated_and_gist_properties(wiki) -> None:
    run(wiki, ConsolidateScript(DIGEST, [PATTERN]))
    for slug, paragraphs in NOTES.items():
        ep = page(wiki, f"wiki/sources/{slug}.md")
        assert ep.props["consolidated"] == TODAY
        assert ep.props["gist"] == paragraphs[0]
        assert "[[digests/2026-W14|" in ep.body  # LINK to the digest
        assert all(not isinstance(v, dict) for v in ep.props.values())
    assert (wiki.raw / "2026-04-01-log.md").exists()  # raw files stay


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
    body = page(wiki, "wiki/concepts/port-8080.md").body
    assert body.count("2026-04-02-log#^p1]] ^c-") == 1  # replaced, not duplicated
    assert "[[sources/2026-04-05-log#^p1]]" in body
    assert lint_problems(wiki) == []


def test_force_replaces_its_own_lines_and_keeps_edited_ones(wiki) -> None:
    run(wiki, ConsolidateScript(DIGEST, [PATTERN]))
    rel = "wiki/concepts/port-8080.md"
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


def test_candidates_are_terms_shared_by_episodes() -> None:
    from wikic.consolidate.candidates import find_candidates
    from wikic.consolidate.targets import Target

    def ep(day: int, *texts: str) -> Episode:
        blocks = tuple(EpisodeBlock(f"p{i + 1}", t, (t,)) for i, t in enumerate(texts))
        return Episode(
            f"sources/{day}.md", "", "t", dt.date(2026, 4, day), "", blocks, None, frozenset()
        )

    episodes = [
        ep(1, "The shell lost LD_PRELOAD, so OpenBLAS was missing again today.", "Lunch."),
        ep(2, "OpenBLAS was missing after the reboot, same as yesterday."),
        ep(3, "Integration tests on port 8080 failed; OpenBLAS too."),
        ep(4, "Port 8080 was busy again today."),
    ]
    pages = [
        Target("t1", "concepts/lunch.md", None, "Lunch", ""),
        Target("t2", "x.md", None, "Tax", ""),
    ]
    found = {c.name: c.episodes for c in find_candidates(episodes, targets=pages)}
    assert found["OpenBLAS"] == 3
    assert found["port 8080"] == 2  # a word and a number make a phrase
    assert "port" not in found and "Port" not in found  # "port 8080" covers it (same episodes)
    assert not {"again", "today", "yesterday", "the", "was"} & set(found)  # everyday words
    assert found["Lunch"] == 1 and "Tax" not in found  # titles an episode mentions


def test_a_pattern_of_earlier_weeks_keeps_collecting_episodes(wiki) -> None:
    run(wiki, ConsolidateScript(DIGEST, [PATTERN]))
    add_episodes(wiki, {"2026-04-07-log": ["Port 8080 clashed between integration tests in CI."]})
    later = ScriptedPattern(PATTERN.name, PATTERN.statement, target="concepts/port-8080")
    report, backend = run(wiki, ConsolidateScript(DIGEST, [later]))
    assert "port 8080 (1 episodes)" in backend.history[0].prompt  # the page's title, mentioned
    (outcome,) = report.outcomes
    assert outcome.period == "2026-W15"
    (pattern,) = outcome.patterns  # one episode now, three cited by the section before
    assert (pattern["page"], pattern["section"]) == ("concepts/port-8080.md", "Evidence")
    body = page(wiki, "wiki/concepts/port-8080.md").body
    assert "[[sources/2026-04-07-log#^p1]]" in body
    assert body.count("2026-04-01: The CI build failed") == 1  # W14's lines untouched
    assert "[[concepts/port-8080#Evidence|" in page(wiki, "wiki/sources/2026-04-07-log.md").body
    assert lint_problems(wiki) == []


def test_two_terms_with_the_same_evidence_are_one_pattern(wiki) -> None:
    twin = ScriptedPattern("integration tests", "Integration tests share port 8080 in CI.")
    report, _ = run(wiki, ConsolidateScript(DIGEST, [PATTERN, twin]))
    (pattern,) = report.outcomes[0].patterns
    assert pattern["name"] == "port 8080" and len(pattern["episodes"]) == 3  # type: ignore[arg-type]
    assert report.outcomes[0].created == ["concepts/port-8080.md"]


def test_a_digest_sentence_cites_only_the_blocks_it_draws_on(wiki) -> None:
    script = ConsolidateScript([("Lunch with Ana about the offsite agenda.", ("Lunch", "Dentist"))])
    run(wiki, script)
    digest = page(wiki, "wiki/digests/2026-W14.md").body
    assert "Lunch with Ana about the offsite agenda. [[sources/2026-04-01-log#^p2]]\n" in digest


def test_force_removes_a_pattern_page_the_redo_no_longer_finds(wiki) -> None:
    run(wiki, ConsolidateScript(DIGEST, [PATTERN]))
    assert (wiki.wiki / "concepts" / "port-8080.md").exists()
    rel = "wiki/sources/2026-04-03-log.md"  # one episode no longer names the port
    commit_pages(wiki, {rel: (wiki.root / rel).read_text().replace(" on port 8080", "")})
    report, _ = run(wiki, ConsolidateScript(DIGEST, []), force=True)
    assert report.outcomes[0].patterns == []
    assert "2 distinct episode(s)" in str(report.outcomes[0].rejected[0]["why"])
    assert not (wiki.wiki / "concepts" / "port-8080.md").exists()
    assert "[[concepts/port-8080" not in page(wiki, "wiki/sources/2026-04-01-log.md").body
    assert lint_problems(wiki) == []


def test_a_target_the_evidence_does_not_name_is_refused(wiki) -> None:
    commit_pages(wiki, {"wiki/concepts/mailing-list.md": page_text("Mailing list", "CI mails.")})
    wrong = ScriptedPattern(PATTERN.name, PATTERN.statement, target="concepts/mailing-list")
    report, backend = run(wiki, ConsolidateScript(DIGEST, [wrong]))
    assert "concepts/mailing-list (Mailing list)" in backend.history[0].prompt
    (pattern,) = report.outcomes[0].patterns
    assert pattern["page"] == "concepts/port-8080.md"
    assert any("is not about concepts/mailing-list" in n for n in report.outcomes[0].notes)


def test_code_links_an_episode_naming_a_pattern_page_the_model_passed_over(wiki) -> None:
    twin = ScriptedPattern("integration tests", "Integration tests share port 8080 in CI.")
    run(wiki, ConsolidateScript(DIGEST, [PATTERN, twin]))
    concept = page(wiki, "wiki/concepts/port-8080.md")
    assert concept.props["aliases"] == ["integration tests"]  # the merged term
    add_episodes(wiki, {"2026-04-08-log": ["The integration tests grabbed port 9090 in CI."]})
    report, _ = run(wiki, ConsolidateScript(DIGEST, []))  # the model names no pattern
    (pattern,) = report.outcomes[0].patterns
    assert pattern["page"] == "concepts/port-8080.md"
    assert "[[sources/2026-04-08-log#^p1]]" in page(wiki, "wiki/concepts/port-8080.md").body
    assert lint_problems(wiki) == []


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
