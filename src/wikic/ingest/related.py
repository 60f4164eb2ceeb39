"""Related links that mean something: for each page a source writes, the other pages of that
source it has most to do with, ranked, at most `MAX_RELATED`.

Two pages are related when they share facts (one sentence is a fact of both), when their facts
come from the same sections of the source, or when one's facts name the other. A page with
nothing in common with another gets no link to it; so pages of one source do not all list the
same siblings.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

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
    facts = [set(t.facts) for t in topics]
    texts = [[ex.sentences[f].text for f in t.facts if f in ex.sentences] for t in topics]
    sections = [
        {doc.block(ex.sentences[f].paragraph).section for f in t.facts if f in ex.sentences}
        for t in topics
    ]
    names = [_pattern(t) for t in topics]
    out: list[list[int]] = []
    for i in range(len(topics)):
        scored = []
        for j in range(len(topics)):
            if i == j:
                continue
            score = SHARED_FACT * len(facts[i] & facts[j])
            score += NAMED * any(names[j](x) for x in texts[i])
            score += NAMED * any(names[i](x) for x in texts[j])
            score += SHARED_SECTION * len(sections[i] & sections[j])
            if score:
                scored.append((-score, j))
        out.append([j for _, j in sorted(scored)[:limit]])
    return out


def _pattern(topic: Topic) -> Callable[[str], bool]:
    """A test of whether a text names `topic` (a code name verbatim, a phrase by its words)."""
    spelled = [n.strip("`") for n in (topic.name, *topic.aliases) if n.strip("`")]
    exact = re.compile(
        r"(?<![\w-])(?:" + "|".join(re.escape(n) for n in spelled) + r")(?![\w-])",
        re.IGNORECASE,
    )
    return lambda text: bool(exact.search(text)) or grounding.mentions(spelled, text)
