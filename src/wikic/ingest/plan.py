"""Planning in code: which page each topic of each source goes to.

A topic resolves to an existing page by title, alias or file name, compared case-, punctuation-,
plural- and unicode-insensitively, then by close spelling. Topics of one batch that name the
same thing share one new page, and a page that would be mostly another page's facts gives
way to it (`ingest.twins`: merged as an alias, or trimmed to its own facts). Pages per source are capped, the topics of most facts first (a
precise name, a flag or identifier, weighs a little more: `language.evidence.topic_weight`).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from wikic.config import ReferBack
from wikic.ingest.antecedents import keep_antecedents
from wikic.ingest.extract import Extraction, Topic
from wikic.ingest.labels import drop_shared_labels
from wikic.ingest.members import place_topics
from wikic.ingest.resolve import (
    ConceptIndex,
    distinct_names,
    join_evidence,
    named_once_will_do,
    plain_word,
    shared_mentions,
)
from wikic.ingest.revisit import EarlierSource, HeldPage
from wikic.ingest.shared import concept_sources, shared_concepts, shared_sections
from wikic.ingest.twins import TWIN_SHARE, fold_twins
from wikic.language.abbreviations import abbreviates
from wikic.language.actions import subtree_blocks
from wikic.language.commands import is_code_like
from wikic.language.definitions import defined_abbreviations
from wikic.language.discussed import about
from wikic.language.evidence import FACTS_PER_SECTION_TOPIC
from wikic.language.grounding import guess_type, split_abbreviation
from wikic.language.kinds import KindEvidence, spelled_words
from wikic.language.sentences import Sentence, refers_back
from wikic.language.title_case import capitalised_title
from wikic.store.concepts import Layered, LayeredSets, StoredConcepts
from wikic.vault.document import Document
from wikic.vault.name_keys import acronym
from wikic.vault.names import name_key
from wikic.vault.pages import TYPE_FOLDERS
from wikic.vault.sections import split_body
from wikic.vault.slugs import safe_page_path, slugify
from wikic.vault.topic_page import parse_facts
from wikic.vault.tree import Vault

CLOSE_MATCH = 0.92
MIN_RANKED_FACTS = 2  # facts of a topic that ranks by its weight; with fewer it comes after
ONE_SENTENCE_PAGE = 3  # facts of a page before one sentence naming it may join it


@dataclass(frozen=True)
class PageTarget:
    path: str  # relative to wiki/, e.g. "concepts/prefix-cache.md"
    title: str
    type: str
    exists: bool  # existed before this batch


@dataclass
class SourcePlan:
    extraction: Extraction
    source_page: str  # relative to wiki/
    topics: list[tuple[Topic, PageTarget]] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)  # topic names over the cap or without facts
    # an earlier source read again for the pages this batch makes (`ingest.revisit`): only its
    # topics are written, its source page and other pages stay
    revisit: bool = False
    # a revisited source's facts on each page its own ingest wrote (`ingest.revisit.held_facts`)
    held: list[HeldPage] = field(default_factory=list)

    @property
    def held_ids(self) -> set[str]:
        """The sentences a revisited source's pages hold: a revisit adds none of them (one
        sentence on two pages of a source made them twins)."""
        return {i for h in self.held for i in h.facts}


def stored_index(stored: StoredConcepts) -> ConceptIndex[PageTarget]:
    """A `ConceptIndex` whose existing pages are looked up in `stored` key by key; what the
    batch adds stays in memory."""
    read: dict[str, tuple[PageTarget, str] | None] = {}

    def page(key: str) -> tuple[PageTarget, str] | None:
        if key not in read:
            found = stored.page(key)
            read[key] = None
            if found is not None:
                p, name = found
                read[key] = (PageTarget(p.path, p.title, p.type, True), name)
        return read[key]

    return ConceptIndex(
        by_key=Layered(lambda k: hit[0] if (hit := page(k)) else None, stored.keys_of),
        names=Layered(lambda k: hit[1] if (hit := page(k)) else None),
        _by_initials=LayeredSets(lambda s: stored.keys_by("initials", s)),
        _by_acronym=LayeredSets(lambda s: stored.keys_by("acronym", s)),
        _blocks=LayeredSets(lambda b: stored.keys_in_block(*b)),
    )


def held_keys(index: ConceptIndex[PageTarget], paths: set[str]) -> set[str]:
    """The name keys `index` gives to one of the pages `paths`: those the batch added, and
    those of the stored pages, looked up by path rather than by a pass over every key."""
    by_key = index.by_key
    keys = {k for k, t in by_key.items() if t.path in paths}  # the batch's (or every one)
    if isinstance(by_key, Layered):
        keys |= {k for k in by_key.stored_keys(paths) if k in by_key and by_key[k].path in paths}
    return keys


class Resolver:
    """Maps topic names to pages: existing ones from the wiki's concept index (the store's,
    `store.concepts`, or one built in memory from `vault`), new ones made in this batch, through
    one `ConceptIndex` (`ingest.resolve`) that looks the stored names up as it needs them."""

    def __init__(
        self,
        vault: Vault,
        concepts: StoredConcepts | None = None,
        kinds: KindEvidence | None = None,
    ) -> None:
        self._wiki_dir = vault.wiki_dir
        self.stored = concepts if concepts is not None else StoredConcepts.from_pages(vault)
        self.index: ConceptIndex[PageTarget] = stored_index(self.stored)
        self._taken: dict[str, set[str]] = {}  # folder → the slugs this batch took, case-folded
        self._kinds = kinds
        # page path → the names that found it with or without their kind: its aliases
        self.kind_names: dict[str, list[str]] = {}

    def find(self, names: Sequence[str], *, command: bool = False) -> PageTarget | None:
        """The page one of `names` names: by name key, or as a redundant acronym
        (`_redundant`), then by abbreviation ↔ expansion or (a `command`) the concept its last
        component names, then by close spelling."""
        for key in (name_key(n) for n in names):
            if key in self.index.by_key:
                return self.index.by_key[key]
        if (found := self._redundant(names)) is not None:
            return found
        for name in names:
            # a command is written in code or lower case (`mlx_lm.awq`, `uv sync`); a term in
            # capitals, "Distilled Weight Quantization" (an alias of DWQ), is no command of
            # its last word: DWQ had become the page "Quantize"
            found = self.index.match(name, command=command and _command_like(name))
            if found is not None:
                return found
        # a value in capitals by its words ("READ-COMMITTED": TiDB's setting of the level
        # PostgreSQL's page "Read Committed Isolation Level" is about), where a kind says so
        spelled = [(w, n) for n in names if (w := spelled_words(n)) is not None]
        for name, written in (*((n, n) for n in names if not is_code_like(n)), *spelled):
            if (found := self._of_kind(name, written)) is not None:
                return found
        # an identifier is exact or another one: `HTTP_PROXY` is not `HTTPS_PROXY`
        for name in (n for n in names if not is_code_like(n)):
            key = name_key(name)
            if not key:
                continue
            for match in self.index.close(key, CLOSE_MATCH):
                # "Tier 2 target" is not "Tier 3 target", nor "AWQ" "DWQ", however alike
                if not distinct_names(name, self.index.names[match]):
                    return self.index.by_key[match]
        return None

    def resolve(self, topic: Topic) -> PageTarget:
        # a title's subject is found by its own names, not as a command by its last word:
        # rqlite's "DB Package" is no page "Package" (issue 32: every title subject a page)
        command = (topic.precise or is_code_like(topic.name)) and not topic.subject
        found = self.find([topic.name, *topic.aliases], command=command)
        if found is not None:
            return found
        folder = TYPE_FOLDERS.get(topic.type, TYPE_FOLDERS["concept"])
        path = str(safe_page_path(self._wiki_dir, folder, self._take(folder, slugify(topic.name))))
        target = PageTarget(path, topic.name, topic.type, False)
        self.index.add((topic.name, *topic.aliases), target)
        return target

    def _redundant(self, names: Sequence[str]) -> PageTarget | None:
        """The page an abbreviation followed by the last word of its own long form names (a
        redundant acronym, "ATM machine"): "LTX files" is the page of "Lite Transaction Files"
        (alias LTX), "AWQ quantization" that of "Activation-aware Weight Quantization"; and
        back, a long form and its abbreviation find the page "LTX file". "WAL file" is not
        the page "Write-Ahead Log": a file of it."""
        for name in names:
            m = _REDUNDANT_RE.fullmatch(name.strip())
            if m is None or not acronym(m["short"]):
                continue
            page = self.index.match(m["short"])
            if page is None:
                continue
            for key in held_keys(self.index, {page.path}):
                if _ends_long_form(m["short"], m["word"], self.index.names[key]):
                    return page
        for long in (split_abbreviation(n)[0] for n in names):  # back: LTX finds "LTX file"
            last = long.split()[-1] if long.split() else ""
            for short in names:
                if acronym(short) and last and _ends_long_form(short, last, long):
                    key = name_key(f"{short} {last}")
                    if key in self.index.by_key:  # a stored page too: `Layered` reads it
                        return self.index.by_key[key]
        return None

    def _of_kind(self, name: str, written: str) -> PageTarget | None:
        """The page of `name` with or without its kind, where a document of the batch says it
        is one (`language.kinds`): "Read Committed isolation level" is "Read Committed", and
        back, the page existing or of the batch: the name without its last words, or the
        name with each kind the documents say it is. The page is found by `written`, the
        name as the source writes it (`READ-COMMITTED` of "READ COMMITTED")."""
        if self._kinds is None:
            return None
        words = name.split()
        for i in range(len(words) - 1, 0, -1):  # the longest name without its kind first
            head, kind = " ".join(words[:i]), " ".join(words[i:])
            page = self.index.by_key.get(name_key(head))
            if page is not None and not is_code_like(head) and self._kinds.is_a(head, kind):
                return self._named(written, page)
        for kind in self._kinds.kinds_of(name):  # the name with a kind it is: stored or new
            page = self.index.by_key.get(name_key(f"{name} {kind}"))
            if page is not None:
                return self._named(written, page)
        return None

    def _named(self, name: str, page: PageTarget) -> PageTarget:
        """`page`, found by `name`: the name joins its index, so sentences that write it name
        the page, and its aliases (`kind_aliases`)."""
        self.index.add([name], page)
        self.kind_names.setdefault(page.path, []).append(name)
        return page

    def retitle(self, target: PageTarget, title: str) -> PageTarget:
        """`target`, a page of this batch, under `title` (and the path it gives): the names
        that found it find the new one."""
        folder = TYPE_FOLDERS.get(target.type, TYPE_FOLDERS["concept"])
        path = str(safe_page_path(self._wiki_dir, folder, self._take(folder, slugify(title))))
        renamed = PageTarget(path, title, target.type, False)
        by_key = self.index.by_key
        for key in [k for k, t in by_key.items() if t.path == target.path]:
            by_key[key] = renamed
        self.index.add([title], renamed)
        if target.path in self.kind_names:
            self.kind_names[path] = self.kind_names.pop(target.path)
        return renamed

    def reserve_source_page(self, stem: str) -> str:
        folder = TYPE_FOLDERS["source"]
        return str(safe_page_path(self._wiki_dir, folder, self._take(folder, slugify(stem))))

    def _take(self, folder: str, slug: str) -> str:
        """`slug`, or `slug-2`, `slug-3`, … : the first no page of `folder` has and this batch
        did not take (compared case-insensitively, as on macOS and Windows file systems)."""
        taken = self._taken.setdefault(folder, set())

        def used(s: str) -> bool:
            return s.casefold() in taken or self.stored.slug_taken(folder, s)

        found, n = slug, 2
        while used(found):
            found, n = f"{slug}-{n}", n + 1
        taken.add(found.casefold())
        return found


class SharedNames:
    """What the other sources of a batch write about, for the cap on a source's pages
    (`ingest.max_pages_per_source`): a topic another source of the batch also has or discusses
    (`Extraction.discussed`), or one the wiki has a page of, comes before the topics only this
    source has (a topic of one fact still comes last). Compounding is for those: under the cap
    the held-out OCI descriptors' `mediaType`, which the image manifest and index
    specifications discuss too, had lost its place to "Implementations MAY"."""

    def __init__(self, extractions: Sequence[Extraction]) -> None:
        self._index: ConceptIndex[set[int]] = ConceptIndex()
        for i, ex in enumerate(extractions):
            if ex.episode:
                continue
            for name in (*ex.discussed, *(n for t in ex.topics for n in (t.name, *t.aliases))):
                found = self._index.match(name)
                if found is None:
                    found = set()
                    self._index.add([name], found)
                found.add(i)

    def elsewhere(self, topic: Topic, source: int, resolver: Resolver) -> bool:
        """Whether another source of the batch (not `source`) has or discusses `topic`, or the
        wiki has a page of it before the batch."""
        for name in (topic.name, *topic.aliases):
            found = self._index.match(name)
            if found is not None and found - {source}:
                return True
            page = resolver.index.match(name)  # by key or abbreviation: no side effect
            if page is not None and page.exists:
                return True
        return False


# an abbreviation and one word: "LTX files", "AWQ quantization", "WAL log" (`_redundant`)
_REDUNDANT_RE = re.compile(r"(?P<short>[A-Za-z][A-Za-z0-9]*)[ -](?P<word>[A-Za-z]{3,})")


def _ends_long_form(short: str, word: str, long: str) -> bool:
    """Whether `long` (its abbreviation in parentheses dropped) is what `short` abbreviates
    and ends with `word`, in any number: the word repeats the abbreviation's last letter."""
    long = split_abbreviation(long)[0]
    return (
        " " in long.strip()
        and name_key(long.split()[-1]) == name_key(word)
        and abbreviates(short, long)
    )


