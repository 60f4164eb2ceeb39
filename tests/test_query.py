"""`wikic query` core with FakeBackend: retrieval, packing, prompt order, citation checking."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.storetools import sample_wiki, write_page
from tests.helpers.wikitools import commit_pages, page_text
from wikic.errors import UsageError
from wikic.llm.fake import FakeBackend
from wikic.query.answer import NOTHING_FOUND, answer_question, check_citations
from wikic.query.context import NOT_IN_WIKI, catalog_text, excerpt, pack_pages, task_text
from wikic.store.db import open_store

GOOD = (
    "Snapshots are taken at segment boundaries [[sources/paper#^p1]], never by trimming; "
    "see [[concepts/prefix-cache|the prefix cache]]."
)


@pytest.fixture
def wiki(tmp_path: Path):
    return sample_wiki(tmp_path / "w")


def test_answer_uses_search_hits_and_one_hop_of_links(wiki) -> None:
    backend = FakeBackend().enqueue(GOOD)
    result = answer_question(wiki, "Where are snapshots persisted?", backend=backend)
    assert result.found and result.answered
    reasons = {p.path: p.reason for p in result.pages}
    assert reasons["concepts/prefix-cache.md"] == "search"
    assert reasons["sources/paper.md"] == "search"
    # not matched by the question's words, but linked from the best hit
    assert reasons["concepts/sliding-window.md"] == "link"
    assert "entities/mlx.md" not in reasons
    assert result.answer == GOOD and result.removed == ()
    assert {(c.page, c.block) for c in result.citations} == {
        ("sources/paper.md", "p1"),
        ("concepts/prefix-cache.md", None),
    }


def test_prompt_order_is_schema_catalog_pages_question(wiki) -> None:
    backend = FakeBackend().enqueue(GOOD)
    answer_question(wiki, "How does the prefix cache take snapshots?", backend=backend)
    segments = backend.history[0].segments
    assert segments[0].role == "system"
    assert segments[0].text == wiki.agents_md.read_text()
    assert segments[1].text.startswith("Wiki catalog (index.md)")
    assert "[[concepts/prefix-cache|Prefix cache]]" in segments[1].text
    page_segments = segments[2:-1]
    headers = [s.text.split("\n", 1)[0] for s in page_segments]
    assert headers == sorted(headers)  # stable order, whatever the ranking
    assert all(h.startswith("=== [[") for h in headers)
    assert segments[-1].text.startswith(task_text("How does the prefix cache take snapshots?")[:60])
    example = segments[-1].text.rsplit("e.g. ", 1)[1].rstrip(".")
    assert example.startswith("[[sources/") and example in "".join(s.text for s in segments[:-1])


def test_repeated_and_related_questions_reuse_the_prefix(wiki) -> None:
    backend = FakeBackend(lambda call: GOOD)
    first = answer_question(wiki, "How does the prefix cache take snapshots?", backend=backend)
    again = answer_question(wiki, "How does the prefix cache take snapshots?", backend=backend)
    other = answer_question(wiki, "What is stored on disk with a checksum?", backend=backend)
    assert first.stats.cached_tokens == 0
    assert again.stats.cached_tokens == again.stats.prompt_tokens > 0
    # a different question still shares schema + catalog (+ the pages both picked)
    shared = sum(backend.count_tokens(s.text) for s in backend.history[2].segments[:2])
    assert other.stats.cached_tokens >= shared > 0


def test_nothing_relevant_does_not_call_the_model(wiki) -> None:
    backend = FakeBackend()
    result = answer_question(wiki, "What is the capital of Zanzibar?", backend=backend)
    assert not result.found and not result.answered
    assert result.answer == NOTHING_FOUND
    assert backend.history == []
    assert result.to_dict()["pages"] == []


def test_model_saying_not_in_wiki_is_not_an_answer(wiki) -> None:
    backend = FakeBackend().enqueue(NOT_IN_WIKI)
    result = answer_question(wiki, "Who wrote the prefix cache paper?", backend=backend)
    assert result.found and result.declined and not result.answered


def test_answer_citing_nothing_is_flagged_unsupported(wiki) -> None:
    backend = FakeBackend().enqueue("The paper was written by Apple.")
    result = answer_question(wiki, "Who wrote the prefix cache paper?", backend=backend)
    assert result.found and not result.declined
    assert not result.supported and not result.answered
    assert result.to_dict()["supported"] is False


def test_empty_question_is_a_usage_error(wiki) -> None:
    with pytest.raises(UsageError):
        answer_question(wiki, "  \n ", backend=FakeBackend())


def test_broken_citations_are_removed_and_reported(wiki) -> None:
    answer = (
        "Snapshots happen at boundaries [[sources/paper#^p1]] [[sources/paper#^p99]]. "
        "See [[concepts/nope]] and [[concepts/gone|the gone page]] (see [[nowhere]]), "
        "or [[sources/paper#No Such Heading]], or [[#^f-aaa111]]. "
        "Trimming is risky [[sliding-window]]. Code `[[not a link]]` stays."
    )
    with open_store(wiki) as store:
        text, citations, removed = check_citations(answer, store)
    assert [r.link for r in removed] == [
        "[[sources/paper#^p99]]",
        "[[concepts/nope]]",
        "[[concepts/gone|the gone page]]",
        "[[nowhere]]",
        "[[sources/paper#No Such Heading]]",
        "[[#^f-aaa111]]",
    ]
    assert "no block ^p99 in sources/paper.md" in removed[0].reason
    assert "no page 'concepts/nope'" in removed[1].reason
    assert text == (
        "Snapshots happen at boundaries [[sources/paper#^p1]]. "
        "See and the gone page (see), "
        "or, or. "
        "Trimming is risky [[sliding-window]]. Code `[[not a link]]` stays."
    )
    assert [(c.page, c.block) for c in citations] == [
        ("sources/paper.md", "p1"),
        ("concepts/sliding-window.md", None),
    ]


def test_answer_result_reports_removed_citations(wiki) -> None:
    backend = FakeBackend().enqueue("Trimmed [[sources/paper#^p7]]. Kept [[sources/paper#^p2]].")
    result = answer_question(wiki, "Is trimming a sliding window cache safe?", backend=backend)
    assert result.answer == "Trimmed. Kept [[sources/paper#^p2]]."
    data = result.to_dict()
    assert data["removed_citations"] == [
        {"link": "[[sources/paper#^p7]]", "reason": "no block ^p7 in sources/paper.md"}
    ]
    assert data["citations"] == [
        {
            "link": "[[sources/paper#^p2]]",
            "page": "sources/paper.md",
            "block": "p2",
            "heading": None,
        }
    ]
    assert {"prompt_tokens", "cached_tokens", "context_tokens"} <= set(data["stats"])


def many_pages(wiki, n: int = 30) -> None:
    pages = {
        f"wiki/concepts/topic-{i}.md": page_text(
            f"Topic {i}", " ".join(["Wombat burrows are long tunnels."] * (10 + i))
        )
        for i in range(n)
    }
    commit_pages(wiki, pages, "many pages")


@pytest.mark.parametrize("budget", [256, 600, 1500])
def test_context_is_packed_under_the_budget(wiki, budget: int) -> None:
    many_pages(wiki)
    backend = FakeBackend(lambda call: "Tunnels. [[concepts/topic-1]]")
    result = answer_question(
        wiki, "How long are wombat burrows?", backend=backend, context_tokens=budget
    )
    assert result.pages
    assert result.context_tokens <= budget
    assert result.catalog_tokens <= budget // 3
    call = backend.history[0]
    counted = sum(backend.count_tokens(s.text) for s in call.segments[1:-1])
    assert counted == result.context_tokens  # what is reported is what was sent


def test_oversized_hit_is_cut_to_its_relevant_part(wiki) -> None:
    filler = "\n\n".join(
        f"Unrelated paragraph number {i} about nothing much. ^p{i}" for i in range(60)
    )
    write_page(
        wiki,
        "sources/long.md",
        "---\ntype: source\ntitle: Long Source\n---\n\n# Long Source\n\n"
        + filler
        + "\n\nThe numbat eats termites every day. ^p99\n",
    )
    backend = FakeBackend(lambda call: "Termites [[sources/long#^p99]].")
    result = answer_question(wiki, "What does the numbat eat?", backend=backend, context_tokens=300)
    (page,) = [p for p in result.pages if p.path == "sources/long.md"]
    assert page.truncated and "numbat eats termites every day. ^p99" in page.text
    assert result.context_tokens <= 300
    assert result.removed == ()


def test_excerpt_keeps_lead_and_best_blocks_in_order() -> None:
    body = "# T\n\nLead.\n\nAlpha beta.\n\nGamma numbat.\n\nDelta.\n\nNumbat numbat."
    out = excerpt(body, ["numbat"], 9, lambda t: len(t.split()))
    assert out == "# T\n\nLead.\n\n…\n\nNumbat numbat."
    out = excerpt(body, ["numbat"], 12, lambda t: len(t.split()))
    assert out == "# T\n\nLead.\n\n…\n\nGamma numbat.\n\n…\n\nNumbat numbat."
    assert excerpt("one two three four five", ["x"], 3, lambda t: len(t.split())) == "one two three"


def test_catalog_is_cut_at_a_line_when_large(wiki) -> None:
    many_pages(wiki, 40)
    text, tokens, cut = catalog_text(wiki, 60, lambda t: len(t.split()))
    assert cut and tokens <= 60
    assert text.rstrip().endswith("more pages, not listed here")
    full, _, cut_full = catalog_text(wiki, 100_000, lambda t: len(t.split()))
    assert not cut_full and "Topic 39" in full


def test_pack_skips_unreadable_pages(wiki) -> None:
    write_page(wiki, "concepts/bad.md", "---\ntitle: [oops\n---\nWombat.\n")
    pages = pack_pages(
        wiki,
        [("concepts/bad.md", "search"), ("entities/mlx.md", "search")],
        ["wombat"],
        500,
        lambda t: len(t.split()),
    )
    assert [p.path for p in pages] == ["entities/mlx.md"]
