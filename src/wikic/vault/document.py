"""Markdown sources parsed as documents: sections of citable blocks, blocks of sentences.

Invariants: parsing is pure and deterministic (same text, same `pN` and `sN` ids, numbered in
document order); every piece of prose lands in exactly one block, code stays verbatim, and a
heading is a section, never a block. `render_source_body` renders all source text inert.

Choices: images are dropped (alt text too: on real pages it is badge and logo noise); an HTML
block becomes a paragraph of its visible text, or nothing when it has none (script and style
bodies never count); a list item made only of links to `#anchors` is kept with `toc=True`
so ingest can skip tables of contents; relative and anchor links keep only their text.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import PurePosixPath
from typing import Any

import yaml
from markdown_it import MarkdownIt
from markdown_it.tree import SyntaxTreeNode
from mdit_py_plugins.admon import admon_plugin
from mdit_py_plugins.colon_fence import colon_fence_plugin
from mdit_py_plugins.footnote import footnote_plugin
from mdit_py_plugins.front_matter import front_matter_plugin

from wikic.language.segmentation import bare_words, split_sentences
from wikic.vault.prose import Inline, escape, escape_line_start, html_text, render_inline

FrontValue = str | tuple[str, ...]


@dataclass(frozen=True)
class Sentence:
    id: str  # "s12", numbered across the whole document
    block: str  # "p3"
    text: str


@dataclass(frozen=True)
class Block:
    id: str  # "p1", "p2", … in document order
    kind: str  # paragraph | item | table | code | quote | footnote
    section: int
    text: str
    markdown: str
    sentences: tuple[Sentence, ...] = ()
    lead_in: str = ""
    toc: bool = False  # a table-of-contents entry: only links to #anchors
    lang: str = ""
    header: tuple[str, ...] = ()
    rows: tuple[tuple[str, ...], ...] = ()
    code_spans: tuple[str, ...] = ()
    strong: tuple[str, ...] = ()
    site_links: tuple[str, ...] = ()  # texts of links to pages of its site (`prose.Inline`)
    footnote: str = ""
    example: bool = False  # in an admonition titled "Example": it illustrates, made-up names


@dataclass(frozen=True)
class Section:
    index: int
    heading: str  # "" for the preamble before the first heading
    level: int  # 0 for the preamble
    path: tuple[str, ...]
    block_ids: tuple[str, ...]


@dataclass(frozen=True)
class Document:
    """A parsed source; `block(id)` and `sentence(id)` look up what the model cites."""

    title: str
    title_from: str  # front_matter | h1 | heading | filename
    front_matter: dict[str, FrontValue] = field(hash=False)
    sections: tuple[Section, ...]
    blocks: tuple[Block, ...]

    def block(self, block_id: str) -> Block:
        return self._blocks_by_id[block_id]

    @cached_property
    def sentences(self) -> tuple[Sentence, ...]:
        return tuple(s for b in self.blocks for s in b.sentences)

    def sentence(self, sentence_id: str) -> Sentence:
        return self._sentences_by_id[sentence_id]

    @cached_property
    def _blocks_by_id(self) -> dict[str, Block]:
        return {b.id: b for b in self.blocks}

    @cached_property
    def _sentences_by_id(self) -> dict[str, Sentence]:
        return {s.id: s for s in self.sentences}


_MD = (
    MarkdownIt("commonmark", {"html": True})
    .enable(["table", "strikethrough"])
    .use(front_matter_plugin)
    .use(footnote_plugin)
    .use(admon_plugin)  # `!!! note`, `??? tip "Title"`: MkDocs and Python-Markdown admonitions
    .use(colon_fence_plugin)  # `:::{note}` (MyST), `:::tip Title` (Docusaurus): boxes of text
)
_DATE_PREFIX_RE = re.compile(r"(\d{4}-\d{2}-\d{2})[-_ ]*(.*)")
_ANCHOR_ONLY_RE = re.compile(r"[\s\d.,;:|/()\-–—•·]*")
# Splits clean prose into sentences; the spans (inline code) must not be cut.
Segmenter = Callable[[str, list[tuple[int, int]]], list[str]]


@dataclass
class _Pending:
    """A block before its id and sentences are known."""

    kind: str
    text: str
    markdown: str
    prose: list[tuple[str, list[tuple[int, int]]]] = field(default_factory=list)
    rows: list[str] | None = None  # a table's sentences, one per row
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class _Context:
    indent: str = ""  # markdown prefix of blocks nested in list items
    parent_item: str = ""  # text of the enclosing list item


class _Builder:
    def __init__(self, segment: Segmenter) -> None:
        self.segment = segment
        self.blocks: list[Block] = []
        self.sections: list[tuple[str, int, tuple[str, ...], list[str]]] = []
        self.headings: list[tuple[int, str]] = []  # the open headings, outermost first
        self.n_sentences = 0
        self.examples = 0  # admonitions titled "Example" the walk is inside

    def heading(self, node: SyntaxTreeNode) -> None:
        level = int(node.tag[1])
        text = render_inline(node.children[0]).text if node.children else ""
        while self.headings and self.headings[-1][0] >= level:
            self.headings.pop()
        self.headings.append((level, text))
        self.sections.append((text, level, tuple(h for _, h in self.headings), []))

    def emit(self, pending: _Pending) -> Block | None:
        if not pending.text.strip():
            return None  # badge rows, image-only paragraphs, empty HTML: nothing to cite
        if not self.sections:
            self.sections.append(("", 0, (), []))
        block_id = f"p{len(self.blocks) + 1}"
        texts = (
            pending.rows
            if pending.rows is not None
            else [s for prose, protected in pending.prose for s in self.segment(prose, protected)]
        )
        sentences = []
        for text in texts:
            self.n_sentences += 1
            sentences.append(Sentence(f"s{self.n_sentences}", block_id, text))
        block = Block(
            id=block_id,
            kind=pending.kind,
            section=len(self.sections) - 1,
            text=pending.text,
            markdown=pending.markdown,
            sentences=tuple(sentences),
            **pending.extra,
            example=self.examples > 0,
        )
        self.blocks.append(block)
        self.sections[-1][3].append(block_id)
        return block

    # -- the block tree -------------------------------------------------------------------

    def walk(self, nodes: list[SyntaxTreeNode], ctx: _Context) -> None:
        previous: Block | None = None
        for node in nodes:
            kind = node.type
            if kind == "heading":
                self.heading(node)
                previous = None
                continue
            if kind == "admonition":  # its body is the document's text
                # a title of its own ("Should I add `pdm.lock` to version control?") is text
                # the body answers; the default one is its kind's name ("Tip"): a label
                titled = '"' in node.info
                kept = [c for c in node.children if titled or c.type != "admonition_title"]
                example = any(_is_example(part) for part in node.info.split('"'))
                self._walk_box(kept, ctx, example=example)
                previous = None
                continue
            if kind in ("fence", "colon_fence") and (directive := _prose_directive(node)):
                # a MyST/Sphinx admonition or version note (```{note}, ````{admonition} …):
                # its body is the document's text, as an MkDocs admonition's
                title, body, example = directive
                for text in (title, body):
                    self._walk_box(SyntaxTreeNode(_MD.parse(text)).children, ctx, example=example)
                previous = None
                continue
            if kind in ("bullet_list", "ordered_list"):
                self.list(node, ctx, _lead_in(previous, ctx))
                previous = None
                continue
            previous = self.leaf(node, ctx)

    def _walk_box(self, nodes: list[SyntaxTreeNode], ctx: _Context, *, example: bool) -> None:
        """An admonition's body; its blocks are marked `example` in one titled "Example"."""
        self.examples += example
        try:
            self.walk(nodes, ctx)
        finally:
            self.examples -= example

    def leaf(self, node: SyntaxTreeNode, ctx: _Context) -> Block | None:
        kind = node.type
        if kind in ("paragraph", "admonition_title"):
            return self.emit(_paragraph(node, ctx))
        if kind in ("fence", "code_block"):
            return self.emit(_code(node, ctx))
        if kind == "table":
            return self.emit(_table(node, ctx))
        if kind == "blockquote":
            return self.emit(_quote(node, ctx))
        if kind == "html_block":
            text = html_text(node.content)
            md = ctx.indent + escape_line_start(escape(text))
            return self.emit(_Pending("paragraph", text, md, prose=[(text, [])]))
        if kind == "footnote_block":
            for footnote in node.children:
                self.emit(_footnote(footnote))
        return None  # front matter, rules, unknown plugin blocks

    def list(self, node: SyntaxTreeNode, ctx: _Context, lead_in: str) -> None:
        ordered = node.type == "ordered_list"
        for item in node.children:
            marker = f"{item.info}{item.markup}" if ordered else item.markup
            children = list(item.children)
            head = children.pop(0) if children and children[0].type == "paragraph" else None
            inline = render_inline(head.children[0]) if head else None
            block = None
            if inline is not None:
                md = f"{ctx.indent}{marker} {inline.markdown}"
                extra = _spans(inline) | {"lead_in": lead_in, "toc": _is_toc(head)}
                block = self.emit(
                    _Pending(
                        "item", inline.text, md, [(inline.text, inline.protected)], extra=extra
                    )
                )
            inner = ctx
            if block is not None:
                inner = _Context(ctx.indent + " " * (len(marker) + 1), block.text)
            self.walk(children, inner)