def _spelling(name: str) -> tuple[str, ...]:
    """`name`'s words case-folded, without a plural's s: how a name is spelled, whatever its
    number."""
    return tuple(re.sub(r"(?<=[^s])s$", "", w) for w in name.casefold().split())


def _command_like(name: str) -> bool:
    """Whether `name` may be a command, found by its last part (`Resolver.find`): one code
    token (`mlx_lm.awq`) or lower-case words (`uv sync`), not words with capitals, hyphened
    or not ("Activation-aware Weight Quantization")."""
    return (" " not in name.strip() and is_code_like(name)) or name.islower()


def _plain(topic: Topic) -> bool:
    """A phrase of plain words that no heading gives ("trace files", "working directory"):
    its page comes after the names, headings and code names a reader looks up (the
    `flamegraph` section had lost its page to them)."""
    return (
        " " in topic.name
        and topic.name.islower()
        and not topic.from_heading
        and not topic.precise
        and not is_code_like(topic.name)
    )


def _thin(topic: Topic) -> bool:
    """A topic of fewer than `MIN_RANKED_FACTS` facts, not a precise name (a command, a
    variable) nor the title's subject: its page comes after every page that earns its place
    with facts, whether code found it by a heading or by the sentences that name it (Pipenv's
    eight facts on `Pipfile` had lost their page to headings of one fact: "Clearing the
    Cache", "Version Control")."""
    return len(topic.facts) < MIN_RANKED_FACTS and not topic.subject and not topic.precise


