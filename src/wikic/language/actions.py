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
