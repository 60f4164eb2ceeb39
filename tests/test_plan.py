"""Planning in code: which topics of a source get pages, and merging topics that are one page."""

from __future__ import annotations

from pathlib import Path

from wikic.ingest.extract import Extraction, Topic
from wikic.ingest.plan import plan_batch
from wikic.vault.document import parse_document
from wikic.vault.sources import Source
from wikic.vault.tree import Vault


def extraction(topics: list[Topic]) -> Extraction:
    text = "# FAQ\n\nSome text.\n"
    source = Source("raw/faq.md", text, "sha256:0", "article")
    doc = parse_document(text, filename="faq.md")
    return Extraction(source, "FAQ", "Some text.", doc, {}, topics)


def plan(tmp_path: Path, topics: list[Topic], max_pages: int):
    (tmp_path / "wiki").mkdir(exist_ok=True)
    vault = Vault.load(tmp_path / "wiki")
    (p,) = plan_batch([extraction(topics)], vault, existing_source_pages={}, max_pages=max_pages)
    return p


def test_the_page_cap_keeps_the_weightiest_topics_precise_names_weigh_more(tmp_path) -> None:
    topics = [
        Topic("Linux", "concept", (), ("s1", "s2")),
        Topic("Properties", "concept", (), ("s3", "s4", "s5")),
        Topic("OLLAMA_HOST", "concept", (), ("s6",), precise=True),
        Topic("Empty", "concept", (), ()),
    ]
    p = plan(tmp_path, topics, max_pages=2)
    assert [t.title for _, t in p.topics] == ["Properties", "OLLAMA_HOST"]  # 3 facts; 1 + 2
    assert p.dropped == ["Linux", "Empty"]


def test_two_topics_that_are_one_page_keep_both_facts_and_usage(tmp_path) -> None:
    topics = [
        Topic("llama-bench", "entity", (), ("s1",), usage=("p2",), from_heading=True),
        Topic("Llama bench", "entity", ("lb",), ("s3",), usage=("p4",)),
    ]
    ((merged, target),) = plan(tmp_path, topics, max_pages=5).topics
    assert target.title == "llama-bench" and merged.facts == ("s1", "s3")
    assert merged.usage == ("p2", "p4") and merged.from_heading
    assert merged.aliases == ("Llama bench", "lb")


def test_a_common_term_takes_only_a_page_no_other_topic_wants() -> None:
    from wikic.ingest.extract import Topic

    stdin = Topic("STDIN", "concept", (), ("s1", "s2", "s3", "s4", "s5"))
    track = Topic("git lfs track", "concept", (), ("s6",), precise=True)
    assert stdin.weight == 0 < track.weight == 3
    heading = Topic("Linux", "concept", (), ("s1", "s2"), from_heading=True)
    assert heading.weight == 2  # a heading names it: the document is about it


def test_names_that_differ_by_a_number_are_two_pages(tmp_path) -> None:
    topics = [
        Topic("Tier 3 target", "concept", ("Tier 3 target policy",), ("s1", "s2")),
        Topic("Tier 2 target", "concept", ("Tier 2 target policy",), ("s3", "s4")),
        Topic("Prefix caches", "concept", (), ("s5",)),
        Topic("Prefix-cache", "concept", (), ("s6",)),
    ]
    titles = [t.title for _, t in plan(tmp_path, topics, max_pages=5).topics]
    assert titles == ["Tier 3 target", "Tier 2 target", "Prefix caches"]  # a spelling is one


def test_the_subject_the_title_names_keeps_its_page_under_a_full_cap(tmp_path) -> None:
    from wikic.ingest.extract import merge_topics

    topics = merge_topics(
        [
            Topic("Target Tier Policy", "concept", (), ("s1",), subject=True),
            Topic("Tier 2 target", "concept", (), ("s2", "s3", "s4")),
            Topic("target tier policy", "concept", ("RFC",), ("s5",)),  # the model's, merged
        ],
        max_facts=20,
    )
    p = plan(tmp_path, topics, max_pages=1)
    assert [t.title for _, t in p.topics] == ["Target Tier Policy"]  # 2 facts, not 3: first


