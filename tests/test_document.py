"""wikic.vault.document: markdown sources parsed into sections, blocks and sentences."""

from __future__ import annotations

import re
import textwrap

from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from wikic.vault.document import Document, parse_document, render_source_body

_RENDERED = MarkdownIt("commonmark", {"html": True}).enable("table")


def parse(text: str, filename: str = "doc.md") -> Document:
    return parse_document(textwrap.dedent(text).lstrip("\n"), filename=filename)


def texts(doc: Document, kind: str | None = None) -> list[str]:
    return [b.text for b in doc.blocks if kind is None or b.kind == kind]


# -- generated documents ------------------------------------------------------------------

_WORD = st.from_regex(r"[A-Za-z][A-Za-z0-9]{0,8}[.,;:!?]?", fullmatch=True)
_CODE_LINE = st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=30)


@st.composite
def _marked_word(draw: st.DrawFn) -> tuple[str, str]:
    """(markdown, the prose it stands for)."""
    word = draw(_WORD)
    core = word.rstrip(".,;:!?")
    tail = word[len(core) :]
    style = draw(st.sampled_from(["", "", "", "*", "**", "link", "code", "hostile", "html"]))
    if style == "hostile":  # plain text to CommonMark, live syntax to Obsidian
        hostile = draw(st.sampled_from(["[[{}]]", "![[{}]]", "#{}", "${}$", "^{}", "%%{}%%"]))
        return hostile.format(core) + tail, hostile.format(core) + tail
    if style == "html":
        return f"<b>{core}</b>{tail}", word
    if style == "link":
        return f"[{core}](https://example.com/{core}){tail}", word
    if style == "code":
        return f"`{core}`{tail}", word
    return f"{style}{core}{style}{tail}", word


@st.composite
def _prose(draw: st.DrawFn, max_words: int = 12) -> tuple[list[str], str]:
    """(hard-wrapped markdown lines, plain text)."""
    words = draw(st.lists(_marked_word(), min_size=1, max_size=max_words))
    width = draw(st.integers(1, 5))
    lines = [" ".join(m for m, _ in words[i : i + width]) for i in range(0, len(words), width)]
    return lines, " ".join(w for _, w in words)


@st.composite
def _block(draw: st.DrawFn) -> tuple[str, str, str]:
    """(markdown, its prose, its code) for one generated block."""
    kind = draw(st.sampled_from(["paragraph", "list", "nested", "table", "quote", "code"]))
    if kind == "paragraph":
        lines, plain = draw(_prose())
        return "\n".join(lines), plain, ""
    if kind in ("list", "nested"):
        items = draw(st.lists(_prose(6), min_size=1, max_size=4))
        item_lines = [f"- {' '.join(lines)}" for lines, _ in items]
        if kind == "nested":
            item_lines.insert(1, f"  1. {' '.join(items[0][0])}")
            items.insert(1, items[0])
        return "\n".join(item_lines), " ".join(p for _, p in items), ""
    if kind == "table":
        cells = draw(st.lists(_WORD, min_size=4, max_size=4))
        table = f"| {cells[0]} | {cells[1]} |\n| --- | --- |\n| {cells[2]} | {cells[3]} |"
        return table, " ".join(cells), ""
    if kind == "quote":
        lines, plain = draw(_prose())
        return "\n".join("> " + line for line in lines), plain, ""
    code = "\n".join(draw(st.lists(_CODE_LINE, min_size=1, max_size=4))) + "\n"
    return f"~~~~~~\n{code}~~~~~~", "", code


_DOCUMENT = st.lists(
    st.one_of(_block(), _WORD.map(lambda w: (f"## {w}", "", ""))), min_size=1, max_size=8
)


def _source(parts: list[tuple[str, str, str]]) -> str:
    return "\n\n".join(md for md, _, _ in parts) + "\n"


def _chars(text: str) -> str:
    return re.sub(r"\s+", "", text)


def _prose_chars(doc: Document) -> str:
    pieces = []
    for block in doc.blocks:
        if block.kind == "table":
            pieces += [*block.header, *(cell for row in block.rows for cell in row)]
        elif block.kind != "code":
            pieces.append(block.text)
    return _chars("".join(pieces))


