"""Topic resolution across the wiki (ingest/resolve.py, plan.Resolver, plan.join_shared): a
concept is one page whichever source names it and however, and distinct members of a series
stay apart, both ways."""

from __future__ import annotations

from pathlib import Path

import pytest

from wikic.ingest.extract import Extraction, Topic
from wikic.ingest.plan import ONE_SENTENCE_PAGE, PageTarget, Resolver, SourcePlan, plan_batch
from wikic.ingest.resolve import ConceptIndex, join_evidence, named_once_will_do, shared_mentions
from wikic.language.discussed import discussed_names, discussed_words
from wikic.language.name_rules import distinct_names, last_component, turned_names
from wikic.language.sentences import Sentence
from wikic.vault.document import parse_document
from wikic.vault.name_keys import acronym, initials
from wikic.vault.names import name_key
from wikic.vault.pages import Page, render_page
from wikic.vault.sources import Source
from wikic.vault.tree import Vault

# ── the rules, on constructed names ──────────────────────────────────────────────────────

APART = [
    ("AWQ", "DWQ"),
    ("GPTQ", "AWQ"),
    ("tier 1", "tier 2"),
    ("Tier 1 target", "Tier 2 target"),
    ("v1", "v2"),
    ("API v1", "API v2"),
    ("HTTP_PROXY", "HTTPS_PROXY"),
    ("class A", "class B"),
    ("Quantization method A", "Quantization method B"),
    ("AWQ quantization", "DWQ quantization"),
]
ONE = [
    ("LoRA", "low-rank adaptation"),
    ("lock file", "lock files"),
    ("WAL", "write-ahead log"),
    ("Checkpointing", "checkpoint"),
]


@pytest.mark.parametrize(("a", "b"), APART)
def test_members_of_a_series_are_distinct_both_ways(a: str, b: str) -> None:
    assert distinct_names(a, b) and distinct_names(b, a)


@pytest.mark.parametrize(("a", "b"), ONE)
def test_spellings_of_one_concept_are_not_distinct(a: str, b: str) -> None:
    assert not distinct_names(a, b) and not distinct_names(b, a)


def test_initials_acronyms_and_components() -> None:
    assert initials("write-ahead log") == "wal" and initials("Mixture of Experts") == "me"
    assert initials("SQLite") == "" and initials("tier 1") == ""
    assert acronym("WAL") == "wal" and acronym("LoRA") == "lra" and acronym("SMRs") == "smr"
    assert acronym("SQLite") == "" and acronym("Poetry") == ""
    assert last_component("mlx_lm.awq") == "awq" and last_component("uv sync") == "sync"
    assert last_component("awq") == ""


def _index(*names: tuple[str, ...]) -> ConceptIndex[str]:
    index: ConceptIndex[str] = ConceptIndex()
    for forms in names:
        index.add(forms, forms[0])
    return index


def test_an_abbreviation_finds_its_expansion_and_back() -> None:
    index = _index(("Write-ahead log",), ("LoRA",), ("Snapshot isolation",))
    assert index.match("WAL") == "Write-ahead log"
    assert index.match("low-rank adaptation") == "LoRA"
    assert index.match("SI") == "Snapshot isolation"
    assert index.match("write-ahead logs") == "Write-ahead log"  # the plural, by key


def test_initials_two_pages_share_answer_nothing() -> None:
    index = _index(("Snapshot isolation",), ("Serializable isolation",))
    assert index.match("SI") is None


def test_a_command_named_after_a_concept_finds_it_and_only_it() -> None:
    index = _index(("AWQ",), ("Sync",))
    assert index.match("mlx_lm.awq", command=True) == "AWQ"
    assert index.match("uv sync", command=True) == "Sync"
    assert index.match("mlx_lm.dwq", command=True) is None  # DWQ is no AWQ
    assert index.match("mlx_lm.awq") is None  # a name that is not a command keeps its page


def test_a_gerund_and_its_stem_are_one_page() -> None:
    index = _index(("Checkpointing",), ("sync",), ("log",))
    assert index.match("checkpoint") == "Checkpointing"
    assert index.match("checkpoints") == "Checkpointing"
    assert index.match("syncing") == "sync"
    assert index.match("logging") == "log"  # the stemmer itself makes "logging" "log"