def test_identifiers_are_one_page_only_when_exactly_alike(tmp_path) -> None:
    topics = [
        Topic("HTTPS_PROXY", "entity", (), ("s1", "s2"), precise=True),
        Topic("HTTP_PROXY", "entity", (), ("s3",), precise=True),
        Topic("Prefix caches", "concept", (), ("s5",)),
        Topic("Prefix-caches", "concept", (), ("s6",)),
    ]
    titles = [t.title for _, t in plan(tmp_path, topics, max_pages=5).topics]
    assert titles == ["HTTPS_PROXY", "HTTP_PROXY", "Prefix caches"]


def test_a_spare_topic_takes_only_a_place_a_merge_frees(tmp_path) -> None:
    """Code finds a few topics beyond the page cap: one gets a page only where two topics of
    the cap turned out to be one page, however many facts it has."""
    capped = [
        Topic("llama-bench", "entity", (), ("s1", "s10"), from_heading=True),
        Topic("Llama bench", "entity", (), ("s2", "s11")),
        Topic("Threads", "concept", (), ("s3", "s12")),
    ]
    spares = [
        Topic("context size", "concept", (), ("s4", "s5", "s6"), spare=True),
        Topic("batch size", "concept", (), ("s7", "s8"), spare=True),
    ]
    p = plan(tmp_path, [*capped, *spares], max_pages=3)
    assert [t.title for _, t in p.topics] == ["llama-bench", "Threads", "Context size"]
    assert p.dropped == ["batch size"]
    p = plan(tmp_path, [*capped[1:], *spares], max_pages=2)
    assert [t.title for _, t in p.topics] == ["Llama bench", "Threads"]


def test_a_topic_of_one_fact_takes_a_page_after_those_with_more(tmp_path) -> None:
    """Pipenv's headings of one fact ("Clearing the Cache", "Version Control") had taken the
    places of `Pipfile`, which eight sentences name; a precise name of one fact (a command, a
    variable) and the title's subject keep their rank."""
    topics = [
        Topic("Clearing the Cache", "concept", (), ("s1",), from_heading=True),
        Topic("OLLAMA_MODELS", "entity", (), ("s2",), precise=True),
        Topic("Pipfile", "entity", (), ("s3", "s4", "s5"), spare=True),
    ]
    titles = [t.title for _, t in plan(tmp_path, topics, max_pages=2).topics]
    assert titles == ["OLLAMA_MODELS", "Pipfile"]


def test_a_subject_of_the_title_the_model_also_named_keeps_its_place(tmp_path) -> None:
    """TiDB, a subject of "TiDB Transaction Isolation Levels" the model named as well, had
    ranked with the model's names and lost its page to the cap."""
    topics = [
        Topic("MySQL", "entity", (), ("s1", "s2")),
        Topic("TiDB", "entity", (), ("s3",), subject=True, from_model=True),
    ]
    titles = [t.title for _, t in plan(tmp_path, topics, max_pages=1).topics]
    assert titles == ["TiDB"]


def test_names_only_the_model_chose_get_the_places_code_leaves(tmp_path) -> None:
    """Topics code finds from structure and evidence come first, then its spares; a name only
    the model chose ("key", however many facts it cites) takes a place left after them."""
    topics = [
        Topic("key", "concept", (), ("s1", "s2", "s3", "s4"), from_model=True),
        Topic("llm templates", "concept", (), ("s5", "s6")),
        Topic("Homebrew", "entity", (), ("s7", "s8")),
        Topic("context size", "concept", (), ("s9",), spare=True),
    ]
    # the order is the rule here; the case is `language.title_case`'s (no document to ask)
    titles = [t.title.casefold() for _, t in plan(tmp_path, topics, max_pages=3).topics]
    assert titles == ["homebrew", "llm templates", "context size"]
    titles = [t.title.casefold() for _, t in plan(tmp_path, topics, max_pages=4).topics]
    assert titles[-1] == "key"


