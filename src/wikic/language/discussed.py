"""What a document discusses, for the concepts several sources share.

A concept that two documents of different authors both discuss should be one page citing both
(issue 32). Each document alone says only which names it discusses *substantively*: named in
several of its sentences, and at least once as what a sentence is about (it opens the sentence,
a verb follows it, a sentence defines it) or as what one of its headings names, not only in
passing ("… as with any lock file"). `ingest.shared` then pages the names two or more sources
of a batch discuss, whatever spelling each one uses.

The names come from the source's recurring names and phrases (`phrases.topic_candidates`), and
from the one-word headings or heading parts that name a thing ("Compaction & snapshots",
"Syncing"): a single plain word is too common to be offered from prose alone ("file",
"version"), but a heading that names it alone makes it a term of the document.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from wikic.language.commands import is_code_like
from wikic.language.evidence import is_subject, names_sentence, said_of
from wikic.language.frequency import is_coined
from wikic.language.headings import GENERIC_KEYS
from wikic.language.openings import defines
from wikic.language.phrases import topic_candidates
from wikic.language.sentences import Sentence
from wikic.language.stopwords import DETERMINERS, TOPICLESS_WORDS
from wikic.language.vocabulary import is_common_term
from wikic.vault.document import Document
from wikic.vault.names import name_key

CANDIDATES = 60  # of a document's names and phrases, those compared across the batch
MIN_KEY = 3  # characters of the shortest name key a shared concept has
MIN_SENTENCES = 2  # sentences that must name a name for a document to discuss it
# the parts of a heading ("Compaction & snapshots", "Locking and syncing", "Hashes: why")
_HEADING_PART_RE = re.compile(r"\s*(?:&|,|\band\b|/|:|\s[-–—]\s)\s*", re.IGNORECASE)
_PLAIN_WORD_RE = re.compile(r"[A-Za-z][a-z]{3,}")
# a lower-case word as prose writes it: not in code, a path, an address or a file name
_LOWER_WORD_RE = re.compile(r"(?<![\w`./@-])[a-z][a-z0-9]{2,}(?![\w`/@-]|\.\w)")
_NOT_PROSE_RE = re.compile(r"`[^`]*`|\]\([^)]*\)|https?://\S+")
# a plain word, lower case or capitalised at a sentence's start ("Snapshots are …")
_WORD_RE = re.compile(r"(?<![\w`./-])[A-Za-z][a-z]+(?![\w`/-])")
SEVERAL = 4  # sentences naming a name: discussed, whether or not one is about it
_DETERMINED_RE = re.compile(
    rf"(?<![\w-])(?:{'|'.join(sorted(DETERMINERS))})\s+([a-z][a-z]+)(?![\w-])", re.IGNORECASE
)


def plain_word(name: str) -> bool:
    """One word with no capital inside and nothing of code: "snapshot", "Checkpointing"."""
    name = name.strip()
    return " " not in name and not is_code_like(name) and name[1:].islower()


def min_sentences(name: str) -> int:
    """Sentences that must name `name` for a document to discuss it: `MIN_SENTENCES`, one more
    for a plain word, which a text names in passing more often than a phrase."""
    return MIN_SENTENCES + plain_word(name)


def can_name_concept(name: str) -> bool:
    """Whether a name can be a concept page several sources share: not a heading's label
    ("Overview"), a term of every technical text (`URL`), a unit, filler or a verb phrase, nor
    a name of two letters (`DB`, `IO`: each project's own abbreviation of a common word)."""
    key = name_key(name)
    return (
        len(key) >= MIN_KEY
        and key not in GENERIC_KEYS
        and not is_common_term(name)
        and is_subject(name)
    )


def about(name: str, text: str) -> bool:
    """Whether a sentence is about `name`, not naming it in passing: it opens with the name
    (after an article), says something of it ("snapshots are …", "the lock file records …"),
    or defines it."""
    flat = re.sub(r"^[\W_]*(?:(?:the|a|an|each|every)\s+)?", "", text, flags=re.IGNORECASE)
    opens = names_sentence(name, flat[: len(name) + 2])
    return opens or said_of(name, text) or defines([name], text)


def heading_terms(doc: Document, texts: Sequence[str]) -> list[str]:
    """Plain words a heading names alone, or as one of its parts ("Compaction & snapshots" →
    "snapshot", "Checkpointing"), that the text also uses as a noun, after a determiner ("the
    snapshot", "a checkpoint"): a term of the document, not a verb ("Create")."""
    nouns = _determined_keys(texts)
    found: dict[str, str] = {}
    for section in doc.sections:
        if section.level < 2:
            continue
        for part in _HEADING_PART_RE.split(section.heading):
            word = part.strip().strip("`*_")
            key = name_key(word)
            if (
                _PLAIN_WORD_RE.fullmatch(word)
                and word.casefold() not in TOPICLESS_WORDS
                and key not in GENERIC_KEYS
                and key in nouns
                and key not in found
            ):
                found[key] = _usual_form(word.casefold(), texts)
    return list(found.values())


def _determined_keys(texts: Sequence[str]) -> set[str]:
    """The name keys of the words `texts` write after a determiner: their nouns."""
    return {name_key(m.group(1)) for t in texts for m in _DETERMINED_RE.finditer(t)}


def _usual_form(word: str, texts: Sequence[str]) -> str:
    """The heading's word as the text writes it most, as it is or singular ("snapshot" of
    "Compaction & snapshots" where the sentences say "a snapshot"), or as the heading has it."""
    forms = dict.fromkeys((word, word.removesuffix("s")), 0)
    for t in texts:
        for w in map(str.casefold, _WORD_RE.findall(t)):
            if w in forms:
                forms[w] += 1
    return max(forms, key=lambda f: forms[f])


def discussed_names(
    doc: Document,
    sentences: Sequence[Sentence],
    *,
    code: Sequence[str] = (),
    limit: int = CANDIDATES,
) -> list[str]:
    """The names and phrases the document discusses substantively: named in `min_sentences`
    of `sentences`, and at least one of them about it (`about`), or a heading naming it, or
    `SEVERAL` sentences naming it; and the plain words its headings name (`heading_terms`),
    no other plain word ("Version" opening sentences). `code`: the names it writes as code
    (`fsync`, `pyproject.toml`), precise names that count like the others. Most useful first,
    one spelling per name key."""
    texts = [s.text for s in sentences]
    headed = heading_terms(doc, texts)
    headings = [sec.heading for sec in doc.sections if sec.level >= 2]
    found: dict[str, str] = {}
    names = [*topic_candidates(sentences, title=doc.title, limit=limit), *headed, *code[:limit]]
    for name in names:
        key = name_key(name)
        if key in found or not can_name_concept(name):
            continue
        if plain_word(name) and name not in headed and not _proper(name, texts):
            continue  # a plain word counts only as one of `discussed_words`
        naming = [t for t in texts if names_sentence(name, t)]
        if len(naming) < min_sentences(name):
            continue
        named_by_heading = any(names_sentence(name, h) for h in headings)
        if (
            name in headed
            or named_by_heading
            or len(naming) >= SEVERAL
            or any(about(name, t) for t in naming)
        ):
            found[key] = name
    return list(found.values())


def _proper(word: str, texts: Sequence[str]) -> bool:
    """Whether a capitalised word is a proper name: the text writes it so after a lower-case
    word in two sentences, not only where a sentence starts ("… with Python", not "Version
    2.0 …", nor an admonition's "note Version constraints …")."""
    if not word[:1].isupper():
        return False
    pattern = re.compile(rf"\b[a-z]+,?\s+{re.escape(word)}(?![\w-])")
    return sum(1 for t in texts if pattern.search(t)) >= 2


def discussed_words(sentences: Sequence[Sentence]) -> list[str]:
    """Plain words (`plain_word`) the document discusses: named in `min_sentences` of
    `sentences`, and in `SEVERAL` or one of them about it. Too common alone to make a page
    ("file", "version"), they count for a concept another source discusses by a name or
    heading of its own (`ingest.shared`): "snapshot", which one document's heading names,
    another's prose."""
    naming: dict[str, list[str]] = {}
    forms: dict[str, dict[str, None]] = {}
    for s in sentences:
        for word in dict.fromkeys(map(str.casefold, _WORD_RE.findall(s.text))):
            if len(word) < 4 or word in TOPICLESS_WORDS:
                continue
            key = name_key(word)
            if key:
                naming.setdefault(key, []).append(s.text)
                forms.setdefault(key, {})[word] = None
    found = []
    for key, named in naming.items():
        word = next(iter(forms[key]))
        if len(named) < min_sentences(word) or not can_name_concept(word):
            continue
        if len(named) >= SEVERAL or any(about(f, t) for f in forms[key] for t in named):
            found.append(word)
    return found


def discussed_nouns(sentences: Sequence[Sentence], words: Sequence[str] | None = None) -> list[str]:
    """The `discussed_words` the sentences write as nouns, after a determiner ("the
    snapshot", "a checkpoint"), and not as a participle or adverb ("journaled",
    "periodically"): the plain words that may name a thing. `words`: their
    `discussed_words`, where the caller has them."""
    nouns = _determined_keys([s.text for s in sentences])
    found = discussed_words(sentences) if words is None else words
    return [w for w in found if name_key(w) in nouns and not w.endswith(("ed", "ly"))]


def coined_words(sentences: Sequence[Sentence]) -> list[str]:
    """Lower-case words general English lacks (`frequency.is_coined`: "rqlite", "lockfile",
    "subwords") that `SEVERAL` of `sentences` write in prose, not as code: a name made for one
    thing, a project or a term of art, that the document writes as it would a word, so no
    capital or backticks mark it as a name. Most named first."""
    naming: dict[str, int] = {}
    for s in sentences:
        for word in set(_LOWER_WORD_RE.findall(_NOT_PROSE_RE.sub(" ", s.text))):
            if word not in TOPICLESS_WORDS and is_coined(word):
                naming[word] = naming.get(word, 0) + 1
    return sorted((w for w, n in naming.items() if n >= SEVERAL), key=lambda w: -naming[w])
