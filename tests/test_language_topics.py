"""Topics code finds in a document (wikic.language: section_topics, evidence, headings,
definitions, commands) on real cases from the corpus: whole facts only, topics from headings,
titles from the document."""

from __future__ import annotations

import pytest

from wikic.ingest.text import numbered_text
from wikic.language.evidence import evidence_topics, min_evidence
from wikic.language.headings import heading_name
from wikic.language.section_topics import section_topics
from wikic.language.sentences import fact_sentences
from wikic.vault.document import parse_document

README = """\
## llama.cpp quantization

Contents:

- [Fine-tune](#fine-tune)
- [Quantize](#quantize)

## Installation

Install the package with pip. It takes a minute on most machines.

## Distilled Weight Quantization (DWQ)

DWQ distills a full-precision model into a quantized one. It keeps more accuracy than plain
rounding at the same bit width.[^1]

Some important options, along with their default values, are:

- `--bits`: the bit width of the quantized weights
- `--group-size`: how many weights share one scale

```bash
mlx_lm.dwq --model m --bits 4
```

## Tips

Keep the calibration set small.

[^1]: Measured on two models.
"""


def _doc():
    return parse_document(README, filename="quant.md")


def _job(text: str, name: str = "doc.md"):
    """An extraction job of `text` as a raw source (no model call yet) and its config."""
    from wikic.config import IngestConfig
    from wikic.ingest.extract import prepare_extraction
    from wikic.llm.fake import FakeBackend
    from wikic.vault.sources import Source

    config = IngestConfig()
    job = prepare_extraction(
        FakeBackend(),
        Source(f"raw/{name}", text, "sha256:0", "article"),
        agents_md="",
        config=config,
        max_context_tokens=4096,
    )
    return job, config


def test_title_comes_from_the_document_never_the_prompt() -> None:
    doc = _doc()
    assert doc.title == "llama.cpp quantization"
    assert "source document" not in numbered_text(doc, doc.blocks, fact_sentences(doc))


def test_only_whole_facts_get_ids() -> None:
    facts = [s.text for s in fact_sentences(_doc())]
    assert "Install the package with pip." in facts
    assert "DWQ distills a full-precision model into a quantized one." in facts
    # a lead-in, a ToC entry and the heading itself are never facts
    assert not any(f.endswith(":") for f in facts)
    assert not any("Fine-tune" in f or f == "Distilled Weight Quantization (DWQ)" for f in facts)
    # an option item is a whole statement: it gets its final stop
    assert "`--bits`: the bit width of the quantized weights." in facts  # code stays code
    # the footnote marker is not part of any fact
    assert not any("[^1]" in f for f in facts)


def test_a_clause_that_introduces_a_command_example_is_a_fact() -> None:
    doc = parse_document(
        "# Aliases\n\n## Adding\n\nThe `llm aliases set <alias> <id>` command can be used to "
        "add a new alias:\n\n```bash\nllm aliases set turbo gpt-4\n```\n\nNow you can run "
        "the `gpt-4` model using the `turbo` alias like this:\n\n```bash\nllm -m turbo\n```"
        "\n\nThe settings of the `llm` tool are kept here:\n\nSome prose follows.\n",
        filename="aliases.md",
    )
    facts = [s.text for s in fact_sentences(doc)]
    assert "The `llm aliases set <alias> <id>` command can be used to add a new alias." in facts
    assert not any("like this" in f for f in facts)  # it only points at the code
    assert not any("kept here" in f for f in facts)  # no code follows: a lead-in


def test_generic_headings_are_sections_not_pages() -> None:
    for generic in ("Installation", "Tips", "Contents", "FAQ", "Getting started", "1. Usage"):
        assert heading_name(generic) is None, generic
    assert heading_name("How to fuse adapters") is None
    assert heading_name("v0.32.1") is None
    assert heading_name("Distilled Weight Quantization (DWQ)") is not None
    assert heading_name("`llama-server`") == "llama-server"
    assert heading_name("2. Speculative decoding") == "Speculative decoding"


def test_a_heading_names_a_thing_without_the_parenthesis_that_qualifies_it() -> None:
    # rqlite's "CheckpointManager (the v10 motivation)" (scripts/data/overlap)
    assert heading_name("CheckpointManager (the v10 motivation)") == "CheckpointManager"
    assert heading_name("Tier 2 (with two approvals)") == "Tier 2"
    # one word may be another name or tell versions apart: it stays
    assert heading_name("Lite Transaction Files (LTX)") == "Lite Transaction Files (LTX)"
    assert heading_name("Snapshots (v2)") == "Snapshots (v2)"
    assert heading_name("Foo (Bar Baz)") == "Foo (Bar Baz)"


def test_headings_that_label_a_part_of_the_document_are_sections_not_pages() -> None:
    # real headings of scripts/data/corpus/*.md
    labels = (
        "Syntax",  # llama-bench.md
        "Examples",
        "Text generation with different models",
        "Prompt processing with different batch sizes",
        "Different numbers of threads",
        "Core Implementation",  # cpython-qsbr.md
        "Implementation Details",
        "Introduction",
        "Advanced Usage",  # llm-aliases.md
        "Removing an alias",
        "Viewing the aliases file",
        "Notes from the meeting",  # 2020-04-03-cranelift-backend-for-rustc.md
        "Smaller improvements",  # llm-changelog.md
        "Other changes",
        "Roadmap",  # uv-readme.md
        "Where are models stored?",  # ollama-faq.md
        "Profiling the compiler",  # rustc-self-profile.md
    )
    for label in labels:
        assert heading_name(label) is None, label


def test_headings_that_name_a_thing_stay_topics() -> None:
    names = {
        "QSBR": "QSBR",
        "`llama-bench`": "llama-bench",
        "Prompt caching": "Prompt caching",
        "LoRA": "LoRA",
        "Speculative decoding": "Speculative decoding",
        "Deferred Advance Optimization": "Deferred Advance Optimization",  # cpython-qsbr.md
        "Byte-level BPE": "Byte-level BPE",  # tokenization-algorithms.md
        "Tier 2 target policy": "Tier 2 target policy",  # 2019-09-20-target-tier-policy.md
        "Output formats": "Output formats",  # llama-bench.md
        "JSONL": "JSONL",
        "`summarize`": "summarize",  # rustc-self-profile.md
        "Filtering short events": "Filtering short events",
        "Dependency caching": "Dependency caching",  # uv-readme.md
        # a phrase with a name in it
        "Installing into arbitrary Python environments": (
            "Installing into arbitrary Python environments"
        ),
        "New location for the logs.db database": "New location for the logs.db database",
        "`--threads` with few cores": "--threads with few cores",
        # "Overview of X" is about X
        "Overview of the Cranelift backend": "Cranelift backend",
    }
    for heading, name in names.items():
        assert heading_name(heading) == name, heading