def test_a_plain_phrase_takes_a_page_after_names_headings_and_code(tmp_path) -> None:
    """ "trace files", named by three sentences, ranks after the `flamegraph` section named by
    two: a reader looks up the tool, not the phrase."""
    topics = [
        Topic("trace files", "concept", (), ("s1", "s2", "s3")),
        Topic("flamegraph", "concept", (), ("s4", "s5"), from_heading=True),
        Topic("Self-Profile Working Group", "entity", (), ("s6", "s7")),
        Topic("working directory", "concept", (), ("s8", "s9", "s10")),
    ]
    titles = [t.title for _, t in plan(tmp_path, topics, max_pages=3).topics]
    assert titles == ["Flamegraph", "Self-Profile Working Group", "Trace files"]  # title case


def _source(name: str, topics: list[Topic], discussed: tuple[str, ...] = ()) -> Extraction:
    text = f"# {name}\n\nSome text.\n"
    source = Source(f"raw/{name.lower()}.md", text, "sha256:0", "article")
    doc = parse_document(text, filename=f"{name.lower()}.md")
    return Extraction(source, name, "Some text.", doc, {}, topics, discussed=discussed)


def test_the_page_cap_keeps_what_another_source_discusses_first(tmp_path) -> None:
    """LiteFS's "transaction ID", which Litestream discusses too, lost its page to the cap
    and LiteFS's own headings: a topic another source of the batch has or discusses comes
    before the topics only this source has; without that source the heavier topics win."""
    (tmp_path / "wiki").mkdir()
    topics = [
        Topic("Guarantees", "concept", (), ("s1", "s2", "s3", "s4"), from_heading=True),
        Topic("Leader election", "concept", (), ("s5", "s6", "s7"), from_heading=True),
        Topic("transaction ID", "concept", (), ("s8", "s9")),
        Topic("XOR", "concept", (), ("s10",)),  # one fact: last, shared or not
    ]
    other = _source("Litestream", [], discussed=("transaction ID", "XOR"))

    def titles(sources: list[Extraction]) -> list[str]:
        plans = plan_batch(
            sources, Vault.load(tmp_path / "wiki"), existing_source_pages={}, max_pages=2
        )
        return [t.title for _, t in plans[0].topics]

    assert titles([_source("LiteFS", topics)]) == ["Guarantees", "Leader election"]
    assert titles([_source("LiteFS", topics), other]) == ["transaction ID", "Guarantees"]
    # a page the wiki has already counts as another source's
    from tests.helpers.lint_fixtures import topic_page

    (tmp_path / "wiki" / "concepts").mkdir()
    page = topic_page("concept", "Transaction ID", ["- An ID. ^f-1"], [], [])
    (tmp_path / "wiki" / "concepts" / "transaction-id.md").write_text(page, encoding="utf-8")
    assert titles([_source("LiteFS", topics)]) == ["Transaction ID", "Guarantees"]


def test_a_concept_page_takes_the_spelling_most_of_its_sources_write(tmp_path) -> None:
    """llama.cpp's `quantize` tool page ("# quantize") had become the page of the concept
    five other documents call "quantization" (one stem), titled "Quantize": the page of a
    concept several sources discuss is titled as most of them write it, its old title an
    alias; a plural is the same spelling."""
    (tmp_path / "wiki").mkdir()
    tool = _source(
        "Quantize", [Topic("quantize", "entity", (), ("s1", "s2"))], discussed=("quantize",)
    )
    others = [_source(n, [], discussed=("quantization",)) for n in ("GPTQ", "AWQ")]
    plans = plan_batch(
        [tool, *others], Vault.load(tmp_path / "wiki"), existing_source_pages={}, max_pages=5
    )
    ((topic, target),) = plans[0].topics
    assert target.title == "Quantization" and target.path.endswith("/quantization.md")
    assert "Quantize" in topic.aliases
    # one source's spelling against another's: the first page keeps its title
    plans = plan_batch(
        [tool, others[0]], Vault.load(tmp_path / "wiki"), existing_source_pages={}, max_pages=5
    )
    assert plans[0].topics[0][1].title == "Quantize"
