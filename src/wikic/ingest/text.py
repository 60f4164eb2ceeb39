"""Source text as the model sees it: the document's whole-fact sentences
(`wikic.language.sentences`), with ids, in windows that fit the context.

Only whole, self-contained statements get an id: a heading, a lead-in ending with ':', a
table-of-contents entry or a cut-off fragment is shown to the model as context but can never
become a fact.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from wikic.language.sentences import Sentence
from wikic.vault.document import Block, Document


@dataclass(frozen=True)
class Section:
    """A window of the source for one extraction call: consecutive blocks of one or more
    document sections."""

    index: int
    blocks: tuple[Block, ...]
    sentences: tuple[Sentence, ...]


def make_sections(
    doc: Document,
    sentences: Sequence[Sentence],
    *,
    budget_tokens: int,
    count_tokens: Callable[[str], int],
) -> list[Section]:
    """Group blocks into windows of about `budget_tokens` (a block is never split); a window
    starts at a document section boundary when the current one is at least half full."""
    by_block: dict[str, list[Sentence]] = {}
    for s in sentences:
        by_block.setdefault(s.paragraph, []).append(s)
    windows: list[Section] = []
    current: list[Block] = []
    used = 0

    def close() -> None:
        if current:
            sents = tuple(s for b in current for s in by_block.get(b.id, []))
            windows.append(Section(len(windows), tuple(current), sents))

    for block in doc.blocks:
        cost = count_tokens(block.text) + 8
        new_section = bool(current) and block.section != current[-1].section
        if current and (used + cost > budget_tokens or (new_section and used > budget_tokens // 2)):
            close()
            current, used = [], 0
        current.append(block)
        used += cost
    close()
    return windows


def numbered_text(doc: Document, blocks: Sequence[Block], sentences: Sequence[Sentence]) -> str:
    """The source as shown to the model: headings, and each citable sentence prefixed by its id;
    other text (lead-ins, code) is shown without an id, as context."""
    ids: dict[str, list[Sentence]] = {}
    for s in sentences:
        ids.setdefault(s.paragraph, []).append(s)
    lines = [f"SOURCE: {doc.title}", ""]
    section = -1
    for block in blocks:
        if block.section != section:
            section = block.section
            heading = doc.sections[section]
            if heading.heading:
                lines += ["#" * min(heading.level + 1, 6) + " " + heading.heading, ""]
        sents = ids.get(block.id)
        if sents:
            lines.append(" ".join(f"[{s.id}] {s.text}" for s in sents))
        elif block.kind == "code":
            code = block.text if len(block.text) < 400 else block.text[:400] + "\n…"
            lines.append(f"```{block.lang}\n{code}\n```")
        elif block.text and not block.toc:
            lines.append(block.text)
        else:
            continue
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def quote(text: str) -> str:
    """A source sentence made safe to place in a page: one line, no link or block syntax."""
    flat = " ".join(text.split())
    flat = flat.replace("[[", "[").replace("]]", "]")
    return re.sub(r"\s\^([A-Za-z0-9-]+)$", r" \\^\1", flat)