def test_a_phrase_heading_that_is_a_defined_term_names_it() -> None:
    assert heading_name("Cost of a token") is None
    assert heading_name("Cost of a token", terms=["cost of a token"]) == "Cost of a token"
    # one that only holds a term is still a label: "Text generation" is defined, the examples
    # of it are a section
    assert heading_name("Text generation with different models", terms=["Text generation"]) is None


def test_a_readme_that_never_names_its_subject_gives_it_the_labelled_sections() -> None:
    from wikic.language.section_topics import title_topic

    doc = parse_document(
        "# llama.cpp/examples/llama-bench\n\nPerformance testing tool for llama.cpp.\n\n"
        "## Syntax\n\nAll options can be specified multiple times to run multiple tests.\n\n"
        "## License\n\nThe code is released under the MIT license.\n",
        filename="llama-bench.md",
    )
    topic = title_topic(doc, fact_sentences(doc))
    assert topic is not None
    texts = [doc.sentence(sid).text for sid in topic.facts]
    assert texts == [
        "Performance testing tool for llama.cpp.",
        "All options can be specified multiple times to run multiple tests.",
    ]


def test_a_heading_that_names_a_thing_is_a_topic_with_its_section_evidence() -> None:
    doc = _doc()
    facts = fact_sentences(doc)
    topics = {t.name: t for t in section_topics(doc, facts)}
    assert set(topics) == {"Distilled Weight Quantization"}
    dwq = topics["Distilled Weight Quantization"]
    assert dwq.aliases == ("DWQ",)
    texts = [doc.sentence(sid).text for sid in dwq.facts]
    assert any(t.startswith("DWQ distills") for t in texts)
    assert len(dwq.usage) == 1 and doc.block(dwq.usage[0]).kind == "code"


def test_overview_fallback_is_the_defining_fact() -> None:
    from wikic.ingest.write import defining_fact
    from wikic.vault.topic_page import Fact

    facts = [
        Fact("f-1", "not for general use, says the note.", ()),
        Fact("f-2", "It runs at startup.", ()),
        Fact("f-3", "QSBR is a safe memory reclamation scheme.", ()),
    ]
    assert defining_fact("QSBR", facts) == "QSBR is a safe memory reclamation scheme."
    assert defining_fact("Other", facts[:2]) == "It runs at startup."
    rows = [
        Fact("f-4", "threads: 1; test: pp 64; t/s: 6.17 ± 0.07.", ()),
        Fact("f-5", "llama accepts a `-t N` (or `--threads N`) parameter.", ()),
    ]
    assert defining_fact("--threads", rows) == rows[1].text  # prose before a table row
    back = [
        Fact("f-6", "The self-profiler can be configured to record event arguments.", ()),
        Fact("f-7", "This functionality is turned off because it slows the self-profiler.", ()),
    ]
    assert defining_fact("self profiler", back) == back[0].text  # "This …" defines nothing


def test_source_summary_fallback_opens_with_prose_not_a_list_item() -> None:
    from wikic.ingest.extract import opening

    doc = parse_document(
        "# T\n\nInterned strings form a set, meaning that:\n\n"
        "- two interned strings can be compared by pointer.\n\n"
        "Interning saves memory in dict lookups.\n",
        filename="t.md",
    )
    assert opening(doc, fact_sentences(doc), 600) == "Interning saves memory in dict lookups."


def test_phrases_that_are_not_subjects_are_not_pages() -> None:
    from wikic.language.evidence import is_subject

    for junk in ("splits text", "adds support", "GiB", "N", "tokens second higher"):
        assert not is_subject(junk), junk
    for ok in ("base vocabulary", "Byte pair encoding", "KV cache", "--threads", "aliases.json"):
        assert is_subject(ok), ok


def test_an_alias_merges_topics_in_either_order_under_the_more_descriptive_name() -> None:
    from wikic.ingest.extract import Topic, merge_topics

    code = Topic("wr_seq", "concept", (), ("s1", "s2"))
    model = Topic("Global Write Sequence", "entity", ("wr_seq",), ("s2", "s3"))
    other = Topic("rd_seq", "concept", (), ("s4",))
    for topics in ([code, other, model], [model, other, code]):
        merged = merge_topics(topics, max_facts=10)
        assert [t.name for t in merged] == ["Global Write Sequence", "rd_seq"]
        assert merged[0].aliases == ("wr_seq",) and set(merged[0].facts) == {"s1", "s2", "s3"}
    assert merge_topics([code, other, model], max_facts=10)[0].type == "concept"  # the first's
    # a heading's name stays the title; facts are capped across topics, earlier ones first
    heading = Topic("Byte pair encoding", "concept", ("BPE",), ("s1",), from_heading=True)
    longer = Topic("BPE tokenization algorithm", "concept", ("BPE",), ("s2", "s3"))
    (bpe, rd) = merge_topics([heading, longer, other], max_facts=2)
    assert bpe.name == "Byte pair encoding" and "BPE tokenization algorithm" in bpe.aliases
    assert bpe.facts == ("s1", "s2") and rd.facts == ()


def test_a_model_alias_that_names_the_whole_is_dropped_and_merges_nothing() -> None:
    from wikic.ingest.extract import Topic, ground_topics, merge_topics
    from wikic.language.sentences import Sentence

    text = "Git LFS stores big files. Run git lfs track to pick them. GitHub hosts Git LFS."
    sentences = {
        "s1": Sentence("s1", "p1", "Git LFS stores big files."),
        "s2": Sentence("s2", "p1", "Run git lfs track to pick them."),
    }
    model = Topic("git lfs track", "concept", ("Git LFS", "Git", "track"), ("s2",))
    (kept,), _ = ground_topics([model], text, sentences)
    assert kept.aliases == ()  # "Git LFS" and "Git" name the whole, "track" a part of it
    whole = Topic("Git LFS", "entity", ("git lfs track",), ("s1",))
    (subject,), _ = ground_topics([whole], text, sentences)
    assert subject.aliases == ()  # a command of Git LFS is not another name for it
    subject = Topic("Git LFS", "entity", (), ("s1",))
    merged = merge_topics([subject, kept], max_facts=10)
    assert [t.name for t in merged] == ["Git LFS", "git lfs track"]


def test_the_title_names_its_subject() -> None:
    from wikic.language.headings import subject_name

    def subject(text: str) -> tuple[str, tuple[str, ...]] | None:
        return subject_name(parse_document(text + "\n\nSome text here.\n", filename="x.md"))

    # a path names the thing at its end; the path stays an alias
    assert subject("# llama.cpp/examples/llama-bench") == (
        "llama-bench",
        ("llama.cpp/examples/llama-bench",),
    )
    assert subject("# Quiescent-State Based Reclamation (QSBR)") == (
        "Quiescent-State Based Reclamation",
        ("QSBR",),
    )
    # a trailing label: the document is the specification of Git LFS, not a thing of its own
    assert subject("# Git LFS Specification") == ("Git LFS", ())
    assert subject("# Token generation performance troubleshooting") == (
        "Token generation performance",
        (),
    )
    assert subject("---\ntitle: 2019-12-20 major changes process\n---\n\n# Major") is None
    # an introduction to a thing is about the thing; what is owned is the subject
    assert subject("# Intro to rustc's self profiler") == ("self profiler", ())
    assert subject("# A guide to the borrow checker") == ("borrow checker", ())


