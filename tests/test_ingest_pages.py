"""Issue 32, items 3-5: pages that earn their place, openings that stand alone, related links
that mean something. Each rule is stated on a constructed document, compiled by code alone (a
model that never answers)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from tests.helpers.wikitools import ingest_code_only, make_wiki
from wikic.ingest.extract import Extraction, Topic
from wikic.ingest.members import place_topics, safe_title
from wikic.ingest.openings import kind_of, structural_opening
from wikic.ingest.pipeline import IngestRequest, ingest
from wikic.ingest.write import _new_leads_apart
from wikic.language.headings import title_subjects
from wikic.language.openings import (
    bare_default,
    cut_before_code,
    defines,
    defining_text,
    glossary_kind,
    opening_fault,
    points_back,
)
from wikic.language.prose_checks import fold
from wikic.language.sentences import Sentence
from wikic.llm.fake import FakeBackend
from wikic.vault.document import parse_document
from wikic.vault.links import parse_links
from wikic.vault.sections import LISTED, RELATED, bullets, split_body
from wikic.vault.sources import Source
from wikic.vault.topic_page import Fact
from wikic.vault.tree import Vault

DAY = dt.date(2026, 11, 27)


def compile_docs(tmp_path: Path, docs: dict[str, str]) -> Vault:
    paths = make_wiki(tmp_path / "w")
    for name, text in docs.items():
        (paths.raw / name).write_text(text, encoding="utf-8")
    return Vault.load(ingest_code_only(paths, DAY).wiki)


def topic_pages(vault: Vault) -> dict[str, object]:
    return {p.title: p for p in vault if p.type in ("entity", "concept")}


# -- openings ---------------------------------------------------------------------------------


def test_a_sentence_that_opens_with_a_default_is_not_an_opening() -> None:
    for text in (
        "Defaults to `0.0` (disabled).",
        "Set to `null` to unload the model.",
        "If not provided, the default mappings are used.",
        "Optional, and ignored when streaming is off.",
    ):
        assert bare_default(text), text
        assert opening_fault(["top_p"], text) is not None, text
    assert not bare_default("By default, Ollama binds to port 11434.")


def test_a_sentence_that_refers_back_or_is_cut_before_its_code_is_not_an_opening() -> None:
    cases = {
        "These are sequences of tokens on which the generation should `stop`.": "refers back",
        "The above command on an M1 Max runs at about 250 tokens-per-second.": "refers back",
        "You can also use `mlx-lm` from the command line with.": "cut",
        # the model-compiled overlap wiki's "Snapshot" page opened so (stop 47)
        "Because of the above rules, a snapshot of the database is taken.": "refers back",
        "Due to this, the snapshot holds every page.": "refers back",
        "The default settings of `stop` are 5 minutes and 1 GB, respectively.": "refers back",
    }
    for text, why in cases.items():
        fault = opening_fault(["stop", "mlx-lm", "Data"], text)
        assert fault is not None and why in fault, (text, fault)
    assert cut_before_code("Run it with:")
    assert not cut_before_code("`OLLAMA_HOST` is the address the server binds to.")
    assert opening_fault(["snapshot"], "Because the WAL is short, a snapshot is quick.") is None


def test_a_sentence_that_continues_its_document_is_not_an_opening() -> None:
    # openings a reader found meaningless alone in the overlapping development wiki
    for text in (
        "Again, this is only the case in Read Committed mode.",
        "For example, LMDB allows several unsafe actions such as direct writes.",
        "In contrast, the ANSI Repeatable Read isolation level allows phantom reads.",
        "However, if you want static URLs in the lock file, pass `--strategy static_urls`.",
        "The second step is retention enforcement.",
        "The table also shows that Repeatable Read does not allow phantom reads.",
        "See the Migration Guide if you are upgrading from v0.3.x.",
        "(When WAL archiving is being done, the log segments must be archived.)",
        "Added in 2.10.0.",
    ):
        fault = opening_fault(
            [
                "Read Committed",
                "LMDB",
                "Repeatable Read",
                "lock file",
                "retention",
                "v0.3.x",
                "WAL archiving",
                "static URLs",
            ],
            text,
        )
        assert fault == "continues what its document said before", (text, fault)
    assert opening_fault(["Bolt"], "Bolt is a pure Go key/value store.") is None
    assert opening_fault(["Seeking"], "Seeking is slow on disks.") is None  # "See" is a word


def test_a_sentence_that_points_back_opens_a_page_only_when_nothing_better_does() -> None:
    texts = [
        "There are several ways to run commands within this virtual environment.",
        "By default, Poetry creates a virtual environment in `{cache-dir}/virtualenvs`.",
    ]
    assert points_back(texts[0]) and not points_back("The `this` keyword is bound.")
    # a clause that opens with a pronoun points back too: who connects? (the overlap compile
    # of c6707e2 opened "Transaction ID" so)
    connect = "When they connect to the primary node, they specify their transaction ID."
    assigns = "Each sync assigns the next transaction ID to the batch of new pages."
    assert points_back(connect) and not points_back("When Litestream starts, it connects.")
    assert defining_text("Transaction ID", [connect, assigns]) == assigns
    assert defining_text("Virtual environment", texts) == texts[1]
    # a definition wins though it points back: it still says what the thing is
    ltx = [
        "Each LTX file is associated with a transaction ID.",
        "An LTX file is an additional packaging format for these change sets.",
    ]
    assert defining_text("LTX file", ltx) == ltx[1]


def test_a_glossary_entry_for_the_subject_says_what_it_is() -> None:
    """A glossary's entry ("Digest: a unique identifier …") defines its term as "X is …"
    does, better than a sentence that says where it is defined; a feature list's entry for
    a function says what it does, better than a sentence that only uses it. Another term's
    entry, or a label ("Note:"), does not."""
    digests = [
        "Digests are defined under the specification's appendix.",
        "Digest: a unique identifier created from a cryptographic hash of a Blob's content.",
    ]
    assert defining_text("Digests", digests) == digests[1]
    assert glossary_kind(["Digests"], "_Digest_: a hash.") is True
    intern = [
        "Using `_PyUnicode_InternStatic` on these is an error; the other cases don't change.",
        "`_PyUnicode_InternStatic`: intern a static singleton (`_Py_STR` or one-byte).",
    ]
    assert defining_text("_PyUnicode_InternStatic", intern) == intern[1]
    assert glossary_kind(["_PyUnicode_InternStatic"], intern[1]) is False  # no kind named
    assert glossary_kind(["Digests"], "Blob: a digest's content.") is None
    feature = "Dependency resolution: Captures the complete dependency graph."  # a lock file's
    assert glossary_kind(["Dependency resolution"], feature) is None
    assert glossary_kind(["Digests"], "Note: digests are hashes.") is None


def test_an_opening_names_its_subject() -> None:
    assert opening_fault(["LoRA"], "LoRA trains low-rank adapters on a frozen model.") is None
    fault = opening_fault(["LoRA"], "Fine-tuning a large model needs much memory.")
    assert fault == "does not name its subject"
    assert defines(["top_p"], "`top_p` is the cumulative probability of the tokens kept.")
    assert not defines(["top_p"], "Lower values of `top_p` keep fewer tokens.")


def test_when_no_fact_stands_alone_code_writes_a_structural_opening_cited_and_marked(
    tmp_path: Path,
) -> None:
    doc = (
        "# Request options\n\n"
        "## Sampling\n\n"
        "Set the `temperature` option to zero for greedy decoding of the output.\n\n"
        "Higher values of `temperature` make the output more varied and less repetitive.\n\n"
        "Values of `temperature` above two are rarely useful for any kind of task.\n"
    )
    parsed = parse_document(doc, filename="opts.md")
    opening = structural_opening(
        "temperature", ["the `temperature` option"], ["p2"], parsed, parent="Request options"
    )
    assert opening is not None
    assert opening.text == (
        "`temperature` is an option of Request options described under “Sampling” in "
        "“Request options”."
    )
    assert kind_of("OLLAMA_HOST", ["Set the `OLLAMA_HOST` environment variable."], parsed) == (
        "environment variable"
    )

    vault = compile_docs(
        tmp_path,
        {
            "server.md": "# Database server\n\n"
            "The database server stores rows in pages of eight kilobytes on disk.\n\n"
            "## Connection pooling\n\n"
            "Each request borrows one open connection and returns it when done.\n\n"
            "Opening a new connection costs a round trip and an authentication step.\n\n"
            "A borrowed connection that stays idle for a minute is closed by the server.\n"
        },
    )
    page = topic_pages(vault)["Connection pooling"]
    assert page.props.get("opening") == "derived"  # type: ignore[attr-defined]
    summary = str(page.props["summary"])  # type: ignore[attr-defined]
    assert summary.startswith("Connection pooling is a section of “Database server”.")
    assert opening_fault(["Connection pooling"], summary) is None
    lead = split_body(page.body).lead  # type: ignore[attr-defined]
    assert "[[sources/server#^p" in lead  # cited to the section it comes from


def test_a_section_under_a_group_heading_is_one_of_the_group() -> None:
    """PDM's "Static URLs" sits under "Lock strategies": it is one of them. A heading of one
    word ("Digests") names a topic as often as a group, a task ("Syncing …") none."""
    doc = parse_document(
        "# Lock file\n\n## Lock strategies\n\n### Static URLs\n\n"
        "When it is enabled, the lock file stores the URLs of the packages.\n\n"
        "## Digests\n\n### Verification\n\nWhen it is consumed, content is verified.\n\n"
        "## Syncing dependencies\n\n### Extras\n\nWhen it is synced, extras are kept.\n",
        filename="lock.md",
    )
    by_heading = {s.heading: s for s in doc.sections}

    def opening(name: str) -> str:
        block = by_heading[name].block_ids[0]
        found = structural_opening(name, [doc.block(block).text], [block], doc)
        assert found is not None
        return found.text

    assert opening("Static URLs") == "Static URLs is one of the lock strategies in “Lock file”."
    assert opening("Verification") == "Verification is a section of “Lock file”."
    assert opening("Extras") == "Extras is a section of “Lock file”."


def test_a_section_that_shows_one_command_opens_with_its_lead_in_and_the_command() -> None:
    # pipenv's "Clearing the Cache" (scripts/data/overlap): its only prose is the lead-in
    text = (
        "# Locking\n\n## Clearing the Cache\n\nIf you encounter issues with dependency "
        "resolution:\n\n```bash\n$ pipenv lock --clear\n```\n\nThe cache lives in your home "
        "directory and grows with every resolution.\n\n"
        "## Filtering\n\nOne easy way to deal with this is to drop events:\n\n"
        "```sh\ncrox --minimum-duration 2\n```\n\nShort events are hidden from the trace view.\n"
    )
    doc = parse_document(text, filename="locking.md")
    opening = structural_opening("Clearing the Cache", ["The cache lives …"], ["p3"], doc)
    assert opening is not None and opening.block == "p1"
    assert opening.text == (
        "Clearing the Cache: If you encounter issues with dependency resolution: "
        "`pipenv lock --clear`."
    )
    assert opening_fault(["Clearing the Cache"], opening.text) is None
    # a lead-in that points back ("deal with this") says nothing alone
    other = structural_opening("Filtering", ["Short events …"], ["p6"], doc)
    assert other is not None and other.text == "Filtering is a section of “Locking”."


# -- pages that earn their place ------------------------------------------------------------

SERVER = """# HTTP Model Server

