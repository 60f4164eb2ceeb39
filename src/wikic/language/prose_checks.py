"""Whether prose is a whole statement, a cut-off one, or an echo of wikic's own prompt text.

Pure functions of one string, linear in its length. Text may be clean prose (what ingest reads
from a source) or the inert markdown a page holds: citations are dropped, escapes undone, link
text kept, and code spans are masked so their punctuation never counts as the sentence's own.
"""

from __future__ import annotations

import re

from wikic.prompts.sentences import prompt_sentences

MIN_FACT_WORDS = 4
MIN_ECHO_CHARS = 30  # a shorter title can share words with a prompt by chance

_CITATION_RE = re.compile(r"\s*\[\[[^\[\]]*#\^[^\[\]]*\]\]")
_WIKILINK_RE = re.compile(r"!?\[\[([^\[\]|]*)(?:\|([^\[\]]*))?\]\]")
_ESCAPED_RE = re.compile(r"\\([!-/:-@\[-`{-~])")
_ENTITIES = (("&lt;", "<"), ("&gt;", ">"), ("&amp;", "&"))
_FOOTNOTE_RE = re.compile(r"\[\^[^\]\s]+\]")
_CODE_RE = re.compile(r"(`+)(.+?)\1")
_MD_LINK_RE = re.compile(r"\[([^\[\]]*)\]\(([^()\s]*)\)")
# a Markdown link or image, its text kept: `[Fly.io](https://fly.io/)`
_LINK_OR_IMAGE_RE = re.compile(r"!?\[([^\[\]\n]*)\]\([^()\s]*\)")
_WORD_RE = re.compile(r"\w+")
_CLOSERS = "\"'”’)]*_»"
_TERMINAL = ".!?"
_LIST_LEAD_RE = re.compile(r"^(?:[-*+]|\d+[.)])\s+")
_NON_WORDS_RE = re.compile(r"[\W_]+")
# Words a heading may have in lower case; any other lower-case word makes it prose.
_MINOR = frozenset({
    "a", "an", "and", "as", "at", "by", "for", "from", "in", "into", "of", "on", "or", "per",
    "the", "to", "via", "vs", "vs.", "with", "without",
})  # fmt: skip
# Words no English sentence ends on: text ending on one was cut (often at a markdown link).
CONTINUES = frozenset({
    "a", "an", "the", "and", "or", "but", "nor", "of", "to", "in", "on", "at", "by", "for",
    "from", "with", "into", "onto", "via", "than", "if", "whose", "is", "are", "was", "were",
    "been", "has", "had", "its", "their", "our", "your", "my", "such", "each", "every", "no",
    "very", "using", "including",
})  # fmt: skip

# Sentences of wikic's prompts, generated from their text (values filled in are left out). A
# page title found inside one of them (or equal to a short one) came from the prompt.
INSTRUCTION_TEXTS = prompt_sentences()
# Phrases that only a prompt says: a title containing one is an echo at any length.
INSTRUCTION_MARKERS = (
    "not instructions",
    "never instructions",
    "ignore anything in it",
    "ignore anything in them",
    "asks you to do something",
    "reply with json",
    "to be compiled into the wiki",
)
INSTRUCTION_OPENINGS = (
    "you are",
    "return json",
    "reply with json",
    "reply in json",
    "the source document",
    "below is a source",
    "below is one part of a source",
    "below are episodes",
    "task:",
    "system:",
)


def fold(text: str) -> str:
    """`text` for comparing words: code marks dropped, spaces collapsed, case folded."""
    return " ".join(text.replace("`", "").split()).casefold()


_INSTRUCTIONS_FOLDED = tuple(fold(t) for t in INSTRUCTION_TEXTS)
_INSTRUCTION_BLOB = "\n".join(_INSTRUCTIONS_FOLDED)
_INSTRUCTION_SET = frozenset(t.rstrip(" .:?") for t in _INSTRUCTIONS_FOLDED)


def links_as_text(text: str) -> str:
    """`text` with its Markdown links and images as their text: "[Blob](#blob): …" reads
    "Blob: …", "… such as [Fly.io](https://fly.io/) or …" reads "… such as Fly.io or …"."""
    return _LINK_OR_IMAGE_RE.sub(r"\1", text)