@settings(max_examples=25, deadline=None)
@given(_DOCUMENT)
def test_every_prose_character_lands_in_one_block_in_order(parts: list) -> None:
    doc = parse_document(_source(parts), filename="gen.md")
    assert _prose_chars(doc) == _chars("".join(prose for _, prose, _ in parts))


@settings(max_examples=25, deadline=None)
@given(_DOCUMENT)
def test_code_is_verbatim_and_ids_are_sequential(parts: list) -> None:
    doc = parse_document(_source(parts), filename="gen.md")
    assert [b.text for b in doc.blocks if b.kind == "code"] == [c for _, _, c in parts if c.strip()]
    assert [b.id for b in doc.blocks] == [f"p{i}" for i in range(1, len(doc.blocks) + 1)]
    assert [s.id for s in doc.sentences] == [f"s{i}" for i in range(1, len(doc.sentences) + 1)]
    assert all(doc.sentence(s.id).block == b.id for b in doc.blocks for s in b.sentences)
    assert [b for s in doc.sections for b in s.block_ids] == [b.id for b in doc.blocks]


@settings(max_examples=15, deadline=None)
@given(_DOCUMENT)
def test_parsing_is_deterministic(parts: list) -> None:
    text = _source(parts)
    assert parse_document(text, filename="a.md") == parse_document(text, filename="a.md")


@settings(max_examples=25, deadline=None)
@given(_DOCUMENT)
def test_rendered_body_keeps_code_and_ids_outside_fences(parts: list) -> None:
    doc = parse_document(_source(parts), filename="gen.md")
    tokens = _RENDERED.parse(render_source_body(doc))
    fenced = [t.content for t in tokens if t.type in ("fence", "code_block")]
    assert [f for f in fenced if f.strip()] == [b.text for b in doc.blocks if b.kind == "code"]
    # the id Obsidian reads ends each block's text; a "^p0" the prose itself writes is text
    ids = [re.search(r"(?:^|\s)\^(p\d+)$", t.content) for t in tokens if t.type == "inline"]
    assert [m.group(1) for m in ids if m] == [b.id for b in doc.blocks]


@settings(max_examples=25, deadline=None)
@given(_DOCUMENT)
def test_rendered_body_reads_back_as_the_same_text(parts: list) -> None:
    doc = parse_document(_source(parts), filename="gen.md")
    again = parse_document(render_source_body(doc), filename="gen.md")
    without_ids = [re.sub(r" \^p\d+$", "", b.text) for b in again.blocks]
    assert [t for t in without_ids if not re.fullmatch(r"\^p\d+", t)] == [
        b.text for b in doc.blocks
    ]


# -- real-looking documents ---------------------------------------------------------------


def test_readme_with_badges_toc_and_h2_first() -> None:
    doc = parse(
        """
        <p align="center"><img src="logo.png" alt="logo"></p>

        [![PyPI](https://img.shields.io/pypi/v/x.svg)](https://pypi.org/p/x) [![License: MIT](https://img.shields.io/badge/mit.svg)](LICENSE)

        ## Contents

        - [Install](#install)
        - [Fine-tune](#Fine-tune)

        ## Install

        Run `pip install x` to install it.
        """,
        filename="README.md",
    )
    assert (doc.title, doc.title_from) == ("Contents", "heading")
    assert [(b.kind, b.toc, b.text) for b in doc.blocks] == [
        ("item", True, "Install"),
        ("item", True, "Fine-tune"),
        ("paragraph", False, "Run pip install x to install it."),
    ]
    assert doc.blocks[2].code_spans == ("pip install x",)
    assert [s.path for s in doc.sections] == [("Contents",), ("Install",)]


def test_hard_wrapped_paragraph_is_one_block_of_sentences() -> None:
    doc = parse(
        """
        Prefill is a sequence of large matrix
        multiplications, e.g. attention and
        feed-forward blocks. Decode is different.
        """
    )
    (block,) = doc.blocks
    assert block.text == (
        "Prefill is a sequence of large matrix multiplications, e.g. attention and "
        "feed-forward blocks. Decode is different."
    )
    assert [s.text for s in block.sentences] == [
        "Prefill is a sequence of large matrix multiplications, e.g. attention and "
        "feed-forward blocks.",
        "Decode is different.",
    ]


