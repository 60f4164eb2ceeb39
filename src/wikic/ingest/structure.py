"""Topics from the document's structure, before any model call.

A section whose heading names a thing ("Speculative decoding", "`llama-server`", "LoRA") is a
topic whose evidence is that section's own blocks: its whole-fact sentences and its code. A
heading that only organises the text ("Installation", "Tips", "Contents", "FAQ") is a section,
not a page. Defined terms (bold terms, "Distilled Weight Quantization (DWQ)") and code names are
candidates the model may pick among.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from wikic.ingest.text import Sentence
from wikic.vault.document import Document
from wikic.vault.names import name_key

# headings that organise a document rather than name a subject
GENERIC_HEADINGS = {
    "about", "abstract", "acknowledgements", "acknowledgments", "appendix", "attendance",
    "attendees", "authors", "background", "basic usage", "build", "building", "caveats",
    "changelog", "changes", "citation", "community", "conclusion", "conclusions", "configuration",
    "contact", "contents", "context", "contributing", "credits", "demo", "description",
    "details", "discussion", "documentation", "download", "example", "examples", "faq",
    "features", "further reading", "getting started", "guide", "help", "highlights", "how",
    "how it works", "how to use", "install", "installation", "introduction", "issues", "license",
    "limitations", "links", "motivation", "next steps", "notes", "options", "other",
    "overview", "prerequisites", "problem", "quick start", "quickstart", "readme", "references",
    "related", "related work", "release notes", "requirements", "resources", "results", "run",
    "running", "see also", "setup", "summary", "support", "table of contents", "testing",
    "tips", "toc", "todo", "troubleshooting", "tutorial", "unresolved questions", "usage",
    "use", "what", "why", "agenda", "action items", "minutes", "participants", "questions",
    "announcements", "misc", "miscellaneous", "general", "update", "updates", "fixes",
    "bug fixes", "new features", "breaking changes", "deprecations", "thanks", "outline",
}  # fmt: skip
_GENERIC_KEYS = {name_key(h) for h in GENERIC_HEADINGS}
_NUMBERING_RE = re.compile(r"^(?:\d+(?:\.\d+)*[.)]?|[IVX]+\.|[A-Z]\.)\s+")
_VERSION_RE = re.compile(r"^v?\d+(?:\.\d+)+\b")
_DEFINED_RE = re.compile(r"\b((?:[A-Z][\w-]*\s+){1,5}[A-Z]?[\w-]+)\s+\(([A-Z][A-Za-z0-9-]{1,10})\)")
MAX_HEADING_WORDS = 6
FACTS_PER_SECTION_TOPIC = 8
USAGE_PER_TOPIC = 2


@dataclass(frozen=True)
class SectionTopic:
    name: str
    section: int
    facts: tuple[str, ...]  # sentence ids, in document order
    usage: tuple[str, ...]  # block ids of code blocks


def heading_name(heading: str) -> str | None:
    """A heading as a topic name, or None when it organises rather than names."""
    text = _NUMBERING_RE.sub("", " ".join(heading.split())).strip(" :.?!#`*_")
    text = text.replace("`", "")
    if not text or _VERSION_RE.match(text) or not any(c.isalpha() for c in text):
        return None
    words = text.split()
    if len(words) > MAX_HEADING_WORDS or text.endswith("?"):
        return None
    key = name_key(text)
    if not key or key in _GENERIC_KEYS:
        return None
    first = name_key(words[0])
    if first in {"how", "what", "why", "when", "where", "which", "using", "use", "run", "build"}:
        return None  # "How to fuse", "Using the API": instructions, not subjects
    return text


def section_topics(doc: Document, sentences: Sequence[Sentence]) -> list[SectionTopic]:
    """One topic per section whose heading names a thing, with the section's own evidence.

    The document's title section is the source page itself, not a topic."""
    by_block: dict[str, list[str]] = {}
    for s in sentences:
        by_block.setdefault(s.paragraph, []).append(s.id)
    title_key = name_key(doc.title)
    found: list[SectionTopic] = []
    for section in doc.sections:
        name = heading_name(section.heading)
        if name is None or name_key(name) == title_key:
            continue
        blocks = [doc.block(b) for b in section.block_ids]
        facts = [sid for b in blocks for sid in by_block.get(b.id, [])]
        usage = [b.id for b in blocks if b.kind == "code" and b.text.strip()]
        if not facts:
            continue  # a heading with nothing citable under it makes an empty page
        found.append(
            SectionTopic(
                name,
                section.index,
                tuple(facts[:FACTS_PER_SECTION_TOPIC]),
                tuple(usage[:USAGE_PER_TOPIC]),
            )
        )
    return found


def defined_terms(doc: Document) -> list[str]:
    """Bold terms, "Long Name (ABBR)" definitions and code names of headings and list items."""
    terms: list[str] = []
    for block in doc.blocks:
        if block.toc:
            continue
        terms += [t for t in block.strong if 1 <= len(t.split()) <= MAX_HEADING_WORDS]
        for m in _DEFINED_RE.finditer(block.text):
            terms.append(m.group(1).strip())
        if block.kind == "item":
            terms += [c for c in block.code_spans[:1] if re.fullmatch(r"[\w.-]{3,40}", c)]
    seen: set[str] = set()
    unique = []
    for t in terms:
        key = name_key(t)
        if key and key not in seen and key not in _GENERIC_KEYS:
            seen.add(key)
            unique.append(t)
    return unique
