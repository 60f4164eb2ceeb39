"""Inline markdown as clean prose and as inert markdown.

Clean text keeps what a reader reads (link text, inline code) and drops markup, URLs, images,
footnote references and HTML tags. Inert markdown renders as that text in Obsidian: nothing
from a source can become a wikilink, embed, tag, math, HTML or block id. Prose is split into
sentences by `wikic.language.segmentation`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser

from markdown_it.tree import SyntaxTreeNode

_SPACE_RE = re.compile(r"\s+")
# Characters Obsidian or CommonMark could turn into markup, links, tags, math, comments or
# block ids; `<`, `>` and entity-like `&` become HTML entities instead.
_ESCAPE_RE = re.compile(r"[\\`*_\[\]#$^|~]|%%|==|<|>|&(?=#?\w+;)")
_ENTITIES = {"<": "&lt;", ">": "&gt;", "&": "&amp;"}
_LINE_START_RE = re.compile(r"^(?:([-+])|(\d+)([.)]))(?=\s|$)")
_LINK_SCHEMES = ("http://", "https://", "mailto:")
_SCHEME_RE = re.compile(r"[a-z][a-z0-9+.-]*:", re.IGNORECASE)  # `ftp:`, `javascript:`
# A MyST/Sphinx role (`{ref}`text <target>``) is text followed by inline code: a reference
# reads as its text (or its label), any other role (`{func}`, `{envvar}`) as code.
_ROLE_RE = re.compile(r"\{([a-z][\w:+-]*)\}$")
_TEXT_ROLES = frozenset({
    "ref", "doc", "numref", "term", "any", "download", "abbr", "guilabel", "menuselection",
    "cite", "eq",
})  # fmt: skip
_ROLE_TARGET_RE = re.compile(r"\s*<[^<>]*>$")
# roles whose content is a mark, not text: a footnote number set as a superscript
_DROPPED_ROLES = frozenset({"sup", "sub"})
# roles Sphinx shows with the name of what they number: {pep}`440` is "PEP 440" (it had read
# "`440`": "can be found in `440`"), {rfc}`9110` "RFC 9110"
_NUMBERED_ROLES = {"pep": "PEP", "rfc": "RFC"}


def _cross_reference(nodes: list[SyntaxTreeNode], i: int) -> bool:
    """Whether `nodes[i]` is text that opens a Hugging Face doc-builder cross-reference,
    "[`~PreTrainedModel.from_pretrained`]": text ending in "[", inline code, text starting
    with "]" and no link after it. It reads as the code (`PreTrainedModel.from_pretrained`),
    as a Sphinx role's target does, not with its brackets and tilde."""
    if i + 2 >= len(nodes):
        return False
    text, code, close = nodes[i], nodes[i + 1], nodes[i + 2]
    return (
        text.type == "text"
        and text.content.endswith("[")
        and code.type == "code_inline"
        and close.type == "text"
        and close.content.startswith("]")
        and not close.content.startswith("](")
    )


def escape(text: str) -> str:
    """Markdown that renders as `text` literally: no links, tags, math, HTML or block ids."""

    def one(m: re.Match[str]) -> str:
        s = m.group()
        return _ENTITIES.get(s[0], "") or "".join("\\" + c for c in s)

    return _ESCAPE_RE.sub(one, text)


def escape_line_start(markdown: str) -> str:
    """Keep a line that starts with `- `, `+ ` or `1. ` from becoming a list item."""
    m = _LINE_START_RE.match(markdown)
    if not m:
        return markdown
    if m.group(1):
        return "\\" + markdown
    return m.group(2) + "\\" + markdown[len(m.group(2)) :]


@dataclass
class Inline:
    """One inline run: clean text, inert markdown, and the spans worth remembering."""

    text: str = ""
    markdown: str = ""
    code_spans: list[str] = field(default_factory=list)
    strong: list[str] = field(default_factory=list)
    # (start, end) offsets in `text` of inline code, which sentence splitting must not cut.
    protected: list[tuple[int, int]] = field(default_factory=list)
    # the texts of links to a path of the document's own site (`[Getting Started](/start)`),
    # whose targets the markdown drops: not a web address, not an anchor of the document
    site_links: list[str] = field(default_factory=list)


