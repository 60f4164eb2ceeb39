"""What a period's digest says, chosen by code: a paragraph on what recurs and what was learned,
then what happened once, as a short dated list (seed 003: a digest captures what happened
across the period and what was learned, not every sentence of it).

Every sentence is a whole sentence of the block it cites, or a model sentence `verify`
confirmed. The paragraph takes, per recurring item of the period (patterns first, the most
notes first), the model's sentence about it, else what a note of the period learned about it
(a sentence taking back an earlier one), else its latest sentence in the period.
"""

from __future__ import annotations

from collections.abc import Sequence

from wikic.consolidate.episodes import Episode, EpisodeBlock
from wikic.consolidate.evolve import changes
from wikic.consolidate.recurring import Recurring, Unit
from wikic.consolidate.render import Digest
from wikic.consolidate.verify import Cite, DigestSentence, Pattern

MAX_PARAGRAPH = 5  # a paragraph: seed 003's "3-5 sentences" a day, one paragraph a week
MAX_ONCE = 10


def _cited(unit: Unit) -> DigestSentence:
    return DigestSentence(unit.text, (Cite(unit.episode, unit.block),))


def said(item: Recurring, pages: set[str]) -> Unit:
    """The item's sentence for a period of `pages`: what a note of it learned, else its latest."""
    learned = [c.after for c in changes(item.units) if c.after.episode.page in pages]
    if learned:
        return learned[-1]
    return [u for u in item.units if u.episode.page in pages][-1]


def first_sentence(block: EpisodeBlock) -> str:
    """The block's first sentence of three words or more (its first, when none is)."""
    sentences = [s for s in block.sentences if s.strip()] or [block.text]
    return next((s for s in sentences if len(s.split()) >= 3), sentences[0])


def compose(
    episodes: Sequence[Episode],
    items: Sequence[Recurring],
    model: Sequence[DigestSentence],
    placed: Sequence[tuple[Pattern, str, str, str]],
    *,
    min_episodes: int,
) -> Digest:
    """The digest of a period of `episodes`, given what recurs in them (`items`, counted over
    the whole history) and the model's confirmed sentences."""
    pages = {e.page for e in episodes}
    ordered = sorted(
        (i for i in items if any(u.episode.page in pages for u in i.units)),
        key=lambda i: (len(i.episodes) < min_episodes, -len(i.episodes), i.units[0].episode.date),
    )
    chosen: dict[int, DigestSentence] = {}
    for sentence in model:
        refs = {c.ref for c in sentence.cites}
        owner = next((n for n, i in enumerate(ordered) if refs & set(i.refs)), None)
        if owner is not None and owner not in chosen:
            chosen[owner] = sentence  # a sentence about a one-off: the list below says it
    for n, item in enumerate(ordered):
        chosen.setdefault(n, _cited(said(item, pages)))
    paragraph = [chosen[n] for n in sorted(chosen)][:MAX_PARAGRAPH]
    taken = {u.ref for i in items for u in i.units}
    once = [
        DigestSentence(first_sentence(b), (Cite(ep, b),))
        for ep in episodes
        for b in ep.blocks
        if (ep.page, b.id) not in taken
    ][:MAX_ONCE]
    return Digest(paragraph, once, placed)