@pytest.mark.parametrize(
    ("name", "needed"),
    [
        ("OLLAMA_HOST", 1),  # an environment variable
        ("--threads", 1),  # a flag
        ("_PyUnicode_InternMortal", 1),  # a function
        ("aliases.json", 1),  # a file name
        ("camelCase", 1),
        ("-r", 2),  # a one-letter flag is too short to be looked up on its own
        ("Non-locking", 2),  # a hyphenated word is not an identifier
        ("Tools/build/generate_global_objects.py", 2),  # a path
        ("KV cache", 3),  # a phrase
        ("Homebrew", 2),  # a capitalised name
        ("GPU", 3),  # an acronym: as often a common term as a name
    ],
)
def test_identifiers_need_one_sentence_phrases_more(name: str, needed: int) -> None:
    assert min_evidence(name) == needed


def test_a_word_written_as_code_needs_two_sentences_and_outranks_a_plain_phrase() -> None:
    """`measureme`, written as code, is a name: two sentences will do, and named twice it
    ranks before "working directory" named three times."""
    assert min_evidence("measureme", coded={"measureme"}) == 2
    assert min_evidence("measureme") == 3
    text = (
        "# Profiling\n\nThe tools come from the `measureme` repository on GitHub. "
        "Ask questions in the measureme repository issues. "
        "Three files appear in the working directory after a build. "
        "The working directory holds the trace files then. "
        "Clean the working directory before the next build.\n"
    )
    doc = parse_document(text, filename="p.md")
    sentences = fact_sentences(doc)
    names = ["working directory", "measureme"]
    found = evidence_topics(names, sentences, set(), limit=1, coded={"measureme"})
    assert [n for n, _ in found] == ["measureme"]
    assert evidence_topics(names, sentences, set(), limit=1)[0][0] == "working directory"


def test_an_environment_variable_named_once_gets_a_page() -> None:
    doc = parse_document(
        "# Ollama FAQ\n\n## How do I configure the server?\n\n"
        "Ollama binds 127.0.0.1 port 11434 by default. Change the bind address with the "
        "`OLLAMA_HOST` environment variable.\n",
        filename="faq.md",
    )
    sentences = fact_sentences(doc)
    found = evidence_topics(["OLLAMA_HOST"], sentences, set(), limit=5)
    assert [name for name, _ in found] == ["OLLAMA_HOST"]


TIPS = """\
# Token generation performance

## GPU offloading

Build llama with CUDA so that llama accepts the `-ngl N` (or `--n-gpu-layers N`) flag.
Set `N` very large to offload every layer.

## Threads

llama accepts a `-t N` (or `--threads N`) parameter. The eval_breaker is checked often.
Settings live in `.lfsconfig` next to the repository. Use `git credential` for passwords.
Properties are shown in the window. The Properties window lists the Properties of a file.
"""


def test_flags_lose_their_argument_and_pair_with_their_short_form() -> None:
    from wikic.language.commands import code_terms, flag_aliases

    doc = parse_document(TIPS, filename="tips.md")
    terms = code_terms(doc)
    assert set(terms[:2]) == {"--n-gpu-layers", "--threads"}  # most frequent first
    assert "eval_breaker" in terms and "N" not in terms  # prose identifiers follow the spans
    assert flag_aliases(doc) == {"--n-gpu-layers": ("-ngl",), "--threads": ("-t",)}
    usage = parse_document(
        "# X\n\n```\n  -b, --batch-size <n>  (default: 2048)\n```\n", filename="x.md"
    )
    assert flag_aliases(usage) == {"--batch-size": ("-b",)}


def test_precise_names_named_once_outrank_a_phrase_named_as_often() -> None:
    from wikic.language.commands import code_terms, flag_aliases, is_precise
    from wikic.language.evidence import topic_weight

    doc = parse_document(TIPS, filename="tips.md")
    sentences = fact_sentences(doc)
    names = [*code_terms(doc), "git credential", "Properties"]
    found = evidence_topics(
        names,
        sentences,
        set(),
        limit=20,
        aliases=flag_aliases(doc),
        known=["git credential"],
    )
    by_name = dict(found)
    assert "-ngl" not in by_name and "-t" not in by_name  # aliases, not pages
    assert len(by_name["--n-gpu-layers"]) == 1 and {"eval_breaker", ".lfsconfig"} <= set(by_name)
    assert "git credential" in by_name  # a command: one sentence will do
    assert "Properties" not in by_name  # two sentences: a phrase needs three
    assert is_precise(".lfsconfig") and is_precise("PyDictKeysObject")
    assert not is_precise("Properties") and not is_precise("git credential")
    assert topic_weight("OLLAMA_HOST", 1) == topic_weight("Properties", 3)


def test_facts_keep_their_inline_code_marked() -> None:
    from wikic.language.sentences import with_code_spans

    spans = ["llm aliases set", "llm", "<x>", "absent"]
    assert with_code_spans("Run llm aliases set <x> with llm.", spans) == (
        "Run `llm aliases set` `<x>` with `llm`."  # longest first, never inside another
    )
    assert with_code_spans("Use llm-gpt4all here.", ["llm"]) == "Use llm-gpt4all here."


def test_a_sentence_that_goes_on_about_a_fact_joins_its_topic() -> None:
    from wikic.ingest.extract import with_followers

    doc = parse_document(
        "# QSBR\n\nA counter, `wr_seq`, is started at 1 and incremented by 2. This ensures its "
        "value is always odd. Readers copy the counter into a local one.\n\nThis paragraph is "
        "about something else entirely.\n",
        filename="qsbr.md",
    )
    sentences = fact_sentences(doc)
    first, follower, other, _next_block = (s.id for s in sentences)
    assert with_followers([first], sentences) == (first, follower)
    assert with_followers([other], sentences) == (other,)  # the next block is not its follower
    assert with_followers([first, follower], sentences) == (first, follower)


def test_a_thin_topic_takes_the_rest_of_its_paragraph() -> None:
    from wikic.ingest.extract import with_paragraph

    doc = parse_document(
        "# FAQ\n\nOllama allows cross-origin requests from 127.0.0.1 by default. Add more "
        "origins with the `OLLAMA_ORIGINS` environment variable.\n\nOllama binds port 11434 "
        "by default. It listens on localhost only.\n",
        filename="faq.md",
    )
    s1, s2, s3, s4 = (s.id for s in fact_sentences(doc))
    assert with_paragraph([s2], fact_sentences(doc)) == (s1, s2)  # its paragraph, in order
    assert with_paragraph([s1, s2, s3], fact_sentences(doc)) == (s1, s2, s3)  # not thin
    assert with_paragraph([s4], fact_sentences(doc)) == (s3, s4)  # never another paragraph


