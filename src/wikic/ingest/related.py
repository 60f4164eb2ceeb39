"""Related links that mean something: for each page a source writes, the other pages of that
source it has most to do with, ranked, at most `MAX_RELATED`.

Two pages are related when they share facts (one sentence is a fact of both), when their facts
come from the same sections of the source, or when one's facts name the other. A page with
nothing in common with another gets no link to it; so pages of one source do not all list the
same siblings.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from wikic.ingest.extract import Extraction, Topic
from wikic.language import grounding

MAX_RELATED = 8
SHARED_FACT = 3  # one sentence that is a fact of both pages
NAMED = 2  # one page's facts name the other (each way)
SHARED_SECTION = 1  # their facts come from one section of the source


def related_topics(
    ex: Extraction, topics: Sequence[Topic], limit: int = MAX_RELATED
) -> list[list[int]]:
    """For each of `topics` (the pages of one source, in order), the indexes of the others it
    is related to, best first, at most `limit`; ties keep the source's order."""
    doc = ex.document
    facts = [{f for f in t.facts if f in ex.sentences} for t in topics]
    sections = [{doc.block(ex.sentences[f].paragraph).section for f in ids} for ids in facts]
    every = sorted(set().union(*facts)) if facts else []
    # which of the source's facts name each page: asked once per (page, fact), not per pair
    texts = {f: ex.sentences[f].text for f in every}
    words = {f: set(grounding.word_keys(texts[f])) for f in every}
    named_by = [
        {f for f in every if exact.search(texts[f]) or any(c and c <= words[f] for c in parts)}
        for exact, parts in map(_pattern, topics)
    ]
    out: list[list[int]] = []
    for i in range(len(topics)):
        scored = []
        for j in range(len(topics)):
            if i == j:
                continue
            score = SHARED_FACT * len(facts[i] & facts[j])
            score += NAMED * bool(facts[i] & named_by[j])
            score += NAMED * bool(facts[j] & named_by[i])
            score += SHARED_SECTION * len(sections[i] & sections[j])
            if score:
                scored.append((-score, j))
        out.append([j for _, j in sorted(scored)[:limit]])
    return out


def _pattern(topic: Topic) -> tuple[re.Pattern[str], list[set[str]]]:
    """How a text names `topic`: a code name verbatim (the pattern), a phrase by all its
    content words (`grounding.mentions`: the word sets)."""
    spelled = [n.strip("`") for n in (topic.name, *topic.aliases) if n.strip("`")]
    exact = re.compile(
        r"(?<![\w-])(?:" + "|".join(re.escape(n) for n in spelled) + r")(?![\w-])",
        re.IGNORECASE,
    )
    return exact, [grounding.content_words(n) for n in spelled]