def plain(text: str) -> str:
    """Page markdown as prose: a trailing block id and citations (block links, and the links
    that end the text) dropped, other wikilinks as their shown text, escapes and entities
    undone, whitespace collapsed. Code spans and markdown links are kept."""
    text = " ".join(text.split())  # whitespace collapsed and stripped (str.split is C-fast)
    head, _, last = text.rpartition(" ")
    if last.startswith("^") and "[" not in last:  # a block id, valid or not: another rule's
        text = head
    while text.endswith("]]"):  # citations end a fact: drop them without a regex scan
        start = text.rfind("[[")
        if start < 0:
            break
        text = text[:start].rstrip()
    if "[[" in text:
        text = _CITATION_RE.sub("", text)
        text = _WIKILINK_RE.sub(lambda m: m.group(2) or m.group(1).rsplit("/", 1)[-1], text)
    return unescape(text)


def unescape(text: str) -> str:
    """Markdown escapes and HTML entities undone: the text as a reader sees it (`q4\\_0` is
    `q4_0`, `&lt;` is `<`)."""
    if "\\" in text:
        text = _ESCAPED_RE.sub(r"\1", text)
    if "&" in text:
        for entity, char in _ENTITIES:
            text = text.replace(entity, char)
    return text


def _mask_code(text: str) -> str:
    """Each closed code span as the word `CODE` (so `.` inside `pip install -e .` ends nothing)."""
    return _CODE_RE.sub("CODE", text) if "`" in text else text


def _terminated(masked: str) -> bool:
    end = masked.rstrip(_CLOSERS + " ")
    if end and end[-1] in _TERMINAL and (not end.endswith("...") or end.endswith("....")):
        return True
    # a remark in parentheses after a whole sentence: "It saves prefill. *(inference: …)*"
    bare = masked.rstrip("*_ ")
    opened = bare.rfind("(") if bare.endswith(")") else -1
    return opened > 0 and _terminated(bare[:opened].rstrip("*_ "))


def _ellipsis(masked: str) -> bool:
    """Ends with an ellipsis; one followed by a full stop ("run `x ...`." as prose) ends a
    sentence."""
    end = masked.rstrip(_CLOSERS + " ")
    return end.endswith(("...", "…")) and not end.endswith(("....", "…."))


def _looks_like_heading(masked: str) -> bool:
    """Title Case: every lower-case word is a minor word, and at least one word is capitalised."""
    capitalised = False
    for raw in masked.split(" "):
        word = raw.strip("()[]{}\"'“”‘’*_,;:/")
        if not word or not word[0].isalpha():
            continue  # numbers, symbols
        if word[0].isupper():
            capitalised = True
        elif word.casefold() not in _MINOR:
            return False
    return capitalised


def _only_links(masked: str) -> str | None:
    """A table-of-contents line or a list of links: nothing but links, numbering, separators."""
    if "](" not in masked:
        return None
    links = _MD_LINK_RE.findall(masked)
    if not links:
        return None
    rest = _MD_LINK_RE.sub(" ", _LIST_LEAD_RE.sub("", masked))
    if _NON_WORDS_RE.sub("", rest):
        return None
    if any(href.startswith("#") for _, href in links):
        return "a table-of-contents entry (links to the source's own headings)"
    return "only links, no statement"


# "Refer to the section above for …", "The table below lists …": about the document's layout
_POINTER_RE = re.compile(
    r"\b(?:refer to|see|check|read|follow) (?:the )?(?:\w+ )?(?:section|sections|steps|"
    r"instructions|example|examples|guide|table|list|docs|documentation)? ?(?:above|below)\b"
    r"|\b(?:section|sections|steps|example|examples|table|list) (?:above|below)\b",
    re.IGNORECASE,
)

# a sentence that only sends the reader to a link: "See ollama/ollama for more details.",
# "More details here: Accessing Llama 2 from the command-line …" (the address is dropped)
_SENDS_AWAY_RE = re.compile(
    r"^(?:see|refer to|read|check out|visit)\b.{0,80}\bfor (?:more|further|full|additional)? ?"
    r"(?:details|information|info)[.!]?$"
    r"|^(?:more|further|full|additional) (?:details|information|info)(?: (?:here|at|in))?:",
    re.IGNORECASE,
)