def plan_batch(
    extractions: Sequence[Extraction],
    vault: Vault,
    *,
    existing_source_pages: dict[str, str],
    max_pages: int,
    concepts: StoredConcepts | None = None,
    refer_back: ReferBack = "antecedent",
    earlier: Sequence[EarlierSource] = (),
) -> list[SourcePlan]:
    """One SourcePlan per extraction. `existing_source_pages` maps raw path → source page path
    (for re-ingest); new sources get a fresh slug from their file name. `concepts` is the wiki's
    concept index (`store.concepts.open_concepts`); without it one is built from `vault`.

    `earlier`: earlier sources read again (`ingest.revisit`); a
    plan with `revisit` set follows the batch's plans for each of them that gets a page of this
    batch."""
    kinds = KindEvidence(
        [(ex.document, [s.text for s in ex.sentences.values()]) for ex in extractions]
    )
    resolver = Resolver(vault, concepts, kinds)
    documents = [ex.document for ex in extractions]  # a title's case is every document's word
    plans = []
    for ex in extractions:  # members listed on their parents' pages, title subjects
        placed = place_topics(ex)
        ex.topics = placed.topics
        ex.notes += placed.notes
    shared = SharedNames(extractions)
    for n, ex in enumerate(extractions):
        page = existing_source_pages.get(ex.source.rel)
        if page is None:
            page = resolver.reserve_source_page(ex.source.stem)
        plan = SourcePlan(ex, page)
        # what code finds from the document's structure and evidence comes first, plain
        # phrases last among it; then the spare topics it found beyond the cap; then topics
        # of one fact (`_thin`); then the names only the model chose
        ranked = sorted(
            enumerate(ex.topics),
            key=lambda it: (
                it[1].from_model and not it[1].subject,  # a subject the model named too
                _thin(it[1]),
                not shared.elsewhere(it[1], n, resolver),
                it[1].spare,
                _plain(it[1]),
                -it[1].weight,
                it[0],
            ),
        )
        seen: set[str] = set()
        for _, topic in ranked:
            if not topic.facts or len(plan.topics) >= max_pages:
                plan.dropped.append(topic.name)
                continue
            topic = replace(topic, name=capitalised_title(topic.name, documents))
            target = resolver.resolve(topic)
            if target.path in seen:  # two topics of one source that are one page: merge
                i = next(i for i, (_, t) in enumerate(plan.topics) if t.path == target.path)
                old, tgt = plan.topics[i]
                plan.topics[i] = (
                    replace(
                        old,
                        aliases=tuple(dict.fromkeys((*old.aliases, topic.name, *topic.aliases))),
                        facts=tuple(dict.fromkeys((*old.facts, *topic.facts))),
                        usage=tuple(dict.fromkeys((*old.usage, *topic.usage))),
                    ),
                    tgt,
                )
                continue
            seen.add(target.path)
            plan.topics.append((topic, target))
        plans.append(plan)
    drop_shared_labels(plans, vault)

    @functools.cache
    def prior(target: PageTarget) -> tuple[str, ...]:  # the fact ids of a page before the batch
        page = vault.pages.get(target.path)
        return tuple(f.id for f in parse_facts(split_body(page.body))) if page is not None else ()

    def facts_on(target: PageTarget) -> int:
        return len(prior(target))

    add_shared_pages(plans, resolver)
    revisits = [SourcePlan(e.extraction, e.source_page, revisit=True, held=e.held) for e in earlier]
    add_shared_sections(plans, resolver, revisits)
    add_earlier_shared(plans, revisits, resolver)

    def planned(target: PageTarget) -> int:
        batch = {  # sentence ids are a source's own: "s3" of two sources are two facts
            (i, f)
            for i, p in enumerate(plans)
            for topic, t in p.topics
            if t.path == target.path
            for f in topic.facts
        }
        return (facts_on(target) if target.exists else 0) + len(batch)

    for plan in plans:
        join_shared(plan, resolver.index, max_pages, facts_on=facts_on, planned=planned)
    made = {t.path for plan in plans for _, t in plan.topics if not t.exists}
    for plan in revisits:  # the pages this batch makes, as if these came after it
        join_shared(plan, resolver.index, max_pages, only=lambda t: t.path in made, planned=planned)
    plans += [p for p in revisits if p.topics]
    if refer_back != "keep":  # a fact that refers back goes with the sentence it points at
        _with_antecedents(plans, add=refer_back == "antecedent")
    _settle(plans, refer_back, prior)
    for plan in plans:
        _no_twin_of_existing(plan, facts_on)
    kind_aliases(plans, resolver.kind_names)
    return plans


