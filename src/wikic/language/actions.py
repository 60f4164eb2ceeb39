"""Headings that name an action, and when two documents' headings name one action.

Documents of different projects on one subject put one task under headings of their own:
"Installing from Lock Files" (Pipenv) and "Install the packages pinned in lock file" (PDM),
"Updating Specific Dependencies" and "Updating dependencies to their latest versions",
"Exporting the lockfile" and "Export locked packages to alternative formats". Alone, such a
heading organises a document ("Installing dependencies" is a section, not a thing:
`headings.heading_name`); two documents of a batch that both give the task a section make it a
concept both explain, and `ingest.shared.shared_sections` makes it one page citing each
section.

Two headings name one action when their verbs are one word inflected (`grounding.same_word`:
"Installing"/"Install") and at least one of them is a gerund, so the verb is known to be a
verb ("Lock file freshness" and "Lock File Out of Date" start with a noun), and they share a
word besides the verb ("lock", "dependencies"), or a compound of it ("lockfile" holds the
stem of "locked"). English only: the gerund is English morphology, like the stemmer's.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from wikic.language.commands import is_code_like
from wikic.language.frequency import base_forms, is_coined
from wikic.language.grounding import same_word
from wikic.language.stemming import stem
from wikic.language.stopwords import TOPICLESS_WORDS
from wikic.vault.document import Document
from wikic.vault.names import name_key

MIN_GERUND = 6  # letters of the shortest gerund: "thing", "during" and "ring" are none
MIN_STEM = 4  # letters of a stem that may start a compound ("lock" of "lockfile")
_WORD_RE = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[-.][A-Za-z0-9]+)*")
_INFLECTED = ("ing", "ed", "es", "s", "e")  # endings that make a longer word an inflection


def heading_words(heading: str) -> tuple[str, ...]:
    """The words of a heading that say something, case-folded, in order: no function word,
    qualifier or light verb (`stopwords.TOPICLESS_WORDS`)."""
    words = (w.casefold() for w in _WORD_RE.findall(heading.replace("`", "")))
    return tuple(w for w in words if w not in TOPICLESS_WORDS)


def is_gerund(word: str) -> bool:
    """An "-ing" form the stemmer takes back to a verb ("installing" → "instal"), not a noun
    ending in "ing" ("string", "thing")."""
    return len(word) >= MIN_GERUND and word.endswith("ing") and stem(word) != word


def _one_word(a: str, b: str) -> bool:
    """One word inflected or spelt alike, or a compound starting with the other's stem
    ("lockfile" / "locked"), not an inflection of it ("locking")."""
    if same_word(a, b) or name_key(a) == name_key(b):
        return True
    short, long = sorted((a, b), key=len)
    root = stem(short)
    return (
        len(root) >= MIN_STEM
        and long.startswith(root)
        and not long[len(root) :].startswith(_INFLECTED)
    )


def shared_action(a: Sequence[str], b: Sequence[str]) -> tuple[str, ...]:
    """The words of `a` (`heading_words` of one heading) that `b` (another's) shares, its
    verb first, when the two name one action; () when they do not."""
    if len(a) < 2 or len(b) < 2 or not same_word(a[0], b[0]):
        return ()
    if not (is_gerund(a[0]) or is_gerund(b[0])):
        return ()
    shared = tuple(w for w in a[1:] if any(_one_word(w, x) for x in b[1:]))
    return (a[0], *shared) if shared else ()


def action_title(heading: str, shared: Sequence[str]) -> str:
    """A page title for the action a gerund `heading` names, of which `shared` are the words
    another document's heading shares: the heading as written when it says nothing else
    ("Installing from Lock Files"), else its shared words in its order ("Updating
    Dependencies" of "Updating Specific Dependencies")."""
    text = " ".join(heading.replace("`", "").split()).strip(" :.?!#*_")
    if len(heading_words(text)) == len(shared):
        return text
    keep = set(shared)
    return " ".join(w for w in _WORD_RE.findall(text) if w.casefold() in keep)


@dataclass(frozen=True)
class ActionHeading:
    """A section whose heading may name an action: its index in `Document.sections`, the
    heading, and its `heading_words`."""

    section: int
    heading: str
    words: tuple[str, ...]


def action_headings(doc: Document) -> list[ActionHeading]:
    """The sections below the title whose heading has a verb's place and a word more: the
    candidates `shared_action` compares across documents."""
    found = []
    for section in doc.sections:
        words = heading_words(section.heading)
        if section.level >= 2 and len(words) >= 2 and words[0].isalpha():
            found.append(ActionHeading(section.index, section.heading, words))
    return found


def subtree_blocks(doc: Document, section: int) -> list[str]:
    """The block ids of a section and of the sections under it, in order: an "Installing from
    Lock Files" section holds its text in "Basic Installation" and the other subsections."""
    head = doc.sections[section]
    blocks = list(head.block_ids)
    for below in doc.sections[section + 1 :]:
        if below.level <= head.level:
            break
        blocks += below.block_ids
    return blocks


# a verb's place in prose: "to install", "you can activate", "pip will install"
_VERB_PLACE_RE = re.compile(
    r"\b(?i:to|can|will|must|should|may|might|could|you|please|then|first)\s+(?=([a-z]{3,})\b)"
)  # a lookahead: "you can install" finds "can" and "install"
# words that end the object of a task heading: "Install from local archives", "Specify
# another lock file to use", "Install the packages pinned in lock file"
_OBJECT_ENDS = {"of", "with", "for", "to", "in", "on", "at", "by", "from", "into", "and", "or",
                "via", "without", "when", "using", "per", "across", "between"}  # fmt: skip
_ARTICLE_LIKE = TOPICLESS_WORDS | {"another", "specific", "particular", "multiple", "several"}
MAX_OBJECT_WORDS = 4


def prose_verbs(text: str) -> frozenset[str]:
    """The lower-case words a document's prose puts in a verb's place ("… need to `activate`
    it", "you can install packages"): a heading's first word among them is a verb of the
    document's own usage, where English spelling alone cannot tell "Install extras" (a task)
    from "Lock strategies" (a thing). English only."""
    return frozenset(_VERB_PLACE_RE.findall(text.replace("`", "")))


def task_object(heading: str, verbs: frozenset[str]) -> str | None:
    """What a task heading works on: "Using a requirements file" → "requirements file",
    "Install from other package indexes" → "package indexes", "Exporting the lockfile" →
    "lockfile", "Create a new virtual environment" → "virtual environment". The heading opens
    with a gerund or with a verb of the document's prose (`verbs`, `prose_verbs`) and goes on
    with an article, a qualifier ("a", "new", "another") or a preposition, so the verb is no
    adjective ("Read Committed", "Rolling checksum"); the object is what follows them, up to
    the next preposition. None when the heading names no such object ("Install extras": no
    article after the verb), or one word of general English ("Upgrading packages", "Inherit
    the metadata from parents": the section is about the task, not the word)."""
    words = _WORD_RE.findall(heading.replace("`", ""))
    if len(words) < 2:
        return None
    verb = words[0].casefold()
    forms = base_forms(verb) | ({verb[:-3] + "e"} if verb.endswith("ing") else set())
    if not (is_gerund(verb) or not forms.isdisjoint(verbs)):
        return None  # "Using" is "use" ("… you can use …"): `is_gerund` wants six letters
    rest = words[1:]
    if rest[0].casefold() not in _OBJECT_ENDS | _ARTICLE_LIKE:
        return None  # "Read Committed", "Rolling checksum": a verb's form that qualifies a noun
    if rest[0].casefold() in _OBJECT_ENDS:
        rest = rest[1:]  # "Install from version control systems"
    while rest and rest[0].casefold() in _ARTICLE_LIKE:
        rest = rest[1:]
    taken: list[str] = []
    for word in rest:
        if word.casefold() in _OBJECT_ENDS:
            break
        taken.append(word)
    if not taken or len(taken) > MAX_OBJECT_WORDS:
        return None
    if any(w.casefold() in TOPICLESS_WORDS for w in taken):
        return None  # "Lock file to not write": no noun phrase
    if len(taken) == 1:
        word = taken[0]
        if not (is_code_like(word) or not word[1:].islower() or is_coined(word)):
            return None  # one word of English ("packages", "metadata"): about the task
    return " ".join(taken)