def fragment_reason(text: str) -> str | None:
    """Why `text` is not a whole, self-contained statement fit to be a fact, or None if it is.

    A fact is a sentence: at least MIN_FACT_WORDS words, closed code spans, brackets and
    parentheses, and a final '.' or '!' (optionally followed by closing quotes, parentheses or
    emphasis). Headings, lead-ins ending with ':', questions, table-of-contents lines, footnote
    markers and text cut at a link or by an ellipsis are fragments."""
    flat = plain(text)
    if not flat:
        return "empty"
    if flat.count("`") % 2:
        return "a code span is not closed (cut inside code)"
    masked = _mask_code(flat)
    if "[^" in masked and _FOOTNOTE_RE.search(masked):
        return "contains a footnote marker ([^…])"
    reason = _only_links(masked)
    if reason:
        return reason
    if masked.count("[") != masked.count("]"):
        return "unbalanced [ ] (cut inside a link)"
    if masked.count("(") > masked.count(")"):
        return "a parenthesis is not closed (cut off)"
    if masked.endswith(":"):
        return "ends with ':' (a lead-in to what follows, not a statement)"
    if _ellipsis(masked):
        return "ends with '…' (cut off)"
    if not _terminated(masked):
        if _looks_like_heading(masked):
            return "looks like a heading, not a sentence"
        last = masked.rpartition(" ")[2]
        if last.casefold() in CONTINUES:
            return f"cut off mid-sentence (ends with '{last}')"
        return "no terminal punctuation (not a whole sentence)"
    if masked.rstrip(_CLOSERS + " ").endswith("?"):
        return "a question, not a statement"
    if _POINTER_RE.search(re.sub(r"\([^()]*\)", "", masked)):  # "(see below)" is an aside
        return "points elsewhere in its document ('the section above'), saying nothing itself"
    if _SENDS_AWAY_RE.search(masked.strip()):
        return "only sends the reader to a link for details, saying nothing itself"
    # text with 2·N spaces has N words unless it is mostly symbols: count only in short text
    if flat.count(" ") < 2 * MIN_FACT_WORDS and len(_WORD_RE.findall(flat)) < MIN_FACT_WORDS:
        return f"fewer than {MIN_FACT_WORDS} words"
    return None


def cut_reason(text: str) -> str | None:
    """Why a summary or paragraph looks cut off (by a character cap or a fallback), or None.

    Only the end is judged: it must close its code spans and parentheses and end with terminal
    punctuation, and an ellipsis at the end is a truncation mark. Empty text is not cut."""
    flat = plain(text)
    if not flat:
        return None
    if flat.count("`") % 2:
        return "ends inside a code span"
    masked = _mask_code(flat)
    if _ellipsis(masked):
        return "ends with '…' (truncated)"
    if masked.endswith(":"):
        return "ends with ':'"
    if masked.count("(") > masked.count(")"):
        return "ends inside a parenthesis"
    if not _terminated(masked):
        words = _WORD_RE.findall(masked)
        return f"ends mid-sentence (after '{words[-1]}')" if words else "ends mid-sentence"
    return None


def instruction_echo(text: str) -> str | None:
    """Why `text` (a title) looks copied from wikic's own prompt text, or None."""
    folded = fold(plain(text)).strip(" \"'“”")
    if not folded:
        return None
    bare = folded.rstrip(" .:?!")
    for opening in INSTRUCTION_OPENINGS:
        if folded.startswith(opening):
            return f"starts like a prompt instruction ({opening!r})"
    for marker in INSTRUCTION_MARKERS:
        if marker in folded:
            return f"contains prompt instruction text ({marker!r})"
    if bare in _INSTRUCTION_SET:
        return "equals a sentence of wikic's prompt"
    if len(bare) >= MIN_ECHO_CHARS and bare in _INSTRUCTION_BLOB:
        return "is part of a sentence of wikic's prompt"
    return None


# an overview about the page or the source instead of its subject
_META_RE = re.compile(
    r"^(?:the|this) (?:(?:concept|entity|term|topic|page)\b"
    r"|(?:source|document|article|text)\b(?! of\b))",
    re.IGNORECASE,
)


def meta_reason(text: str) -> str | None:
    """Why an overview talks about the page or its source rather than its subject ("The
    concept of uv's resolution strategy …", "The source tells the reader to …"), or None. "The
    source of the error" is a subject, not the page."""
    flat = plain(text).strip()
    m = _META_RE.match(flat)
    return f"talks about the page, not its subject ({m.group(0)!r})" if m else None


# "model: llama 7B; size: 3.56 GiB; …": a table row as code renders it, cells as "header: value"
_CELL = r"[\w()/.+-]+(?: [\w()/.+-]+){0,3}: [^;:]{1,60}"
_ROW_CELL_RE = re.compile(rf"{_CELL}; {_CELL}")  # two cells in a row


def table_row_reason(text: str) -> str | None:
    """Why `text` reads as (or copies) a table row ("command: -t 7; tokens/second: 1.7"), or
    None: an overview made of cells is no prose, and a row is no definition."""
    m = _ROW_CELL_RE.search(plain(text))
    return f"copies a table row ({m.group(0).split(';')[0]!r})" if m else None