def kind_aliases(plans: Sequence[SourcePlan], names: Mapping[str, Sequence[str]]) -> None:
    """Give each page the names that found it with or without their kind ("Read Committed" of
    "Read Committed isolation level"), on every topic of it: a reader looks the page up by
    either."""
    for plan in plans:
        for i, (topic, target) in enumerate(plan.topics):
            extra = [n for n in names.get(target.path, ()) if name_key(n) != name_key(target.title)]
            if extra:
                aliases = tuple(dict.fromkeys((*topic.aliases, *extra)))
                plan.topics[i] = (replace(topic, aliases=aliases), target)


def _settle(
    plans: Sequence[SourcePlan],
    refer_back: ReferBack,
    prior: Callable[[PageTarget], Sequence[str]] | None = None,
) -> None:
    """Fold the twins of the pages as they will be written, antecedents included. A fold may
    take an antecedent away: its fact goes too, and the page that loses it may then be mostly
    another page's facts (Postgres's "Concurrency Control" lost "This is because …" with its
    antecedent, and two of its three facts were on "Concurrent transactions"), so the pages
    are folded once more as they then are."""
    fold_twins(plans, prior)
    if refer_back == "keep":
        return
    _with_antecedents(plans, add=False)
    fold_twins(plans, prior)
    _with_antecedents(plans, add=False)


