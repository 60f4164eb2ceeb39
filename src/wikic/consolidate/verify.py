"""What code keeps of the model's proposals: cited blocks that exist, digest sentences made of
the words of the blocks they cite, and patterns backed by enough DISTINCT episodes.

The model proposes; code counts. A pattern's evidence is found by code (the blocks holding its
term), and its episodes are the distinct episodes of that evidence plus those its target section
already cites, whatever the model says about them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from wikic.consolidate.candidates import Candidate, blocks_with, is_term_word
from wikic.consolidate.episodes import Episode, EpisodeBlock
from wikic.consolidate.targets import Target
from wikic.consolidate.words import content, grounded, keys, name_key, overlap
from wikic.language.segmentation import split_sentences
from wikic.prompts.consolidate import block_label

_BREAK_RE = re.compile(r"[\[\]#|^]")


@dataclass(frozen=True)
class Cite:
    episode: Episode
    block: EpisodeBlock


@dataclass(frozen=True)
class DigestSentence:
    text: str  # plain text; the renderer escapes it
    cites: tuple[Cite, ...]
    verbatim: bool = False  # the model's sentence was not grounded: a cited sentence instead


@dataclass(frozen=True)
class Change:
    before: Cite
    after: Cite
    how: str | None  # the model's wording when grounded in both blocks, else None


@dataclass(frozen=True)
class Pattern:
    name: str
    statement: str | None  # None when the model's statement is not grounded in its blocks
    cites: tuple[Cite, ...]
    target: Target | None  # None: a new concept page
    change: Change | None = None
    aliases: tuple[str, ...] = ()  # other recurring terms merged into it

    @property
    def episodes(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(c.episode.page for c in self.cites))


@dataclass(frozen=True)
class Rejected:
    name: str
    episodes: tuple[str, ...]
    why: str


@dataclass
class BatchReading:
    digest: list[DigestSentence] = field(default_factory=list)
    patterns: list[Pattern] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def labels_of(episodes: Sequence[Episode]) -> dict[str, Cite]:
    return {block_label(i, b.id): Cite(ep, b) for i, ep in enumerate(episodes) for b in ep.blocks}


def read_batch(
    value: Any,
    episodes: Sequence[Episode],
    targets: Sequence[Target],
    candidates: Sequence[Candidate],
) -> BatchReading:
    """The model's reply for one batch, mapped to blocks and targets; unknown ids are dropped.
    A pattern's evidence is every block holding its term that shares words with the others."""
    labels = labels_of(episodes)
    by_id = {t.id: t for t in targets}
    by_name = {c.name: c for c in candidates}
    out = BatchReading()

    def cites_of(ids: Sequence[str]) -> tuple[Cite, ...]:
        return tuple(labels[i] for i in dict.fromkeys(ids) if i in labels)

    for item in getattr(value, "digest", []):
        cites = cites_of(item.cites)
        if cites:
            out.digest += digest_sentences(str(item.text), cites, labels.values(), out.notes)
    for p in getattr(value, "patterns", []):
        candidate = by_name.get(p.name)
        if candidate is None:
            continue
        found = tuple(Cite(ep, b) for ep, b in blocks_with(episodes, candidate.key))
        cites = (
            about_target(found, candidate.known, candidate.key)
            if candidate.known
            else coherent(found, candidate.key)
        )
        if len(cites) < len(found):
            out.notes.append(
                f"{len(found) - len(cites)} block(s) naming “{p.name}” share nothing else with "
                "the others: not counted"
            )
        if not cites:
            continue
        text = " ".join(c.block.text for c in cites)
        statement = " ".join(str(p.statement).split())
        if not grounded(statement, text):
            out.notes.append(f"statement of “{p.name}” not supported by its blocks: left out")
            statement = ""
        change = None
        if p.changed is not None and p.changed.before in labels and p.changed.after in labels:
            change = make_change(labels[p.changed.before], labels[p.changed.after], p.changed.how)
        target = candidate.known or by_id.get(p.target)
        if target is not None and not names_overlap(target, text):
            out.notes.append(f"“{p.name}” is not about {target.label}: a page of its own instead")
            target = None
        out.patterns.append(
            Pattern(
                name=pattern_name(candidate.name, target),
                statement=statement or None,
                cites=cites,
                target=target,
                change=change,
            )
        )
    chosen = {p.target.page for p in out.patterns if p.target is not None}
    for c in candidates:  # code links episodes naming a pattern page the model passed over
        if c.known is not None and c.known.pattern and c.known.page not in chosen:
            cites = about_target(
                tuple(Cite(ep, b) for ep, b in blocks_with(episodes, c.key)), c.known, c.key
            )
            if cites:
                chosen.add(c.known.page)
                out.patterns.append(Pattern(c.known.title, None, cites, c.known))
                out.notes.append(f"{len(cites)} block(s) name the pattern page “{c.name}”: added")
    if not out.digest:
        out.notes.append("no usable digest sentence from the model: opening sentences instead")
        out.digest = [opening(ep) for ep in episodes if ep.blocks]
    return out


def names_overlap(target: Target, text: str) -> bool:
    """Whether the evidence uses a word of the target's name (its heading or title, aliases):
    a pattern goes to a page about it, not to whatever page the model picked."""
    wanted = {w for name in target.names for w in content(keys(name)) if is_term_word(w)}
    return bool(wanted & set(keys(text)))


def about_target(cites: Sequence[Cite], target: Target, key: Sequence[str]) -> tuple[Cite, ...]:
    """The blocks naming an existing pattern that also share a word with what its page says."""
    page_words = {
        w
        for w in content(keys(" ".join([*target.names, target.summary])))
        if is_term_word(w) and w not in key
    }
    if not page_words:
        return tuple(cites)
    return tuple(c for c in cites if page_words & set(keys(c.block.text)))