@pytest.mark.parametrize(
    ("page", "name"),
    [
        ("Dependency conflicts", "conflicting dependencies"),
        ("Conflicting dependencies", "dependency conflicts"),
        ("Locking Dependencies", "dependency locking"),
        ("Dependency locking", "locking dependencies"),
        ("Prompt caching", "cached prompts"),
    ],
)
def test_two_words_the_other_way_round_find_their_page(page: str, name: str) -> None:
    assert _index((page,)).match(name) == page


def test_two_nouns_the_other_way_round_are_another_thing() -> None:
    assert _index(("Lock file",)).match("file lock") is None  # no -ing or -ed word: two things
    assert _index(("File lock",)).match("lock file") is None
    assert turned_names("transaction isolation levels") == ()  # two words only
    assert turned_names("`uv lock` conflicts") == ()  # plain words only
    assert turned_names("s lock") == ()  # a word of three letters or more: "library's lock"
    assert _index(("--locked",)).match("s lock") is None  # "locked s" has the key "lock"


def test_a_sentence_names_a_page_with_its_words_turned() -> None:
    index = _index(("Dependency conflicts",), ("Lock file",))
    found = shared_mentions(
        _sentences(
            "Use custom categories to manage conflicting dependencies.",
            "A file lock is held while writing.",
        ),
        index,
        skip=set(),
    )
    assert found == {name_key("Dependency conflicts"): ["s1"]}


# ── the Resolver: nothing distinct merges, in either direction ───────────────────────────


def _vault(tmp_path: Path, pages: dict[str, list[str]], *, facts: int = 0) -> Vault:
    """Concept pages of `pages` (title → aliases), each with `facts` cited facts."""
    wiki = tmp_path / "wiki"
    (wiki / "concepts").mkdir(parents=True, exist_ok=True)
    for n, (title, aliases) in enumerate(pages.items()):
        bullets = "".join(
            f"- {title} fact {i}. [[sources/old#^p{i}]] ^f-{n:03d}{i:03d}\n" for i in range(facts)
        )
        page = Page(
            f"concepts/{title.lower().replace(' ', '-').replace('_', '-')}.md",
            {"type": "concept", "title": title, "aliases": aliases},
            f"# {title}\n" + (f"\n## Facts\n\n{bullets}" if facts else ""),
        )
        (wiki / page.path).write_text(render_page(page), encoding="utf-8")
    return Vault.load(wiki)


@pytest.mark.parametrize(("a", "b"), APART)
def test_the_resolver_keeps_a_series_apart_both_ways(tmp_path: Path, a: str, b: str) -> None:
    for have, new in ((a, b), (b, a)):
        resolver = Resolver(_vault(tmp_path / have.replace(" ", "_"), {have: []}))
        assert resolver.find([new]) is None, (have, new)
        assert resolver.find([new], command=True) is None, (have, new)


def test_the_resolver_finds_an_existing_page_by_any_of_its_spellings(tmp_path: Path) -> None:
    resolver = Resolver(_vault(tmp_path, {"Write-ahead log": ["WAL"], "AWQ": []}))
    for name in ("WAL", "write-ahead logging", "Write-Ahead Logs", "write ahead log"):
        found = resolver.find([name])
        assert found is not None and found.title == "Write-ahead log", name
    found = resolver.find(["mlx_lm.awq"], command=True)
    assert found is not None and found.title == "AWQ"


def test_an_abbreviation_and_the_last_word_of_its_long_form_name_its_page(tmp_path: Path) -> None:
    pages = {
        "Lite Transaction Files": ["LTX"],
        "Write-ahead log": ["WAL"],
        "Activation-aware Weight Quantization": ["AWQ"],
    }
    resolver = Resolver(_vault(tmp_path, pages))
    for name, title in [
        ("LTX files", "Lite Transaction Files"),
        ("LTX file", "Lite Transaction Files"),
        ("WAL log", "Write-ahead log"),
        ("AWQ quantization", "Activation-aware Weight Quantization"),
    ]:
        found = resolver.find([name])
        assert found is not None and found.title == title, name
    assert resolver.find(["WAL file"]) is None  # a file of the log, not the log
    assert resolver.find(["LTX format"]) is None
    # and back: a long form with its abbreviation finds the page the redundant name made
    back = Resolver(_vault(tmp_path / "back", {"LTX file": []}))
    found = back.find(["Lite Transaction Files", "LTX"])
    assert found is not None and found.title == "LTX file"
    assert back.find(["Lite Transaction Files"]) is None
    found = back.find(["Lite Transaction Files (LTX)", "LTX"])  # a heading not split yet
    assert found is not None and found.title == "LTX file"
    assert back.find(["", "LTX"]) is None  # no name: nothing, not an error
    assert back.find(["Lite Transaction Log", "LTX"]) is None  # "LTX log" is no page


