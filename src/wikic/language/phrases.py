"""Topic candidates prepared by code, for the model to choose from.

Proper names (capitalised runs that are not just sentence starts, acronyms, names with digits)
and phrases the source repeats. Offering them as an enum keeps a small model from naming
things the source does not contain, and costs a large model little: the source's own recurring
phrases are what a topic page is about.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from wikic.language.frequency import capital_only
from wikic.language.sentences import Sentence
from wikic.language.stopwords import CALENDAR_WORDS, DETERMINERS, TOPICLESS_WORDS
from wikic.vault.names import name_key

# an identifier is one token (`wr_seq`, `mi_page_t`): no phrase "global wr" of `global wr_seq`
_TOKEN_RE = re.compile(r"[A-Za-z0-9_][\w'’.+-]*[A-Za-z0-9+]|[A-Za-z0-9]")
# words that make a recurring phrase a turn of speech ("multiple times", "specified multiple")
# rather than a subject
_COMMON = {
    "multiple", "times", "several", "various", "different", "given", "specified", "like",
    "unlike", "another", "above", "below", "following", "certain", "specific", "particular",
    "whole", "entire", "able", "possible", "way", "ways", "lot", "lots", "kind", "sort", "etc",
    "safe", "sure", "likely", "example", "examples", "respectively", "otherwise",
    "better", "worse", "higher", "lower", "larger", "smaller", "bigger", "greater",
}  # fmt: skip
# where a sentence's clauses part ("… opening a PR. Of course …" holds no name "PR Of")
_CLAUSE_END_RE = re.compile(r"(?<=[\w)\]\"'’”`])[.!?;:](?=\s)")
_DASH_RE = re.compile(r"\s[-–—]+\s")
_NAME_PART_RE = re.compile(r"[,;()]|" + _DASH_RE.pattern)
_PART_RE = re.compile(r"[,;:()\[\]\"“”]|(?<=[\w)\]])[.!?](?=\s)|" + _DASH_RE.pattern)
# "applies", "merges": after its subject, a verb; after a determiner, a plural noun ("weights")
VERB_S_RE = re.compile(r"[a-z]{3,}[^su']s")
_DETERMINER_RE = "|".join(sorted(DETERMINERS))
_ADVERB_RE = re.compile(r"[a-z]{3,}(?:ally|ively|ously|edly|ingly|ently|antly|fully|ately|ibly)")
# "CI-related", "LLVM-like", "Cranelift-based": a name made an adjective, not a thing
_ADJECTIVE_COMPOUND_RE = re.compile(
    r".+-(?:related|based|like|specific|style|level|wide|aware|free|friendly|only|compatible"
    r"|enabled|driven|oriented|agnostic|heavy|intensive|bound|powered|ready)",
    re.IGNORECASE,
)
MAX_WORDS = 4
_POSSESSIVE_RE = re.compile(r"['’]s$")
# what introduces examples: "models like T5, BigBird, Pegasus"
_EXAMPLES_RE = re.compile(r"\b(?:like|such as|including|e\.g\.)\s", re.IGNORECASE)
_LIST_WORDS = frozenset({"and", "or", "like", "such", "as", "including", "e.g", "etc"})
# a lower-case compound the text keeps naming: "rustc-guide", "pre-release" (not "write-up"
# said once, nor "target-specific", an adjective: `_ADJECTIVE_COMPOUND_RE`)
_COMPOUND_RE = re.compile(r"(?<![\w`./-])[a-z][a-z0-9]*(?:-[a-z0-9]+)+(?![\w`/-])")
# a compound joined by a preposition is said of something: "up-to-date", "out-of-date",
# "end-to-end", "point-in-time"; a name only with the noun after it ("point-in-time recovery")
_PREPOSITION_COMPOUND_RE = re.compile(r"[a-z]+(?:-[a-z]+)*-(?:to|of|in|on|at|by|for)-[a-z-]+")
# a version ("v0.3.x", "2.25.0", "v10"): when something happened, not a subject
_VERSION_RE = re.compile(r"v?\d+(?:\.(?:\d+|x))*(?:\.x)?", re.IGNORECASE)
MIN_COMPOUND_SENTENCES = 3


def _tokens(text: str) -> list[str]:
    return [t.rstrip(".") for t in _TOKEN_RE.findall(text)]


def _is_name_word(token: str) -> bool:
    return (
        token[:1].isupper()
        or any(c.isupper() for c in token[1:])
        or (any(c.isdigit() for c in token) and any(c.isalpha() for c in token))
    )


def _name_runs(toks: list[str], *, opens: bool = True) -> list[list[str]]:
    """Runs of capitalised words, acronyms and names with digits (`Gemma 3`), never starting
    with a number, a month or a stop word, and not a lone capitalised sentence start."""
    runs = []
    i = 0
    while i < len(toks):
        j = i
        while (
            j < len(toks)
            and j - i < MAX_WORDS
            and (_is_name_word(toks[j]) or (j > i and toks[j].isdigit()))
        ):
            j += 1
            if _POSSESSIVE_RE.search(toks[j - 1]) and j < len(toks) and _is_name_word(toks[j]):
                break
        run = toks[i:j]
        if run and _POSSESSIVE_RE.search(run[-1]) and j < len(toks) and _is_name_word(toks[j]):
            # "FreeBSD's Global Unbounded Sequences", "Python's QSBR": the name is what the
            # owner has; the owner, said so, is not what the text is about
            i = j
            continue
        while (
            run
            and (
                run[0].casefold() in TOPICLESS_WORDS
                or run[0].casefold() in CALENDAR_WORDS
                or run[0].casefold() in _COMMON  # "Unlike BPE, …" names BPE
                or not run[0][:1].isalpha()
            )
        ):
            run = run[1:]
        lone_start = opens and i == 0 and len(run) == 1 and run[0][1:].islower()
        if run and not lone_start and any(c.isalpha() for c in run[0]):
            runs.append(run)
        i = max(j, i + 1)
    return runs


def _only_name(toks: list[str], runs: list[list[str]]) -> bool:
    """Whether a comma-parted piece (its tokens) is a single name and nothing else ("and
    Pegasus")."""
    words = [t for t in toks if t.casefold() not in _LIST_WORDS]
    return len(runs) == 1 and words == runs[0]


def _phrases(toks: list[str]) -> list[tuple[str, bool]]:
    """(phrase, is_subject) for 2–3-word runs of non-stop words; a subject is a two-word run that
    opens the sentence (after articles) and is followed by a stop word: "Episodic memory is"."""
    lowered = [t.casefold() for t in toks]
    start = 0
    while start < len(toks) and lowered[start] in TOPICLESS_WORDS:
        start += 1
    found = []
    for n in (2, 3):
        for k in range(len(toks) - n + 1):
            gram = lowered[k : k + n]
            if any(
                w in TOPICLESS_WORDS or len(w) < 2 or not w[:1].isalpha() or "_" in w for w in gram
            ):
                continue
            if any(w in _COMMON or _ADVERB_RE.fullmatch(w) for w in gram):
                continue  # "multiple times", "significantly improves"
            if any(_POSSESSIVE_RE.search(w) for w in gram[:-1]):
                continue  # "Python's QSBR" is QSBR
            if k and reads_as_verb(toks[k], toks[k - 1]):
                # "(a library that) applies BPE", "(BPE) merges pairs": a verb and its object
                continue
            subject = (
                n == 2 and k == start and (k + n == len(toks) or lowered[k + n] in TOPICLESS_WORDS)
            )
            found.append((" ".join(toks[k : k + n]), subject))
    return found


def reads_as_verb(word: str, before: str) -> bool:
    """Whether a lower-case word in -s (`VERB_S_RE`) is a verb, by the word `before` it: after
    its subject, a name or a pronoun ("BPE merges pairs", "that applies BPE"), it is; after a
    determiner it is a plural noun, and the noun after it is what it qualifies ("the weights
    file", "each models directory")."""
    if not (word.islower() and VERB_S_RE.fullmatch(word)):
        return False
    folded = before.casefold()
    if folded in DETERMINERS:
        return False
    return folded in TOPICLESS_WORDS or _is_name_word(before)


def follows_determiner(phrase: str, texts: Sequence[str]) -> bool:
    """Whether one of `texts` writes `phrase` right after a determiner ("the weights file",
    "each models directory"): then its first word is a noun, not a verb with its object."""
    pattern = re.compile(
        rf"(?<![\w-])(?:{_DETERMINER_RE})\s+{re.escape(phrase)}(?![\w-])", re.IGNORECASE
    )
    return any(pattern.search(t) for t in texts)


def topic_candidates(
    sentences: Sequence[Sentence], *, title: str = "", limit: int = 24
) -> list[str]:
    """Names and repeated phrases of the source, most useful first, one spelling per topic."""
    counts: Counter[str] = Counter()
    texts = [s.text for s in sentences]
    weight: dict[str, float] = {}
    spellings: dict[str, Counter[str]] = {}
    compounds: set[str] = set()

    def add(text: str, w: float) -> None:
        key = name_key(text)
        if (
            not key
            or text.casefold() in TOPICLESS_WORDS
            or _ADJECTIVE_COMPOUND_RE.fullmatch(text.split()[-1])
            or _PREPOSITION_COMPOUND_RE.fullmatch(text.split()[-1])
            or _VERSION_RE.fullmatch(text)
        ):
            return
        counts[key] += 1
        weight[key] = max(weight.get(key, 0.0), w)
        spellings.setdefault(key, Counter())[text] += 1

    for s in sentences:
        for clause in _CLAUSE_END_RE.split(s.text):
            # a dash between spaces parts two names ("Implement RFC 2532 – Associated Type
            # Defaults" names no "Implement RFC 2532 Associated"), so do a comma and a
            # parenthesis; names given as examples ("languages like Chinese and Japanese",
            # "T5, BigBird, Pegasus") are candidates only if the source names them again
            m = _EXAMPLES_RE.search(clause)
            head, examples = (clause[: m.start()], clause[m.end() :]) if m else (clause, "")
            pieces = _NAME_PART_RE.split(head)
            for n, piece in enumerate(pieces):
                toks = _tokens(piece)
                # after a comma a capital is a name's: "Unlike BPE, Unigram removes …"
                runs = _name_runs(toks, opens=n == 0)
                listed = len(pieces) >= 3 and _only_name(toks, runs)
                for run in runs:
                    add(" ".join(run), 1.0 if listed else 3.0)
            for piece in _NAME_PART_RE.split(examples):
                for run in _name_runs(_tokens(piece), opens=False):
                    add(" ".join(run), 1.0)
        # a phrase is within one part: "In contrast, today …" says no "contrast today"
        for n, part in enumerate(_PART_RE.split(s.text)):
            for phrase, subject in _phrases(_tokens(part)):
                add(phrase, 2.0 if subject and n == 0 else 1.0)
        for word in dict.fromkeys(_COMPOUND_RE.findall(s.text)):
            if not word.endswith("ed"):  # "free-threaded", "hard-wrapped": adjectives
                add(word, 1.0)
                compounds.add(name_key(word))
    for phrase, _ in _phrases(_tokens(title)):
        if name_key(phrase) in counts:
            weight[name_key(phrase)] += 1.0
    # a phrase said once is a candidate only as a name, a sentence's subject or a title phrase;
    # a lower-case compound word only when said in `MIN_COMPOUND_SENTENCES` sentences
    keep = {
        k
        for k in counts
        if (counts[k] >= 2 or weight[k] >= 2.0)
        and (k not in compounds or counts[k] >= MIN_COMPOUND_SENTENCES)
        # a common word said once with a capital starts a description, not a name:
        # "Troubleshooting - Common issues and solutions"
        and not (counts[k] == 1 and capital_only(_spelling(spellings[k])))
    }
    score = {k: counts[k] * weight[k] * (1 + 0.25 * (len(k.split()) - 1)) for k in keep}
    ranked = sorted(keep, key=lambda k: (-score[k], k))
    spelled = {k: _spelling(spellings[k]) for k in keep}
    chosen: list[str] = []
    for key in ranked:
        # a part of a longer candidate that is nearly as frequent adds nothing of its own
        if any(
            f" {key} " in f" {other} " and counts[other] >= max(2, 0.7 * counts[key])
            for other in keep
            if other != key
        ):
            continue
        if _cut_name(key, counts, spelled) or _cut_after_name(spelled[key], texts):
            continue
        if reads_as_clause(spelled[key], texts):
            continue
        if key in compounds and any(
            counts[other] >= 0.7 * counts[key] and spelled[key] in spelled[other].split()
            for other in keep
            if other != key
        ):
            continue  # "deferred-free" of "deferred-free list"
        chosen.append(key)
        if len(chosen) >= limit:
            break
    return [spelled[k] for k in chosen]


# what only a plural noun, a subject, takes after it: a verb ("WAL buffers might …")
_PREDICATE_WORDS = frozenset({
    "are", "were", "can", "could", "may", "might", "will", "would", "should", "must", "have",
    "had", "do", "did", "cannot", "is", "was",
})  # fmt: skip
_PREDICATE = "|".join(sorted(_PREDICATE_WORDS))


def reads_as_clause(phrase: str, texts: Sequence[str]) -> bool:
    """Whether a two-word phrase ending in -s (`VERB_S_RE`) is a subject and its verb, not a
    name: `texts` write it before "by" and a gerund at least once ("Pip starts by picking
    …", "Litestream works by effectively streaming …") and never before a verb ("WAL buffers
    might …", "LTX files are …"). A pronoun or an article after it decides nothing: "the
    package versions it needs" is a noun and its relative clause. English function words."""
    words = phrase.split()
    if len(words) != 2 or not VERB_S_RE.fullmatch(words[1]):
        return False
    at = rf"(?<![\w-]){re.escape(phrase)}\s+"
    how = re.compile(at + r"by\s+(?:[a-z]+ly\s+)?[a-z]+ing\b", re.IGNORECASE)
    verb = re.compile(at + rf"(?:{_PREDICATE})\b", re.IGNORECASE)
    return any(how.search(t) for t in texts) and not any(verb.search(t) for t in texts)


def _cut_name(key: str, counts: Counter[str], spelled: dict[str, str]) -> bool:
    """Whether a capitalised run is the start or end of a longer candidate (`spelled`: each
    kept key's spelling) said as often: "Per-Thread Read" of "Per-Thread Read Sequence" (a hard
    wrap or a cap cut it)."""
    words = spelled[key].split()
    if len(words) < 2 or not all(_is_name_word(w) for w in words):
        return False
    n = len(words)
    return any(
        n < len(longer) and counts[other] >= counts[key] and words in (longer[:n], longer[-n:])
        for other, longer in ((o, s.split()) for o, s in spelled.items())
    )


_CAPITAL_BEFORE_RE = re.compile(r"\b([A-Z][\w-]*)\s+$")


def _cut_after_name(phrase: str, texts: Sequence[str]) -> bool:
    """Whether a phrase that starts with a capital ("Committed mode") comes, wherever the text
    writes it, right after another capitalised word ("Read Committed mode"): the end of a
    longer name, cut where the name's capitals stop, not a name of its own."""
    words = phrase.split()
    if len(words) < 2 or not words[0][:1].isupper():
        return False
    pattern = re.compile(rf"(?<![\w-]){re.escape(phrase)}(?![\w-])")
    spots = [t[: m.start()] for t in texts for m in pattern.finditer(t)]
    return bool(spots) and all(
        (m := _CAPITAL_BEFORE_RE.search(b)) is not None
        and m.group(1).casefold() not in TOPICLESS_WORDS  # "The Committed mode …" is one
        for b in spots
    )


def _spelling(forms: Counter[str]) -> str:
    """The most frequent way the source writes it, with a capital first letter when the source
    also writes it so (at a sentence start): "Prefix caching", but "mlx-lm" stays as it is."""
    best = sorted(forms.items(), key=lambda kv: (-kv[1], kv[0]))[0][0]
    capital = best[:1].upper() + best[1:]
    return capital if capital != best and capital in forms else best