def test_sentences_keep_code_spans_versions_and_file_names_whole() -> None:
    doc = parse(
        "Models live in `~/.ollama/models`. Upgrade to v0.32.1 with Python 3.11 first. "
        "Run `pip install -e .` and edit config.json. Compare CPU vs. GPU (AWQ). Done."
    )
    assert [s.text for s in doc.sentences] == [
        "Models live in ~/.ollama/models.",
        "Upgrade to v0.32.1 with Python 3.11 first.",
        "Run pip install -e . and edit config.json.",
        "Compare CPU vs. GPU (AWQ).",
        "Done.",
    ]


def test_footnotes_are_blocks_and_references_leave_the_text() -> None:
    doc = parse(
        """
        Quantization (AWQ)[^1] keeps accuracy.

        [^1]: Activation-aware *weight* quantization.
        """
    )
    para, note = doc.blocks
    assert para.text == "Quantization (AWQ) keeps accuracy."
    assert (note.kind, note.footnote, note.text) == (
        "footnote",
        "1",
        "Activation-aware weight quantization.",
    )
    body = render_source_body(doc)
    assert "(AWQ)[^1] keeps accuracy. ^p1" in body
    assert "[^1]: Activation-aware *weight* quantization. ^p2" in body


def test_option_list_items_carry_their_lead_in() -> None:
    doc = parse(
        """
        The server reads a config file. Some options, along with their defaults, are:

        - `--max-kv-size`: the largest KV cache, in tokens. Unbounded by default.
        - `--port`: 8080.
        """
    )
    items = [b for b in doc.blocks if b.kind == "item"]
    assert [b.lead_in for b in items] == ["Some options, along with their defaults, are:"] * 2
    assert items[0].text == "--max-kv-size: the largest KV cache, in tokens. Unbounded by default."
    assert [s.text for s in items[0].sentences] == [
        "--max-kv-size: the largest KV cache, in tokens.",
        "Unbounded by default.",
    ]
    assert items[0].code_spans == ("--max-kv-size",)


def test_table_rows_are_sentences_that_name_their_columns() -> None:
    doc = parse(
        """
        | Model | Prefill |
        |:------|--------:|
        | Qwen 0.5B | 107 tok/s |
        | Gemma 3 1B | **52** tok/s |
        """
    )
    (table,) = doc.blocks
    assert table.kind == "table"
    assert table.header == ("Model", "Prefill")
    assert table.rows == (("Qwen 0.5B", "107 tok/s"), ("Gemma 3 1B", "52 tok/s"))
    assert [s.text for s in table.sentences] == [
        "Model: Qwen 0.5B; Prefill: 107 tok/s",
        "Model: Gemma 3 1B; Prefill: 52 tok/s",
    ]
    assert table.strong == ("52",)
    assert render_source_body(doc) == (
        "| Model | Prefill |\n| :-- | --: |\n| Qwen 0.5B | 107 tok/s |\n"
        "| Gemma 3 1B | **52** tok/s |\n\n^p1\n"
    )


def test_pipes_in_table_code_spans_stay_inside_their_cell() -> None:
    doc = parse("| command | what |\n| --- | --- |\n| `ingest PATH \\| --all` | compile |\n")
    (table,) = doc.blocks
    assert table.rows == (("ingest PATH | --all", "compile"),)
    assert parse_document(render_source_body(doc), filename="x.md").blocks[0].rows == table.rows


def test_nested_items_are_blocks_led_in_by_their_parent() -> None:
    doc = parse(
        """
        1. Install the runtime
           - on Linux with apt
           - on macOS with brew
        2. Run it
        """
    )
    assert [(b.text, b.lead_in) for b in doc.blocks] == [
        ("Install the runtime", ""),
        ("on Linux with apt", "Install the runtime"),
        ("on macOS with brew", "Install the runtime"),
        ("Run it", ""),
    ]
    assert render_source_body(doc) == (
        "1. Install the runtime ^p1\n   - on Linux with apt ^p2\n"
        "   - on macOS with brew ^p3\n2. Run it ^p4\n"
    )


def test_code_and_quotes_take_their_id_on_a_line_of_its_own() -> None:
    doc = parse(
        """
        # Notes

        ```python
        x = "^p9 [[not a link]]"
        ```

        > Quoted *wisdom*.
        """
    )
    assert doc.blocks[0].lang == "python"
    assert render_source_body(doc) == (
        '## Notes\n\n```python\nx = "^p9 [[not a link]]"\n```\n\n^p1\n\n> Quoted *wisdom*.\n\n^p2\n'
    )