# ── joining: a source adds to the pages its prose discusses ──────────────────────────────


def _sentences(*texts: str) -> list[Sentence]:
    return [Sentence(f"s{i}", f"p{i}", t) for i, t in enumerate(texts, 1)]


def test_mentions_take_the_longest_name_and_one_word_names_as_written() -> None:
    index = _index(("read committed isolation level",), ("isolation level",), ("SQLite",))
    found = shared_mentions(
        _sentences(
            "The read committed isolation level sees committed rows.",
            "Each isolation level is a promise.",
            "Open the sqlite file; SQLite keeps one writer.",
        ),
        index,
        skip=set(),
    )
    assert found == {
        name_key("read committed isolation level"): ["s1"],
        name_key("isolation level"): ["s2"],
        name_key("SQLite"): ["s3"],
    }


def test_a_name_after_an_article_is_found_as_written() -> None:
    # "the TXID" is a run whose key drops its article; the name is compared without it, not
    # lost to the longer run (a sentence naming "the TXID" once named no page)
    index = _index(("TXID",), ("The Pile",))
    found = shared_mentions(
        _sentences(
            "The TXID of each file is in its name.",
            "A gap in the TXID sequence stops the restore.",
            "Files are applied in txid order.",
            "The Pile is a dataset; a pile of files is not.",
        ),
        index,
        skip=set(),
    )
    assert found == {name_key("TXID"): ["s1", "s2"], name_key("The Pile"): ["s4"]}


def test_a_plain_word_page_is_named_by_the_word_not_by_it_as_a_verb() -> None:
    """ "Guarantees" and "a rigorous guarantee" name the page; "is guaranteed" and "were
    checkpointed" use the word as a verb, and name no page of the thing; a page whose name is
    the -ing form ("Checkpointing") is named by it."""
    texts = (
        "The mode provides a rigorous guarantee of a stable view.",
        "One of those two outcomes is guaranteed.",
        "Pages were checkpointed twice.",
        "Checkpointing moves frames into the database.",
    )
    index = _index(("Guarantees",), ("checkpoint",))
    found = shared_mentions(_sentences(*texts), index, skip=set())
    assert found == {name_key("Guarantees"): ["s1"], name_key("checkpoint"): ["s4"]}
    found = shared_mentions(_sentences(*texts), _index(("Checkpointing",)), skip=set())
    assert found == {name_key("Checkpointing"): ["s4"]}


def test_a_plain_word_needs_one_more_sentence() -> None:
    assert join_evidence("Checkpointing") == 3 > join_evidence("lock file") == 2
    assert join_evidence("SQLite") == 2 == join_evidence("pdm.lock")
    # a word general English lacks in every form is the name of one thing (`is_coined`):
    # bbolt's two sentences with `fsync()` add bbolt to the fsync page PostgreSQL's made
    assert join_evidence("fsync") == 2 == join_evidence("upsert")
    assert join_evidence("checksum") == 3  # rare, but English


def _extraction(name: str, texts: list[str], topics: list[Topic]) -> Extraction:
    # a title that names no subject: the title's subject would get a page of its own
    text = "# Notes\n\n" + "\n\n".join(texts) + "\n"
    source = Source(f"raw/{name}.md", text, "sha256:0", "article")
    doc = parse_document(text, filename=f"{name}.md")
    sentences = {s.id: s for s in _sentences(*texts)}
    # what the `shared-concepts` finder says the source discusses, as extraction records it
    discussed = discussed_names(doc, list(sentences.values()))
    words = discussed_words(list(sentences.values()))
    return Extraction(
        source, name, texts[0], doc, sentences, topics,
        discussed=tuple(discussed), discussed_words=tuple(words),
    )  # fmt: skip