def _lead_in(previous: Block | None, ctx: _Context) -> str:
    """The sentence that introduces a list: a preceding `…:` paragraph, else the parent item."""
    if previous is not None and previous.kind == "paragraph" and previous.text.endswith(":"):
        return previous.sentences[-1].text if previous.sentences else previous.text
    return ctx.parent_item


_SPANS = ("code_spans", "strong", "site_links")  # what a block keeps of its inline runs


def _spans(inline: Inline) -> dict[str, Any]:
    return {k: tuple(getattr(inline, k)) for k in _SPANS}


def _is_toc(paragraph: SyntaxTreeNode | None) -> bool:
    """A list item that is nothing but links to #anchors of the same document."""
    if paragraph is None:
        return False
    nodes = paragraph.children[0].children
    links = [n for n in nodes if n.type == "link"]
    if not links or not all(str(n.attrs.get("href", "")).startswith("#") for n in links):
        return False
    rest = "".join(n.content for n in nodes if n.type in ("text", "softbreak"))
    return _ANCHOR_ONLY_RE.fullmatch(rest) is not None


def _paragraph(node: SyntaxTreeNode, ctx: _Context) -> _Pending:
    inline = render_inline(node.children[0])
    md = ctx.indent + inline.markdown
    return _Pending(
        "paragraph", inline.text, md, [(inline.text, inline.protected)], extra=_spans(inline)
    )


