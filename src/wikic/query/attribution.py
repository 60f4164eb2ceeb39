"""Citations added by code to answer sentences that paraphrase a passage the model was shown.

A small model often answers correctly without citing. A sentence that has no citation gets the
citation of the fact bullet or source paragraph (among the pages in its prompt) whose words it
mostly repeats; below that bar it stays uncited, so attribution never guesses.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_FACT_RE = re.compile(
    r"^[-*] (.+?)((?: \[\[sources/[^\[\]|#]+#\^[A-Za-z0-9-]+\]\])+)(?: \^[\w-]+)?\s*$"
)
_PARA_RE = re.compile(r"^(.+?) \^(p\d+)\s*$")
_SENTENCE_RE = re.compile(r"(?<=[.!?])\s+(?=\S)")
_WORD_RE = re.compile(r"[^\W_]{3,}")
_STOP = {
    "the", "and", "for", "that", "this", "with", "from", "are", "was", "were", "has", "have",
    "its", "their", "which", "into", "than", "then", "they", "them", "because", "also", "can",
    "not", "but", "only", "such", "when", "where", "what", "how", "why", "who", "does", "use",
}  # fmt: skip
MIN_SHARE = 0.6
MIN_SHARED_WORDS = 3


def _words(text: str) -> set[str]:
    return {w for w in (m.casefold() for m in _WORD_RE.findall(text)) if w not in _STOP}


def passages(pages: Iterable[tuple[str, str]]) -> list[tuple[set[str], str]]:
    """(words, citation) for every cited fact and every source paragraph in (path, text) pages."""
    found: list[tuple[set[str], str]] = []
    for path, text in pages:
        source = path.removesuffix(".md") if path.startswith("sources/") else None
        for line in text.splitlines():
            fact = _FACT_RE.match(line)
            if fact:
                found.append((_words(fact.group(1)), fact.group(2).split()[0]))
                continue
            para = _PARA_RE.match(line)
            if source and para:
                found.append((_words(para.group(1)), f"[[{source}#^{para.group(2)}]]"))
    return found


def attribute(answer: str, pages: Iterable[tuple[str, str]]) -> tuple[str, int]:
    """`answer` with a citation appended to each uncited sentence that closely matches a passage;
    and how many were added."""
    known = passages(pages)
    if not known or not answer.strip():
        return answer, 0
    out: list[str] = []
    added = 0
    for sentence in _SENTENCE_RE.split(answer.strip()):
        words = _words(sentence)
        if "[[" in sentence or len(words) < MIN_SHARED_WORDS:
            out.append(sentence)
            continue
        best_share, best = 0.0, ""
        for passage_words, link in known:
            shared = len(words & passage_words)
            share = shared / len(words)
            if shared >= MIN_SHARED_WORDS and share > best_share:
                best_share, best = share, link
        if best and best_share >= MIN_SHARE:
            body = sentence.rstrip()
            end = len(body.rstrip(".!?"))
            out.append(f"{body[:end]} {best}{body[end:]}")
            added += 1
        else:
            out.append(sentence)
    return " ".join(out), added