def _titles(plan: SourcePlan) -> list[str]:
    return [t.title for _, t in plan.topics]


def test_a_source_adds_its_sentences_to_the_page_another_source_made(tmp_path: Path) -> None:
    (tmp_path / "wiki").mkdir()
    first = _extraction(
        "pdm",
        ["A lock file pins versions.", "PDM writes its lock file.", "Hashes are kept."],
        [Topic("Lock file", "concept", (), ("s1", "s2"), from_heading=True)],
    )
    second = _extraction(
        "uv",
        [
            "The uv tool is fast.",
            "uv writes the lock file on every change.",
            "A lock file is never edited by hand.",
            "Syncing reads the lockfile.",
        ],
        [Topic("uv", "entity", (), ("s1",))],
    )
    a, b = plan_batch(
        [first, second], Vault.load(tmp_path / "wiki"), existing_source_pages={}, max_pages=5
    )
    assert _titles(a) == ["Lock file"]
    assert _titles(b) == ["uv", "Lock file"]  # three sentences name it: one page, two sources
    joined, target = b.topics[1]
    assert joined.facts == ("s2", "s3", "s4") and target == a.topics[0][1]


def test_a_source_that_names_a_page_once_or_a_series_member_adds_nothing(tmp_path: Path) -> None:
    vault = _vault(tmp_path, {"AWQ": [], "Lock file": []})
    ex = _extraction(
        "dwq",
        ["DWQ distils a model.", "DWQ is slower than quantizing.", "It writes a lock file."],
        [Topic("DWQ", "concept", (), ("s1", "s2"))],
    )
    (plan,) = plan_batch([ex], vault, existing_source_pages={}, max_pages=5)
    assert _titles(plan) == ["DWQ"]
    assert not plan.topics[0][1].exists


def test_one_sentence_about_a_page_or_naming_a_rare_name_joins_it(tmp_path: Path) -> None:
    pages = ["Dependency resolution", "Hash checking", "Version control", "DELETE", "Version"]
    vault = _vault(tmp_path, {name: [] for name in pages}, facts=ONE_SENTENCE_PAGE)
    ex = _extraction(
        "pipenv",
        [
            "Pipenv locks a project.",
            "Pipenv reads the Pipfile.",
            "Dependency resolution: captures the complete graph of sub-dependencies.",
            "Pipenv then runs hash checking once.",
            "Pipenv keeps its files under version control.",
            "Pipenv never issues `UPDATE` or `DELETE` statements.",
            "Version is printed first.",
        ],
        [Topic("Pipenv", "entity", (), ("s1", "s2"))],
    )
    (plan,) = plan_batch([ex], vault, existing_source_pages={}, max_pages=8)
    # about the page (it opens the sentence, defined), or naming in prose a name with a word
    # rarer than general English's commonest ("hash"): joined on that one sentence. Named in
    # passing by common words ("version control", another sense in every text), as code, or
    # a plain word a sentence opens with: not
    assert _titles(plan) == ["Pipenv", "Dependency resolution", "Hash checking"]
    assert [topic.facts for topic, _ in plan.topics[1:]] == [("s3",), ("s4",)]
    assert all(target.exists for _, target in plan.topics[1:])


def test_one_sentence_naming_a_rare_name_never_joins_a_small_page(tmp_path: Path) -> None:
    vault = _vault(tmp_path, {"Hash checking": []}, facts=ONE_SENTENCE_PAGE - 1)
    ex = _extraction(
        "pipenv",
        ["Pipenv locks a project.", "Pipenv reads the Pipfile.", "Pipenv runs hash checking."],
        [Topic("Pipenv", "entity", (), ("s1", "s2"))],
    )
    (plan,) = plan_batch([ex], vault, existing_source_pages={}, max_pages=8)
    # one shared sentence on a page of two facts can make it a twin of the page it is on
    assert _titles(plan) == ["Pipenv"]


