"""Extraction: topics from the document's structure, then one schema-constrained call per
window of the source (all windows of a source in one batch) → topics with fact ids.

The title is the document's own (front matter, first H1, first heading, file name), never the
model's. Only ids of whole-fact sentences shown in the window can be cited (enforced by the
schema and checked again here); topics repeated across windows and sections are merged by the
one name rule; fact ids are deduped. Each call sees only its window (the windows partition the
source, so each source token is prefilled once) after the same cached instructions; the source
page's summary is asked for later, in the page-write batch (`write`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping, Sequence, Set
from dataclasses import dataclass, field, replace
from typing import Any

from wikic.config import IngestConfig
from wikic.ingest import prompts
from wikic.ingest.schemas import extraction_model
from wikic.ingest.text import Section, make_sections, numbered_text
from wikic.language import grounding
from wikic.language.actions import ActionHeading
from wikic.language.commands import (
    code_examples,
    code_terms,
    command_names,
    is_code_like,
    is_precise,
)
from wikic.language.definitions import (
    kind_names,
)
from wikic.language.evidence import (
    FACTS_PER_SECTION_TOPIC,
    PRECISE_WEIGHT,
    evidence_topics,
    part_of,
    reads_as_clause,
)
from wikic.language.finders import (
    Found,
    Reading,
    enabled_finders,
    find_all,
    offered_names,
)
from wikic.language.frequency import is_field_term
from wikic.language.section_topics import extended_by_phrase, named_by_phrase
from wikic.language.sentences import Sentence, fact_sentences, refers_back, starts_sentence
from wikic.language.vocabulary import is_common_term
from wikic.llm.backend import (
    EMPTY_STATS,
    Backend,
    Generation,
    GenerationStats,
    Request,
    Segment,
    generate_batch,
)
from wikic.vault.document import Document, parse_document
from wikic.vault.names import name_key
from wikic.vault.sources import Source

TOKENS_PER_TOPIC = 60  # generous: name, type, aliases and four ids in JSON
MAX_CANDIDATES = 32


SPARE_TOPICS = 3  # found beyond the page cap: they fill the places of topics the plan merges
SUBJECT_WEIGHT = 1_000  # the subject the title names: first for the source's pages


@dataclass(frozen=True)
class Topic:
    name: str
    type: str  # entity | concept
    aliases: tuple[str, ...]
    facts: tuple[str, ...]  # sentence ids
    usage: tuple[str, ...] = ()  # block ids of code examples for the page's Usage section
    from_heading: bool = False  # a section heading of the source names it
    precise: bool = False  # a flag, identifier or command (`language.commands.is_precise`)
    subject: bool = False  # what the document's title names (`language.section_topics.title_topic`)
    spare: bool = False  # beyond the page cap: a page only in a place the plan frees
    from_model: bool = False  # named by the model only: a page after those code finds
    # commands, options, keys and files twin folding listed on this page (`ingest.twins`,
    # `LIST`): rows of the page, each a name it is found by
    listed: tuple[str, ...] = ()

    @property
    def weight(self) -> int:
        """Its claim to one of the source's pages (`language.evidence.topic_weight`); a term of every
        technical text (`STDIN`, `URL`, `GPU`) only takes a page no other topic wants, unless
        a heading names it. The subject the title names comes first, however few sentences
        name it: the Target Tier Policy's page was the one a full page cap left out."""
        if self.subject:
            return SUBJECT_WEIGHT
        if not self.from_heading and is_common_term(self.name):
            return 0
        return len(self.facts) + (PRECISE_WEIGHT if self.precise else 0)


@dataclass
class Extraction:
    source: Source
    title: str
    summary: str
    document: Document
    sentences: dict[str, Sentence]
    topics: list[Topic]
    stats: GenerationStats = EMPTY_STATS
    notes: list[str] = field(default_factory=list)
    windows: int = 1
    batch_sizes: tuple[int, ...] = ()
    episode: bool = False  # a dated note: a source page, no topic pages (see consolidate)
    # what the source discusses, for the concepts several sources share (`ingest.shared`)
    discussed: tuple[str, ...] = ()
    discussed_words: tuple[str, ...] = ()
    # headings that may name a task, for the tasks several sources explain (`ingest.shared`)
    actions: tuple[ActionHeading, ...] = ()