def _no_twin_of_existing(plan: SourcePlan, facts_on: Callable[[PageTarget], int]) -> None:
    """Take off `plan` each topic on an existing page whose facts are mostly on another page
    of the plan: `TWIN_SHARE` or more of the existing page as it would be (`facts_on` its
    facts, and these) on that page, a twin `fold_twins` cannot fold (it never folds an existing
    page). Poetry's "Updating dependencies" section, all on its `poetry.lock`, had resolved by
    a heading's alias to Pipenv's one-fact `pipenv update` page in a one-at-a-time compile.
    Those facts stay on the plan's own page only."""
    for i in reversed(range(len(plan.topics))):
        topic, target = plan.topics[i]
        if not target.exists or not topic.facts or topic.subject:
            continue
        on_page = facts_on(target)
        if not on_page:
            continue  # a stub with no facts takes them, as `join_shared` gives them
        held = _held_by_own(plan, topic.facts, on_page, besides=target.path)
        if not held:
            continue
        kept = tuple(f for f in topic.facts if not any(f in h for h in held))
        if kept:
            plan.topics[i] = (replace(topic, facts=kept), target)
        else:
            del plan.topics[i]
            plan.dropped.append(f"{topic.name} (its facts are on another page of the source)")


def _with_antecedents(plans: Sequence[SourcePlan], *, add: bool) -> None:
    for plan in plans:
        others = {t.path for other in plans if other is not plan for _, t in other.topics}
        keep_antecedents(plan, others, add=add)


def add_shared_pages(plans: Sequence[SourcePlan], resolver: Resolver) -> None:
    """A page for each concept two or more sources of the batch discuss that no page names
    yet (`ingest.shared`, from the `shared-concepts` topic finder): `join_shared` then gives it
    the facts of each of them."""
    sources = [p.extraction for p in plans if not p.extraction.episode]
    if len(sources) < 2:
        return
    for name in shared_concepts([(ex.discussed, ex.discussed_words) for ex in sources]):
        _as_most_write_it(_shared_page(name, sources, resolver), sources, resolver, plans)


