"""Earlier sources and the pages a later batch makes: a wiki that compounds in any order of ingest.

A batch sees what its own sources share (`ingest.shared`) and the pages the wiki has. Ingested
one at a time, as `wikic ingest raw/paper.md` is used, a source would see only the pages: a
concept an earlier source discussed without a page of its own, which this source discusses too,
would get no page, and a page this source makes would miss the facts that earlier sources give
it. Compiled in one batch, the same documents would have had both.

So ingest also reads again (code only: the parse and the topic finders, no model call) the
earlier sources that name what the batch discusses and the wiki has no page for
(`earlier_sources`), and the planner (`ingest.plan.plan_batch`)

- makes a page for each concept the batch and an earlier source discuss (`ingest.shared`),
- makes one page of a task the batch and an earlier source each give a section, or joins the
  batch's section to the page the earlier source made of its own (`plan.add_shared_sections`),
- gives each page the batch makes the facts of an earlier source that name it, by the rule
  every source joins a page by (`plan.join_shared`), cited to that source's page.

A revisit's section of a shared task adds only sentences that no page of its source holds (one
sentence on two pages of a source made them twins); a sentence that names a page the batch
makes joins it as in one batch, under the same twin checks (`plan.join_shared`): bbolt's "…
support lock-free MVCC …", which its own LMDB page holds, is on the wiki's MVCC page too.

An earlier source is *revisited*: only those pages are written for it, in a commit of its own
after the batch's; its source page and its other pages stay as they are. A source whose raw file
changed since it was ingested is not revisited (re-ingest it), nor is an episode, nor a fact
whose paragraph its source page no longer holds.

At most `ingest.revisit_sources` earlier sources per batch (0: none), those that name the most
of the batch's names first: each is parsed again, and its source page's text is searched for the
names once per batch.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace

from wikic.config import IngestConfig
from wikic.errors import WikicError
from wikic.ingest.extract import Extraction, reread
from wikic.ingest.text import quote
from wikic.status import source_pages_by_raw
from wikic.vault.links import block_ids, parse_links
from wikic.vault.sections import split_body
from wikic.vault.sources import Source
from wikic.vault.topic_page import cited_sources, fact_id, parse_facts
from wikic.vault.tree import Vault


@dataclass(frozen=True)
class HeldPage:
    """A page an earlier source's own ingest wrote, and the sentences of that source on it."""

    path: str
    title: str
    type: str
    facts: tuple[str, ...]


@dataclass(frozen=True)
class EarlierSource:
    """An earlier source read again for a batch."""

    extraction: Extraction  # `extract.reread`, only sentences whose block its page holds
    source_page: str
    held: list[HeldPage]  # `held_facts`


SHORT = 4  # a name of fewer letters is looked for as a word, not inside other words


def batch_names(extractions: Iterable[Extraction]) -> tuple[list[str], list[str]]:
    """The names a batch discusses or makes pages of, and the plain words it discusses (which
    may be an earlier source's name: "snapshot") or its task headings hold (a task an earlier
    source gives a section: "Installing from Lock Files"), in order, once each."""
    names: dict[str, None] = {}
    words: dict[str, None] = {}
    for ex in extractions:
        if ex.episode:
            continue
        names.update(dict.fromkeys(ex.discussed))
        for topic in ex.topics:
            names.update(dict.fromkeys((topic.name, *topic.aliases)))
        words.update(dict.fromkeys(ex.discussed_words))
        words.update(dict.fromkeys(w for a in ex.actions for w in a.words))
    return list(names), [w for w in words if w not in names]


def _squash(text: str) -> str:
    """Letters and digits only, lower case: "Lock files", "lock-file" and "lockfile" alike."""
    return re.sub(r"[\W_]+", "", text.casefold())


def _singular(squashed: str) -> str:
    return squashed[:-1] if len(squashed) > SHORT and squashed.endswith("s") else squashed


def naming(names: Sequence[str], text: str) -> int:
    """How many of `names` `text` may name (spelt with or without spaces, hyphens, a plural s):
    a cheap test that finds every source naming one, and some that do not."""
    return _Names(names).count(text)[0]