@pytest.mark.parametrize(
    ("name", "text", "enough"),
    [
        ("MVCC", "Both support lock-free MVCC using a single writer.", True),
        ("Phantom read", "The ANSI level allows phantom reads.", True),
        ("Key value", "It first runs a point query on the key value.", False),
        ("DELETE", "The applicable statements include `UPDATE` and `DELETE`.", False),
        ("checkpoint", "A checkpoint is written.", False),  # a plain word: three sentences
    ],
)
def test_one_sentence_will_do_for_a_rare_name_in_prose(name: str, text: str, enough: bool) -> None:
    assert named_once_will_do(name, text) is enough


def test_a_join_never_makes_the_sources_own_page_a_twin(tmp_path: Path) -> None:
    vault = _vault(tmp_path, {"Lock file": []})
    texts = ["Poetry reads the lock file.", "Poetry updates the lock file.", "The lock file lists."]
    ex = _extraction(
        "poetry",
        texts,
        [Topic("Installing with the lock", "concept", (), ("s1", "s2"), from_heading=True)],
    )
    (plan,) = plan_batch([ex], vault, existing_source_pages={}, max_pages=5)
    # s1 opens the heading's page (the same opening twice); s2 alone is half of that page
    assert [(t.title, topic.facts) for topic, t in plan.topics] == [
        ("Installing with the lock", ("s1", "s2")),
        ("Lock file", ("s2", "s3")),
    ]


def test_a_join_takes_no_more_than_a_twin_allows(tmp_path: Path) -> None:
    vault = _vault(tmp_path, {"Lock file": []})
    texts = ["Poetry is a tool.", "Poetry reads the lock file.", "Poetry updates the lock file."]
    ex = _extraction(
        "poetry", texts, [Topic("Installing", "concept", (), ("s1", "s2", "s3"), from_heading=True)]
    )
    (plan,) = plan_batch([ex], vault, existing_source_pages={}, max_pages=5)
    # both would put two thirds of the heading's page on the lock file page
    assert [topic.facts for topic, _ in plan.topics] == [("s1", "s2", "s3"), ("s2",)]


def test_the_resolver_answers_from_the_index_it_keeps(tmp_path: Path) -> None:
    resolver = Resolver(_vault(tmp_path, {"Lock file": ["lockfile"]}))
    made = resolver.resolve(Topic("Write-ahead log", "concept", ("WAL",), ("s1",)))
    assert made == PageTarget("concepts/write-ahead-log.md", "Write-ahead log", "concept", False)
    assert resolver.find(["write ahead logging"]) == made
    assert resolver.index.match("lockfiles") is not None


def test_a_concept_two_sources_discuss_in_prose_gets_one_page_citing_both(tmp_path: Path) -> None:
    (tmp_path / "wiki").mkdir()
    first = _extraction(
        "litestream",
        [
            "Litestream copies pages.",
            "A database file holds every page.",
            "The database file grows as pages are added.",
        ],
        [Topic("Litestream", "entity", (), ("s1",))],
    )
    second = _extraction(
        "litefs",
        [
            "LiteFS is a file system.",
            "Each database file has one writer.",
            "The database file is copied to the replica.",
        ],
        [Topic("LiteFS", "entity", (), ("s1",))],
    )
    a, b = plan_batch(
        [first, second], Vault.load(tmp_path / "wiki"), existing_source_pages={}, max_pages=5
    )
    (page_a,) = [t for _, t in a.topics if t.title == "Database file"]
    (page_b,) = [t for _, t in b.topics if t.title == "Database file"]
    assert page_a == page_b and not page_a.exists
    assert [topic.facts for topic, t in a.topics if t is page_a] == [("s2", "s3")]


def test_a_joined_sentence_that_refers_back_stays_with_its_source(tmp_path: Path) -> None:
    """A sentence that opens by pointing at the one before it ("This makes the lock file …")
    means nothing on another page: the join takes the source's other sentences that name it
    (but not the one its own page opens with)."""
    vault = _vault(tmp_path, {"Lock file": []})
    texts = [
        "uv writes the lock file on every change.",
        "This makes the lock file the one source of truth.",
        "A lock file is never edited by hand.",
        "The lock file lists every package.",
    ]
    ex = _extraction("uv", texts, [Topic("uv", "entity", (), ("s1",))])
    (plan,) = plan_batch([ex], vault, existing_source_pages={}, max_pages=5)
    joined = [topic.facts for topic, t in plan.topics if t.title == "Lock file"]
    assert joined == [("s3", "s4")]
