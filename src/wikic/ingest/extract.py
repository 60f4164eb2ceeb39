"""Extraction: one schema-constrained call per section → title, summary, topics with fact ids.

Only ids of sentences shown in the section can be cited (enforced by the schema and checked
again here); topics repeated across sections are merged by name in code; fact ids are deduped.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from wikic.config import IngestConfig
from wikic.ingest import grounding, prompts
from wikic.ingest.candidates import topic_candidates
from wikic.ingest.schemas import combine_model, extraction_model
from wikic.ingest.text import Section, Sentence, make_sections, numbered_text, sentences_of
from wikic.llm.backend import EMPTY_STATS, Backend, GenerationStats, Segment
from wikic.vault.names import name_key
from wikic.vault.sources import Paragraph, Source, split_paragraphs

_H1_RE = re.compile(r"^#\s+(.+?)\s*#*\s*$", re.MULTILINE)
TOKENS_PER_TOPIC = 60  # generous: name, type, aliases and four ids in JSON


@dataclass(frozen=True)
class Topic:
    name: str
    type: str  # entity | concept
    aliases: tuple[str, ...]
    facts: tuple[str, ...]  # sentence ids


@dataclass
class Extraction:
    source: Source
    title: str
    summary: str
    paragraphs: list[Paragraph]
    sentences: dict[str, Sentence]
    topics: list[Topic]
    source_segment: Segment  # shared with the page-write calls of this source
    stats: GenerationStats = EMPTY_STATS
    notes: list[str] = field(default_factory=list)


def heading_title(text: str) -> str | None:
    m = _H1_RE.search(text)
    return m.group(1).strip() if m else None


def extract_source(
    backend: Backend,
    source: Source,
    *,
    agents_md: str,
    config: IngestConfig,
    max_context_tokens: int,
    on_section: Callable[[int, int], None] | None = None,
) -> Extraction:
    paragraphs = split_paragraphs(source.text)
    sentences = sentences_of(paragraphs)
    title = heading_title(source.text)
    sections = make_sections(
        paragraphs,
        sentences,
        budget_tokens=min(config.section_tokens, max_context_tokens // 2),
        count_tokens=backend.count_tokens,
    )
    whole_numbered = numbered_text(title or source.stem, paragraphs, sentences)
    names = topic_candidates(sentences, title=title or "")
    schema_seg = prompts.schema_segment(agents_md)
    stats = EMPTY_STATS
    summaries: list[str] = []
    topics: list[Topic] = []
    notes: list[str] = []
    for section in sections:
        if on_section:
            on_section(section.index + 1, len(sections))
        numbered = (
            whole_numbered
            if len(sections) == 1
            else numbered_text(title or source.stem, section.paragraphs, section.sentences)
        )
        section_text = " ".join(s.text for s in section.sentences)
        in_section = [n for n in names if grounding.names_in([n], section_text)] or names
        value, gen_stats = _extract_section(
            backend,
            schema_seg,
            numbered,
            section,
            len(sections),
            need_title=title is None,
            config=config,
            names=in_section,
        )
        stats = stats + gen_stats
        if title is None and getattr(value, "title", None):
            title = " ".join(str(value.title).split())
        summaries.append(" ".join(str(value.summary).split()))
        allowed = {s.id for s in section.sentences}
        for t in value.topics:
            facts = tuple(dict.fromkeys(f for f in t.facts if f in allowed))
            aliases = tuple(dict.fromkeys(" ".join(a.split()) for a in t.aliases if a.strip()))
            topics.append(Topic(" ".join(t.name.split()), t.type, aliases, facts))
    topics, dropped = ground_topics(topics, source.text, {s.id: s for s in sentences})
    notes += dropped
    summary = summaries[0] if summaries else ""
    if len(summaries) > 1:
        combined = backend.generate(
            [schema_seg, prompts.combine_task(summaries, config.summary_max_chars)],
            schema=combine_model(config.summary_max_chars),
            max_tokens=config.summary_max_chars // 2 + 32,
        )
        stats = stats + combined.stats
        summary = " ".join(str(getattr(combined.value, "summary", "")).split()) or summary
    if not grounding.grounded(summary, source.text):
        notes.append("the model's summary is not grounded in the source: using its opening instead")
        summary = " ".join(s.text for s in sentences[:2]) or summary
    return Extraction(
        source=source,
        title=title or source.stem,
        summary=summary,
        paragraphs=paragraphs,
        sentences={s.id: s for s in sentences},
        topics=merge_topics(topics, config.max_claims_per_section * max(1, len(sections))),
        source_segment=prompts.source_segment(whole_numbered),
        stats=stats,
        notes=notes,
    )


def _extract_section(
    backend: Backend,
    schema_seg: Segment,
    numbered: str,
    section: Section,
    n_sections: int,
    *,
    need_title: bool,
    config: IngestConfig,
    names: Sequence[str],
) -> tuple[Any, GenerationStats]:
    model = extraction_model(
        [s.id for s in section.sentences],
        need_title=need_title,
        max_topics=config.max_entities_per_section,
        summary_chars=config.summary_max_chars,
        names=names,
    )
    where = f"section {section.index + 1} of {n_sections}" if n_sections > 1 else ""
    segments = [
        schema_seg,
        prompts.source_segment(numbered),
        prompts.extraction_task(
            need_title=need_title,
            max_topics=config.max_entities_per_section,
            summary_chars=config.summary_max_chars,
            section=where,
            names=names,
        ),
    ]
    budget = 64 + config.summary_max_chars // 2 + TOKENS_PER_TOPIC * config.max_entities_per_section
    gen = backend.generate(segments, schema=model, max_tokens=budget)
    return gen.value, gen.stats


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
        aliases = tuple(
            a
            for a in (grounding.clean_name(x) for x in t.aliases)
            if a and grounding.names_in([a], text) and grounding.related(a, name)
        )
        variants = [name, *aliases]
        facts = tuple(f for f in t.facts if grounding.mentions(variants, sentences[f].text))
        if not facts:
            notes.append(f"dropped topic {name!r}: none of its facts names it")
            continue
        kept.append(Topic(name, grounding.guess_type(name, text, t.type), aliases, facts))
    return kept, notes


def merge_topics(topics: Sequence[Topic], max_facts: int) -> list[Topic]:
    """Merge topics with the same name (or a name that is another's alias); cap total facts."""
    merged: dict[str, Topic] = {}
    alias_of: dict[str, str] = {}
    for t in topics:
        key = name_key(t.name)
        if not key:
            continue
        key = alias_of.get(key, key)
        if key in merged:
            old = merged[key]
            merged[key] = Topic(
                old.name,
                old.type,
                tuple(dict.fromkeys((*old.aliases, *t.aliases))),
                tuple(dict.fromkeys((*old.facts, *t.facts))),
            )
        else:
            merged[key] = t
        for alias in t.aliases:
            alias_of.setdefault(name_key(alias), key)
    result = []
    remaining = max_facts
    for t in merged.values():
        facts = t.facts[: max(0, remaining)]
        remaining -= len(facts)
        aliases = tuple(a for a in t.aliases if name_key(a) != name_key(t.name))
        result.append(Topic(t.name, t.type, aliases, facts))
    return result
