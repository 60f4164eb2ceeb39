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
"""

from __future__ import annotations

import re

import nupunkt

_NEVER_FINAL_RE = re.compile(r"\b(?:e\.g|i\.e|cf|vs|viz|approx|incl)\.(?=\s)", re.IGNORECASE)


def split_sentences(text: str, protected: list[tuple[int, int]] | None = None) -> list[str]:
    """The sentences of one paragraph of clean prose, verbatim and in order.

    `protected` are (start, end) spans of `text` (inline code) that stay inside one sentence.
    """
    masked = _mask(text, protected or [])
    pieces = (text[start:end].strip() for start, end in nupunkt.sent_spans(masked))
    return [piece for piece in pieces if piece]


def _mask(text: str, protected: list[tuple[int, int]]) -> str:
    """`text` with the same length, its protected spans and abbreviations turned into a word."""
    chars = list(text)
    spans = [*protected, *(m.span() for m in _NEVER_FINAL_RE.finditer(text))]
    for start, end in spans:
        for i in range(start, end):
            chars[i] = "X" if i == start else "x"
    return "".join(chars)