# MyST (Sphinx) directives whose body is prose: admonitions and version notes. Others
# (```{code-block} python, ```{pip-cli}, ```{toctree}) stay what they show, code.
_PROSE_DIRECTIVES = frozenset(
    {
        "admonition", "note", "tip", "hint", "important", "warning", "caution", "attention",
        "danger", "error", "seealso", "versionadded", "versionchanged", "deprecated", "topic",
        "sidebar",
    }
)  # fmt: skip
_DIRECTIVE_RE = re.compile(r"\{([\w-]+)\}\s*(.*)")
_DIRECTIVE_OPTION_RE = re.compile(r":[\w-]+:.*")  # ":class: tip" at the top of its body


_EXAMPLE_RE = re.compile(r"(?:example|examples)\b", re.IGNORECASE)


def _is_example(info: str) -> bool:
    """Whether an admonition's kind or title ("example", "Example: a dependency conflict")
    says it holds an example."""
    return bool(_EXAMPLE_RE.match(info.strip()))


def _prose_directive(node: SyntaxTreeNode) -> tuple[str, str, bool] | None:
    """(title, body, whether it is an example) of a fence that is a MyST directive with a
    prose body (`_PROSE_DIRECTIVES`), or of a colon fence (any: a box of text), else None. The
    title is an `{admonition}`'s argument of two words or more ("Should I commit the lock
    file?"); one word ("Example") labels the box, as an MkDocs admonition's default title
    does, and a version note's argument is its version ("20.3")."""
    m = _DIRECTIVE_RE.fullmatch(node.info.strip())
    if node.type == "colon_fence" and m is None:  # `:::tip Title`: a box of text, titled
        kind, _, argument = node.info.strip().partition(" ")
        example = _is_example(kind) or _is_example(argument)
        return (argument if len(argument.split()) >= 2 else ""), node.content, example
    if m is None or m.group(1).casefold() not in _PROSE_DIRECTIVES:
        return None
    lines = node.content.split("\n")
    while lines and _DIRECTIVE_OPTION_RE.fullmatch(lines[0].strip()):
        lines.pop(0)
    name, argument = m.group(1).casefold(), m.group(2).strip()
    example = name == "admonition" and _is_example(argument)
    if name == "admonition":
        title = argument if len(argument.split()) >= 2 else ""
    elif name in ("versionadded", "versionchanged", "deprecated"):
        title = ""
    else:  # "```{note} The text": the argument is the body's first line
        title, lines = "", [argument, *lines] if argument else lines
    return title, "\n".join(lines), example