class _Names:
    """Names looked for in many texts: each name's key made once, each text squashed once."""

    def __init__(self, *groups: Sequence[str]) -> None:
        self.groups = [[k for k in (_singular(_squash(n)) for n in g) if k] for g in groups]

    def count(self, text: str) -> tuple[int, ...]:
        """How many names of each group `text` may name."""
        squashed = _squash(text)
        words: set[str] | None = None
        counts = []
        for keys in self.groups:
            count = 0
            for key in keys:
                if len(key) < SHORT:
                    if words is None:
                        words = {w.casefold() for w in re.findall(r"\w+", text)}
                    count += key in words or key + "s" in words
                else:
                    count += key in squashed
            counts.append(count)
        return tuple(counts)


def earlier_sources(
    load: Callable[[str], Source],
    vault: Vault,
    batch: Sequence[Extraction],
    unpaged: Sequence[str],
    words: Sequence[str],
    config: IngestConfig,
    *,
    is_episode: Callable[[Extraction], bool],
) -> list[EarlierSource]:
    """The earlier sources to revisit for `batch`: those
    whose source page names the most of `unpaged` (the batch's names no page has), then of
    `words` (the plain words it discusses that no page names), at most
    `config.revisit_sources`. `load(rel)` loads a raw file as a `Source`. A source that
    cannot be read now, changed since, or is an episode is left out."""
    limit = config.revisit_sources
    if limit <= 0 or not (unpaged or words):
        return []
    in_batch = {ex.source.rel for ex in batch}
    ranked: list[tuple[int, int, str, str]] = []
    looked_for = _Names(unpaged, words)
    for raw, pages in sorted(source_pages_by_raw(vault).items()):
        if raw in in_batch:
            continue
        page = vault.pages[pages[0]]
        hits, plain = looked_for.count(page.body)
        if hits or plain:
            ranked.append((-hits, -plain, raw, page.path))
    found: list[EarlierSource] = []
    for _, _, raw, page_path in sorted(ranked):
        if len(found) == limit:
            break
        page = vault.pages[page_path]
        try:
            source = load(raw)
        except WikicError:
            continue  # unreadable or gone now: `wikic status` says so, not this batch
        if source.sha256 != str(page.props.get("sha256") or ""):
            continue  # changed since: its re-ingest replaces what it says
        ex = reread(source, config)
        if is_episode(ex):
            continue
        ex = held_sentences(ex, page.body)
        found.append(EarlierSource(ex, page_path, held_facts(ex, page_path, vault)))
    return found


def held_facts(ex: Extraction, source_page: str, vault: Vault) -> list[HeldPage]:
    """The sentences of `ex` on each page its source page links to (those its own ingest wrote),
    in page order: what a revisit must not make a twin of (`plan.join_shared`)."""
    page = vault.pages.get(source_page)
    if page is None:
        return []
    cited = f"[[{source_page.removesuffix('.md')}]]".casefold()
    by_fact = {fact_id(quote(s.text)): sid for sid, s in ex.sentences.items()}
    held = []
    for target in dict.fromkeys(lnk.target for lnk in parse_links(page.body)):
        linked = vault.pages.get(f"{target}.md")
        if linked is None or linked.type not in ("entity", "concept"):
            continue
        ids = tuple(
            by_fact[f.id]
            for f in parse_facts(split_body(linked.body))
            if f.id in by_fact and cited in {c.casefold() for c in cited_sources([f])}
        )
        if ids:
            held.append(HeldPage(linked.path, linked.title, linked.type, ids))
    return held


def held_sentences(ex: Extraction, page_body: str) -> Extraction:
    """`ex` with only the sentences whose paragraph the source page still holds as a block: a
    citation must land (a page written by another version of the parser may number them
    otherwise)."""
    blocks = block_ids(page_body)
    return replace(ex, sentences={k: s for k, s in ex.sentences.items() if s.paragraph in blocks})


__all__ = [
    "EarlierSource",
    "HeldPage",
    "batch_names",
    "earlier_sources",
    "held_facts",
    "held_sentences",
    "naming",
]