def _as_most_write_it(
    target: PageTarget,
    sources: Sequence[Extraction],
    resolver: Resolver,
    plans: Sequence[SourcePlan],
) -> None:
    """Title the new page of a concept several sources discuss (`target`) as most of them
    write it: the page one source's topic made under its own spelling of the same stem ("quantize",
    the title of llama.cpp's tool page) is the page of the concept five others call
    "quantization"; its title becomes an alias. A plural is the same spelling, and an
    identifier (`mediaType`) is exact."""
    if target.exists or is_code_like(target.title):
        return
    key = name_key(target.title)
    written: dict[tuple[str, ...], list[str]] = {}  # spelling → as each source writes it
    for ex in sources:
        mine = {_spelling(n): n for n in (*ex.discussed, *ex.discussed_words) if name_key(n) == key}
        for spelling, n in mine.items():
            written.setdefault(spelling, []).append(n)
    best = max(written, key=lambda sp: len(written[sp]), default=None)
    own = _spelling(target.title)
    if best is None or best == own or len(written[best]) <= len(written.get(own, ())):
        return
    name = written[best][0]
    title = capitalised_title(name, [ex.document for ex in sources])
    renamed = resolver.retitle(target, title)
    for plan in plans:
        plan.topics = [
            (replace(t, aliases=tuple(dict.fromkeys((*t.aliases, target.title)))), renamed)
            if p.path == target.path
            else (t, p)
            for t, p in plan.topics
        ]


def add_earlier_shared(
    plans: Sequence[SourcePlan], revisits: Sequence[SourcePlan], resolver: Resolver
) -> None:
    """A page for each concept a source of the batch and an earlier one discuss that no page
    names yet (`ingest.revisit`): `join_shared` then gives it the facts of each of them."""
    batch = [p.extraction for p in plans if not p.extraction.episode]
    if not batch or not revisits:
        return
    sources = [*batch, *(p.extraction for p in revisits)]
    for name, members in concept_sources([(ex.discussed, ex.discussed_words) for ex in sources]):
        if min(members) < len(batch) <= max(members):  # the batch's and an earlier source's
            _shared_page(name, [sources[i] for i in sorted(members)], resolver)


def _shared_page(name: str, sources: Sequence[Extraction], resolver: Resolver) -> PageTarget:
    """The page of the concept `name` the sources discuss: the one a name of it finds, else a
    new one."""
    long = defined_long_form(name, [ex.document for ex in sources])
    found = resolver.find([name] if long is None else [long, name])
    if found is not None:
        return found
    text = "\n".join(ex.source.text for ex in sources)
    if long is not None:  # "TXID" that a document defines: "Transaction ID", alias TXID
        return resolver.resolve(Topic(long, guess_type(long, text, "concept"), (name,), ()))
    name = capitalised_title(name, [ex.document for ex in sources])
    return resolver.resolve(Topic(name, guess_type(name, text, "concept"), (), ()))


def defined_long_form(short: str, documents: Sequence[Document]) -> str | None:
    """The term the first of `documents` that defines the abbreviation `short` writes out
    ("an autoincrementing transaction ID (TXID)" → "Transaction ID"), or None: a page of a
    concept several sources abbreviate is titled as a page its own source would title it
    (`language.definitions.defined_abbreviations`), and its sentences that write the term out
    name it too."""
    key = name_key(short)
    for doc in documents:
        for term, shorts in defined_abbreviations(doc).items():
            if any(name_key(s) == key for s in shorts):
                return term
    return None


def add_shared_sections(
    plans: Sequence[SourcePlan], resolver: Resolver, revisits: Sequence[SourcePlan] = ()
) -> None:
    """A page for each task two or more sources of the batch give a section of their own
    (`ingest.shared.shared_sections`), holding each section's facts (its subsections' too,
    the first `FACTS_PER_SECTION_TOPIC`): one page for "Installing from lock files" that
    cites Pipenv's section and PDM's "Install the packages pinned in lock file".

    A task a source of the batch shares with an earlier one (`revisits`) goes to the page the
    earlier source's own ingest made of its section, where there is one (the batch's section
    joins it, its title an alias), unless the section is mostly on a page the batch's source
    makes (`_twin_of_own`); else to a new page, where the earlier source adds the
    section's sentences none of its pages holds."""
    live = [p for p in plans if not p.extraction.episode]
    everyone = [*live, *revisits]
    if len(everyone) < 2 or not live:
        return
    documents = [p.extraction.document for p in everyone]
    for task in shared_sections([p.extraction.actions for p in everyone]):
        if all(source >= len(live) for source, _ in task.members):
            continue  # earlier sources alone: their own ingests planned them
        name = capitalised_title(task.title, documents)
        facts = {s: _section_facts(everyone[s], section) for s, section in task.members}
        made = next(
            (
                page
                for s, _ in task.members
                if s >= len(live)
                and (page := _held_page(everyone[s], facts[s])) is not None
                and not any(  # the section mostly on a page of its own source: a twin
                    _twin_of_own(everyone[b], facts[b], everyone[s], page)
                    for b, _ in task.members
                    if b < len(live)
                )
            ),
            None,
        )
        joined = 0  # facts of the batch's sources: a revisit never makes a page alone
        for source, _ in task.members:  # the batch's sources first, in order
            plan, mine = everyone[source], facts[source]
            if plan.revisit:
                if made is not None or not joined:
                    continue  # its page of the section is the task's page, or there is none
                held = plan.held_ids
                mine = tuple(i for i in mine if i not in held)
            if not mine:
                continue
            joined += len(mine)
            text = plan.extraction.source.text
            topic = Topic(name, guess_type(name, text, "concept"), (), mine, from_heading=True)
            _add_topic(plan, topic, made or resolver.resolve(topic))