@dataclass
class ExtractionJob:
    """A source read and parsed, with one model request per window: what `finish_extraction`
    turns into an `Extraction` once the model has answered. Jobs of several sources can share
    one batch (`extract_sources`)."""

    source: Source
    document: Document
    sentences: list[Sentence]
    windows: list[Section]
    names: list[str]
    requests: list[Request]
    episode: bool = False
    found: tuple[Found, ...] = ()  # what each enabled topic finder found (`language.finders`)
    asked: tuple[int, ...] | None = None  # the windows with a request, in order (None: all)

    @property
    def asked_windows(self) -> list[Section]:
        """The windows the model is asked about, one per request."""
        return self.windows if self.asked is None else [self.windows[i] for i in self.asked]


def prepare_extraction(
    backend: Backend,
    source: Source,
    *,
    agents_md: str,
    config: IngestConfig,
    max_context_tokens: int,
    is_episode: Callable[[Mapping[str, Any]], bool] | None = None,
) -> ExtractionJob:
    """Parse `source` and build its window requests (no model call). `is_episode(front_matter)`
    says whether it is a dated note: then it needs no model call (no topics; its summary is its
    opening)."""
    doc = parse_document(source.text, filename=source.rel)
    sentences = fact_sentences(doc)
    if is_episode is not None and is_episode(doc.front_matter):
        return ExtractionJob(source, doc, sentences, [], [], [], episode=True)
    windows = [
        w
        for w in make_sections(
            doc,
            sentences,
            budget_tokens=min(config.section_tokens, max_context_tokens // 2),
            count_tokens=backend.count_tokens,
        )
        if w.sentences
    ]
    prose = [s for s in sentences if doc.block(s.paragraph).kind != "table"]
    found = find_all(Reading(doc, sentences, prose), enabled_finders(config.disable_finders))
    names = _candidates(found)
    head = [
        prompts.schema_segment(agents_md),
        prompts.extraction_instructions(max_topics=config.max_entities_per_section),
    ]
    named = [[n for n in names if grounding.names_in([n], _window_text(w))] for w in windows]
    # a window that names none of the source's candidates is not asked: the model may only
    # choose a candidate, and a topic keeps only the facts that name it (`ground_topics`)
    asked = (
        ()
        if config.extraction == "code"  # the topic finders alone: no window is asked
        else tuple(i for i, found in enumerate(named) if found or not names)
    )
    requests = [
        _window_request(
            head,
            doc,
            windows[i],
            len(windows),
            max_topics=config.max_entities_per_section,
            names=named[i],  # empty only where the source has no candidate: free names
        )
        for i in asked
    ]
    return ExtractionJob(source, doc, sentences, windows, names, requests, found=found, asked=asked)


def extract_sources(backend: Backend, jobs: Sequence[ExtractionJob]) -> list[list[Generation]]:
    """The model's replies to every window of every job, in one batch (rows of all sources
    share forward passes), split back per job."""
    requests = [r for job in jobs for r in job.requests]
    replies = iter(generate_batch(backend, requests) if requests else [])
    return [[next(replies) for _ in job.requests] for job in jobs]


def finish_extraction(
    job: ExtractionJob, generations: Sequence[Generation], config: IngestConfig
) -> Extraction:
    """Topics from the model's replies (grounded, merged with those code finds) → Extraction."""
    source, doc, sentences, windows = job.source, job.document, job.sentences, job.windows
    by_id = {s.id: s for s in sentences}
    topics: list[Topic] = []
    stats: GenerationStats = EMPTY_STATS
    notes: list[str] = []
    if not job.episode:  # an episode gets no topic pages (see consolidate)
        model_topics, stats, notes = _model_topics(job.asked_windows, generations)
        skipped = len(windows) - len(job.asked_windows)
        if skipped and config.extraction == "model":
            notes.append(f"{skipped} window(s) name no candidate: not asked")
        model_topics, dropped = ground_topics(model_topics, source.text, by_id)
        notes += dropped
        # a plain lower-case word the model saw in one sentence is an example, not a page
        # ("annoyingly"); a name ("Gemma 3") with one fact may gather more from other sources
        example = [
            t for t in model_topics if len(t.facts) < 2 and t.name.islower() and " " not in t.name
        ]
        notes += [f"dropped topic {t.name!r}: an example word, one fact" for t in example]
        # "llama accepts" (… the `-ngl N` flag), "running llama": the source's clauses
        texts = [s.text for s in sentences]
        clauses = [t for t in model_topics if t not in example and reads_as_clause(t.name, texts)]
        notes += [f"dropped topic {t.name!r}: a clause, not a name" for t in clauses]
        common = [t for t in model_topics if is_common_term(t.name)]
        notes += [f"dropped topic {t.name!r}: a term of every technical text" for t in common]
        found = _code_topics(
            doc, sentences, job.found, job.names, source.text, config.max_pages_per_source
        )
        code_keys = {name_key(n) for t in found for n in (t.name, *t.aliases)}
        plain = [
            t
            for t in model_topics
            if t not in (*example, *clauses, *common)
            and _plain_word_only_the_model_named(t, code_keys, source.text)
        ]
        notes += [
            f"dropped topic {t.name!r}: a plain word only the model named, not of the field"
            for t in plain
        ]
        passing = [
            t
            for t in model_topics
            if t not in (*example, *clauses, *common, *plain)
            and _passing_phrase(t, code_keys, doc, sentences)
        ]
        notes += [
            f"dropped topic {t.name!r}: plain words the source writes in passing, not a name"
            for t in passing
        ]
        unfit = [*example, *clauses, *common, *plain, *passing]
        topics = merge_topics(
            [*found, *(t for t in model_topics if t not in unfit)],
            config.max_claims_per_section * max(1, len(windows))
            + FACTS_PER_SECTION_TOPIC * len(found),
        )
        rows = {b.id for b in doc.blocks if b.kind == "table"}
        topics = [
            replace(t, facts=with_paragraph(with_followers(t.facts, sentences), sentences, rows))
            for t in topics
        ]
        known = command_names(doc)
        topics = [
            replace(t, usage=code_examples(doc, t.name, t.facts, sentences))
            if not t.usage and (t.precise or is_precise(t.name, known) or is_code_like(t.name))
            else t
            for t in topics
        ]
    return Extraction(
        source=source,
        title=doc.title,
        summary=opening(doc, sentences, config.summary_max_chars),
        document=doc,
        sentences=by_id,
        topics=topics,
        stats=stats,
        notes=notes,
        windows=len(windows),
        batch_sizes=(len(job.requests),) if job.requests else (),
        episode=job.episode,
        discussed=tuple(dict.fromkeys(n for f in job.found for n in f.discussed)),
        discussed_words=tuple(dict.fromkeys(n for f in job.found for n in f.discussed_words)),
        actions=tuple(a for f in job.found for a in f.actions),
    )


def reread(source: Source, config: IngestConfig) -> Extraction:
    """`source` read again by code alone, as an earlier source the pages of a later batch may
    cite (`ingest.revisit`): its parse, its sentences and what it discusses (the enabled topic
    finders); no topics and no model call."""
    doc = parse_document(source.text, filename=source.rel)
    sentences = fact_sentences(doc)
    prose = [s for s in sentences if doc.block(s.paragraph).kind != "table"]
    found = find_all(Reading(doc, sentences, prose), enabled_finders(config.disable_finders))
    return Extraction(
        source=source,
        title=doc.title,
        summary="",
        document=doc,
        sentences={s.id: s for s in sentences},
        topics=[],
        discussed=tuple(dict.fromkeys(n for f in found for n in f.discussed)),
        discussed_words=tuple(dict.fromkeys(n for f in found for n in f.discussed_words)),
        actions=tuple(a for f in found for a in f.actions),
    )


def with_followers(facts: Sequence[str], sentences: Sequence[Sentence]) -> tuple[str, ...]:
    """`facts` (sentence ids) with each one's next sentence of the same block when that one
    goes on about it ("… wr_seq is started at 1 and incremented by 2. This ensures its value
    is always odd."): named by no name, it would reach no page, yet it is about this one."""
    position = {s.id: i for i, s in enumerate(sentences)}
    out: list[str] = []
    for f in facts:
        out.append(f)
        i = position.get(f, len(sentences))
        if i + 1 >= len(sentences):
            continue
        nxt = sentences[i + 1]
        if nxt.paragraph == sentences[i].paragraph and refers_back(nxt.text):
            out.append(nxt.id)
    return tuple(dict.fromkeys(out))


THIN_TOPIC = 3  # a topic with fewer facts takes the rest of the paragraphs they come from


def with_paragraph(
    facts: Sequence[str], sentences: Sequence[Sentence], rows: Collection[str] = ()
) -> tuple[str, ...]:
    """`facts`, and when they are fewer than `THIN_TOPIC`, the other whole facts of their own
    paragraphs (in document order) up to that many: "Ollama allows cross-origin requests from
    127.0.0.1 and 0.0.0.0 by default." is what the page on `OLLAMA_ORIGINS`, named by the next
    sentence only, needs to be worth opening. Not the other rows of a table (`rows`: the
    ids of its blocks): each row is about its own first cell, and TiDB's "Read Uncommitted"
    had taken the row of READ COMMITTED."""
    if len(facts) >= THIN_TOPIC:
        return tuple(facts)
    block_of = {s.id: s.paragraph for s in sentences}
    blocks = {block_of[f] for f in facts if f in block_of} - set(rows)
    order = {s.id: i for i, s in enumerate(sentences)}
    out = list(facts)
    for s in sentences:
        if len(out) >= THIN_TOPIC:
            break
        if s.paragraph in blocks and s.id not in out:
            out.append(s.id)
    return tuple(sorted(out, key=lambda f: order.get(f, len(order))))


def _model_topics(
    windows: Sequence[Section], generations: Sequence[Generation]
) -> tuple[list[Topic], GenerationStats, list[str]]:
    """(topics, stats, notes) from the model's replies, one per window; ids outside the window
    are dropped."""
    stats = EMPTY_STATS
    topics: list[Topic] = []
    notes: list[str] = []
    for window, gen in zip(windows, generations, strict=True):
        stats = stats + gen.stats
        if gen.value is None:
            notes.append(f"window {window.index + 1}: no valid reply ({gen.error or 'empty'})")
            continue
        value: Any = gen.value
        allowed = {s.id for s in window.sentences}
        for t in value.topics:
            facts = tuple(dict.fromkeys(f for f in t.facts if f in allowed))
            aliases = tuple(dict.fromkeys(" ".join(a.split()) for a in t.aliases if a.strip()))
            name = " ".join(t.name.split())
            if len(name) < 2:
                continue  # "C": too short to be a page title a reader looks up
            if name.isupper() and " " in name:
                name = name.capitalize()  # "INTERNED STRINGS" is a shouted heading
            topics.append(Topic(name, t.type, aliases, facts, from_model=True))
    return topics, stats, notes


def _code_topics(
    doc: Document,
    sentences: Sequence[Sentence],
    found: Sequence[Found],
    names: Sequence[str],
    source_text: str,
    max_pages: int,
) -> list[Topic]:
    """Topics code finds without the model, best first: the pages the finders make of their
    own (sections whose heading names a thing, the subject of the title), then the names
    that enough whole-fact sentences mention: the names offered to the model (`names`), then
    the finders' other names. `found`: what each enabled finder found, in catalogue order."""
    structural = []
    more = [n for f in found for n in f.evidence if n not in names]  # the finders' other names
    offered = [*names, *more]
    for t in (t for f in found for t in f.sections):
        name, aliases, facts = t.name, t.aliases, t.facts
        phrase = named_by_phrase(name, names, sentences)
        if phrase is not None:  # "Pointer" and "pointer file": one page
            name, aliases = phrase[0], (name, *aliases)
            facts = tuple(dict.fromkeys((*facts, *phrase[1])))[:FACTS_PER_SECTION_TOPIC]
        elif (longer := extended_by_phrase(name, offered, sentences)) is not None:
            # "Transaction Isolation" and "transaction isolation levels": one page
            aliases = (*aliases, longer[0])
            facts = tuple(dict.fromkeys((*facts, *longer[1])))[:FACTS_PER_SECTION_TOPIC]
        topic = Topic(
            name,
            _type(name, source_text),
            aliases,
            facts,
            t.usage,
            from_heading=True,
            precise=t.precise,
        )
        structural.append(topic)
    for title in (f.subject for f in found if f.subject is not None):
        structural.append(
            Topic(
                title.name, _type(title.name, source_text), title.aliases, title.facts, subject=True
            )
        )
    taken_names = [n for t in structural for n in (t.name, *t.aliases)]
    taken = {name_key(n) for n in taken_names}
    aliases_of: dict[str, tuple[str, ...]] = {}
    for f in found:
        aliases_of.update(f.aliases)  # a later finder's aliases of a name replace an earlier one's
    known = [n for f in found for n in f.precise]
    # how a name is matched, not a finder: a word written as code is matched verbatim, but
    # not the `clean` of "clean filter", which is matched as a word (`as_words`)
    written = set(code_terms(doc))
    coded = written - {k.split()[0] for k in kind_names(doc)}
    evident = evidence_topics(
        # a generic word is no page though the text writes it as code (`name`, a TOML key):
        # the rule that drops the model's generic names (`grounding.clean_name`)
        [n for n in offered if grounding.clean_name(n) is not None],
        sentences,
        taken,
        limit=max(0, max_pages + SPARE_TOPICS - len(structural)),
        names_taken=taken_names,
        aliases=aliases_of,
        known=known,
        rows={b.id for b in doc.blocks if b.kind == "table"},
        coded=coded,
        as_words=written - coded,
    )
    return [
        *structural,
        *(
            Topic(
                n,
                _type(n, source_text),
                aliases_of.get(n, ()),
                ids,
                precise=is_precise(n, known),
                spare=i >= max_pages - len(structural),
            )
            for i, (n, ids) in enumerate(evident)
        ),
    ]


def _plain_word_only_the_model_named(topic: Topic, code_keys: Set[str], text: str) -> bool:
    """Whether `topic` is one plain word general English writes often (not a term of the field,
    `frequency.is_field_term`), which the source writes in lower case more than capitalised,
    and only the model named it (`code_keys`: the name keys of the topics code found hold none
    of its names). Code never pages such a
    word (`finders.field_terms`), and the model's did no better: its "package" made one
    grab-bag page of four sources' packages, a Go package among them. Dropping the model's
    pages of one sentence too (not names: "Downloading", "Hands-on") cost the held-out set
    an expected topic, so they stay (scripts/results/README.md, stop 55)."""
    name = topic.name
    if " " in name or not name[1:].islower() or is_code_like(name) or is_field_term(name):
        return False
    if any(name_key(n) in code_keys for n in (topic.name, *topic.aliases)):
        return False
    lower, capital = (
        len(re.findall(rf"(?<![\w-]){re.escape(form)}(?![\w-])", text))
        for form in (name.lower(), name.capitalize())
    )
    return lower > capital


PASSING_SENTENCES = 2  # sentences at most that name a phrase of plain words written in passing


def _passing_phrase(
    topic: Topic, code_keys: Set[str], doc: Document, sentences: Sequence[Sentence]
) -> bool:
    """Whether `topic` is a phrase of plain words (none a term of its field,
    `frequency.is_field_term`) only the model named, which the source writes in lower case in
    at most `PASSING_SENTENCES` sentences and in no heading: a phrase in passing ("a good
    candidate", "the most recent version", "an alternative package", "hypothetical
    packages"), not a name the source gives a thing. A phrase of the field ("nonrepeatable
    read"), a capitalised one ("Consistent Read"), one code found too (a defined term, a
    heading's) and one more sentences name stay."""
    name = topic.name
    words = name.split()
    if len(words) < 2 or is_code_like(name) or not all(w.isalpha() for w in words[1:]):
        return False
    if not name[1:].islower() or any(is_field_term(w.strip(",")) for w in words):
        return False
    if any(name_key(n) in code_keys for n in (topic.name, *topic.aliases)):
        return False
    if any(grounding.mentions([name], s.heading) for s in doc.sections if s.heading):
        return False
    naming = [s.text for s in sentences if grounding.mentions([name], s.text)]
    if any(name.casefold() not in t.casefold() or name[0].upper() + name[1:] in t for t in naming):
        return False  # written otherwise (an inflection, a capital) somewhere: not in passing
    return len(naming) <= PASSING_SENTENCES


def opening(doc: Document, sentences: Sequence[Sentence], limit: int, *, count: int = 2) -> str:
    """The first `count` whole sentences of the source's prose that open like a sentence (a list
    item or table row continues its lead-in), as many as fit in `limit` characters."""
    prose = [
        s
        for s in sentences
        if doc.block(s.paragraph).kind == "paragraph" and starts_sentence(s.text)
    ]
    out: list[str] = []
    for s in prose or sentences:
        if sum(len(x) + 1 for x in out) + len(s.text) > limit:
            break
        out.append(s.text)
        if len(out) == count:
            break
    return " ".join(out)


def _type(name: str, source_text: str) -> str:
    return grounding.guess_type(name, source_text, "concept")


def _window_text(window: Section) -> str:
    return " ".join(s.text for s in window.sentences)


def _candidates(found: Sequence[Found]) -> list[str]:
    """Names the model chooses topics among: the finders' offers, by rank (the document's own
    names: the title's subject, headings that name things, commands, what it links to by
    name, code names, defined terms; then the names code reads in its sentences; then the
    rarer code names), one spelling per name key, at most `MAX_CANDIDATES`."""
    seen: set[str] = set()
    unique = []
    for name in offered_names(found):
        key = name_key(name)
        if key and key not in seen:
            seen.add(key)
            unique.append(name)
    return unique[:MAX_CANDIDATES]


def _window_request(
    head: list[Segment],
    doc: Document,
    window: Section,
    n_windows: int,
    *,
    max_topics: int,
    names: Sequence[str],
) -> Request:
    model = extraction_model([s.id for s in window.sentences], max_topics=max_topics, names=names)
    first, last = window.sentences[0].id, window.sentences[-1].id
    span = (first, last) if n_windows > 1 else None
    numbered = numbered_text(doc, window.blocks, window.sentences)
    budget = 32 + TOKENS_PER_TOPIC * max_topics
    return Request(
        [*head, prompts.window_segment(numbered, span=span, names=names)],
        schema=model,
        max_tokens=budget,
    )


def ground_topics(
    topics: Sequence[Topic], text: str, sentences: dict[str, Sentence]
) -> tuple[list[Topic], list[str]]:
    """Keep topics the source names, with the facts that name them (see `grounding`)."""
    kept: list[Topic] = []
    notes: list[str] = []
    for t in topics:
        name = grounding.clean_name(t.name)
        if name is None or not grounding.names_in([name], text):
            notes.append(f"dropped topic {t.name!r}: not a name the source uses")
            continue
        # an alias is another name for the same thing: "Git LFS" is not one of "git lfs track",
        # nor "git lfs install" one of "Git LFS" (one names a part of the other, and would merge
        # a document's subject into one of its commands)
        aliases = tuple(
            a
            for a in (grounding.clean_name(x) for x in t.aliases)
            if a
            and grounding.names_in([a], text)
            and grounding.related(a, name)
            and not part_of(a, name)
            and not part_of(name, a)
        )
        variants = [name, *aliases]
        facts = tuple(f for f in t.facts if grounding.mentions(variants, sentences[f].text))
        if not facts:
            notes.append(f"dropped topic {name!r}: none of its facts names it")
            continue
        kept.append(
            Topic(
                name,
                grounding.guess_type(name, text, t.type),
                aliases,
                facts,
                precise=is_precise(name),
                from_model=t.from_model,
            )
        )
    return kept, notes


def merge_topics(topics: Sequence[Topic], max_facts: int) -> list[Topic]:
    """Merge topics that share a name: a name or alias equal to another topic's name or alias,
    whichever comes first (code's `wr_seq` and the model's "Global Write Sequence", aliases
    wr_seq, are one topic). The more descriptive name is the title, the other an alias. Total
    facts are capped at `max_facts`, earlier topics first."""
    merged: dict[int, Topic] = {}  # by order of first appearance
    index: dict[str, int] = {}  # the name key of every name and alias → its topic
    for order, t in enumerate(topics):
        if not name_key(t.name):
            continue
        hits = sorted({index[k] for k in (name_key(n) for n in (t.name, *t.aliases)) if k in index})
        at = hits[0] if hits else order
        if hits:
            for other in hits[1:]:  # `t` names two topics found apart: all three are one
                merged[at] = _merge_two(merged[at], merged.pop(other))
            t = _merge_two(merged[at], t)
        merged[at] = t
        for key in (name_key(n) for n in (t.name, *t.aliases)):
            if key:
                index[key] = at
    result = []
    remaining = max_facts
    for t in merged.values():
        facts = t.facts[: max(0, remaining)]
        remaining -= len(facts)
        seen = {"", name_key(t.name)}
        aliases = []
        for a in t.aliases:
            if name_key(a) not in seen:
                seen.add(name_key(a))
                aliases.append(a)
        result.append(replace(t, aliases=tuple(aliases), facts=facts))
    return result


def _merge_two(old: Topic, new: Topic) -> Topic:
    """`old` and `new` as one topic in `old`'s place, with `old`'s type; the title is the name
    a heading gives, else the one of more words ("Global Write Sequence" over `wr_seq`)."""
    rank_old = (old.from_heading, len(old.name.split()))
    rank_new = (new.from_heading, len(new.name.split()))
    title, other = (new, old) if rank_new > rank_old else (old, new)
    return Topic(
        title.name,
        old.type,
        tuple(dict.fromkeys((*title.aliases, other.name, *other.aliases))),
        tuple(dict.fromkeys((*old.facts, *new.facts))),
        tuple(dict.fromkeys((*old.usage, *new.usage))),
        old.from_heading or new.from_heading,
        old.precise or new.precise,
        old.subject or new.subject,
        old.spare and new.spare,
        old.from_model and new.from_model,
    )