def coherent(cites: Sequence[Cite], key: Sequence[str]) -> tuple[Cite, ...]:
    """The cites whose block shares a content word besides the term itself with a block of
    another episode: a word two notes use by coincidence is not a pattern."""
    words = {
        (c.episode.page, c.block.id): {w for w in content(keys(c.block.text)) if is_term_word(w)}
        - set(key)
        for c in cites
    }
    return tuple(
        c
        for c in cites
        if any(
            o.episode.page != c.episode.page
            and words[(c.episode.page, c.block.id)] & words[(o.episode.page, o.block.id)]
            for o in cites
        )
    )


def digest_sentences(
    text: str, cites: tuple[Cite, ...], batch: Iterable[Cite], notes: list[str]
) -> list[DigestSentence]:
    """The model's digest text as sentences that each cite the blocks they are made of: the
    cited ones, else the batch block that grounds the sentence best (a model may cite the wrong
    id), else the first sentence of its first cited block, verbatim."""
    reference = " ".join(c.block.text for c in cites)
    out = []
    for sentence in split_sentences(" ".join(text.split())) or [text]:
        if grounded(sentence, reference):
            out.append(DigestSentence(sentence, contributing(sentence, cites)))
            continue
        best = max(batch, key=lambda c: overlap(sentence, c.block.text), default=None)
        if best is not None and grounded(sentence, best.block.text):
            out.append(DigestSentence(sentence, (best,)))
            continue
        notes.append(f"digest sentence not supported by its blocks: “{sentence[:80]}”")
        first = cites[0]
        out.append(DigestSentence(first_sentence(first.block), (first,), verbatim=True))
    return out


def contributing(sentence: str, cites: Sequence[Cite]) -> tuple[Cite, ...]:
    """The cited blocks a sentence draws words from (two or more shared content words), else
    the one it shares most with: a citation must point at what the sentence says."""
    kept = tuple(c for c in cites if overlap(sentence, c.block.text) >= 2)
    return kept or (max(cites, key=lambda c: overlap(sentence, c.block.text)),)


def first_sentence(block: EpisodeBlock) -> str:
    return block.sentences[0] if block.sentences else block.text


def opening(ep: Episode) -> DigestSentence:
    block = ep.blocks[0]
    return DigestSentence(first_sentence(block), (Cite(ep, block),), verbatim=True)


def pattern_name(name: str, target: Target | None) -> str:
    cleaned = " ".join(_BREAK_RE.sub(" ", name).split()).strip(" .,:;\"'`()")
    if any(c.isalpha() for c in cleaned) and keys(cleaned):
        return cleaned
    return target.heading or target.title if target else "Recurring pattern"


def make_change(a: Cite, b: Cite, how: str) -> Change | None:
    """A dated change between two episodes (ordered by date); None within one episode."""
    if a.episode.page == b.episode.page or a.episode.date == b.episode.date:
        return None
    before, after = (a, b) if a.episode.date < b.episode.date else (b, a)
    how = " ".join(how.split())
    ok = grounded(how, f"{before.block.text} {after.block.text}", share=0.6)
    return Change(before, after, how if ok else None)


def _blocks(p: Pattern) -> set[tuple[str, str]]:
    return {(c.episode.page, c.block.id) for c in p.cites}


def merge(patterns: Sequence[Pattern]) -> list[Pattern]:
    """Patterns of one period merged: same target section, same name, or mostly the same
    evidence (two terms of one pattern, e.g. "OpenBLAS" and "prefill"), into the first."""
    merged: dict[str, Pattern] = {}
    for p in patterns:
        key = (
            f"{p.target.page}#{p.target.heading}"
            if p.target is not None and p.target.heading
            else f"name:{name_key(p.name)}"
        )
        for other_key, other in merged.items():
            shared = len(_blocks(p) & _blocks(other))
            if shared * 2 > min(len(_blocks(p)), len(_blocks(other))):
                key = other_key
                break
        old = merged.get(key)
        if old is None:
            merged[key] = p
            continue
        cites = tuple({(c.episode.page, c.block.id): c for c in (*old.cites, *p.cites)}.values())
        aliases = tuple(
            dict.fromkeys(a for a in (*old.aliases, p.name) if name_key(a) != name_key(old.name))
        )
        merged[key] = replace(
            old,
            aliases=aliases,
            cites=cites,
            statement=old.statement or p.statement,
            change=old.change or p.change,
            target=old.target or p.target,
        )
    return list(merged.values())


def verify(
    patterns: Sequence[Pattern],
    *,
    min_episodes: int,
    prior_episodes: Callable[[Pattern], set[str]],
) -> tuple[list[Pattern], list[Rejected]]:
    """Keep the patterns whose distinct episodes (cited now, or already by the target section)
    number at least `min_episodes`."""
    kept: list[Pattern] = []
    rejected: list[Rejected] = []
    for p in merge(patterns):
        episodes = set(p.episodes) | prior_episodes(p)
        if len(episodes) >= min_episodes:
            kept.append(p)
        else:
            rejected.append(
                Rejected(
                    p.name,
                    p.episodes,
                    f"{len(episodes)} distinct episode(s), {min_episodes} needed",
                )
            )
    return kept, rejected


def best_sentence(block: EpisodeBlock, about: str) -> str:
    """The block's sentence that shares the most words with `about` (its first on a tie)."""
    if not block.sentences:
        return block.text
    return max(block.sentences, key=lambda s: overlap(s, about))