def _code(node: SyntaxTreeNode, ctx: _Context) -> _Pending:
    content = node.content
    info = node.info.strip() if node.type == "fence" else ""
    char = "~" if "`" in info else "`"
    longest = max((len(r) for r in re.findall(re.escape(char) + "+", content)), default=0)
    fence = char * max(3, longest + 1)
    lines = [f"{fence}{info}", *content.removesuffix("\n").split("\n"), fence]
    if not content:
        lines = [f"{fence}{info}", fence]
    md = "\n".join(ctx.indent + line if line else "" for line in lines)
    lang = info.split()[0] if info else ""
    return _Pending("code", content, md, extra={"lang": lang})


def _table(node: SyntaxTreeNode, ctx: _Context) -> _Pending:
    rows: list[list[str]] = []
    md_rows: list[str] = []
    aligns: list[str] = []
    spans: dict[str, Any] = dict.fromkeys(_SPANS, ())
    for section in node.children:  # thead, tbody
        for tr in section.children:
            cells = [
                render_inline(cell.children[0], table_cell=True) if cell.children else Inline()
                for cell in tr.children
            ]
            if section.type == "thead":
                aligns = [_ALIGN.get(str(c.attrs.get("style", "")), "---") for c in tr.children]
            rows.append([c.text for c in cells])
            md_rows.append("| " + " | ".join(c.markdown for c in cells) + " |")
            for c in cells:
                for k in _SPANS:
                    spans[k] += tuple(getattr(c, k))
    header, body = (rows[0], rows[1:]) if rows else ([], [])
    md_rows.insert(1, "| " + " | ".join(aligns) + " |")
    md = "\n".join(ctx.indent + row for row in md_rows)
    text = "\n".join(" | ".join(c for c in row if c) for row in rows)
    extra = spans | {"header": tuple(header), "rows": tuple(tuple(r) for r in body)}
    return _Pending("table", text, md, rows=[_row_sentence(header, r) for r in body], extra=extra)


_ALIGN = {"text-align:left": ":--", "text-align:right": "--:", "text-align:center": ":-:"}


def _row_sentence(header: list[str], row: list[str]) -> str:
    """A table row as a sentence that names its columns: "Model: Qwen 0.5B; Prefill: 107"."""
    cells = [f"{h}: {c}" if h else c for h, c in zip(header, row, strict=False) if c]
    return "; ".join(cells)


# a callout's type marker opening a quote ("> [!TIP]", "> [!note]-"): Obsidian and GitHub
# render it as the box's label; it is no part of the quote's sentences
_CALLOUT_RE = re.compile(r"^\[![A-Za-z-]+\][+-]?\s*")
_ESCAPED_CALLOUT_RE = re.compile(r"^\\\[(![A-Za-z-]+)\\\]([+-]?)[ \t]*\n?")


def _quote(node: SyntaxTreeNode, ctx: _Context) -> _Pending:
    """A block quote as one block; lists, headings and code inside it are flattened, and a
    callout marker leaves the text (the markdown keeps it)."""
    prose: list[tuple[str, list[tuple[int, int]]]] = []
    md_parts: list[str] = []
    spans: dict[str, Any] = dict.fromkeys(_SPANS, ())
    for inner in _descendants(node):
        if inner.type == "inline":
            inline = render_inline(inner)
            text, protected = inline.text, inline.protected
            markdown = inline.markdown
            marker = _CALLOUT_RE.match(text) if not prose else None
            if marker:
                cut = marker.end()
                text = text[cut:]
                protected = [(a - cut, b - cut) for a, b in protected if a >= cut]
                # unescaped and on a line of its own: the source page shows the box
                markdown = _ESCAPED_CALLOUT_RE.sub(r"[\1]\2\n", markdown, count=1).rstrip("\n")
            if text:
                prose.append((text, protected))
            if text or marker:
                md_parts.append(markdown)
                for k in _SPANS:
                    spans[k] += tuple(getattr(inline, k))
        elif inner.type in ("fence", "code_block"):
            md_parts.append(_code(inner, _Context()).markdown)
    lines = [line for part in md_parts for line in [*part.split("\n"), ""]][:-1]
    md = "\n".join(f"{ctx.indent}>" + (f" {line}" if line else "") for line in lines)
    text = " ".join(p for p, _ in prose)
    return _Pending("quote", text, md, prose, extra=spans)


