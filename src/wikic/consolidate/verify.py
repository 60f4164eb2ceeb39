"""What code keeps of the model's proposals: every sentence it writes is kept only where code
confirms that each block it cites holds the sentence, and names only where the notes say them.

A block holds a sentence when it states each of the sentence's numbers, code tokens and names
and `HOLD_SHARE` of its content words (as `wikic query --style write` credits a fact). A
sentence that ends mid-way is dropped whatever it cites. The model proposes; code counts,
cites and names: what recurs and how often was found by `recurring` before the model was asked.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from wikic.consolidate.episodes import Episode, EpisodeBlock
from wikic.consolidate.evolve import Change
from wikic.consolidate.recurring import Recurring, terms_of
from wikic.consolidate.targets import Target
from wikic.consolidate.words import content, keys
from wikic.language.prose_checks import cut_reason
from wikic.language.segmentation import split_sentences
from wikic.prompts.consolidate import block_label

HOLD_SHARE = 0.8
NAME_WORDS = (3, 12)  # a phrase: fewer words name a thing, not what recurs
_NUMBER_RE = re.compile(r"(?<![\w.])\d+(?:[.,:]\d+)*(?![\w])")
_CODE_RE = re.compile(r"`([^`]+)`|\b(\w+(?:[_./-]\w+)+)\b")
_NAME_RE = re.compile(r"(?<=[\w,;:)] )[A-Z][\w'’-]*")
_EDGE_RE = re.compile(r"^[\s\"'“”`*_.,;:-]+|[\s\"'“”`*_,;:-]+$")


@dataclass(frozen=True)
class Cite:
    episode: Episode
    block: EpisodeBlock

    @property
    def ref(self) -> tuple[str, str]:
        return (self.episode.page, self.block.id)


@dataclass(frozen=True)
class DigestSentence:
    text: str  # plain text; the renderer escapes it
    cites: tuple[Cite, ...]


@dataclass(frozen=True)
class Proposal:
    """What the model said about one recurring item."""

    name: str | None
    statement: str | None
    target: Target | None


@dataclass(frozen=True)
class Pattern:
    item: Recurring
    name: str
    statement: str | None  # a model sentence code confirmed, else None
    statement_cites: tuple[Cite, ...]
    target: Target | None  # None: a new concept page
    changes: tuple[Change, ...] = ()

    @property
    def episodes(self) -> tuple[str, ...]:
        return tuple(e.page for e in self.item.episodes)

    @property
    def cites(self) -> tuple[Cite, ...]:
        blocks = {(u.episode.page, u.block.id): Cite(u.episode, u.block) for u in self.item.units}
        return tuple(blocks.values())

    def sentences(self, cite: Cite) -> list[str]:
        """The sentences of `cite`'s block that are evidence, in order."""
        return [u.text for u in self.item.units if (u.episode.page, u.block.id) == cite.ref]


def exact_terms(sentence: str) -> list[str]:
    """What a block must state verbatim to hold `sentence`: numbers, code tokens, names."""
    found = _NUMBER_RE.findall(sentence)
    found += [a or b for a, b in _CODE_RE.findall(sentence)]
    found += _NAME_RE.findall(sentence)
    return list(dict.fromkeys(found))


def holds(text: str, sentence: str) -> bool:
    """Whether block `text` holds `sentence` (see the module docstring)."""
    folded = text.casefold()
    for term in exact_terms(sentence):
        if not re.search(rf"(?<!\w){re.escape(term.casefold())}(?!\w)", folded):
            return False
    wanted = {w for w in content(keys(sentence)) if not w.isdigit()}
    if not wanted:
        return False
    return len(wanted & set(keys(text))) / len(wanted) >= HOLD_SHARE


def whole(sentence: str) -> bool:
    return len(sentence.split()) >= 3 and cut_reason(sentence) is None


def confirmed(sentence: str, cites: Iterable[Cite]) -> tuple[Cite, ...]:
    """The cites whose block holds `sentence`, once each."""
    found = {c.ref: c for c in cites if holds(c.block.text, sentence)}
    return tuple(found.values())


def model_sentences(text: str) -> list[str]:
    flat = " ".join(str(text).split())
    return split_sentences(flat) or ([flat] if flat else [])


def digest_sentences(value: Any, labels: dict[str, Cite], notes: list[str]) -> list[DigestSentence]:
    """The model's digest sentences that are whole and held by a block they cite (or, when it
    cited loosely, by one block of the batch), each citing only the blocks that hold it."""
    out: list[DigestSentence] = []
    for item in getattr(value, "digest", []):
        cited = [labels[i] for i in dict.fromkeys(item.cites) if i in labels]
        for sentence in model_sentences(item.text):
            if not whole(sentence):
                notes.append(f"digest sentence cut or too short, dropped: “{sentence[:80]}”")
                continue
            cites = confirmed(sentence, cited) or confirmed(sentence, labels.values())[:1]
            if not cites:
                notes.append(f"digest sentence no note holds, dropped: “{sentence[:80]}”")
                continue
            out.append(DigestSentence(sentence, cites))
    return out


def clean_name(name: str) -> str:
    return _EDGE_RE.sub("", " ".join(str(name).split()).replace("[", "").replace("]", ""))


def name_ok(name: str, item: Recurring) -> bool:
    """Whether the model's `name` says what recurs in the notes' words: a phrase of
    `NAME_WORDS` words, each content word in the item's sentences, two of its term words."""
    low, high = NAME_WORDS
    if not low <= len(name.split()) <= high or cut_reason(name + ".") is not None:
        return False
    said = set().union(*(keys(u.text) for u in item.units))
    if not content(keys(name)) <= said:
        return False
    return len(terms_of(name) & set(item.words)) >= 2


def statement_of(
    text: str | None, item: Recurring, notes: list[str]
) -> tuple[str | None, tuple[Cite, ...]]:
    """The model's statement with the item's blocks that hold it, or (None, ()) when none does."""
    sentences = model_sentences(text or "")
    if len(sentences) != 1 or not whole(sentences[0]):
        if text:
            notes.append(f"statement not one whole sentence, left out: “{str(text)[:80]}”")
        return None, ()
    cites = confirmed(sentences[0], (Cite(u.episode, u.block) for u in item.units))
    if not cites:
        notes.append(f"statement no note of the pattern holds, left out: “{sentences[0][:80]}”")
        return None, ()
    return sentences[0], cites


def labels_of(episodes: Sequence[Episode]) -> dict[str, Cite]:
    return {block_label(i, b.id): Cite(ep, b) for i, ep in enumerate(episodes) for b in ep.blocks}


def names_overlap(target: Target, item: Recurring, *, at_least: int = 1) -> bool:
    """Whether `at_least` term words of the target's name (its heading, or its title and
    aliases) are words of the item: a pattern goes to a page about it."""
    wanted = set().union(*(terms_of(n) for n in target.names)) if target.names else set()
    return len(wanted & set(item.words)) >= at_least
