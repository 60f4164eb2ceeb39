"""Text FTS5's unicode61 tokenizer cannot split: Chinese, Japanese and Korean write words
without spaces, so a whole run of characters is one token and a word inside it is never found.
Such runs are indexed, and searched, as overlapping character bigrams (机器学习 → 机器 器学 学习),
the usual CJK n-gram approach: a two-character word, the commonest kind, is one bigram.
"""

from __future__ import annotations

import re

# Han (with extensions and compatibility ideographs), kana, Hangul, half-width katakana
_CJK = (
    "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f"
    "\u1100-\u11ff\u3130-\u318f\uac00-\ud7af\U00020000-\U0002fa1f"
)
CJK_RUN_RE = re.compile(f"[{_CJK}]+")


def has_cjk(text: str) -> bool:
    return CJK_RUN_RE.search(text) is not None


def bigrams(run: str) -> list[str]:
    """A run's overlapping bigrams; a single character stands for itself."""
    return [run] if len(run) < 2 else [run[i : i + 2] for i in range(len(run) - 1)]


def cjk_terms(text: str) -> list[str]:
    """The bigrams of every CJK run in `text`, in order, each once."""
    found = (b for m in CJK_RUN_RE.finditer(text) for b in bigrams(m.group(0)))
    return list(dict.fromkeys(found))


def index_text(*texts: str) -> str:
    """What the FTS `cjk` column holds for `texts`: their bigrams, space-separated ('' when
    they have no CJK run, as almost every page)."""
    return " ".join(cjk_terms(" ".join(texts)))


def split_term(text: str) -> tuple[list[str], list[str]]:
    """A search term holding CJK: (its bigrams, the words around its runs)."""
    rest = [w for w in CJK_RUN_RE.split(text) if any(c.isalnum() for c in w)]
    return cjk_terms(text), rest