def _twin_of_own(
    plan: SourcePlan, mine: Sequence[str], earlier: SourcePlan, page: PageTarget
) -> bool:
    """Whether `mine`, a section of `plan`'s source, joined to the earlier source's `page`
    would make it a twin of one of `plan`'s own pages: `TWIN_SHARE` or more of the page as it
    would be (the earlier source's facts on it and these) on that page. Poetry's "Updating
    dependencies" section, four sentences all on its `poetry.lock` page, had joined Pipenv's
    one-fact `pipenv update` page: a twin (the rule `join_shared` keeps with `facts_on`)."""
    held = sum(len(h.facts) for h in earlier.held if h.path == page.path)
    return bool(_held_by_own(plan, mine, held))


def _held_by_own(
    plan: SourcePlan, facts: Sequence[str], on_page: int, *, besides: str = ""
) -> list[set[str]]:
    """Of `facts`, added to a page of `on_page` facts, those each page of `plan` (but
    `besides`) holds where they are `TWIN_SHARE` or more of that page as it would be: the
    page would be its twin."""
    mine = set(facts)
    size = on_page + len(facts)
    return [
        held
        for topic, at in plan.topics
        if at.path != besides and len(held := set(topic.facts) & mine) >= TWIN_SHARE * size
    ]


def _section_facts(plan: SourcePlan, section: int) -> tuple[str, ...]:
    """The first `FACTS_PER_SECTION_TOPIC` sentences of a section, its subsections' included."""
    blocks = set(subtree_blocks(plan.extraction.document, section))
    return tuple(sid for sid, s in plan.extraction.sentences.items() if s.paragraph in blocks)[
        :FACTS_PER_SECTION_TOPIC
    ]


def _held_page(plan: SourcePlan, facts: Sequence[str]) -> PageTarget | None:
    """The page of a revisited source that holds most of `facts` (`TWIN_SHARE` or more) and
    is mostly made of them: the page its own ingest made of that section. A page the section
    is only a part of (PDM's own page, which took its "pdm sync" section) is not the task's:
    another source's section of the task does not go there."""
    best = max(plan.held, key=lambda h: len(set(h.facts) & set(facts)), default=None)
    if best is None or not facts:
        return None
    shared = len(set(best.facts) & set(facts))
    if shared < TWIN_SHARE * len(facts) or shared < TWIN_SHARE * len(set(best.facts)):
        return None
    return PageTarget(best.path, best.title, best.type, True)


def _add_topic(plan: SourcePlan, topic: Topic, target: PageTarget) -> None:
    """`topic` onto `target` in `plan`: a topic of its own, or its facts added to the topic the
    plan has there already."""
    at = next((i for i, (_, t) in enumerate(plan.topics) if t.path == target.path), None)
    if at is None:
        plan.topics.append((topic, target))
        return
    old, _ = plan.topics[at]
    plan.topics[at] = (replace(old, facts=tuple(dict.fromkeys((*old.facts, *topic.facts)))), target)