def test_a_thin_topic_named_by_a_table_row_takes_no_other_row() -> None:
    """Each row of a table is about its own first cell: the page of one level takes no row
    of another."""
    from wikic.ingest.extract import with_paragraph

    doc = parse_document(
        "# Levels\n\n| Isolation Level | Dirty Read |\n| --- | --- |\n"
        "| Read uncommitted | Allowed |\n| Read committed | Not possible |\n",
        filename="levels.md",
    )
    sentences = fact_sentences(doc)
    rows = {b.id for b in doc.blocks if b.kind == "table"}
    first, second = (s.id for s in sentences)
    assert with_paragraph([first], sentences, rows) == (first,)
    assert with_paragraph([first], sentences) == (first, second)  # a paragraph's way


def test_a_term_defined_with_its_abbreviation_is_a_topic_named_by_either() -> None:
    from wikic.language.definitions import defined_abbreviations

    doc = parse_document(
        "# QSBR\n\nSafe memory reclamation (SMR) schemes delay the free operation until readers "
        "are done. QSBR is a SMR scheme used in the free-threaded build.\n\nThe tool runs "
        "locally (README) and reads files (see FAQ).\n",
        filename="qsbr.md",
    )
    defined = defined_abbreviations(doc)
    assert defined == {"Safe memory reclamation": ("SMR",)}  # initials must fit the letters
    found = evidence_topics(
        ["SMR", "Safe memory reclamation"],
        fact_sentences(doc),
        set(),
        limit=5,
        aliases=defined,
        known=list(defined),
    )
    assert [(name, len(ids)) for name, ids in found] == [("Safe memory reclamation", 2)]


ALIASES_DOC = """# Model aliases

## Listing aliases

To list current aliases, run this:

```bash
llm aliases
```

## Removing an alias

The `llm aliases remove <alias>` command will remove the specified alias:

```bash
llm aliases remove turbo
```

## Notes

A script may call it too:

```python
subprocess.run(["echo", "see llm aliases remove"])
```

```bash
llm aliases remove gpt4
```
"""


def test_a_command_page_gets_the_code_blocks_that_run_it() -> None:
    from wikic.language.commands import code_examples

    doc = parse_document(ALIASES_DOC, filename="aliases.md")
    sentences = fact_sentences(doc)
    facts = [s.id for s in sentences if "remove the specified alias" in s.text]
    blocks = code_examples(doc, "llm aliases remove", facts, sentences)
    texts = [doc.block(b).text.strip() for b in blocks]
    # its own section first, then a block that runs it over one that only mentions it
    assert texts == ["llm aliases remove turbo", "llm aliases remove gpt4"]
    assert [doc.block(b).text.strip() for b in code_examples(doc, "llm aliases", [], sentences)][
        :1
    ] == ["llm aliases"]  # the bare command, not `llm aliases remove` only
    assert code_examples(doc, "wombat", facts, sentences) == ()


@pytest.mark.parametrize(
    ("name", "texts", "clause"),
    [
        (
            "llama accepts",
            ["So that llama accepts the `-ngl N` flag.", "llama accepts a `-t N`."],
            True,
        ),
        ("running llama", ["When running llama, it prints.", "When running llama, set N."], True),
        (
            "model aliases",
            ["LLM supports model aliases, which help.", "The model aliases file."],
            False,
        ),
        (
            "prompt caching",
            ["Use prompt caching to reuse a prefix.", "prompt caching is fast."],
            False,
        ),
        (
            "sliding window",
            ["A sliding window of 4096 tokens.", "The sliding window moves."],
            False,
        ),
        ("Ollama accepts", ["Ollama accepts the flag."], False),  # a capitalised name: not judged
        (
            "provide documentation",
            ["Tier 1 targets must provide documentation.", "They should provide documentation."],
            True,
        ),
        (
            "prefix caching",
            ["Compared to prefix caching, it is slow.", "Prefix caching helps."],
            False,
        ),
    ],
)
def test_a_phrase_used_as_a_clause_names_no_page(name: str, texts: list[str], clause: bool) -> None:
    from wikic.language.evidence import reads_as_clause

    assert reads_as_clause(name, texts) is clause


def test_evidence_topics_skip_a_clause_but_keep_a_known_command() -> None:
    doc = parse_document(
        "# Tips\n\nMake sure llama accepts the flag here. Then llama accepts the other flag "
        "too. Also llama accepts the third flag.\n",
        filename="tips.md",
    )
    sentences = fact_sentences(doc)
    assert evidence_topics(["llama accepts"], sentences, set(), limit=5) == []
    kept = evidence_topics(["llama accepts"], sentences, set(), limit=5, known=["llama accepts"])
    assert [name for name, _ in kept] == ["llama accepts"]


def test_a_one_word_heading_takes_the_name_the_prose_qualifies_it_with() -> None:
    from wikic.language.headings import specific_name

    server = [
        "Git LFS needs a URL endpoint to talk to a remote server.",
        "The Git LFS server is found from the remote. Ask the Git LFS server for it.",
    ]
    assert specific_name("Server", server, "Git LFS Specification") == "Git LFS server"
    state = ["The intern state (retrieved by x) can be:", "The other cases don't change the state."]
    assert specific_name("State", state, "String interning") == "intern state"
    pointer = ["Pointer files are text files. A text pointer is small."]
    assert specific_name("Pointer", pointer, "Git LFS Specification") is None  # not the subject's
    assert specific_name("GPU", ["the NVIDIA GPU"], "NVIDIA GPU guide") is None  # an acronym


def test_section_topics_name_a_one_word_heading_as_the_prose_does() -> None:
    doc = parse_document(
        "# String interning\n\n## State\n\nThe intern state of a string can be one of four "
        "values. It is stored in the string object itself.\n",
        filename="interning.md",
    )
    (topic,) = section_topics(doc, fact_sentences(doc))
    assert (topic.name, topic.aliases) == ("intern state", ("State",))


def test_a_one_word_code_name_and_its_kind_word_make_a_name() -> None:
    from wikic.language.definitions import kind_names

    doc = parse_document(
        "# Git LFS\n\nGit LFS uses the `clean` and `smudge` filters. The `clean` filter runs "
        "as files are added. Run the `pointer` command to check. Use `--force` flag and the "
        "`clean` way.\n\n```sh\ngit lfs clean filter\n```\n",
        filename="lfs.md",
    )
    assert kind_names(doc) == ["smudge filter", "clean filter", "pointer command"]


def test_a_lower_case_abbreviation_defines_a_term_when_its_letters_are_the_initials() -> None:
    from wikic.language.definitions import defined_abbreviations

    doc = parse_document(
        "# Bench\n\n- Prompt processing (pp): processing a prompt in batches.\n"
        "- Run it many times (optional) to average.\n",
        filename="bench.md",
    )
    assert defined_abbreviations(doc) == {"Prompt processing": ("pp",)}