def test_front_matter_title_and_date() -> None:
    doc = parse(
        """
        ---
        title: Team sync
        date: 2024-03-05
        tags: [memory, agents]
        owner: {name: x}
        ---
        # Something else

        Text.
        """
    )
    assert (doc.title, doc.title_from) == ("Team sync", "front_matter")
    assert doc.front_matter == {
        "title": "Team sync",
        "date": "2024-03-05",
        "tags": ("memory", "agents"),
    }


def test_invalid_front_matter_is_empty() -> None:
    doc = parse("---\ntitle: [unclosed\n---\nText.\n", filename="2024-03-05-team-sync.md")
    assert doc.front_matter == {}
    assert (doc.title, doc.title_from) == ("2024-03-05 team sync", "filename")


def test_title_is_the_h1_or_else_the_first_heading() -> None:
    assert parse("Intro.\n\n## Usage\n\n# Real title\n").title_from == "h1"
    doc = parse("## Usage\n\nRun it.\n\n### Options\n\nSome.\n")
    assert (doc.title, doc.title_from) == ("Usage", "heading")
    assert [(s.heading, s.level, s.path) for s in doc.sections] == [
        ("Usage", 2, ("Usage",)),
        ("Options", 3, ("Usage", "Options")),
    ]
    assert render_source_body(doc).startswith("## Usage\n\nRun it. ^p1\n\n### Options")
    # a changelog's first heading names its latest release, not the document
    log = parse_document("## 0.6.1 (2023-07-24)\n\n- Fixed it.\n", filename="llm-changelog.md")
    assert (log.title, log.title_from) == ("llm changelog", "filename")


def test_preamble_is_section_zero_and_headings_shift_below_the_page_h1() -> None:
    doc = parse("Before.\n\n# Title\n\nAfter.\n")
    assert [(s.heading, s.level, s.block_ids) for s in doc.sections] == [
        ("", 0, ("p1",)),
        ("Title", 1, ("p2",)),
    ]
    assert render_source_body(doc) == "Before. ^p1\n\n## Title\n\nAfter. ^p2\n"


def test_html_blocks_become_text_or_nothing() -> None:
    doc = parse(
        """
        <p align="center"><img src="x.png"></p>

        <details><summary>Build from source</summary></details>

        <script>alert(1)</script>
        """
    )
    assert texts(doc) == ["Build from source"]


def test_hostile_source_text_renders_inert() -> None:
    doc = parse(
        """
        # Evil [[../../etc/passwd]]

        See [[../../etc/passwd]] and ![[secret.png]] <script>alert(1)</script> #tag $x$ ^p1
        <iframe src="https://evil.example"></iframe> [x](javascript:alert(1)) [y](notes.md)

        - [[Home]] <b>bold</b> %%hidden%%

        <script>
        document.cookie
        </script>
        """
    )
    assert "document.cookie" not in "".join(texts(doc))
    body = render_source_body(doc)
    tokens = _RENDERED.parse(body)
    html = [t for t in tokens if t.type == "html_block"]
    html += [c for t in tokens for c in t.children or [] if c.type == "html_inline"]
    assert html == []
    links = [c for t in tokens for c in t.children or [] if c.type == "link_open"]
    assert links == []
    assert not re.search(r"(?<!\\)\[(?<!\\)\[", body)
    assert re.findall(r" \^(p\d+)$", body, re.MULTILINE) == ["p1", "p2", "p3"]
    prose = re.sub(r" \^p\d+$", "", body, flags=re.MULTILINE).removeprefix("## ")
    assert not re.search(r"(?<!\\)[#$%^]", prose)


def test_links_keep_text_and_web_links_stay_links() -> None:
    doc = parse("Read [the guide](https://example.com/a_(b)) or [setup](#setup).\n")
    (block,) = doc.blocks
    assert block.text == "Read the guide or setup."
    assert block.markdown == "Read [the guide](https://example.com/a_%28b%29) or setup."


