"""A fact that refers back ("This file serves as …", "Instead, it delegates …") means
something only after the sentence it points at. A page keeps such a fact with its antecedent:
the sentence right before it in the same source paragraph joins the page's facts just before
it; without one (it opens its paragraph, or the sentence before was no fact: a lead-in cut
before a list), the fact is left out, unless it is all the page would have. English only (the
refer-back words of `language.openings.refers_back`).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace
from itertools import pairwise
from typing import TYPE_CHECKING

from wikic.language.openings import refers_back
from wikic.language.sentences import Sentence
from wikic.vault.document import Document

if TYPE_CHECKING:
    from wikic.ingest.plan import SourcePlan


def antecedent(sid: str, sentences: Mapping[str, Sentence], doc: Document) -> str | None:
    """The id of the citable sentence right before `sid` in its paragraph, or None (it opens
    its paragraph, or the sentence before is no fact)."""
    ids = [s.id for s in doc.block(sentences[sid].paragraph).sentences]
    at = ids.index(sid) if sid in ids else 0
    before = ids[at - 1] if at > 0 else None
    return before if before in sentences else None


def chain(sid: str, sentences: Mapping[str, Sentence], doc: Document) -> list[str] | None:
    """`sid` after the sentences it refers back to, the first of them one that does not ("The
    WAL grows.", "This is called checkpointing.", "That is the crux …"); None when the chain
    breaks (a sentence refers back to nothing citable)."""
    found = [sid]
    while refers_back(sentences[found[0]].text):
        before = antecedent(found[0], sentences, doc)
        if before is None:
            return None
        found.insert(0, before)
    return found


def with_antecedents(
    facts: Sequence[str],
    sentences: Mapping[str, Sentence],
    doc: Document,
    *,
    add: bool = True,
) -> tuple[str, ...]:
    """`facts` (sentence ids) with each refer-back fact right after what it refers back to
    (`chain`; with `add`, added when missing), and the refer-back facts whose chain breaks, or
    (without `add`) whose antecedent is not among `facts`, left out; () when nothing but such
    facts is left."""
    kept: list[str] = []
    chosen = set(facts)
    for sid in facts:
        if sid in kept:
            continue
        found = chain(sid, sentences, doc) if sid in sentences else [sid]
        if found is None or (not add and not set(found[:-1]) <= chosen):
            continue
        if found[0] not in kept:
            kept.append(found[0])
        for before, after in pairwise(found):
            if after not in kept:
                kept.insert(kept.index(before) + 1, after)
    return tuple(kept)


def keep_antecedents(
    plan: SourcePlan, elsewhere: Collection[str] = (), *, add: bool = True
) -> None:
    """Every topic of `plan` with its refer-back facts' antecedents (`with_antecedents`). A
    topic left with nothing keeps its facts, unless its page gets facts from elsewhere (it
    existed, or another source of the batch writes it: `elsewhere`): then it is dropped."""
    ex = plan.extraction
    topics = []
    for topic, target in plan.topics:
        facts = with_antecedents(topic.facts, ex.sentences, ex.document, add=add)
        if not facts and (target.exists or target.path in elsewhere):
            plan.dropped.append(topic.name)
            continue
        topics.append((replace(topic, facts=facts or topic.facts), target))
    plan.topics = topics