BENCH = """\
# llama-bench

## Syntax

```
options:
  -b, --batch-size <n>          (default: 2048)
  -t, --threads <n>             (default: 8)
  -r, --repetitions <n>         (default: 5)
```

llama-bench can perform three types of tests:

- Prompt processing (pp): processing a prompt in batches (`-p`)
- Prompt processing + text generation (pg): a prompt, then tokens (`-pg`)

Each test is repeated the number of times given by `-r`, and the results are averaged.

## Different numbers of threads

```sh
$ ./llama-bench -n 0 -p 64 -t 1,2,4
```

| threads | test | t/s |
| --: | --- | --: |
| 1 | pp 64 | 6.17 |
| 2 | pp 64 | 12.31 |

## Prompt processing with different batch sizes

```sh
$ ./llama-bench -p 1024 -b 128,256
```

| n_batch | test | t/s |
| --: | --- | --: |
| 128 | pp 1024 | 1436.51 |
"""


def test_a_section_whose_example_runs_an_option_its_heading_names_is_that_options_page() -> None:
    doc = parse_document(BENCH, filename="bench.md")
    topics = {t.name: t for t in section_topics(doc, fact_sentences(doc))}
    # "batch sizes" names every word of --batch-size; the example runs its short form
    assert set(topics) == {"--threads", "--batch-size"}
    assert topics["--threads"].aliases == ("-t",) and len(topics["--threads"].facts) == 2
    assert topics["--batch-size"].usage  # the example is the page's usage
    # a heading that names an option its example does not run is no option's page
    other = parse_document(BENCH.replace("-t 1,2,4", "-n 16"), filename="b.md")
    assert "--threads" not in {t.name for t in section_topics(other, fact_sentences(other))}


def test_a_subcommand_the_heading_names_is_the_page_though_the_prose_never_writes_it() -> None:
    # pipenv's "Locking Dependencies" (scripts/data/overlap): each task's section shows the
    # command alone, and the prose says what it does without naming it
    text = (
        "# Locking\n\n## Verifying Lock File Integrity\n\nTo verify that your lock file is "
        "up-to-date with your `Pipfile`:\n\n```bash\n$ pipenv verify\n```\n\nThis is useful "
        "in CI/CD pipelines to catch a lock file that was not updated.\n\n"
        "## Updating Specific Dependencies\n\nThe lock file keeps every other package as it "
        "was when one package is updated.\n\n```bash\n$ pipenv update requests\n```\n\n"
        "## Summarize\n\nThe tool summarizes the time that each step of a trace took.\n\n"
        "```sh\n$ summarize summarize trace.json\n```\n"
    )
    doc = parse_document(text, filename="locking.md")
    found = section_topics(doc, fact_sentences(doc))
    names = [t.name for t in found]
    assert "pipenv verify" in names and "Verifying Lock File Integrity" not in names
    # a command is a precise name: a page of one fact of it keeps its rank (`plan._thin`)
    assert all(t.precise for t in found if t.name.startswith("pipenv "))
    assert not next(t for t in found if t.name == "Summarize").precise
    assert "pipenv update" in names  # the argument after the subcommand is not part of it
    assert "summarize summarize" not in names  # a program run on a file named after it


def test_a_section_whose_example_runs_a_subcommand_its_heading_names_is_that_commands_page() -> (
    None
):
    from wikic.language.section_topics import section_command

    text = (
        "# LLM\n\n## New mechanism for storing API keys\n\nKeys can now be saved using "
        "the new `llm keys` family of commands.\n\n```bash\nllm keys set openai\n```\n\n"
        "## Templates\n\nThe `llm templates` command lists the saved templates.\n"
    )
    doc = parse_document(text, filename="changes.md")
    names = [t.name for t in section_topics(doc, fact_sentences(doc))]
    assert "llm keys" in names and "New mechanism for storing API keys" not in names
    code = [b for b in doc.blocks if b.kind == "code"]
    # the heading must name the subcommand, and the example must run it
    assert section_command("Storing API keys", code, ["llm", "llm keys"]) == "llm keys"
    assert section_command("Storing secrets", code, ["llm keys"]) is None
    assert section_command("API keys", [], ["llm keys"]) is None
    # a program is a page of its own though a section's subcommand contains it
    found = evidence_topics(
        ["llm"],
        fact_sentences(doc),
        set(),
        limit=5,
        names_taken=["llm keys"],
        known=["llm", "llm keys"],
    )
    assert [n for n, _ in found] == ["llm"]


def test_a_definition_item_with_its_abbreviation_is_a_whole_fact() -> None:
    doc = parse_document(BENCH, filename="bench.md")
    texts = [s.text for s in fact_sentences(doc)]
    assert "Prompt processing (pp): processing a prompt in batches (`-p`)." in texts
    assert "Prompt processing + text generation (pg): a prompt, then tokens (`-pg`)." in texts


def test_a_short_flag_in_prose_names_its_long_form_and_table_rows_come_after_prose() -> None:
    from wikic.language.commands import code_terms, flag_aliases
    from wikic.language.definitions import defined_abbreviations

    doc = parse_document(BENCH, filename="bench.md")
    assert "--repetitions" in code_terms(doc) and "-r" not in code_terms(doc)
    sentences = fact_sentences(doc)
    rows = {b.id for b in doc.blocks if b.kind == "table"}
    found = dict(
        evidence_topics(
            ["--repetitions", "Prompt processing"],
            sentences,
            set(),
            limit=5,
            aliases={**flag_aliases(doc), **defined_abbreviations(doc)},
            rows=rows,
        )
    )
    assert len(found["--repetitions"]) == 1  # "… given by `-r` …"
    by_id = {s.id: s for s in sentences}
    in_rows = [by_id[f].paragraph in rows for f in found["Prompt processing"]]
    assert in_rows == [False, False, True, True, True]  # the definitions before "pp 64" rows


def test_prose_identifiers_come_from_prose_not_from_inside_code_spans() -> None:
    from wikic.language.commands import code_terms

    doc = parse_document(
        "# Profiling\n\nThe files follow the format `{crate}-{pid}.{events,string_data}`. "
        "The eval_breaker flag is checked often.\n",
        filename="p.md",
    )
    terms = code_terms(doc)
    assert "eval_breaker" in terms and "string_data" not in terms


def test_a_code_name_loses_its_placeholder_path_and_its_list_of_values() -> None:
    from wikic.language.commands import code_terms

    doc = parse_document(
        "# Bench\n\n```\n  -n, --n-gen <n>   (default: 128)\n```\n\n"
        "Objects live at `.git/lfs/objects/{OID-PATH}`. Run `-n 16,32` for two tests.\n",
        filename="b.md",
    )
    terms = code_terms(doc)
    assert ".git/lfs/objects" in terms  # the folder, without `/{OID-PATH}`
    assert "--n-gen" in terms  # `-n 16,32`: the flag, by its long form