def join_shared(
    plan: SourcePlan,
    index: ConceptIndex[PageTarget],
    limit: int,
    *,
    only: Callable[[PageTarget], bool] | None = None,
    facts_on: Callable[[PageTarget], int] = lambda target: 0,
    planned: Callable[[PageTarget], int] = lambda target: 0,
) -> None:
    """Add the source's facts to the pages of the wiki and of its batch that `JOIN_EVIDENCE`
    or more of its sentences name, though its own topics did not: a concept each document names
    only in prose still gets one page citing all of them. A page one sentence is about
    (`about_page`: "Dependency resolution: captures the complete graph …") joins on that
    sentence alone. At most `limit` such pages, those most sentences name first; with `only`,
    only the pages it accepts. `facts_on(page)`: the facts an existing page holds, so a page of
    few facts is not joined with sentences mostly on one page of the source (a twin of it).
    One sentence naming the page by a rare name in prose (`named_once_will_do`: "… support
    lock-free MVCC …") joins a page that holds `ONE_SENTENCE_PAGE` facts or more (`planned`:
    the facts the wiki and the batch's plans give it so far): on a smaller page, one sentence
    that another page holds too made it a twin of that page, and the trim took its own facts
    away ("Prefix caching" lost "Prefix caching reuses the KV cache …")."""
    if plan.extraction.episode:
        return
    own = {t.path for _, t in plan.topics}
    skip = held_keys(index, own)
    doc = plan.extraction.document
    sentences = [_row_labels_dropped(s, doc) for s in plan.extraction.sentences.values()]
    found = shared_mentions(sentences, index, skip)
    joined: dict[str, tuple[PageTarget, list[str]]] = {}
    named: dict[str, list[str]] = {}  # page → the names of it the sentences write
    for key, ids in found.items():
        target = index.by_key[key]
        if target.path in own or (only is not None and not only(target)):
            continue
        _, have = joined.setdefault(target.path, (target, []))
        have += [i for i in ids if i not in have]
        named.setdefault(target.path, []).append(index.names[key])
    own_facts = [set(topic.facts) for topic, _ in plan.topics if topic.facts]
    own_facts += [set(h.facts) for h in plan.held]
    openings = {topic.facts[0] for topic, _ in plan.topics if topic.facts}
    openings |= {h.facts[0] for h in plan.held}
    # a revisited source's sentences join as one batch's would, though a page of its own holds
    # them too (bbolt's "… support lock-free MVCC …", on its LMDB page, on the wiki's MVCC
    # page): the twin checks below keep each of its pages (`own_facts`) from becoming a twin
    ranked = sorted(joined.values(), key=lambda j: (-len(j[1]), j[0].path))
    added = 0
    for target, ids in ranked:
        if added == limit:
            break
        if (
            len(ids) < join_evidence(target.title)
            and not about_page(named[target.path], ids, plan.extraction.sentences)
            and not (  # the names first: `planned` may read the page
                _named_once(named[target.path], ids, plan.extraction.sentences)
                and planned(target) >= ONE_SENTENCE_PAGE
            )
        ):
            continue
        facts: list[str] = []
        for i in ids[:FACTS_PER_SECTION_TOPIC]:
            # the page joined must not hold most of another page of the source, nor open with
            # the sentence another opens with: a twin either way
            if i in openings:
                continue
            if refers_back(plan.extraction.sentences[i].text):
                continue  # "This file serves …": its antecedent stays on the source's pages
            if not any(i in f and len(f & {*facts, i}) >= TWIN_SHARE * len(f) for f in own_facts):
                facts.append(i)
        on_page = facts_on(target) if target.exists and facts else 0
        if on_page:  # the page as it will be, its facts and these (a stub with none takes them)
            for f in own_facts:
                if len(f & set(facts)) >= TWIN_SHARE * (on_page + len(facts)):
                    facts = [i for i in facts if i not in f]
        if facts:
            names = () if target.exists else _batch_names(index, target)
            plan.topics.append((Topic(target.title, target.type, names, tuple(facts)), target))
            own_facts.append(set(facts))
            openings.add(facts[0])
            added += 1


def _batch_names(index: ConceptIndex[PageTarget], target: PageTarget) -> tuple[str, ...]:
    """The other names the batch gave the new page `target` (the abbreviation of "Transaction
    ID", `_shared_page`): its aliases, whichever source's facts it gets."""
    title = name_key(target.title)
    names = (index.names[k] for k in sorted(held_keys(index, {target.path})))
    return tuple(dict.fromkeys(n for n in names if name_key(n) != title))


def _row_labels_dropped(sentence: Sentence, doc: Document) -> Sentence:
    """A table row's sentence as it names pages: its first cell with its column's name, the
    other cells without theirs ("Isolation Level: READ COMMITTED; Dirty Read: Not possible"
    names no "Dirty read": the row is about its first cell, the other headers label columns)."""
    block = doc.block(sentence.paragraph)
    if block.kind != "table" or len(block.header) < 2:
        return sentence
    text = sentence.text
    for label in block.header[1:]:
        if label:
            text = text.replace(f"; {label}: ", "; ")
    return replace(sentence, text=text)


def _named_once(
    names: Sequence[str], ids: Sequence[str], sentences: Mapping[str, Sentence]
) -> bool:
    """Whether one sentence names the page by a name it is enough for (`named_once_will_do`)."""
    return len(ids) == 1 and any(named_once_will_do(n, sentences[ids[0]].text) for n in names)


def about_page(names: Sequence[str], ids: Sequence[str], sentences: Mapping[str, Sentence]) -> bool:
    """Whether one of the sentences `ids` is about a page by one of its `names`: opens with it,
    says something of it, or defines it (`language.discussed.about`). Not by a plain word
    ("name", "version"): a text is about those in passing everywhere, and one sentence of every
    document would gather on their page."""
    precise = [n for n in names if not plain_word(n)]
    return any(about(n, sentences[i].text) for i in ids for n in precise if i in sentences)