def test_myst_roles_read_as_their_text_or_as_code() -> None:
    """A Sphinx/MyST role is text and inline code to markdown-it: a reference reads as its
    text (or label) and no longer passes for a code name; other roles stay code."""
    doc = parse(
        "LLM has a new {ref}`plugins mechanism <installing-plugins>`, see {doc}`python-api`. "
        "Call {py:func}`~llm.get_model` or set {envvar}`LLM_USER_PATH`.\n"
    )
    (block,) = doc.blocks
    assert block.text == (
        "LLM has a new plugins mechanism, see python-api. Call llm.get_model or set LLM_USER_PATH."
    )
    assert block.code_spans == ("llm.get_model", "LLM_USER_PATH")
    assert "{ref}" not in block.markdown and "`llm.get_model`" in block.markdown
    numbered = parse("See {pep}`440` and {rfc}`9110#section-5` or {pep}`the PEP <517>`.\n")
    assert numbered.blocks[0].text == "See PEP 440 and RFC 9110 or the PEP."
    plain = parse("Braces {like} this and `code` stay as they are.\n").blocks[0]
    assert plain.text == "Braces {like} this and code stay as they are."
    assert plain.code_spans == ("code",)


def test_doc_builder_cross_references_read_as_their_code() -> None:
    """Hugging Face's docs write "[`~PreTrainedModel.from_pretrained`]" for a reference to an
    API: it read "[~PreTrainedModel.from_pretrained]", brackets and tilde, in 17 facts of a
    compile of its quantization guides; it reads as the code, as a Sphinx role's target does.
    A link, a reference link and brackets around words stay as they were."""
    doc = parse(
        "Load it with the [`~PreTrainedModel.from_pretrained`] method and an [`AwqConfig`]. "
        "See [`x`](https://a.example), [`y`][r] and [z].\n\n[r]: https://r.example\n"
    )
    block = doc.blocks[0]
    assert block.text == (
        "Load it with the PreTrainedModel.from_pretrained method and an AwqConfig. See x, y and"
        " [z]."
    )
    assert block.code_spans == ("PreTrainedModel.from_pretrained", "AwqConfig", "x", "y")
    assert "`PreTrainedModel.from_pretrained` method" in block.markdown
    assert "[`x`](https://a.example)" in block.markdown


def test_docs_site_markup_is_not_the_texts_words() -> None:
    """MkDocs admonitions, Hugo shortcodes and a superscript role, as PDM's, Poetry's and pip's
    documentation write them (scripts/data/overlap): an admonition's body is paragraphs, not
    "tip Added in 2.25.0." and an indented code block; the markup leaves the text."""
    doc = parse(
        "PDM supports two lock file formats.\n\n"
        "!!! tip\n    Added in 2.25.0.\n\n"
        "    Added experimental support for the pylock file format.\n\n"
        '??? note "Details"\n    Hidden text here.\n\n'
        "{{% note %}} If managing your own virtual environment, use it. {{% /note %}}\n\n"
        'See [Activating]({{< relref "managing-environments" >}}). Set '
        '[`in-project`]({{< relref "configuration" >}}).\n\n'
        '```\n{{< relref "kept" >}}\n```\n\n'
        "{sup}`1` Compatible versions differ in the final segment.\n"
    )
    assert [b.kind for b in doc.blocks] == ["paragraph"] * 7 + ["code", "paragraph"]
    assert [b.text for b in doc.blocks] == [
        "PDM supports two lock file formats.",
        "Added in 2.25.0.",
        "Added experimental support for the pylock file format.",
        "Details",  # a title of its own is the text its body answers; "Tip" is a label
        "Hidden text here.",
        "If managing your own virtual environment, use it.",
        "See Activating. Set in-project.",
        '{{< relref "kept" >}}\n',  # code stays verbatim
        "Compatible versions differ in the final segment.",
    ]
    assert doc.blocks[6].markdown == "See Activating. Set `in-project`."