class _Renderer:
    def __init__(self, table_cell: bool) -> None:
        self.table_cell = table_cell
        self.out = Inline()
        self.parts: list[str] = []
        self._strong_depth = 0
        self._strong_start = 0

    def add_text(self, raw: str, markdown: str) -> None:
        raw = _SPACE_RE.sub(" ", raw)
        if raw.startswith(" ") and (not self.out.text or self.out.text.endswith(" ")):
            raw = raw[1:]
        self.out.text += raw
        if markdown.startswith(" ") and self.parts and self.parts[-1].endswith(" "):
            markdown = markdown[1:]
        self.parts.append(markdown)

    def walk(self, nodes: list[SyntaxTreeNode]) -> None:
        role: str | None = None  # the role named at the end of the text node before
        reference = -2  # the code node of a cross-reference, read with the text before it
        for i, node in enumerate(nodes):
            if role is not None:
                self.role(role, node.content)
                role = None
                continue
            if i == reference:
                continue
            after = nodes[i + 1] if i + 1 < len(nodes) else None
            text = node.content if node.type == "text" else ""
            if i == reference + 1:  # the text after a cross-reference, from its "]"
                text = text[1:]
            named = _ROLE_RE.search(text)
            if named and after is not None and after.type == "code_inline":
                before = text[: named.start()]
                self.add_text(before, escape(_SPACE_RE.sub(" ", before)))
                role = named.group(1)
                continue
            if _cross_reference(nodes, i):
                before = text[:-1]
                self.add_text(before, escape(_SPACE_RE.sub(" ", before)))
                self.code(nodes[i + 1].content.lstrip("~"))
                reference = i + 1
                continue
            if i == reference + 1:
                self.add_text(text, escape(_SPACE_RE.sub(" ", text)))
                continue
            self.node(node)

    def node(self, node: SyntaxTreeNode) -> None:
        kind = node.type
        if kind == "text":
            self.add_text(node.content, escape(_SPACE_RE.sub(" ", node.content)))
        elif kind in ("softbreak", "hardbreak"):
            self.add_text(" ", " ")
        elif kind == "code_inline":
            self.code(node.content)
        elif kind == "html_inline":
            # Tags are dropped, never rendered; a <br> still separates words.
            if re.match(r"<br\b", node.content, re.IGNORECASE):
                self.add_text(" ", " ")
        elif kind == "footnote_ref":
            self.parts.append(f"[^{escape(str(node.meta.get('label', '')))}]")
        elif kind == "link":
            self.link(node)
        elif kind in ("em", "strong", "s"):
            self.emphasis(node)
        else:  # image, footnote_anchor, unknown plugins: dropped
            return

    def code(self, content: str) -> None:
        start = len(self.out.text)
        self.out.text += content
        self.out.protected.append((start, len(self.out.text)))
        self.out.code_spans.append(content)
        markdown = code_span(content)
        # A table cell ends at any unescaped pipe, even one inside a code span.
        self.parts.append(markdown.replace("|", "\\|") if self.table_cell else markdown)

    def role(self, name: str, content: str) -> None:
        """`{ref}`plugins mechanism <installing-plugins>`` reads "plugins mechanism";
        `{func}`~llm.get_model`` is the code `llm.get_model`."""
        shown = _ROLE_TARGET_RE.sub("", content).strip() or content.strip(" <>")
        kind = name.rpartition(":")[2]
        if kind in _DROPPED_ROLES:
            return
        if kind in _NUMBERED_ROLES and shown == content.strip():  # no label: "PEP 440#specs"
            shown = f"{_NUMBERED_ROLES[kind]} {shown.partition('#')[0]}"
            self.add_text(shown, escape(shown))
        elif kind in _TEXT_ROLES:
            self.add_text(shown, escape(shown))
        else:
            self.code(shown.lstrip("~!"))

    def link(self, node: SyntaxTreeNode) -> None:
        href = str(node.attrs.get("href", ""))
        live = href.lower().startswith(_LINK_SCHEMES)
        if live:
            self.parts.append("[")
        start, spans = len(self.out.text), len(self.out.code_spans)
        self.walk(node.children)
        if live:
            self.parts.append(f"]({_safe_url(href)})")
        elif (
            href
            and not href.startswith("#")
            and not _SCHEME_RE.match(href)
            and len(self.out.code_spans) == spans  # [`SET TRANSACTION`](…) names code
        ):
            self.out.site_links.append(self.out.text[start:].strip())

    def emphasis(self, node: SyntaxTreeNode) -> None:
        is_strong = node.type == "strong"
        if is_strong:
            if self._strong_depth == 0:
                self._strong_start = len(self.out.text)
            self._strong_depth += 1
        self.parts.append(node.markup)
        self.walk(node.children)
        self.parts.append(node.markup)
        if is_strong:
            self._strong_depth -= 1
            term = self.out.text[self._strong_start :].strip()
            if self._strong_depth == 0 and term:
                self.out.strong.append(term)


def code_span(content: str) -> str:
    longest = max((len(run) for run in re.findall(r"`+", content)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if content.startswith("`") or content.endswith("`") or not content.strip() else ""
    return f"{ticks}{pad}{content}{pad}{ticks}"


def _safe_url(href: str) -> str:
    return re.sub(r"[\s<>()\\]", lambda m: f"%{ord(m.group()):02X}", href)


def render_inline(node: SyntaxTreeNode, *, table_cell: bool = False) -> Inline:
    """Clean text and inert markdown of one `inline` node."""
    renderer = _Renderer(table_cell)
    renderer.walk(node.children)
    out = renderer.out
    markdown = "".join(renderer.parts)
    lead = len(out.text) - len(out.text.lstrip())
    out.text = out.text.strip()
    out.protected = [(s - lead, e - lead) for s, e in out.protected]
    out.markdown = escape_line_start(markdown.strip())
    return out


class _HTMLText(HTMLParser):
    _SKIP = frozenset({"script", "style", "template", "noscript"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skipping = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self._SKIP:
            self._skipping += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in self._SKIP and self._skipping:
            self._skipping -= 1

    def handle_data(self, data: str) -> None:
        if not self._skipping:
            self.parts.append(data)


def html_text(html: str) -> str:
    """The visible text of an HTML fragment: tags, comments and script/style bodies dropped."""
    parser = _HTMLText()
    parser.feed(html)
    parser.close()
    return _SPACE_RE.sub(" ", " ".join(parser.parts)).strip()
