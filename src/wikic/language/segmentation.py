"""English prose split into sentences.

Sentences come from nupunkt, picked by measuring PyPI segmenters on raw/*.md,
scripts/data/cpu-inference-article.md and scripts/data/corpus/*.md (9.7k words of clean block
text, unmasked) and on 25 technical cases ("e.g.", "vs.", "v0.32.1", "3.11", "config.json",
"U.S.", "107.5", "...", "(AWQ).", "approx. 3", "~/.ollama/models", "README.md."):

| segmenter       | cases wrong | wrong splits in corpus          | ms / 10k words   |
|-----------------|-------------|---------------------------------|------------------|
| pysbd 0.3.4     | 4 / 25      | ~14 (".gitconfig", "~/.ollama") | 600              |
| syntok 1.4.4    | 1 / 25      | 0                               | 85               |
| sentencex 1.0   | 3 / 25      | 0                               | 6                |
| nupunkt 0.8.0   | 1 / 25      | 0                               | 14               |
| blingfire 0.1.8 | 0 / 25      | 0                               | 15 (numpy, 2021) |

nupunkt: no dependencies, maintained, fast, offsets kept. Its one miss ("pip install -e ." cut
at the lone dot) is inline code, which is masked before segmenting, as are "e.g."-style
abbreviations that never end a sentence.

nupunkt's model was trained on legal text, and some 2,400 of its abbreviations are English
words ("flag", "row", "code", "found", "tables"): "… using the `--upgrade` flag. For example,
…" stayed one sentence, so the first, a whole fact, was lost with the lead-in it was joined to
(4 paragraphs of the development corpora). A word the document also writes without a period
is no abbreviation in it (`bare_words`): a sentence ends after it when the next starts with a
capital.
"""

from __future__ import annotations

import re

import nupunkt

_NEVER_FINAL_RE = re.compile(r"\b(?:e\.g|i\.e|cf|vs|viz|approx|incl)\.(?=\s)", re.IGNORECASE)


# a lower-case word, its period, and a sentence that starts after it
_WORD_STOP_RE = re.compile(r"(?<![\w.])([a-z]{3,})\.\s+(?=[A-Z])")
_BARE_WORD_RE = re.compile(r"(?<![\w.])([a-z]{3,})\b(?!\.)")


def bare_words(text: str) -> frozenset[str]:
    """The lower-case words `text` writes somewhere without a period right after them."""
    return frozenset(_BARE_WORD_RE.findall(text))


def split_sentences(
    text: str,
    protected: list[tuple[int, int]] | None = None,
    *,
    words: frozenset[str] = frozenset(),
) -> list[str]:
    """The sentences of one paragraph of clean prose, verbatim and in order.

    `protected` are (start, end) spans of `text` (inline code) that stay inside one sentence.
    `words`: the document's `bare_words`; a sentence nupunkt runs on past one of them and its
    period is split there.
    """
    masked = _mask(text, protected or [])
    spans = []
    for start, end in nupunkt.sent_spans(masked):
        for m in _WORD_STOP_RE.finditer(masked, start, end):
            if m.group(1) in words:
                spans.append((start, m.end()))
                start = m.end()
        spans.append((start, end))
    pieces = (text[start:end].strip() for start, end in spans)
    return [piece for piece in pieces if piece]


def _mask(text: str, protected: list[tuple[int, int]]) -> str:
    """`text` with the same length, its protected spans and abbreviations turned into a word."""
    chars = list(text)
    spans = [*protected, *(m.span() for m in _NEVER_FINAL_RE.finditer(text))]
    for start, end in spans:
        for i in range(start, end):
            chars[i] = "X" if i == start else "x"
    return "".join(chars)