def test_a_myst_admonition_is_the_texts_words_and_a_directive_of_code_stays_code() -> None:
    """Sphinx/MyST directives, as pip's documentation writes them (scripts/data/overlap): an
    admonition's or version note's body is paragraphs (its options and a one-word title are
    labels, a version note's argument its version); `{pip-cli}` shows a command line."""
    doc = parse(
        "```{versionchanged} 20.3\nPip's resolver can now backtrack.\n```\n\n"
        "````{admonition} Example\n:class: tip\n\nThe user requests `pip install tea`.\n\n"
        "```\n$ pip install tea\n```\n````\n\n"
        "```{admonition} Should I pin versions?\nPin them in applications.\n```\n\n"
        "```{note} Backtracking is not a bug.\nIt is how resolution works.\n```\n\n"
        "```{pip-cli}\n$ pip install tea\n```\n"
    )
    assert [(b.kind, b.text.strip(), b.example) for b in doc.blocks] == [
        ("paragraph", "Pip's resolver can now backtrack.", False),
        ("paragraph", "The user requests pip install tea.", True),
        ("code", "$ pip install tea", True),
        ("paragraph", "Should I pin versions?", False),
        ("paragraph", "Pin them in applications.", False),
        ("paragraph", "Backtracking is not a bug. It is how resolution works.", False),
        ("code", "$ pip install tea", False),
    ]
    assert doc.blocks[1].code_spans == ("pip install tea",)
    mkdocs = parse('!!! example\n    Run `my-app`.\n\n!!! tip "Example: a pin"\n    Pin.\n')
    assert [b.example for b in mkdocs.blocks] == [True, True, True]  # title, body; body


def test_content_tabs_and_colon_fences_are_the_texts_words() -> None:
    """MkDocs Material content tabs (uv's and vLLM's installation pages) and colon-fenced
    boxes (MyST, Docusaurus): their bodies are prose and fenced code, not an indented code
    block or a paragraph holding `:::`; a tab's label is left out, and `===` inside fenced
    code is code."""
    doc = parse(
        'Install uv.\n\n=== "macOS and Linux"\n\n    Use `curl` to run the script.\n\n'
        "    ```console\n    $ curl -LsSf https://astral.sh/uv/install.sh | sh\n    ```\n\n"
        '=== "Windows"\n\n    Use `irm` to run it.\n\nThen run `uv`.\n\n'
        '```text\n=== "not a tab"\n    inside\n```\n\n'
        ":::{warning}\nDo not delete the `.venv` folder.\n:::\n\n"
        ":::tip Example: pin it\nPin `foo` in the lock file.\n:::\n"
    )
    assert [(b.kind, b.text.strip(), b.example) for b in doc.blocks] == [
        ("paragraph", "Install uv.", False),
        ("paragraph", "Use curl to run the script.", False),
        ("code", "$ curl -LsSf https://astral.sh/uv/install.sh | sh", False),
        ("paragraph", "Use irm to run it.", False),
        ("paragraph", "Then run uv.", False),
        ("code", '=== "not a tab"\n    inside', False),
        ("paragraph", "Do not delete the .venv folder.", False),
        ("paragraph", "Example: pin it", True),
        ("paragraph", "Pin foo in the lock file.", True),
    ]


def test_a_block_keeps_the_texts_of_its_links_to_its_own_site() -> None:
    """A link to a path of the site loses its target in the markdown (it would be broken in
    the wiki); the block keeps its text. A web address, an anchor and code are not such."""
    doc = parse(
        "See the [Configuration Reference](/reference/config), [RFC 6838](https://x.org/r), "
        "[below](#below) and [`pdm lock`](../cli.md#lock).\n\n"
        "| Option | Where |\n|---|---|\n| retention | [Retention guide](./retention.md) |\n"
    )
    assert [b.site_links for b in doc.blocks] == [
        ("Configuration Reference",),
        ("Retention guide",),
    ]
    assert "(/reference/config)" not in doc.blocks[0].markdown


def test_text_that_looks_like_a_list_stays_a_paragraph() -> None:
    doc = parse("1986\\. A fine year.\n\n\\- not an item\n")
    assert [b.kind for b in doc.blocks] == ["paragraph", "paragraph"]
    tokens = _RENDERED.parse(render_source_body(doc))
    assert not any(t.type.endswith("list_open") for t in tokens)


def test_a_callout_marker_is_no_part_of_the_quotes_sentences() -> None:
    """GitHub and Obsidian callouts ("> [!TIP]"): the marker labels the box; the sentences
    are the quote's text, and the source page keeps the box (marker unescaped, own line)."""
    doc = parse_document(
        "> [!TIP]\n> Subword tokenization helps with `long` words.\n", filename="t.md"
    )
    (quote,) = doc.blocks
    assert quote.text == "Subword tokenization helps with long words."
    assert quote.code_spans == ("long",)
    assert quote.markdown.splitlines()[0] == "> [!TIP]"
    assert "Subword tokenization helps with `long` words." in quote.markdown
    plain = parse_document("> A plain [!x] quote.\n", filename="p.md").blocks[0]
    assert plain.text == "A plain [!x] quote."