The HTTP Model Server answers chat requests over HTTP on port 8080.

## Chat completions endpoint

The chat completions endpoint takes a JSON body with these request fields.

- `top_p`: the cumulative probability of the tokens sampling keeps, from 0 to 1.
- `stop`: sequences of tokens on which the generation should end early.
- `max_tokens`: the largest number of tokens the server generates for one reply.
- `logit_bias`: a map from token ids to a bias added to their logits.

The chat completions endpoint streams its reply when the request asks for it.

## Response fields

- `finish_reason`: why the generation ended, either length or stop.
"""


def test_a_page_whose_facts_all_come_from_one_list_of_fields_becomes_rows_on_its_parent(
    tmp_path: Path,
) -> None:
    vault = compile_docs(tmp_path, {"server.md": SERVER})
    pages = topic_pages(vault)
    for field in ("top_p", "stop", "max_tokens", "logit_bias"):
        assert field not in pages, sorted(pages)
    holders = [
        p
        for p in pages.values()
        if "`top_p`: the cumulative probability" in p.body  # type: ignore[attr-defined]
    ]
    assert holders, sorted(pages)
    row = next(
        line
        for line in holders[0].body.splitlines()  # type: ignore[attr-defined]
        if "`top_p`:" in line
    )
    assert "[[sources/server#^p" in row  # each row cited
    assert "HTTP Model Server" in pages  # the title's subject always has a page
    # each field is a cited row of the page's list, and an alias of it: a reader (and a
    # link, and the next source) finds `top_p` there
    holder = holders[0]
    aliases = holder.props.get("aliases") or []  # type: ignore[attr-defined]
    listed = split_body(holder.body).get(LISTED)  # type: ignore[attr-defined]
    for field in ("top_p", "max_tokens", "logit_bias"):  # (`stop`: see `members._parent`)
        assert field in aliases, aliases
        assert any(f"`{field}` — [[sources/server#^p" in b.text for b in bullets(listed)), listed


def test_a_member_is_a_row_of_its_parent_only_where_a_fact_names_it() -> None:
    """`--exact` is a flag of `uv sync`: a row of its page, cited to the sentence that names
    it. `--no-dev`, which only the usage block names (its facts are its neighbours'), gives
    its facts to the parent but no row: the row would cite a sentence that does not hold it.
    Nor does `-q`: a row is an alias, and "q" would name the page."""
    texts = [
        "The `uv sync` command installs the locked packages into the environment.",
        "With `--exact`, `uv sync` removes the packages the lock file does not list.",
        "Development dependencies are installed by default.",
        "With `-q`, `uv sync` prints nothing.",
    ]
    text = (
        "# Syncing\n\n"
        + "\n\n".join(texts)
        + "\n\n```console\n$ uv sync --exact\n$ uv sync --no-dev\n$ uv sync -q\n```\n"
    )
    doc = parse_document(text, filename="sync.md")
    sentences = {f"s{i}": Sentence(f"s{i}", f"p{i}", t) for i, t in enumerate(texts, 1)}
    topics = [
        Topic("uv sync", "concept", (), ("s1", "s2"), precise=True),
        Topic("--exact", "concept", (), ("s2",), precise=True),
        Topic("--no-dev", "concept", (), ("s3",), precise=True),
        Topic("-q", "concept", (), ("s4",), precise=True),
    ]
    ex = Extraction(
        Source("raw/sync.md", text, "sha256:0", "article"), "t", texts[0], doc, sentences, topics
    )
    placed = {t.name: t for t in place_topics(ex).topics}
    assert not {"--exact", "--no-dev", "-q"} & set(placed)
    assert placed["uv sync"].listed == ("--exact",)  # `-q`: a letter is no alias (MIN_ROW_KEY)
    assert placed["uv sync"].facts == ("s1", "s2", "s3", "s4")


def test_a_flag_is_named_only_as_written_not_by_its_words() -> None:
    """`--locked` has one sentence of its own; "Locking and syncing are automatic" and "the
    project is locked" name locking, not the flag, so they give it no page's worth of facts
    (`keeps_page`, which the second section would satisfy): it is a row of `uv run`, the
    command its code line runs, not of the program `uv`, though that is the title's subject
    and shares its section (`members._parent`: the command first, the longer of two)."""
    texts = [
        "Locking and syncing are automatic in uv.",
        "When `uv run` is used, the project is locked and synced first.",
        "To disable automatic locking, use the `--locked` option.",
        "The project is locked again when `pyproject.toml` changes.",
    ]
    text = (
        "# Projects\n\n"
        + "\n\n".join(texts[:3])
        + "\n\n```console\n$ uv run --locked ...\n```\n\n## Changes\n\n"
        + texts[3]
        + "\n"
    )
    doc = parse_document(text, filename="lock.md")
    blocks = ("p1", "p2", "p3", "p5")  # p4: the code block
    pairs = enumerate(zip(blocks, texts, strict=True), 1)
    sentences = {f"s{i}": Sentence(f"s{i}", p, t) for i, (p, t) in pairs}
    topics = [
        Topic("uv", "concept", (), ("s1",), subject=True),
        Topic("uv run", "concept", (), ("s2",), precise=True),
        Topic("--locked", "concept", (), ("s1", "s2", "s3", "s4"), precise=True),
    ]
    ex = Extraction(
        Source("raw/lock.md", text, "sha256:0", "article"), "t", texts[0], doc, sentences, topics
    )
    placed = {t.name: t for t in place_topics(ex).topics}
    assert "--locked" not in placed, sorted(placed)
    assert placed["uv run"].listed == ("--locked",)


def test_a_field_with_facts_of_its_own_named_elsewhere_keeps_its_page(tmp_path: Path) -> None:
    doc = SERVER + (
        "\n## Sampling\n\n"
        "Lower values of `top_p` keep fewer candidate tokens at each step.\n\n"
        "A `top_p` of 1 keeps every token the model proposes.\n\n"
        "The server applies `top_p` after the temperature scales the logits.\n"
    )
    pages = topic_pages(compile_docs(tmp_path, {"server.md": doc}))
    assert "top_p" in pages, sorted(pages)
    assert "stop" not in pages


def test_the_subjects_a_title_names_get_pages(tmp_path: Path) -> None:
    doc = parse_document("# Fine-Tuning with LoRA or QLoRA\n\nText.\n", filename="lora.md")
    assert [n for n, _ in title_subjects(doc)] == ["LoRA", "QLoRA"]
    code = parse_document("# Running mlx-lm on a Mac\n\nRun `mlx-lm` now.\n", filename="m.md")
    assert [n for n, _ in title_subjects(code)] == ["mlx-lm"]
    assert title_subjects(parse_document("# Getting Started\n\nText.\n", filename="g.md")) == []
    # a program the document runs, though written in lower case (PyPA's guide: pip, not venv)
    pip = parse_document(
        "# Install packages using pip and venv\n\nInstall a package.\n\n"
        "```bash\n$ pip install requests\n$ python3 -m venv .venv\n```\n\n"
        "Then `pip install` reads the index.\n",
        filename="pip.md",
    )
    assert [n for n, _ in title_subjects(pip)] == ["pip"]
    # the system a title is of, when it opens the title: TiDB's isolation levels document
    tidb = parse_document("# TiDB Transaction Isolation Levels\n\nText.\n", filename="t.md")
    assert [n for n, _ in title_subjects(tidb)] == ["TiDB Transaction Isolation Levels", "TiDB"]
    http = parse_document("# HTTP Model Server\n\nText.\n", filename="h.md")
    assert [n for n, _ in title_subjects(http)] == ["HTTP Model Server"]  # a common term

    vault = compile_docs(
        tmp_path,
        {
            "lora.md": "# Fine-Tuning with LoRA or QLoRA\n\n"
            "Fine-tuning changes the weights of a pretrained model for a new task.\n\n"
            "## Training\n\n"
            "LoRA trains small low-rank adapter matrices while the base model stays frozen.\n\n"
            "QLoRA quantizes the frozen base model to four bits before it trains adapters.\n"
        },
    )
    pages = topic_pages(vault)
    assert {"LoRA", "QLoRA"} <= set(pages), sorted(pages)


def test_titles_never_hold_link_syntax() -> None:
    assert safe_title("bitsandbytes[training]") == "bitsandbytes (training)"
    for name in ("a[[b]]", "x|y", "C#", "p^2"):
        title = safe_title(name)
        assert not any(bad in title for bad in ("[[", "]]", "|", "#", "^")), title


# -- related links ------------------------------------------------------------------------------

CACHES = """# Caches of an inference server

## KV cache

The KV cache stores the keys and values of past tokens for each sequence.

The KV cache grows with every token the model generates for a sequence.

## Prefix cache

The prefix cache reuses the KV cache of a prompt prefix that two requests share.

The prefix cache saves the prefill of a system prompt every request repeats.

## Tokenizer

The tokenizer splits text into tokens with a byte-pair vocabulary of 32000 entries.

The tokenizer runs on the CPU before any request reaches the GPU.

## Scheduler

The scheduler batches the requests that wait for the GPU into one forward pass.

The scheduler admits a request only when the GPU holds enough free memory.
"""


def test_related_links_rank_pages_that_share_facts_or_name_each_other(tmp_path: Path) -> None:
    pages = topic_pages(compile_docs(tmp_path, {"caches.md": CACHES}))

    def related(title: str) -> list[str]:
        body = split_body(pages[title].body)  # type: ignore[attr-defined]
        return [lnk.alias or lnk.target for b in bullets(body.get(RELATED)) for lnk in b.links]

    assert related("Prefix cache")[:1] == ["KV cache"]  # its facts name the KV cache
    assert "Tokenizer" not in related("Prefix cache")  # nothing in common
    assert related("KV cache")[:1] == ["Prefix cache"]
    lists = [tuple(related(t)) for t in pages]
    assert len(set(lists)) > 1, lists  # not the same siblings on every page of the source
    for page in pages.values():
        for b in bullets(split_body(page.body).get(RELATED)):  # type: ignore[attr-defined]
            assert parse_links(b.text)


def test_a_fact_that_stands_alone_later_replaces_a_derived_opening(tmp_path: Path) -> None:
    paths = make_wiki(tmp_path / "w")
    silent = FakeBackend(lambda call: "no model", name="no model")
    source = paths.raw / "server.md"
    first = (
        "# Database server\n\n"
        "The database server stores rows in pages of eight kilobytes on disk.\n\n"
        "## Connection pooling\n\n"
        "Each request borrows one open connection and returns it when done.\n\n"
        "Opening a new connection costs a round trip and an authentication step.\n"
    )

    def compile_(text: str) -> object:
        source.write_text(text, encoding="utf-8")
        report = ingest(
            paths,
            IngestRequest(all_new=True, force=True),
            extract_backend=lambda: silent,
            write_backend=lambda: silent,
            today=DAY,
        )
        assert all(o.status == "ingested" for o in report.outcomes), report.outcomes
        return topic_pages(Vault.load(paths.wiki))["Connection pooling"]

    page = compile_(first)
    assert page.props.get("opening") == "derived"  # type: ignore[attr-defined]
    defined = "Connection pooling keeps a few open connections for the requests to share."
    page = compile_(
        first.replace("## Connection pooling\n\n", f"## Connection pooling\n\n{defined}\n\n")
    )
    assert "opening" not in page.props  # type: ignore[attr-defined]
    assert page.props["summary"] == defined  # type: ignore[attr-defined]
    lead = split_body(page.body).lead  # type: ignore[attr-defined]
    assert defined in lead and "is a section of" not in lead and "[[sources/" not in lead


def test_two_new_pages_of_a_source_never_open_with_one_sentence() -> None:
    # the overlap model compile of a4584e6: `python` and `activate`, both new pages of the pypa
    # guide, opened with the same sentence (a twin pair to a reader and to the bench)
    shared = "Activating a virtual environment will put the `python` executable on your PATH."
    own = "The python command runs the interpreter of the active environment."

    def fact(text: str) -> Fact:
        return Fact(text[:8], text, ("[[sources/pypa#^p1]]",), "")

    new = [("activate", [fact(shared)]), ("python", [fact(shared), fact(own)])]
    leads = _new_leads_apart([shared, shared], new)
    assert leads == [shared, own]
    # a sentence another page of the wiki opens with is taken too; a page with no other fact
    # keeps the one it has
    assert _new_leads_apart([shared], [new[1]], lambda: {fold(shared)}) == [own]
    assert _new_leads_apart([shared], [new[0]], lambda: {fold(shared)}) == [shared]
    assert _new_leads_apart([shared, shared], [None, new[1]]) == [shared, own]


def test_of_two_new_pages_the_subject_of_their_sentence_keeps_it() -> None:
    # the overlap code-only compile of c6707e2: "Key value", listed before "Bolt", kept Bolt's
    # definition as its opening and Bolt opened with "Bolt accesses all data by a byte slice
    # key."; the page a sentence defines keeps it, in either order
    defines = "Bolt is a pure Go key/value store inspired by the LMDB project."
    bolt_other = "Bolt accesses all data by a byte slice key."
    pairs = "Writing many key/value pairs at once is faster in one transaction."

    def fact(text: str) -> Fact:
        return Fact(text[:8], text, ("[[sources/bbolt#^p1]]",), "")

    key_value = ("Key value", [fact(defines), fact(pairs)])
    bolt = ("Bolt", [fact(defines), fact(bolt_other)])
    assert _new_leads_apart([defines, defines], [key_value, bolt]) == [pairs, defines]
    assert _new_leads_apart([defines, defines], [bolt, key_value]) == [defines, pairs]


def test_a_title_subject_the_model_named_from_one_sentence_gets_its_sentences() -> None:
    """The model named TiDB, a subject of "TiDB Transaction Isolation Levels", from one
    sentence: the page of the document's subject holds the sentences that name it, as it does
    when the model does not name it (TiDB had 1 fact with the model, 8 without)."""
    texts = [
        "TiDB implements Snapshot Isolation for compatibility with MySQL.",
        "Transactions see a consistent snapshot.",
        "TiDB retries a statement that meets a newer version.",
        "Starting from TiDB v3.0, automatic retry is disabled.",
    ]
    text = "# TiDB Transaction Isolation Levels\n\n" + "\n\n".join(texts) + "\n"
    doc = parse_document(text, filename="tidb.md")
    sentences = {f"s{i}": Sentence(f"s{i}", f"p{i}", t) for i, t in enumerate(texts, 1)}
    model = Topic("TiDB", "entity", (), ("s3",), from_model=True)
    ex = Extraction(
        Source("raw/tidb.md", text, "sha256:0", "article"), "t", texts[0], doc, sentences, [model]
    )
    (tidb,) = [t for t in place_topics(ex).topics if t.name == "TiDB"]
    assert tidb.subject and tidb.facts == ("s3", "s1", "s4")  # its own first, then the others