def test_a_name_only_listed_among_other_code_names_is_not_what_a_sentence_is_about() -> None:
    from wikic.language.evidence import only_listed

    listed = "With the exception of `-r`, `-o` and `-v`, all options can be repeated."
    assert only_listed(["-v", "--verbose"], listed)
    assert not only_listed(["-o"], "The results can be output by using the `-o` option.")
    assert not only_listed(["OLLAMA_HOST"], "Set `OLLAMA_HOST` to `0.0.0.0` in `systemd`.")
    assert not only_listed(["a"], "Use `a`, `b` or `c`; `a` is the fastest of them.")
    doc = parse_document(
        BENCH.replace("given by `-r`", "given by `-r`, `-b` and `-t`"), filename="b.md"
    )
    found = dict(
        evidence_topics(
            ["--repetitions"],
            fact_sentences(doc),
            set(),
            limit=5,
            aliases={"--repetitions": ("-r",)},
        )
    )
    assert "--repetitions" not in found


FAQ = """\
# FAQ

## How can I upgrade Ollama?

Ollama on macOS and Windows will automatically download updates.

## How can I expose Ollama on my network?

Ollama binds 127.0.0.1 port 11434 by default. Change the bind address with `OLLAMA_HOST`.

## Does Ollama send my prompts back to Ollama.ai?

No. Ollama runs locally, and conversation data does not leave your machine.

## Why is networking slow in WSL2 on Windows 10?

This can impact both installing Ollama and downloading models. Disable Large Send Offload.

## What does the q in the model tag mean? What is quantization?

Quantization is a method of compression that lets the model fit in less space.
"""


def test_a_question_heading_is_the_page_of_the_name_it_asks_about() -> None:
    from wikic.language.headings import question_names

    assert question_names("Why is networking slow in WSL2 on Windows 10?") == ["WSL2"]
    assert question_names("What does the q mean? What is quantization?") == ["quantization"]
    assert question_names("How can I use Ollama in Visual Studio Code?") == [
        "Ollama",
        "Visual Studio Code",
    ]
    assert question_names("Where are models stored?") == []  # nothing named
    assert question_names("Installing uv") == []  # not a question
    doc = parse_document(FAQ, filename="faq.md")
    names = [t.name for t in section_topics(doc, fact_sentences(doc))]
    # "Ollama" (and "Ollama.ai") is what every question asks about: the document's subject
    assert names == ["WSL2", "quantization"]


def test_a_one_word_heading_and_the_phrase_its_section_uses_are_one_page() -> None:
    from wikic.language.section_topics import named_by_phrase

    doc = parse_document(
        "# Git LFS\n\n## The Pointer\n\nPointer files are small text files. A pointer file "
        "holds a version key. Every pointer file ends with a newline.\n\n## Other\n\n"
        "The server stores the objects.\n",
        filename="lfs.md",
    )
    sentences = fact_sentences(doc)
    phrase, ids = named_by_phrase("Pointer", ["Git LFS", "pointer file"], sentences)
    assert phrase == "pointer file" and len(ids) == 3
    assert named_by_phrase("Server", ["server stores"], sentences) is None  # one sentence
    assert named_by_phrase("Git LFS", ["Git LFS server"], sentences) is None  # not one word


def test_code_finds_a_heading_phrase_without_the_model() -> None:
    """Topics of a document with no model reply: "The Pointer" section is the "pointer file"
    page its sentences name."""
    from wikic.ingest.extract import finish_extraction
    from wikic.llm.backend import EMPTY_STATS, Generation

    text = (
        "# Git LFS\n\n## The Pointer\n\nPointer files are small text files. A pointer file "
        "holds a version key. Every pointer file ends with a newline.\n\n## Tools\n\n"
        "Run the `pointer` command to check a pointer.\n\n```\n$ git lfs pointer --file=x\n```\n\n"
        "Set the `RUSTFLAGS` environment variable to pass flags to every build.\n"
    )
    job, config = _job(text, "lfs.md")
    replies = [Generation("", None, EMPTY_STATS, error="no reply") for _ in job.requests]
    topics = {t.name: t for t in finish_extraction(job, replies, config).topics}
    assert topics["pointer file"].aliases[0] == "Pointer"
    assert "Pointer" not in topics


ISOLATION = (
    "# Concurrency\n\n## Transaction Isolation\n\nThe SQL standard defines four levels of "
    "transaction isolation.\n\n## Setting the level\n\nPostgreSQL offers the four standard "
    "transaction isolation levels. The transaction isolation levels differ in the phenomena "
    "they allow. Use `SET TRANSACTION` to choose among the transaction isolation levels.\n\n"
    "## Lock file\n\nThe lock file pins versions. Only one lock file format is supported.\n"
)


def test_a_heading_and_the_phrase_one_word_longer_its_document_uses_are_one_page() -> None:
    """ "Transaction Isolation" and the "transaction isolation levels" three sentences name
    are one concept: the overlap set's PostgreSQL document had made two pages of them once
    the page cap left room, and TiDB's sentences joined the longer one."""
    from wikic.ingest.extract import finish_extraction
    from wikic.language.section_topics import extended_by_phrase
    from wikic.llm.backend import EMPTY_STATS, Generation

    doc = parse_document(ISOLATION, filename="iso.md")
    sentences = fact_sentences(doc)
    phrase, ids = extended_by_phrase(
        "Transaction Isolation", ["PostgreSQL", "transaction isolation levels"], sentences
    )
    assert phrase == "transaction isolation levels" and len(ids) == 3
    # one sentence names the longer phrase: no more than one page's alias
    assert extended_by_phrase("Lock file", ["lock file format"], sentences) is None
    # two words longer, or a one-word heading (`named_by_phrase`), is another rule
    assert extended_by_phrase("Transaction", ["transaction isolation levels"], sentences) is None
    job, config = _job(ISOLATION, "iso.md")
    replies = [Generation("", None, EMPTY_STATS, error="no reply") for _ in job.requests]
    topics = {t.name: t for t in finish_extraction(job, replies, config).topics}
    assert "transaction isolation levels" in topics["Transaction Isolation"].aliases
    assert not any(name.casefold() == "transaction isolation levels" for name in topics)


def test_a_link_named_as_its_address_ends_names_a_project_a_page_of_its_own() -> None:
    """`[llm-replicate](https://github.com/simonw/llm-replicate)` names a plugin: a precise
    name, so the one sentence that names it gives it a page; a link into a site's docs
    (`[Windows](…/settings/windows/#proxies)`) or one whose text is not the address's last part
    names nothing."""
    from wikic.ingest.extract import finish_extraction
    from wikic.language.definitions import linked_names
    from wikic.llm.backend import EMPTY_STATS, Generation

    text = (
        "# Changelog\n\nModels on Replicate work with the "
        "[llm-replicate](https://github.com/simonw/llm-replicate) plugin, including Llama 2.\n\n"
        "Set the proxy for [Windows](https://docs.docker.com/desktop/settings/windows/#proxies) "
        "in Docker Desktop. Read [the guide](https://example.org/guide) before you start. "
        "The linter is [`Ruff`](https://github.com/astral-sh/ruff/), written in Rust.\n"
    )
    doc = parse_document(text, filename="changelog.md")
    assert linked_names(doc) == ["llm-replicate", "Ruff"]
    job, config = _job(text, "changelog.md")
    assert "llm-replicate" in job.names
    replies = [Generation("", None, EMPTY_STATS, error="no reply") for _ in job.requests]
    topics = {t.name: t for t in finish_extraction(job, replies, config).topics}
    assert topics["llm-replicate"].precise and len(topics["llm-replicate"].facts) >= 1
    assert "Windows" not in topics


