"""Terms a document defines: bold terms, "Long Name (ABBR)", "X is a …" sentences, "`long` or
`short` for short", "the `clean` filter", and the projects its links name.
"""

from __future__ import annotations

import re

from wikic.language.abbreviations import long_form
from wikic.language.grounding import related
from wikic.language.headings import GENERIC_KEYS, MAX_HEADING_WORDS
from wikic.language.vocabulary import is_common_term
from wikic.vault.document import Document
from wikic.vault.names import name_key

_DEFINED_RE = re.compile(r"\b((?:[A-Z][\w-]*\s+){1,5}[A-Z]?[\w-]+)\s+\(([A-Za-z][\w-]{1,10})\)")


def defined_terms(doc: Document) -> list[str]:
    """Bold terms, "Long Name (ABBR)" definitions and code names of headings and list items."""
    terms: list[str] = []
    for block in doc.blocks:
        if block.toc:
            continue
        terms += [t for t in block.strong if 1 <= len(t.split()) <= MAX_HEADING_WORDS]
        for m in _DEFINED_RE.finditer(block.text):
            if m.group(2)[0].isupper() or related(m.group(2), m.group(1)):
                terms.append(m.group(1).strip())  # "Prompt processing (pp)", not "Go (optional)"
        if block.kind == "item":
            terms += [c for c in block.code_spans[:1] if re.fullmatch(r"[\w.-]{3,40}", c)]
    seen: set[str] = set()
    unique = []
    text = " ".join(b.text for b in doc.blocks).casefold()
    for t in terms:
        key = name_key(t)
        if _a_state(t, text):
            continue
        if key and key not in seen and key not in GENERIC_KEYS:
            seen.add(key)
            unique.append(t)
    return unique


MIN_VERB = 4  # letters of the shortest verb a participle term is checked against


def _a_state(term: str, text: str) -> bool:
    """Whether a bold term is one past participle of a verb the document writes (`text`,
    case-folded): "**Truncated** (`Code == 0`): the WAL is reset" labels an outcome of
    "truncate", as "**Deprecated**" or "**Supported**" label a state; a page of it names no
    thing. "Seed" or "Embed" are no participles: no verb of four letters or more before the
    "-ed"."""
    word = term.strip().casefold()
    if " " in word or not word.endswith("ed") or not word.isalpha():
        return False
    bases = {word[:-2], word[:-1]}  # "locked" → "lock", "truncated" → "truncate"
    return any(
        len(b) >= MIN_VERB and re.search(rf"(?<![\w-]){b}(?:s)?(?![\w-])", text) for b in bases
    )


# what a one-word code name is ("the `clean` filter"), singular
_KIND_WORDS = (
    "filter", "command", "option", "flag", "hook", "function", "method", "parameter",
    "setting", "field", "subcommand", "directive", "attribute", "macro",
)  # fmt: skip
_KIND_RE = re.compile(rf"^\s+({'|'.join(_KIND_WORDS)})s?\b")


def kind_names(doc: Document) -> list[str]:
    """Names a one-word code span makes with the kind word after it: "the `clean` filter" names
    the "clean filter", "the `pointer` command" the "pointer command" (`clean` alone is any
    word), in document order."""
    found: dict[str, None] = {}
    for block in doc.blocks:
        if block.toc or block.kind == "code":
            continue
        here: list[tuple[int, str]] = []
        for span in dict.fromkeys(block.code_spans):
            if not re.fullmatch(r"[a-z][a-z-]{2,}", span):
                continue
            for m in re.finditer(rf"(?<![\w-]){re.escape(span)}(?![\w-])", block.text):
                kind = _KIND_RE.match(block.text[m.end() :])
                if kind:
                    here.append((m.start(), f"{span} {kind.group(1)}"))
        found.update((name, None) for _, name in sorted(here))
    return list(found)


# "Safe memory reclamation (SMR)": a term the document defines with its abbreviation
_ABBREVIATED_RE = re.compile(
    r"\b([A-Za-z][\w-]*(?:\s+[\w-]+){1,5}?)\s+\(([A-Z][A-Z0-9]{1,9}s?|[a-z]{2,5})\)"
)


def defined_abbreviations(doc: Document) -> dict[str, tuple[str, ...]]:
    """Terms the document defines with their abbreviation (`abbreviations.long_form`, of two
    words or more): "Safe memory reclamation (SMR)" gives "Safe memory reclamation": ("SMR",),
    "Prompt processing (pp)" gives "Prompt processing": ("pp",), "_transaction ID_ (TXID)"
    gives "Transaction ID": ("TXID",). An abbreviation of one word ("database (DB)") is each
    project's own shortening of a common word, no term."""
    found: dict[str, tuple[str, ...]] = {}
    for block in doc.blocks:
        if block.toc or block.kind == "code":
            continue
        for m in _ABBREVIATED_RE.finditer(block.text):
            abbr = m.group(2).removesuffix("s")  # "SMRs"
            term = long_form(abbr, m.group(1))
            if term and len(term.split()) >= 2 and term[0].isalpha():
                found.setdefault(term[0].upper() + term[1:], (abbr,))
    return found


_FOR_SHORT_RE = re.compile(r"([\w./-]+),? or ([\w./-]+),? for short\b")


def short_names(doc: Document) -> dict[str, tuple[str, ...]]:
    """Code names the document shortens: "`rustc_codegen_cranelift` or `cg_cranelift` for
    short" gives `rustc_codegen_cranelift`: (`cg_cranelift`,)."""
    found: dict[str, tuple[str, ...]] = {}
    for block in doc.blocks:
        if block.toc or block.kind == "code":
            continue
        for long, short in _FOR_SHORT_RE.findall(block.text):
            if {long, short} <= set(block.code_spans) and short not in found.get(long, ()):
                found[long] = (*found.get(long, ()), short)
    return found


# `[llm-replicate](https://github.com/simonw/llm-replicate)`: an inline link to a web address
_WEB_LINK_RE = re.compile(r"\[`?([^\[\]`\n]+)`?\]\((https?://[^()\s]+)\)")
_LINKED_NAME_RE = re.compile(r"[A-Za-z][\w.+-]{1,39}")


def linked_names(doc: Document) -> list[str]:
    """Names of what the document links to, where the link's text is the last part of its
    address: `[llm-replicate](https://github.com/simonw/llm-replicate)`,
    `[Ruff](https://github.com/astral-sh/ruff)`. Such a link names a project, package or tool
    as its own home calls it: a precise name a reader looks up, however it is cased. A page
    deep in a site's docs (`[Windows](https://docs.docker.com/desktop/settings/windows/)`)
    names no project."""
    found: dict[str, None] = {}
    for block in doc.blocks:
        if block.toc or block.kind == "code":
            continue
        for text, url in _WEB_LINK_RE.findall(block.markdown):
            path = url.split("#", 1)[0].split("?", 1)[0].rstrip("/")
            last = re.sub(r"\.(?:git|html?|md)$", "", path.rpartition("/")[2])
            name = text.strip()
            parts = path.partition("://")[2].split("/")[1:]
            if (
                1 <= len(parts) <= 2  # a project's home (`owner/name`), not a page deep in docs
                and _LINKED_NAME_RE.fullmatch(name)
                and not is_common_term(name)
                and name.casefold() == last.casefold()
                and name_key(name) not in GENERIC_KEYS
            ):
                found[name] = None
    return list(found)
