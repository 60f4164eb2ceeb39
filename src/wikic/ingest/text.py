"""Source text as the model sees it: sentences with ids, grouped into sections.

Sentences are numbered `s1…sN` across the whole source and belong to one paragraph `pK`, so a
claim the model picks by id maps back to the exact verbatim sentence and its block. The same text
always gives the same ids.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from wikic.vault.sources import Paragraph

_ABBREVIATIONS = {
    "e.g", "i.e", "etc", "vs", "cf", "dr", "mr", "mrs", "ms", "prof", "fig", "no", "vol",
    "approx", "al", "inc", "ltd", "jr", "sr", "st", "u.s", "u.k", "eq", "sec", "ch",
}  # fmt: skip
_BOUNDARY_RE = re.compile(r"(?<=[.!?…])[\"'”’)\]]*\s+(?=[\"'“‘(\[]?[A-Z0-9À-ÖØ-Þ])")
_LIST_RE = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
MIN_SENTENCE_CHARS = 12
MAX_SENTENCE_CHARS = 600


@dataclass(frozen=True)
class Sentence:
    id: str  # "s12"
    paragraph: str  # "p3"
    text: str


@dataclass(frozen=True)
class Section:
    index: int
    heading: str
    paragraphs: tuple[Paragraph, ...]
    sentences: tuple[Sentence, ...]


def _is_code_or_table(text: str) -> bool:
    first = text.lstrip()
    return first.startswith(("```", "~~~", "|", "    ", "<")) or "\n|" in text


def _split_sentences(text: str) -> list[str]:
    """Sentences of one paragraph; list items are sentences of their own."""
    pieces: list[str] = []
    lines = text.split("\n")
    if sum(1 for line in lines if _LIST_RE.match(line)) >= 1:
        units = [_LIST_RE.sub("", line).strip() for line in lines if line.strip()]
    else:
        units = [" ".join(line.strip() for line in lines)]
    for unit in units:
        start = 0
        for m in _BOUNDARY_RE.finditer(unit):
            before = unit[start : m.start()].rstrip("\"'”’)]")
            last_word = before.rsplit(" ", 1)[-1].rstrip(".").casefold()
            if last_word in _ABBREVIATIONS or (len(last_word) == 1 and last_word.isalpha()):
                continue
            pieces.append(unit[start : m.start()].strip())
            start = m.end()
        pieces.append(unit[start:].strip())
    return [p for p in pieces if p]


def sentences_of(paragraphs: Sequence[Paragraph]) -> list[Sentence]:
    """Citable sentences, numbered across the source. Code, tables and very short or very long
    fragments are not claims and get no id."""
    result: list[Sentence] = []
    for para in paragraphs:
        if _is_code_or_table(para.text):
            continue
        for text in _split_sentences(para.text):
            if MIN_SENTENCE_CHARS <= len(text) <= MAX_SENTENCE_CHARS:
                result.append(Sentence(f"s{len(result) + 1}", para.id, text))
    return result


def make_sections(
    paragraphs: Sequence[Paragraph],
    sentences: Sequence[Sentence],
    *,
    budget_tokens: int,
    count_tokens: Callable[[str], int],
) -> list[Section]:
    """Group paragraphs into sections of about `budget_tokens` (a paragraph is never split)."""
    by_para: dict[str, list[Sentence]] = {}
    for s in sentences:
        by_para.setdefault(s.paragraph, []).append(s)
    sections: list[Section] = []
    current: list[Paragraph] = []
    used = 0

    def close() -> None:
        if current:
            sents = tuple(s for p in current for s in by_para.get(p.id, []))
            sections.append(Section(len(sections), current[0].heading, tuple(current), sents))

    for para in paragraphs:
        cost = count_tokens(para.text) + 8
        if current and used + cost > budget_tokens:
            close()
            current, used = [], 0
        current.append(para)
        used += cost
    close()
    return sections


def numbered_text(
    title: str, paragraphs: Sequence[Paragraph], sentences: Sequence[Sentence]
) -> str:
    """The source as shown to the model: each sentence prefixed by its id, paragraphs kept."""
    by_para: dict[str, list[Sentence]] = {}
    for s in sentences:
        by_para.setdefault(s.paragraph, []).append(s)
    lines = [f"SOURCE: {title}", ""]
    heading = None
    for para in paragraphs:
        if para.heading and para.heading != heading:
            lines += [f"## {para.heading}", ""]
            heading = para.heading
        sents = by_para.get(para.id)
        if sents:
            lines.append(" ".join(f"[{s.id}] {s.text}" for s in sents))
        else:
            lines.append(para.text)
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def quote(text: str) -> str:
    """A source sentence made safe to place in a page: one line, no link or block syntax."""
    flat = " ".join(text.split())
    flat = flat.replace("[[", "[").replace("]]", "]")
    return re.sub(r"\s\^([A-Za-z0-9-]+)$", r" \\^\1", flat)