def _descendants(node: SyntaxTreeNode) -> list[SyntaxTreeNode]:
    found: list[SyntaxTreeNode] = []
    for child in node.children:
        if child.type in ("inline", "fence", "code_block"):
            found.append(child)
        else:
            found.extend(_descendants(child))
    return found


def _footnote(node: SyntaxTreeNode) -> _Pending:
    label = str(node.meta.get("label", ""))
    inlines = [render_inline(n) for n in _descendants(node) if n.type == "inline"]
    prose = [(i.text, i.protected) for i in inlines if i.text]
    text = " ".join(p for p, _ in prose)
    md = f"[^{escape(label)}]: " + " ".join(i.markdown for i in inlines if i.text)
    extra = {"footnote": label, "code_spans": tuple(c for i in inlines for c in i.code_spans)}
    return _Pending("footnote", text, md, prose, extra=extra)


# Hugo shortcodes (`{{% note %}}`, `{{< relref "x" >}}`): template markup, not the text's words
_SHORTCODE_RE = re.compile(r"\{\{[%<].*?[%>]\}\}")
_FENCE_RE = re.compile(r"^(`{3,}|~{3,}).*?^\1[^\S\n]*$", re.MULTILINE | re.DOTALL)


def _without_shortcodes(text: str) -> str:
    """`text` without Hugo shortcodes outside fenced code, before markdown reads it: in
    `[text]({{< relref "x" >}})` the shortcode keeps the link from being one."""
    if "{{" not in text:
        return text
    out, end = [], 0
    for m in _FENCE_RE.finditer(text):
        out += [_SHORTCODE_RE.sub("", text[end : m.start()]), m.group(0)]
        end = m.end()
    return "".join([*out, _SHORTCODE_RE.sub("", text[end:])])


# a content tab of MkDocs Material (pymdownx.tabbed): `=== "macOS and Linux"`, its body
# indented four spaces under it
_TAB_RE = re.compile(r'(?P<indent> {0,3}(?: {4})*)===[!+]? +"[^"\n]*" *')
_FENCE_OPEN_RE = re.compile(r" {0,3}(`{3,}|~{3,})")


def _tabs_opened(text: str) -> str:
    """`text` with each content tab's body moved out to its tab's own indent and the tab's
    label (`=== "pip"`) left out: without the extension, markdown reads a tab's body as an
    indented code block, prose and fenced code alike. Fenced code is left as it is."""
    if "===" not in text:
        return text
    lines, out, i = text.split("\n"), [], 0
    fence = ""
    while i < len(lines):
        line = lines[i]
        i += 1
        if fence:
            if line.strip().startswith(fence) and not line.strip().strip(fence[0]):
                fence = ""
            out.append(line)
            continue
        if m := _FENCE_OPEN_RE.match(line):
            fence = m.group(1)
            out.append(line)
            continue
        if (tab := _TAB_RE.fullmatch(line)) is None:
            out.append(line)
            continue
        inner = tab.group("indent") + "    "
        out.append("")
        while i < len(lines) and (not lines[i].strip() or lines[i].startswith(inner)):
            body = lines[i]
            out.append(tab.group("indent") + body[len(inner) :] if body.strip() else "")
            i += 1
    return "\n".join(out)


def parse_document(text: str, *, filename: str, segment: Segmenter | None = None) -> Document:
    """The document in `text`; `filename` only names it when nothing inside does."""
    tree = SyntaxTreeNode(_MD.parse(_tabs_opened(_without_shortcodes(text))))
    if segment is None:
        words = bare_words(text)  # an abbreviation of nupunkt's that is a word here

        def segment(prose: str, protected: list[tuple[int, int]]) -> list[str]:
            return split_sentences(prose, protected, words=words)

    builder = _Builder(segment)
    builder.walk(tree.children, _Context())
    front = next((n for n in tree.children if n.type == "front_matter"), None)
    front_matter = _front_matter(front.content if front else "")
    sections = tuple(
        Section(i, heading, level, path, tuple(ids))
        for i, (heading, level, path, ids) in enumerate(builder.sections)
    )
    title, title_from = _title(front_matter, sections, filename)
    return Document(title, title_from, front_matter, sections, tuple(builder.blocks))