def test_a_command_written_without_its_program_is_an_alias_of_the_command() -> None:
    from wikic.language.commands import shorthand_commands

    commands = ["uv pip install", "pip install", "uv venv", "pip", "uv pip sync", "pip sync"]
    assert shorthand_commands(commands) == {
        "uv pip install": ("pip install",),
        "uv pip sync": ("pip sync",),
    }
    assert shorthand_commands(["git lfs track", "track"]) == {}  # one word names no command


def test_a_name_the_document_shortens_is_one_page_with_the_short_name_as_alias() -> None:
    from wikic.language.definitions import short_names

    doc = parse_document(
        "# Backends\n\nThe backend is `rustc_codegen_cranelift` or `cg_cranelift` for short. "
        "It compiles fast, or slow for short runs.\n",
        filename="b.md",
    )
    assert short_names(doc) == {"rustc_codegen_cranelift": ("cg_cranelift",)}


def test_a_model_summary_cut_inside_a_bracket_gives_way_to_the_opening() -> None:
    from types import SimpleNamespace

    from wikic.ingest.extract import Extraction
    from wikic.ingest.write import _source_summary
    from wikic.llm.backend import EMPTY_STATS, Generation
    from wikic.vault.sources import Source

    text = (
        "# Tiers\n\nDevelopers ask how to raise a target to tier 2 (and how to ship it via "
        "rustup). The project has no policy for target tiers.\n"
    )
    doc = parse_document(text, filename="t.md")
    ex = Extraction(
        Source("raw/t.md", text, "sha256:0", "article"),
        "Tiers",
        "The project has no policy for target tiers.",
        doc,
        {s.id: s for s in fact_sentences(doc)},
        [],
    )

    def reply(summary: str) -> Generation:
        return Generation(summary, SimpleNamespace(summary=summary), EMPTY_STATS)

    cut = "Developers ask how to raise a target to tier 2 (and how to ship it via rust."
    assert _source_summary(ex, reply(cut), 600) == ex.summary
    whole = "Developers ask how to raise a target to tier 2."
    assert _source_summary(ex, reply(whole), 600) == whole


def test_a_one_word_code_name_counts_only_its_verbatim_mentions() -> None:
    """`rust` written as code is the repository; "Rust" in prose is the language."""
    from wikic.language.evidence import names_sentence

    assert names_sentence("rust", "Bring it to the `rust` repo.", verbatim=True)
    assert not names_sentence("rust", "A backend written in Rust.", verbatim=True)
    assert names_sentence("rust", "A backend written in Rust.")
    text = (
        "# Backends\n\nBring the backend to the `rust` repo soon. It is written in Rust. "
        "The Rust project hosts it. Rust builds it fast.\n"
    )
    doc = parse_document(text, filename="r.md")
    found = evidence_topics(["rust"], fact_sentences(doc), set(), limit=5, coded={"rust"})
    assert found == []  # one verbatim mention: not enough for a page


MINUTES = """\
# Major Change Process

## Initially proposed process

* When considering a "major change", open an issue on the compiler-team repo to let people know
    * Describe the general idea in a sentence or two
* Major changes will be discussed before they become a PR
    * These issues will be reviewed weekly and classified
    * It is low-risk because it can easily be turned off at any time
    * I am happy to review but I would like another to approve too
* If a "major change" PR is opened without going through this process
    * Close with a friendly note recommending an issue be opened
* Over time, a focus on PRs (versus explaining the idea) leads to
* Low barrier to entry, not a lot of "bureaucratic overhead"
"""


def test_a_list_item_without_a_stop_is_a_fact_when_it_reads_as_a_statement() -> None:
    doc = parse_document(MINUTES, filename="minutes.md")
    texts = [s.text for s in fact_sentences(doc)]
    assert texts == ["Major changes will be discussed before they become a PR."]
    # the imperatives have no finite verb to tell them from a noun phrase: left out, like the
    # items leaning on their parent ("These issues", "It"), the writer's own voice, the lone
    # subordinate clause, the run-on and the noun phrase


def test_a_lower_case_list_item_of_notes_is_a_fact_unless_it_leans_or_introduces() -> None:
    doc = parse_document(
        "# Notes\n\n* Discussion\n"
        "    * existing triage meeting is too full, that's clear\n"
        "    * the actual rustc-guide changes themselves can come later\n"
        "    * may request a mitigation, such as a flag we can turn off\n"
        "    * would like to review the performance results first\n"
        "    * we should have some way to add caveats to an approval, like\n"
        "        * want a flag\n",
        filename="notes.md",
    )
    texts = [s.text for s in fact_sentences(doc)]
    assert texts == [
        "existing triage meeting is too full, that's clear.",
        "the actual rustc-guide changes themselves can come later.",
    ], texts


def test_a_heading_of_rules_names_the_thing_they_govern() -> None:
    doc = parse_document(
        "# Target Tier Policy\n\n## Tier 2 target policy\n\n"
        "A tier 2 target must have a designated team. Tier 2 targets must build in CI.\n\n"
        "## Retention policy\n\nLogs are kept for a year before they are removed.\n",
        filename="policy.md",
    )
    found = {t.name: t.aliases for t in section_topics(doc, fact_sentences(doc))}
    assert found["Tier 2 target"] == ("Tier 2 target policy",)
    assert "Retention policy" in found and "Retention" not in found  # never said on its own


def test_a_quote_right_after_a_code_block_is_its_output_not_a_fact() -> None:
    doc = parse_document(
        "# Chat\n\nUse the new `-c` option to continue a chat:\n\n```bash\nllm 'Be a gerbil'\n"
        "```\n> Greetings, dear human! I am a clever gerbil.\n\nSome prose here.\n\n"
        "> Note: a quote after prose is what the document says.\n",
        filename="chat.md",
    )
    texts = [s.text for s in fact_sentences(doc)]
    assert not any("gerbil" in t for t in texts)
    assert any("a quote after prose" in t for t in texts)


