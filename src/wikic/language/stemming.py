"""The one stemmer: Snowball's English algorithm (Porter2), from `snowballstemmer`.

Every comparison of words in different forms goes through `stem`: name keys (the last word of a
page name), heading words against flags and titles, and the content words that query and
consolidation compare. It replaced six ad-hoc rules (first 5 or 6 letters, `w[:len-2]`, a plural
rule), of which the 5-letter one made "interned" and "interpreter" one word.

Measured on the 389 page titles, aliases and expected topic names of wiki/ and
scripts/data/corpus/expected.yaml: Snowball joins "pre-tokenizer"/"pre-tokenization",
"self-profiler"/"self-profiling" and "immortality"/"immortalization", each pair the corpus lists
as names of one topic, and separates no name the old plural rule joined. Lemmatizers were
measured too: `simplemma` leaves a word its dictionary lacks as it is ("tokenizers", "llms") and
makes "interned" "interne"; `lemminflect` folds those but needs the part of speech ("caching"
stays as a noun, is "cache" as a verb), needs numpy and was last released in 2022. Snowball
needs neither, and is maintained. On the 331 singular/plural pairs of the corpus's words, the
old plural rule left 22 apart and `stem` leaves 19, most of them no plurals ("as", "notes" of
"not"); "alias"/"aliases" stays apart with both, "api"/"apis", "wiki"/"wikis", "id"/"ids" and
"use"/"uses" now join. Outside the corpus, Snowball keeps "bus"/"buses" apart (the old rule
joined them).
`snowballstemmer` uses PyStemmer's C implementation when that is installed (~1 µs a word against
~34 µs); results are cached either way.
"""

from __future__ import annotations

import functools
import re
import threading

import snowballstemmer

_ENGLISH = snowballstemmer.stemmer("english")
_LOCK = threading.Lock()  # a Snowball stemmer keeps its state while it works on a word
CACHED_WORDS = 1 << 16


# a word with no vowel before its final s is an abbreviation's plural: "llms", "prs"
_ABBREVIATION_PLURAL_RE = re.compile(r"[b-df-hj-np-tv-z]{2,}s")


@functools.lru_cache(maxsize=CACHED_WORDS)
def stem(word: str) -> str:
    """`word` case-folded and stemmed: "interned" → "intern", "interpreter" → "interpret",
    "caches" and "caching" → "cach", "added" and "adds" → "add", and "LLMs" → "llm" (Snowball
    keeps the s of a word without a vowel). Only ever compared, never shown."""
    folded = word.casefold()
    if _ABBREVIATION_PLURAL_RE.fullmatch(folded):
        return folded[:-1]
    with _LOCK:
        return str(_ENGLISH.stemWord(folded))


def stem_prefix(word: str) -> str:
    """The first letters of `word`'s stem that its derived forms share: all but the last two,
    at least four ("repeat" → "repe", which `--repetitions` starts with). For prefix matching,
    where equal stems would miss a derivation the stemmer keeps apart ("repetit")."""
    root = stem(word)
    return root[: max(4, len(root) - 2)]