def _front_matter(yaml_text: str) -> dict[str, FrontValue]:
    """Top-level scalar and list-of-scalar values as strings; anything unreadable is dropped."""
    try:
        data = yaml.safe_load(yaml_text) if yaml_text.strip() else None
    except yaml.YAMLError:
        return {}
    if not isinstance(data, dict):
        return {}
    flat: dict[str, FrontValue] = {}
    for key, value in data.items():
        if isinstance(value, list) and all(_is_scalar(v) for v in value):
            flat[str(key)] = tuple(_scalar(v) for v in value)
        elif _is_scalar(value):
            flat[str(key)] = _scalar(value)
    return flat


def _is_scalar(value: object) -> bool:
    return isinstance(value, str | int | float | bool | dt.date)


def _scalar(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dt.date):
        return value.isoformat()
    return str(value)


def _title(
    front_matter: dict[str, FrontValue], sections: tuple[Section, ...], filename: str
) -> tuple[str, str]:
    declared = front_matter.get("title")
    if isinstance(declared, str) and declared.strip():
        return declared.strip(), "front_matter"
    h1 = next((s.heading for s in sections if s.level == 1 and s.heading), "")
    if h1:
        return h1, "h1"
    heading = next((s.heading for s in sections if s.level > 0 and s.heading), "")
    if heading and not VERSION_RE.match(heading):
        return heading, "heading"
    # a changelog opening with "## 0.6.1 (2023-07-24)": that names its latest entry, not it
    return _readable_name(filename), "filename"


# a heading naming a release ("0.6.1 (2023-07-24)", "v1.2.0") or a day ("2024-03-01 standup")
VERSION_RE = re.compile(r"^v?\d+(?:\.\d+)+\b")
DATED_RE = re.compile(r"^\d{4}-\d{2}-\d{2}\b")


def names_release(heading: str) -> bool:
    """Whether a heading names a release or a day: the sections under it are that one's."""
    return bool(VERSION_RE.match(heading) or DATED_RE.match(heading))


def _readable_name(filename: str) -> str:
    """ "2024-03-05-team-sync.md" -> "2024-03-05 team sync"."""
    stem = PurePosixPath(filename.replace("\\", "/")).stem
    m = _DATE_PREFIX_RE.fullmatch(stem)
    date, rest = (m.group(1), m.group(2)) if m else ("", stem)
    words = re.sub(r"[-_]+", " ", rest).strip()
    return " ".join(p for p in (date, words) if p) or stem


def render_source_body(doc: Document, *, min_level: int = 2) -> str:
    """The source page's markdown: headings shifted so the shallowest is `min_level` (below the
    page's own H1 and sections), each block followed by its `^pN` id where Obsidian reads one,
    all source text inert."""
    levels = [s.level for s in doc.sections if s.level > 0]
    shift = min_level - min(levels) if levels else 0
    out: list[str] = []
    previous_kind = ""
    for section in doc.sections:
        if section.level > 0 and section.heading:
            level = min(6, section.level + shift)
            out.append(("\n\n" if out else "") + "#" * level + " " + escape(section.heading))
            previous_kind = "heading"
        for block_id in section.block_ids:
            block = doc.block(block_id)
            tight = previous_kind == block.kind == "item"
            out.append(("\n" if tight else "\n\n" if out else "") + _with_id(block))
            previous_kind = block.kind
    return "".join(out) + "\n" if out else ""


def _with_id(block: Block) -> str:
    if block.kind in ("paragraph", "item", "footnote"):
        return f"{block.markdown} ^{block.id}"
    # Tables, code and quotes take the id on a line of its own after the block, with a blank
    # line between: right under a table or quote it would be read as a row or a lazy quote line.
    indent = block.markdown[: len(block.markdown) - len(block.markdown.lstrip(" "))]
    return f"{block.markdown}\n\n{indent}^{block.id}"