def test_a_flag_written_with_its_value_names_the_flag() -> None:
    from wikic.language.commands import code_terms

    doc = parse_document(
        "# Backends\n\n`rustc` loads a backend with the unstable "
        "`-Zcodegen-backend=/path/to/dylib` flag.\n",
        filename="b.md",
    )
    assert "-Zcodegen-backend" in code_terms(doc)
    found = evidence_topics(code_terms(doc), fact_sentences(doc), set(), limit=5)
    assert "-Zcodegen-backend" in dict(found)  # a flag: one sentence will do


CHANGELOG = """\
# Changelog

## 0.6

- LLM can now be installed directly from Homebrew core.
- The new log format reduces memory usage for long prompts.
- Subword tokenization is especially useful for languages like Turkish.

## 0.4

- LLM can now be installed using Homebrew on macOS.
- Transformers support three subword tokenization algorithms today.
- The `llm logs` command reports memory usage on exit.
- Plugins must provide documentation for their models.
- Plugins should provide documentation for their options too.
- Every plugin will provide documentation in its README.
"""


def test_a_capitalised_name_or_a_subject_needs_one_sentence_less_than_a_phrase() -> None:
    """Named twice: `Homebrew` (a capitalised word) and "subword tokenization" (one sentence
    says something of it) are pages; "memory usage", only mentioned, is not; "provide
    documentation", named thrice but always after a modal, is a verb and its object."""
    assert min_evidence("Homebrew") == 2 and min_evidence("Python's") == 3
    doc = parse_document(CHANGELOG, filename="changelog.md")
    sentences = fact_sentences(doc)
    names = ["Homebrew", "subword tokenization", "memory usage", "provide documentation"]
    found = dict(evidence_topics(names, sentences, set(), limit=10))
    assert set(found) == {"Homebrew", "subword tokenization"}


def test_many_code_names_leave_room_for_the_names_of_the_prose() -> None:
    """A changelog writes dozens of options as code, each once: the topic names shown to the
    model (and found by code) still hold a name its prose repeats."""
    from wikic.ingest.extract import MAX_CANDIDATES

    first = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot"]
    second = ["golf", "hotel", "india", "juliet", "kilo", "lima", "mike"]
    options = " ".join(f"Fixed a bug in the `--{a}-{b}` setting." for a in first for b in second)
    text = (
        f"# Changelog\n\n## 0.6\n\n{options}\n\n## 0.5\n\n"
        "- LLM can now be installed directly from Homebrew core.\n"
        "- LLM can now be installed using Homebrew on macOS.\n"
    )
    job, _ = _job(text, "changes.md")
    assert len(job.names) == MAX_CANDIDATES and "Homebrew" in job.names


def test_the_models_topics_rank_after_codes_and_a_common_term_is_no_page() -> None:
    """The model's "Homebrew" merges into code's topic (code found it); its "URL" is a term of
    every technical text, dropped; its "LLM" is a topic only the model chose."""
    from wikic.ingest.extract import finish_extraction
    from wikic.llm.backend import EMPTY_STATS, Generation, parse_structured

    text = (
        "# Changelog\n\nLLM can now be installed directly from Homebrew core. LLM can now be "
        "installed using Homebrew on macOS. Each key is stored in a file next to the URL of "
        "its API. The key of a model is its URL.\n"
    )
    job, config = _job(text, "changes.md")
    (request,) = job.requests
    reply = (
        '{"topics":[{"name":"Homebrew","type":"entity","aliases":[],"facts":["s1","s2"]},'
        '{"name":"LLM","type":"entity","aliases":[],"facts":["s1","s2"]},'
        '{"name":"URL","type":"concept","aliases":[],"facts":["s3","s4"]}]}'
    )
    value = parse_structured(request.schema, reply)
    ex = finish_extraction(job, [Generation(reply, value, EMPTY_STATS)], config)
    topics = {t.name: t for t in ex.topics}
    assert not topics["Homebrew"].from_model and topics["LLM"].from_model
    assert "URL" not in topics
    assert any("URL" in note and "every technical text" in note for note in ex.notes)


def test_a_plain_word_only_the_model_named_is_no_page() -> None:
    """A plain word general English writes often is no page when only the model named it
    ("package": four sources' packages, a Go package among them, were one grab-bag page); a
    term of the field, a name the source capitalises, a precise name, a name of one sentence
    ("Downloading": kept, as code keeps a name it finds) or one code found too stays."""
    from wikic.ingest.extract import Topic, _plain_word_only_the_model_named
    from wikic.vault.names import name_key

    text = (
        "Install a package with pip. Each package has versions; the package index lists "
        "them. Downloading a package takes time. A snapshot is a copy; the snapshot is kept. "
        "Poetry manages the package; Poetry writes a lock file. Run `--upgrade` to upgrade."
    )

    def plain(name: str, facts: int = 3, code: tuple[str, ...] = ()) -> bool:
        found = {name_key(n) for n in code}
        topic = Topic(name, "concept", (), tuple(f"s{i}" for i in range(facts)), from_model=True)
        return _plain_word_only_the_model_named(topic, found, text)

    assert plain("package") and plain("Package")
    assert not plain("snapshot")  # rare in general English: a term of the field
    assert not plain("Poetry")  # the source capitalises it: a name
    assert not plain("--upgrade") and not plain("lock file")  # precise; a phrase
    assert not plain("package", code=("package",))  # code found it too


def test_a_phrase_of_plain_words_the_source_writes_in_passing_is_no_page() -> None:
    """Plain words the model alone named, which the source writes in lower case in at most
    `PASSING_SENTENCES` sentences and no heading ("an alternative package", "the most recent
    version"), are no page; a phrase of the field, a capitalised one, one a heading or more
    sentences name, and one code found too stay."""
    from wikic.ingest.extract import PASSING_SENTENCES, Topic, _passing_phrase
    from wikic.language.sentences import fact_sentences
    from wikic.vault.document import parse_document
    from wikic.vault.names import name_key

    text = (
        "# Resolution\n\nPip picks the most recent version of each package. It may pick an "
        "alternative package. A nonrepeatable read sees changed rows. The Consistent Read "
        "level reads the latest data.\n\n## Lock files\n\nA lock file pins versions. The lock "
        "file is JSON. Commit the lock file.\n\nThe release notes list changes. Read the "
        "release notes. The release notes are long.\n"
    )
    doc = parse_document(text, filename="d.md")
    sentences = fact_sentences(doc)

    def passing(name: str, code: tuple[str, ...] = ()) -> bool:
        topic = Topic(name, "concept", (), ("s1",), from_model=True)
        return _passing_phrase(topic, {name_key(n) for n in code}, doc, sentences)

    assert PASSING_SENTENCES == 2
    assert passing("recent version") and passing("alternative package")
    assert passing("Alternative package")  # the model's capital is not the source's
    assert not passing("nonrepeatable read")  # a term of the field
    assert not passing("Consistent Read")  # the source capitalises it: a name
    assert not passing("lock file")  # a heading names it
    assert not passing("release notes")  # three sentences name it
    assert not passing("recent version", code=("recent version",))  # code found it too
    assert not passing("version")  # one word: `_plain_word_only_the_model_named`
