"""Is the compiled wiki worth reading? Ingest the realistic corpus (scripts/data/corpus/) into a
fresh wiki and measure the pages against what a reader of each document would look up.

The ingest runs in a fresh process (`wikic ingest --all --json`, the venv's wikic, the model
store of $WIKIC_MODELS_DIR), timed from outside; `--wiki DIR` measures an already compiled wiki
instead. Pages are read with wikic's own parsers (vault/pages, vault/sections) and names compared
with its one name rule (vault/names.name_key). Measured, per document and in total:

- topic recall: the share of a document's expected topics (expected.yaml; any alias, equal by
  `name_key` or case-insensitively) that have an entity/concept page citing its source page;
- fragment share: fact bullets that are not whole statements (language/prose_checks when present);
- split topics: expected topics two or more pages name (one concept under two titles);
- facts per topic page (mean, median), pages with >= 3 facts, topic pages per source and per
  1,000 words; invented source titles (not front matter title, first H1, first heading or file
  name); summaries that do not end in a whole sentence;
- seconds per 1,000 words of ingest, prefilled tokens / source tokens, decode tokens/s;
- with --qa, QA accuracy of `wikic query` vs plain RAG (scripts/bench_quality.py).

Dated notes are episodes: by design ingest gives them no topic pages of their own (they reach
topic pages through `wikic consolidate`), so recall is also given without them. A dated document
that reads as an article (a title and sections of its own: the corpus's design-meeting minutes)
is no episode (`wikic.vault.episodes.reads_as_article`).

`--without NAME[,NAME]` compiles with those topic finders switched off (`ingest.disable_finders`,
docs/topic-finders.md). `--code-only --ablate` compiles once with every finder and once without
each, on the development corpus and on the held-out one, and counts per finder the expected
topics it adds and the junk pages (topic pages that match no expected topic of their document)
it adds.

    WIKIC_MODELS_DIR=.cache/test-models .venv/bin/python scripts/bench_compile.py   # ~1 h
    .venv/bin/python scripts/bench_compile.py --files llm-aliases.md,cpython-qsbr.md
    .venv/bin/python scripts/bench_compile.py --wiki /path/to/compiled/wiki --qa --json
    .venv/bin/python scripts/bench_compile.py --code-only --without linked-names,code-names
    .venv/bin/python scripts/bench_compile.py --code-only --ablate   # ~1 min per corpus
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import yaml

from wikic.config import Config, load_config
from wikic.errors import ConfigError
from wikic.ingest.openings import DERIVED
from wikic.language.finders import FINDERS, check_finder_names
from wikic.language.headings import title_subjects
from wikic.language.openings import opening_fault, opening_faults
from wikic.vault.document import parse_document
from wikic.vault.episodes import episode_date
from wikic.vault.links import normalize_target, parse_links
from wikic.vault.names import name_key
from wikic.vault.pages import Page, parse_page
from wikic.vault.sections import FACTS, RELATED, bullets, split_body

REPO = Path(__file__).resolve().parent.parent
CORPUS = Path(__file__).resolve().parent / "data" / "corpus"
DEFAULT_OUT = Path(__file__).resolve().parent / "results" / "bench_compile.json"
DEFAULT_ABLATE_OUT = Path(__file__).resolve().parent / "results" / "bench_compile-ablate.json"
HELDOUT = Path(__file__).resolve().parent / "data" / "heldout"
BENCH_QUALITY = Path(__file__).resolve().parent / "bench_quality.py"
TOPIC_TYPES = ("entity", "concept")
RICH_PAGE_FACTS = 3  # a topic page with this many facts says something worth opening
# The targets (issue 10): metric → (comparison, value).
TARGETS: dict[str, tuple[str, float]] = {
    "fragment_share": ("<=", 0.03),
    "topic_recall": (">=", 0.75),
    "rich_page_share": (">=", 0.60),
    "invented_titles": ("<=", 0),
    "cut_summaries": ("<=", 0),
    # issue 32: pages that earn their place, openings that stand alone, related links
    "standalone_opening_share": (">=", 0.90),
    "thin_page_share": ("<=", 0.25),
    "title_subjects_missing": ("<=", 0),
}
TARGET_LABELS = {
    "fragment_share": "fragment share",
    "topic_recall": "topic recall",
    "rich_page_share": f"topic pages with >= {RICH_PAGE_FACTS} facts",
    "invented_titles": "invented source titles",
    "cut_summaries": "summaries not ending in a whole sentence",
    "shared_topic_share": "shared topics with one page citing >= 2 of their documents",
    "twin_pairs": "twin page pairs (same opening, or >= 60 % of facts)",
    "merged_distinct_names": "pages merging distinct enumerated names",
    "updates_per_later_source": "existing pages a later source of its theme updates (mean)",
    "standalone_opening_share": "topic page openings that stand alone",
    "thin_page_share": f"topic pages with < {RICH_PAGE_FACTS} facts",
    "title_subjects_missing": "title subjects without a page",
}


class BenchError(Exception):
    """A bad invocation or an unusable input; main prints it and exits 2."""


# ── prose checks: the project's own, or a labelled local fallback ────────────────────────

_LINK_RE = re.compile(r"!?\[\[([^\[\]|]*)(?:\|([^\[\]]*))?\]\]")
_TERMINAL_RE = re.compile(r"[.!?][\"'”’)\]*_]*$")


def _strip_wikilinks(text: str) -> str:
    """Citations and links out, link aliases kept: the fact as a reader sees it."""
    text = _LINK_RE.sub(
        lambda m: "" if "#^" in m.group(0) else (m.group(2) or m.group(1).rsplit("/", 1)[-1]),
        text,
    )
    return " ".join(text.split())


def fallback_fragment_reason(text: str) -> str | None:
    """LOCAL FALLBACK, used only when wikic.language.prose_checks is not importable: a fact must
    end with terminal punctuation, have >= 4 words, not end with ':', hold no footnote marker
    `[^n]` and no link to the document's own headings `](#`."""
    flat = _strip_wikilinks(text)
    if not flat:
        return "empty"
    if "[^" in flat:
        return "contains a footnote marker ([^…])"
    if "](#" in flat:
        return "links to the source's own headings (a table of contents)"
    if flat.endswith(":"):
        return "ends with ':'"
    if not _TERMINAL_RE.search(flat):
        return "no terminal punctuation"
    if len(re.findall(r"\w+", flat)) < 4:
        return "fewer than 4 words"
    return None


def fallback_cut_reason(text: str) -> str | None:
    """LOCAL FALLBACK for summaries: empty is not cut; otherwise terminal punctuation, no
    trailing ellipsis, no trailing ':'."""
    flat = _strip_wikilinks(text)
    if not flat:
        return None
    if flat.endswith(("...", "…")):
        return "ends with '…'"
    if flat.endswith(":"):
        return "ends with ':'"
    return None if _TERMINAL_RE.search(flat) else "ends mid-sentence"


def prose_checkers() -> tuple[Callable[[str], str | None], Callable[[str], str | None], str]:
    """(fragment check, summary check, what they are): the project's when importable."""
    try:
        from wikic.language.prose_checks import cut_reason, fragment_reason
    except ImportError:
        return fallback_fragment_reason, fallback_cut_reason, "local fallback (bench_compile.py)"
    return fragment_reason, cut_reason, "wikic.language.prose_checks"


# ── the expected topics ──────────────────────────────────────────────────────────────────


def load_expected(path: Path) -> dict[str, list[tuple[str, ...]]]:
    """file name → its expected topics, each a tuple of accepted names (first = preferred)."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise BenchError(f"cannot read the expected topics {path}: {exc}") from None
    if not isinstance(data, list):
        raise BenchError(f"{path} must hold a list of {{file, topics}} items")
    expected: dict[str, list[tuple[str, ...]]] = {}
    for n, item in enumerate(data, 1):
        topics = item.get("topics") if isinstance(item, dict) else None
        name = item.get("file") if isinstance(item, dict) else None
        if not isinstance(name, str) or not isinstance(topics, list) or not topics:
            raise BenchError(f"{path} item {n}: needs `file` and a non-empty `topics` list")
        parsed: list[tuple[str, ...]] = []
        for topic in topics:
            names = topic if isinstance(topic, list) else [topic]
            if not names or not all(isinstance(a, str) and a.strip() for a in names):
                raise BenchError(f"{path} ({name}): each topic is a list of non-empty names")
            parsed.append(tuple(a.strip() for a in names))
        expected[name] = parsed
    return expected


# ── reading the compiled wiki ────────────────────────────────────────────────────────────


@dataclass(frozen=True)
class Fact:
    text: str  # the bullet without its marker and block id
    cites: frozenset[str]  # normalized source page names its citations point at
    fragment: str | None  # why it is not a whole statement, None when it is


@dataclass(frozen=True)
class TopicPage:
    path: str
    title: str
    names: tuple[str, ...]  # title, aliases, file stem
    sources: frozenset[str]  # normalized source page names it cites (property or facts)
    facts: tuple[Fact, ...]
    summary: str
    aliases: tuple[str, ...] = ()
    related: frozenset[str] = frozenset()  # normalized targets of its `## Related` links
    derived: bool = False  # code wrote its opening from the document's structure

    def facts_from(self, source: str | None) -> list[Fact]:
        return [f for f in self.facts if source is None or source in f.cites]


@dataclass(frozen=True)
class SourcePage:
    path: str
    name: str  # normalized link target, e.g. `sources/llm-aliases`
    title: str
    raw: str  # path under raw/, e.g. `llm-aliases.md`
    summary: str


@dataclass(frozen=True)
class Vault:
    sources: tuple[SourcePage, ...]
    topics: tuple[TopicPage, ...]
    unreadable: tuple[str, ...]  # pages whose properties do not parse


def read_vault(wiki: Path, is_fragment: Callable[[str], str | None]) -> Vault:
    """Every source, entity and concept page under `wiki`, parsed as wikic reads them."""
    sources: list[SourcePage] = []
    topics: list[TopicPage] = []
    unreadable: list[str] = []
    for file in sorted(wiki.rglob("*.md")):
        rel = file.relative_to(wiki).as_posix()
        try:
            page = parse_page(rel, file.read_text(encoding="utf-8"))
        except Exception as exc:  # a broken page is a finding, not a crash of the bench
            unreadable.append(f"{rel}: {exc}")
            continue
        if page.type == "source":
            raw = str(page.props.get("raw") or "").removeprefix("raw/")
            sources.append(
                SourcePage(rel, normalize_target(page.name), page.title, raw, page.summary)
            )
        elif page.type in TOPIC_TYPES:
            topics.append(_topic(page, is_fragment))
    return Vault(tuple(sources), tuple(topics), tuple(unreadable))


def _topic(page: Page, is_fragment: Callable[[str], str | None]) -> TopicPage:
    facts = []
    for b in bullets(split_body(page.body).get(FACTS)):
        cites = frozenset(normalize_target(c.target) for c in b.citations)
        facts.append(Fact(b.text, cites, is_fragment(b.text)))
    cited = {normalize_target(lnk.target) for s in page.sources for lnk in parse_links(s)}
    cited |= {c for f in facts for c in f.cites}
    names = (page.title, *page.aliases, page.stem)
    related = frozenset(
        normalize_target(lnk.target)
        for b in bullets(split_body(page.body).get(RELATED))
        for lnk in b.links
    )
    return TopicPage(
        page.path,
        page.title,
        names,
        frozenset(cited),
        tuple(facts),
        page.summary,
        tuple(page.aliases),
        related,
        page.props.get("opening") == DERIVED,
    )


def restrict(vault: Vault, files: Iterable[str]) -> Vault:
    """The part of the wiki compiled from `files`: their source pages and the topic pages that
    cite one of them (a `--wiki` may hold other sources too)."""
    chosen = set(files)
    sources = tuple(s for s in vault.sources if s.raw in chosen)
    names = {s.name for s in sources}
    topics = tuple(t for t in vault.topics if t.sources & names)
    return Vault(sources, topics, vault.unreadable)


def topic_matches(topic: Sequence[str], page: TopicPage) -> bool:
    """Whether one of the topic's names names the page (same name_key, or equal ignoring case)."""
    folded = {n.casefold() for n in page.names}
    keys = {name_key(n) for n in page.names} - {""}
    return any(a.casefold() in folded or (name_key(a) or None) in keys for a in topic)


def title_candidates(text: str, rel: str) -> tuple[str, list[str]]:
    """(the document's own title, every title the issue accepts): front matter `title`, first
    H1, first heading, the file-name-derived title and the bare file stem."""
    doc = parse_document(text, filename=rel)
    found = [doc.title]
    declared = doc.front_matter.get("title")
    if isinstance(declared, str) and declared.strip():
        found.append(declared.strip())
    found += [s.heading for s in doc.sections if s.level == 1 and s.heading][:1]
    found += [s.heading for s in doc.sections if s.level > 0 and s.heading][:1]
    found += [parse_document("", filename=rel).title, Path(rel).stem]
    return doc.title, list(dict.fromkeys(found))


def same_title(a: str, b: str) -> bool:
    a_key, b_key = name_key(a), name_key(b)
    return a.strip().casefold() == b.strip().casefold() or bool(a_key and a_key == b_key)


# ── metrics ──────────────────────────────────────────────────────────────────────────────


@dataclass(frozen=True)
class DocResult:
    file: str
    words: int
    episode: bool
    status: str  # ingested | failed | unchanged | missing (no source page) | …
    source_page: str | None
    title: str | None
    document_title: str
    title_invented: bool | None
    summary_cut: str | None
    topics_expected: int
    topics_found: list[str]  # preferred names of the expected topics that got a page
    topics_missing: list[str]
    topic_pages: list[str]  # topic pages citing this source
    facts: int  # fact bullets citing this source on those pages
    fragments: list[dict[str, str]]  # {page, text, reason}
    facts_per_page_mean: float | None
    facts_per_page_median: float | None
    rich_pages: int  # pages with >= RICH_PAGE_FACTS facts citing this source
    ingest_s: float | None
    prefill_tokens: int | None
    generated_tokens: int | None
    error: str | None = None
    title_subjects: tuple[str, ...] = ()  # what the title and H1 name (`title_subjects`)
    title_subjects_missing: tuple[str, ...] = ()  # of those, the ones without a page
    # expected topics without a page that a page citing the source lists (issue 32: an option,
    # flag or field is a cited row on its parent's page): named in code in one of its facts
    topics_listed: tuple[str, ...] = ()

    @property
    def recall(self) -> float | None:
        return len(self.topics_found) / self.topics_expected if self.topics_expected else None


def _ratio(part: float, whole: float) -> float | None:
    return part / whole if whole else None


def measure_document(
    file: str,
    text: str,
    expected: Sequence[tuple[str, ...]],
    vault: Vault,
    config: Config,
    cut: Callable[[str], str | None],
    outcome: dict[str, Any] | None,
) -> DocResult:
    source = next((s for s in vault.sources if s.raw == file), None)
    doc_title, accepted = title_candidates(text, file)
    name = source.name if source else None
    pages = [t for t in vault.topics if name and name in t.sources]
    found = [topic for topic in expected if any(topic_matches(topic, p) for p in pages)]
    subjects = [(n, *a) for n, a in title_subjects(parse_document(text, filename=file))]
    episode = (
        episode_date(
            f"raw/{file}", parse_document(text, filename=file).front_matter, config, text=text
        )
        is not None
    )
    if episode:
        subjects = []  # an episode gets no topic pages by design
    counts = [len(p.facts_from(name)) for p in pages]
    fragments = [
        {"page": p.path, "text": f.text, "reason": f.fragment}
        for p in pages
        for f in p.facts_from(name)
        if f.fragment
    ]
    stats = (outcome or {}).get("stats") or {}
    seconds = (outcome or {}).get("seconds") or {}
    status = (outcome or {}).get("status") or ("compiled" if source else "missing")
    return DocResult(
        file=file,
        words=len(text.split()),
        episode=episode,
        status=status,
        source_page=source.path if source else None,
        title=source.title if source else None,
        document_title=doc_title,
        title_invented=None
        if source is None
        else not any(same_title(source.title, a) for a in accepted),
        summary_cut=cut(source.summary)
        if source and source.summary
        else ("empty" if source else None),
        topics_expected=len(expected),
        topics_found=[t[0] for t in found],
        topics_missing=[t[0] for t in expected if t not in found],
        topic_pages=[p.path for p in pages],
        facts=sum(counts),
        fragments=fragments,
        facts_per_page_mean=round(statistics.fmean(counts), 2) if counts else None,
        facts_per_page_median=statistics.median(counts) if counts else None,
        rich_pages=sum(c >= RICH_PAGE_FACTS for c in counts),
        ingest_s=round(sum(seconds.values()), 2) if seconds else None,
        prefill_tokens=sum(int(s.get("prefill_tokens", 0)) for s in stats.values())
        if stats
        else None,
        generated_tokens=sum(int(s.get("generated_tokens", 0)) for s in stats.values())
        if stats
        else None,
        error=(outcome or {}).get("error"),
        title_subjects=tuple(s[0] for s in subjects),
        topics_listed=tuple(
            t[0]
            for t in expected
            if t not in found and any(listed(a, p.facts_from(name)) for a in t for p in pages)
        ),
        title_subjects_missing=tuple(
            s[0] for s in subjects if not any(topic_matches(s, p) for p in pages)
        ),
    )


def listed(name: str, facts: Sequence[Fact]) -> bool:
    """Whether one of `facts` names `name` in code (`--repetitions`, `top_p`): a row of the
    list its parent's page holds."""
    return any(f"`{name}`" in f.text for f in facts)


def opening_checks(topics: Sequence[TopicPage]) -> list[dict[str, str]]:
    """The topic pages whose opening (the `summary` property) does not stand alone: it must
    name the page's subject (title or an alias) and not refer back, be a bare default, a
    table row or cut before its code (`wikic.language.openings.opening_fault`)."""
    failing = []
    for t in topics:
        reason = opening_fault([t.title, *t.aliases], t.summary)
        if reason:
            failing.append({"page": t.path, "opening": t.summary, "reason": reason})
    return failing


def subject_openings(topics: Sequence[TopicPage]) -> list[str]:
    """The topic pages whose opening is a fact about their subject: the sentence opens with
    the page's name and a verb of it ("`pip` is the reference …", "Bolt allows …"), where
    a sentence that merely names it ("No sleep will occur if `fsync` is not enabled …")
    stands alone but does not say what it is (`opening_faults(...).no_subject`). Openings code
    derived from the document's structure do not count."""
    return [
        t.path
        for t in topics
        if not t.derived
        and t.summary
        and not opening_faults(t.title, t.summary, aliases=t.aliases).no_subject
    ]


def related_repeats(topics: Sequence[TopicPage]) -> int:
    """Topic pages whose non-empty `## Related` list is the same set as another page's of the
    same source: links that say nothing about the page."""
    by_source: dict[str, list[TopicPage]] = {}
    for t in topics:
        for s in t.sources:
            by_source.setdefault(s, []).append(t)
    repeated: set[str] = set()
    for pages in by_source.values():
        seen: dict[frozenset[str], str] = {}
        for t in pages:
            if not t.related:
                continue
            if t.related in seen:
                repeated |= {t.path, seen[t.related]}
            seen.setdefault(t.related, t.path)
    return len(repeated)


def totals(
    docs: Sequence[DocResult], vault: Vault, cut: Callable[[str], str | None]
) -> dict[str, Any]:
    """Numbers over `vault` (the chosen documents' part of the wiki): every topic page and fact,
    every summary; recall over all documents (micro average) and without the episodes."""
    facts = [f for t in vault.topics for f in t.facts]
    counts = [len(t.facts) for t in vault.topics]
    words = sum(d.words for d in docs)
    expected = sum(d.topics_expected for d in docs)
    found = sum(len(d.topics_found) for d in docs)
    plain = [d for d in docs if not d.episode]
    summaries = [(s.path, s.summary) for s in vault.sources] + [
        (t.path, t.summary) for t in vault.topics
    ]
    cut_summaries = [
        {"page": path, "summary": text, "reason": reason}
        for path, text in summaries
        if (reason := cut(text) if text else "empty")
    ]
    failing = opening_checks(vault.topics)
    with_related = sum(1 for t in vault.topics if t.related)
    repeats = related_repeats(vault.topics)
    thin = sum(c < RICH_PAGE_FACTS for c in counts)
    return {
        "standalone_openings": len(vault.topics) - len(failing),
        "standalone_opening_share": _round(_ratio(len(vault.topics) - len(failing), len(counts))),
        "opening_failures": failing,
        "subject_openings": len(subject_openings(vault.topics)),
        "derived_openings": sum(t.derived for t in vault.topics),
        "thin_pages": thin,
        "thin_page_share": _round(_ratio(thin, len(counts))),
        "title_subjects": sum(len(d.title_subjects) for d in docs),
        "title_subjects_missing": sum(len(d.title_subjects_missing) for d in docs),
        "title_subjects_missing_list": [
            f"{d.file}: {s}" for d in docs for s in d.title_subjects_missing
        ],
        "pages_with_related": with_related,
        "related_repeated_pages": repeats,
        "related_distinct_share": _round(_ratio(with_related - repeats, with_related)),
        "documents": len(docs),
        "episodes": sum(d.episode for d in docs),
        "words": words,
        "source_pages": len(vault.sources),
        "topic_pages": len(vault.topics),
        "topic_pages_per_source": _round(_ratio(len(vault.topics), len(vault.sources))),
        "topic_pages_per_1k_words": _round(_ratio(len(vault.topics) * 1000, words)),
        "topics_expected": expected,
        "topics_found": found,
        "topic_recall": _round(_ratio(found, expected)),
        "topics_listed": sum(len(d.topics_listed) for d in docs),
        "topic_recall_with_listed": _round(
            _ratio(found + sum(len(d.topics_listed) for d in docs), expected)
        ),
        "topic_recall_without_episodes": _round(
            _ratio(sum(len(d.topics_found) for d in plain), sum(d.topics_expected for d in plain))
        ),
        "facts": len(facts),
        "fragments": sum(1 for f in facts if f.fragment),
        "fragment_share": _round(_ratio(sum(1 for f in facts if f.fragment), len(facts))),
        "facts_per_page_mean": _round(statistics.fmean(counts)) if counts else None,
        "facts_per_page_median": statistics.median(counts) if counts else None,
        "rich_pages": sum(c >= RICH_PAGE_FACTS for c in counts),
        "rich_page_share": _round(_ratio(sum(c >= RICH_PAGE_FACTS for c in counts), len(counts))),
        "invented_titles": sum(1 for d in docs if d.title_invented),
        "summaries_checked": len(summaries),
        "cut_summaries": len(cut_summaries),
        "cut_summary_list": cut_summaries,
        "unreadable_pages": list(vault.unreadable),
    }


def _round(value: float | None, digits: int = 4) -> float | None:
    return None if value is None else round(value, digits)


def check_targets(
    total: dict[str, Any], targets: dict[str, tuple[str, float]] | None = None
) -> dict[str, dict[str, Any]]:
    checked: dict[str, dict[str, Any]] = {}
    for key, (op, target) in (TARGETS if targets is None else targets).items():
        value = total.get(key)
        met = None if value is None else (value <= target if op == "<=" else value >= target)
        checked[key] = {"target": f"{op} {target:g}", "value": value, "met": met}
    return checked


# ── compounding (issue 32): one page per shared concept, no twins, no merged names ────────

TWIN_FACT_SHARE = 0.60  # of one page's facts also on another: the two are one concept
COMPOUNDING_TARGETS: dict[str, tuple[str, float]] = {
    "shared_topic_share": (">=", 0.80),
    "twin_pairs": ("<=", 0),
    "merged_distinct_names": ("<=", 0),
    "updates_per_later_source": (">=", 3),
}
_SENTENCE_END_RE = re.compile(r"(?<=[.!?])\s+(?=[A-Z`*\"'(\[])")
_VERSION_RE = re.compile(r"v?\d+(?:\.\d+)*[a-z]?", re.I)


def load_shared(path: Path) -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    """shared.yaml: (accepted names, documents) of each topic several documents discuss."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise BenchError(f"cannot read the shared topics {path}: {exc}") from None
    shared = []
    for n, item in enumerate(data if isinstance(data, list) else [None], 1):
        names = item.get("topic") if isinstance(item, dict) else None
        docs = item.get("documents") if isinstance(item, dict) else None
        if not isinstance(names, list) or not names or not isinstance(docs, list) or len(docs) < 2:
            raise BenchError(f"{path} item {n}: needs a `topic` list and >= 2 `documents`")
        shared.append((tuple(str(a) for a in names), tuple(str(d) for d in docs)))
    return shared


def load_themes(path: Path) -> dict[str, str]:
    """themes.yaml: document file name → its theme."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise BenchError(f"cannot read the themes {path}: {exc}") from None
    themes: dict[str, str] = {}
    for n, item in enumerate(data if isinstance(data, list) else [None], 1):
        if not isinstance(item, dict) or not isinstance(item.get("documents"), dict):
            raise BenchError(f"{path} item {n}: needs `theme` and a `documents` mapping")
        themes.update(dict.fromkeys(item["documents"], str(item.get("theme"))))
    return themes


def opening_sentence(summary: str) -> str:
    """The first sentence of a page's summary, links flattened, case and spacing folded."""
    flat = _strip_wikilinks(summary)
    return " ".join(_SENTENCE_END_RE.split(flat, maxsplit=1)[0].casefold().split())


def _tokens(name: str) -> list[str]:
    return re.findall(r"[A-Za-z]+|\d+(?:\.\d+)*", name.replace("_", " "))


def enumerated_apart(a: str, b: str) -> bool:
    """Two names of distinct members of one series: the same words but for one that is a
    number or version (`tier 1`/`tier 2`, `v1`/`v2`), a single letter, or an acronym
    (`AWQ`/`DWQ`, `GPTQ`/`AWQ`), or identifiers one letter apart (`HTTP_PROXY`/`HTTPS_PROXY`)."""
    if name_key(a) == name_key(b):
        return False
    ta, tb = _tokens(a), _tokens(b)
    if len(ta) == len(tb) and ta:
        diff = [(x, y) for x, y in zip(ta, tb, strict=True) if x.casefold() != y.casefold()]
        if len(diff) == 1:
            x, y = diff[0]
            return any(
                (p(x) and p(y))
                for p in (
                    lambda t: bool(_VERSION_RE.fullmatch(t)),
                    lambda t: len(t) == 1,
                    lambda t: t.isupper() and 2 <= len(t) <= 6,
                )
            )
    coded = all(re.fullmatch(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+", n) for n in (a, b))
    return coded and abs(len(a) - len(b)) <= 1


SPLIT_NAMED = 2  # sentences of a document naming a shared topic for it to name the topic


def split_reason(
    names: Sequence[str],
    docs: Sequence[str],
    cited: set[str],
    vault: Vault,
    texts: dict[str, str],
) -> dict[str, Any]:
    """Why a shared topic has no page citing two of its documents: `no page` or `page cites
    one` (of its documents), or `pages per document` (pages that name it, each citing one),
    and in how many of its documents `SPLIT_NAMED` sentences name it by one of its names
    (fewer than two: the documents word it differently; a model or a synonym is needed)."""
    pages = [p for p in vault.topics if topic_matches(names, p)]
    citing = [p for p in pages if p.sources & cited]
    if not citing:
        reason = "no page"
    elif len(citing) == 1:
        reason = "page cites one"
    else:
        reason = "pages per document"
    pattern = re.compile(
        r"(?<![\w-])(?:" + "|".join(re.escape(n) for n in names) + r")(?:s|es)?(?![\w-])", re.I
    )
    named = sum(
        1
        for d in docs
        if len([s for s in _SENTENCE_END_RE.split(texts.get(d, "")) if pattern.search(s)])
        >= SPLIT_NAMED
    )
    if named < 2:
        reason += ", worded differently"
    return {"topic": names[0], "reason": reason, "documents_naming": named, "pages": len(pages)}


def split_topics(expected: Sequence[tuple[str, ...]], vault: Vault) -> dict[str, Any]:
    """Expected topics that two or more topic pages name (title or alias, as `topic_matches`
    counts them): one concept a reader finds under two titles ("Read Committed" and "Read
    Committed isolation level"), which neither recall nor the twin check (same opening or
    most facts) sees. Each topic once, by its first name."""
    seen: dict[str, tuple[str, ...]] = {}
    for names in expected:
        seen.setdefault(names[0].casefold(), names)
    split = []
    for names in seen.values():
        pages = sorted(p.path for p in vault.topics if topic_matches(names, p))
        if len(pages) > 1:
            split.append({"topic": names[0], "pages": pages})
    return {"split_topics": len(split), "split_topic_list": split}


def compounding(
    vault: Vault,
    files: Sequence[str],
    shared: Sequence[tuple[tuple[str, ...], tuple[str, ...]]],
    themes: dict[str, str],
    texts: dict[str, str] | None = None,
) -> dict[str, Any]:
    """Issue 32's measures over the compiled `files` (compiled in sorted order, as `ingest
    --all` takes them): shared topics with one page citing >= 2 of their documents; twin
    pairs (same opening sentence, or >= 60 % of one page's facts on the other, by text);
    pages whose names hold two distinct members of a series; and existing pages each source
    that is not the first of its theme updates (topic pages citing it and an earlier source)."""
    by_raw = {s.raw: s.name for s in vault.sources}
    compiled = set(files)
    pooled, missing, reasons = 0, [], []
    for names, docs in shared:
        cited = {by_raw[d] for d in docs if d in compiled and d in by_raw}
        if len([d for d in docs if d in compiled]) < 2:
            continue
        pooled += 1
        if not any(topic_matches(names, p) and len(p.sources & cited) >= 2 for p in vault.topics):
            missing.append(names[0])
            reasons.append(split_reason(names, docs, cited, vault, texts or {}))
    twins: set[tuple[str, str]] = set()
    by_opening: dict[str, list[str]] = {}
    by_fact: dict[str, set[str]] = {}
    facts_of = {
        p.path: {_strip_wikilinks(f.text).casefold() for f in p.facts} for p in vault.topics
    }
    for p in vault.topics:
        if opening := opening_sentence(p.summary):
            by_opening.setdefault(opening, []).append(p.path)
        for fact in facts_of[p.path]:
            by_fact.setdefault(fact, set()).add(p.path)
    for paths in by_opening.values():
        twins |= {(a, b) for a in paths for b in paths if a < b}
    for path, facts in facts_of.items():
        shared_with = Counter(q for f in facts for q in by_fact[f] if q != path)
        for other, n in shared_with.items():
            if facts and n >= TWIN_FACT_SHARE * len(facts):
                twins.add((min(path, other), max(path, other)))
    merged = [
        {"page": p.path, "names": [a, b]}
        for p in vault.topics
        for i, a in enumerate(p.names)
        for b in p.names[i + 1 :]
        if enumerated_apart(a, b)
    ]
    updates: dict[str, int] = {}
    order = sorted(f for f in files if f in by_raw)
    for i, f in enumerate(order):
        earlier = {by_raw[e] for e in order[:i] if themes.get(e) == themes.get(f)}
        if earlier:
            mine = by_raw[f]
            updates[f] = sum(1 for p in vault.topics if mine in p.sources and p.sources & earlier)
    return {
        "shared_topics": pooled,
        "shared_topics_on_one_page": pooled - len(missing),
        "shared_topic_share": _round(_ratio(pooled - len(missing), pooled)),
        "shared_topics_split": missing,
        "shared_split_reasons": dict(Counter(r["reason"] for r in reasons)),
        "shared_split_list": reasons,
        "twin_pairs": len(twins),
        "twin_list": sorted(twins),
        "merged_distinct_names": len(merged),
        "merged_list": merged,
        "updates_per_later_source": _round(statistics.fmean(updates.values()), 2)
        if updates
        else None,
        "updates_by_source": updates,
    }


# ── ingest in a fresh process ────────────────────────────────────────────────────────────


def wikic_executable() -> str:
    """The venv's wikic (next to this interpreter), else the one on PATH."""
    here = Path(sys.executable).parent / "wikic"
    found = str(here) if here.exists() else shutil.which("wikic")
    if not found:
        raise BenchError("no `wikic` executable next to this Python or on PATH")
    return found


def prepare_wiki(
    root: Path,
    corpus: Path,
    files: Sequence[str],
    batch_size: int | None = None,
    disabled_finders: Sequence[str] = (),
    extraction: str | None = None,
    revisit_sources: int | None = None,
) -> None:
    """`wikic init` in `root` (with `generation.batch_size`, `ingest.disable_finders`,
    `ingest.extraction` and `ingest.revisit_sources` when given), then the chosen documents
    copied into raw/."""
    done = subprocess.run(
        [wikic_executable(), "init", str(root), "--json"], capture_output=True, text=True
    )
    if done.returncode:
        raise BenchError(f"wikic init failed: {done.stderr.strip() or done.stdout.strip()}")
    if batch_size is not None:
        _set_config_line(root, r"^(\s+batch_size:) \d+", rf"\1 {batch_size}")
    if disabled_finders:
        _set_config_line(
            root, r"^(\s+disable_finders:) \[\]", rf"\1 [{', '.join(disabled_finders)}]"
        )
    if extraction is not None:
        _set_config_line(root, r"^(\s+extraction:) \w+", rf"\1 {extraction}")
    if revisit_sources is not None:
        _set_config_line(root, r"^(\s+revisit_sources:) \d+", rf"\1 {revisit_sources}")
    for name in files:
        shutil.copy2(corpus / name, root / "raw" / name)


def _set_config_line(root: Path, pattern: str, replacement: str) -> None:
    """Set one value of the wiki's wikic.yaml, keeping the file's comments."""
    cfg = root / "wikic.yaml"
    text, n = re.subn(pattern, replacement, cfg.read_text("utf-8"), flags=re.M)
    if n != 1:
        raise BenchError(f"wikic.yaml has no line matching {pattern!r} to set")
    cfg.write_text(text, encoding="utf-8")


def code_only_ingest(root: Path, one_by_one: Sequence[str] = ()) -> float:
    """`wikic ingest --all` in process with a model that never answers (every call fails its
    schema): the pages code makes alone, from the document's structure and names; with
    `one_by_one`, one ingest per file of it, in its order. Seconds."""
    from wikic.ingest.pipeline import IngestRequest, ingest
    from wikic.llm.fake import FakeBackend
    from wikic.paths import open_paths

    silent = FakeBackend(lambda call: "no model", name="no model")
    start = time.perf_counter()
    requests = [IngestRequest(paths=[root / "raw" / f]) for f in one_by_one] or [
        IngestRequest(all_new=True)
    ]
    for request in requests:
        ingest(
            open_paths(root), request, extract_backend=lambda: silent, write_backend=lambda: silent
        )
    return time.perf_counter() - start


def run_ingest(
    root: Path, model: str | None, one_by_one: Sequence[str] = ()
) -> tuple[dict[str, Any], float, list[str]]:
    """(the ingest's JSON report, wall seconds, the command); with `one_by_one`, one
    `wikic ingest raw/FILE` per file of it, in its order, their reports joined (sources and
    revisits listed in turn, stats summed)."""
    if not one_by_one:
        return _run_ingest(root, model, ["--all"])
    reports, wall, command = [], 0.0, []
    for f in one_by_one:
        report, seconds, command = _run_ingest(root, model, [f"raw/{f}"])
        reports.append(report)
        wall += seconds
    stats: dict[str, Any] = {}
    for r in reports:
        for k, v in (r.get("stats") or {}).items():
            if isinstance(v, int | float) and not isinstance(v, bool):
                stats[k] = stats.get(k, 0) + v
    joined = {
        "sources": [o for r in reports for o in r.get("sources", [])],
        "revisited": [o for r in reports for o in r.get("revisited", [])],
        "stats": stats,
    }
    shown = [c if c != f"raw/{one_by_one[-1]}" else "raw/FILE" for c in command]
    return joined, wall, [*shown, "# once per file, in file order"]


def _run_ingest(
    root: Path, model: str | None, which: list[str]
) -> tuple[dict[str, Any], float, list[str]]:
    """One `wikic ingest` — progress lines pass through to stderr; stdout goes to a file so a
    long report cannot block the pipe."""
    command = [wikic_executable(), "ingest", *which, "--json"]
    if model:
        command += ["--model", model]
    with tempfile.TemporaryFile("w+", encoding="utf-8") as out:
        start = time.perf_counter()
        done = subprocess.run(command, cwd=root, stdout=out, env=dict(os.environ))
        wall = time.perf_counter() - start
        out.seek(0)
        text = out.read()
    try:
        report = json.loads(text)
    except json.JSONDecodeError:
        raise BenchError(
            f"`{shlex.join(command)}` exited {done.returncode} without a JSON report: "
            f"{text.strip()[-500:] or '(no output)'}"
        ) from None
    return report, wall, command


def stage_stats(sources: Iterable[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Calls, prefilled and generated tokens, prefill and decode seconds of each stage of the
    ingest (extract, write), summed over its sources: where the time goes."""
    keys = ("calls", "prefill_tokens", "generated_tokens", "prefill_s", "decode_s")
    stages: dict[str, dict[str, float]] = {}
    for source in sources:
        for stage, stats in (source.get("stats") or {}).items():
            into = stages.setdefault(stage, dict.fromkeys(keys, 0.0))
            for key in keys:
                into[key] += float(stats.get(key) or 0)
    return {s: {k: round(v, 1) for k, v in d.items()} for s, d in stages.items()}


def source_tokens(
    config: Config, model: str | None, texts: Iterable[str]
) -> tuple[int | None, str | None]:
    """(tokens of the raw documents under the extract model's tokenizer, or why not)."""
    try:
        from tokenizers import Tokenizer

        from wikic.llm.models.resolve import resolve_model

        resolved = resolve_model(model or config.model_for("extract"), config)
        tokenizer = Tokenizer.from_file(str(resolved.path / "tokenizer.json"))
    except Exception as exc:  # any failure only costs this one ratio
        return None, f"prefill ratio: no tokenizer ({type(exc).__name__}: {exc})"
    return sum(len(tokenizer.encode(t, add_special_tokens=False).ids) for t in texts), None


def ingest_rates(
    ingest: dict[str, Any],
    docs: Sequence[DocResult],
    config: Config,
    model: str | None,
    texts: Iterable[str],
) -> list[str]:
    """Adds seconds per 1,000 words, prefilled / source tokens and decode tok/s to `ingest`;
    returns what could not be computed."""
    skipped: list[str] = []
    stats = ingest.get("stats") or {}
    words = sum(d.words for d in docs)
    seconds = sum(d.ingest_s or 0 for d in docs)
    ingest["source_s"] = round(seconds, 1)
    ingest["s_per_1k_words"] = _round(_ratio(ingest["wall_s"] * 1000, words), 1)
    ingest["source_s_per_1k_words"] = _round(_ratio(seconds * 1000, words), 1)
    tokens, why = source_tokens(config, model, texts)
    if why:
        skipped.append(why)
    ingest["source_tokens"] = tokens
    prefill = stats.get("prefill_tokens")
    ingest["prefill_ratio"] = (
        _round(_ratio(prefill, tokens), 3) if prefill is not None and tokens else None
    )
    # issue 11's measure: the source's windows are prefilled once (the extraction stage, with
    # each sentence's id and the topic names), and a page write's prefill is its task (its
    # facts: no call of that stage carries the source)
    stages = ingest.get("stages") or {}
    windows = (stages.get("extract") or {}).get("prefill_tokens")
    ingest["window_prefill_ratio"] = (
        _round(_ratio(windows, tokens), 3) if windows is not None and tokens else None
    )
    ingest["task_prefill_tokens"] = (stages.get("write") or {}).get("prefill_tokens")
    decode = stats.get("decode_s")
    ingest["decode_tok_s"] = (
        _round(_ratio(stats.get("generated_tokens", 0), decode), 2) if decode else None
    )
    if ingest["prefill_ratio"] is None and not why:
        skipped.append("prefill ratio: the ingest JSON reports no prefill tokens")
    if ingest["decode_tok_s"] is None:
        skipped.append("decode tok/s: the ingest JSON reports no decode time")
    return skipped


# ── QA through bench_quality ─────────────────────────────────────────────────────────────


def qa_ids(qa_path: Path, stems: set[str], limit: int | None, *, everything: bool) -> list[str]:
    """The corpus questions whose sources were all compiled, in file order; the unanswerable
    ones only when `everything` (the whole corpus) was: against a few documents, declining
    them proves nothing."""
    data = yaml.safe_load(qa_path.read_text(encoding="utf-8")) or []
    ids = [
        str(q["id"])
        for q in data
        if isinstance(q, dict)
        and (set(q.get("sources") or ()) <= stems if q.get("sources") else everything)
    ]
    return ids[:limit] if limit else ids


def qa_command(
    usage: str, root: Path, qa_path: Path, ids: Sequence[str], report: Path
) -> list[str] | None:
    """The bench_quality command for the options its `--help` shows (it has had `--repo` and
    `--save-json`, now `--wiki` and `--out`), or None when it lacks them."""
    if "--qa" not in usage:
        return None
    if "--wiki" in usage:
        where = ["--wiki", str(root)]
    elif "--repo" in usage:
        where = ["--repo", str(root)]
    else:
        return None
    command = [sys.executable, str(BENCH_QUALITY), *where, "--qa", str(qa_path)]
    command += ["--only", ",".join(ids), "--json"]
    # its own JSON goes to a temp file, never over a committed result
    if "--out" in usage:
        command += ["--out", str(report)]
    elif "--save-json" in usage:
        command += ["--save-json", str(report)]
    return command


def run_qa(
    root: Path, qa_path: Path, ids: Sequence[str], model: str | None, tmp: Path
) -> tuple[dict[str, Any] | None, str | None]:
    """(bench_quality's setup and summary, or why QA was left out)."""
    if not ids:
        return None, "QA: no question of the QA set is answerable from the chosen documents"
    helped = subprocess.run(
        [sys.executable, str(BENCH_QUALITY), "--help"], capture_output=True, text=True
    )
    command = qa_command(helped.stdout, root, qa_path, ids, tmp / "bench_quality.json")
    if helped.returncode or command is None:
        tail = (helped.stderr.strip().splitlines() or ["no --qa/--wiki options"])[-1]
        return None, f"QA: scripts/bench_quality.py cannot run on this wiki ({tail})"
    if model:
        command += ["--model", model]
    with tempfile.TemporaryFile("w+", encoding="utf-8") as out:
        done = subprocess.run(
            command, stdout=out, stderr=subprocess.PIPE, text=True, env=dict(os.environ)
        )
        out.seek(0)
        text = out.read()
    print(done.stderr, end="", file=sys.stderr)  # its progress lines, after the fact
    try:
        report = json.loads(text)
    except json.JSONDecodeError:
        why = " ".join(done.stderr.strip().splitlines()[-2:]) or text.strip()[-300:]
        return None, f"QA: bench_quality exited {done.returncode} without JSON: {why}"
    return {
        "command": shlex.join(command),
        "setup": report.get("setup"),
        "summary": report.get("summary"),
    }, None


# ── report ───────────────────────────────────────────────────────────────────────────────


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{value * 100:.0f}%"


def _num(value: float | None, fmt: str = "{:.1f}") -> str:
    return "–" if value is None else fmt.format(value)


def render_markdown(result: dict[str, Any]) -> str:
    lines = [
        "| document | words | recall | topic pages | facts | fragments | facts/page (mean · median) "
        f"| ≥{RICH_PAGE_FACTS} facts | title | summary | s/1k words |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for d in result["documents"]:
        recall = f"{len(d['topics_found'])}/{d['topics_expected']}"
        title = (
            "–" if d["title_invented"] is None else ("invented" if d["title_invented"] else "ok")
        )
        summary = "–" if d["source_page"] is None else (d["summary_cut"] or "ok")
        per_k = (
            _ratio((d["ingest_s"] or 0) * 1000, d["words"]) if d["ingest_s"] is not None else None
        )
        name = (
            d["file"]
            + (" (episode)" if d["episode"] else "")
            + ("" if d["source_page"] else f" [{d['status']}]")
        )
        lines.append(
            f"| {name} | {d['words']} | {recall} | {len(d['topic_pages'])} | {d['facts']} "
            f"| {len(d['fragments'])} | {_num(d['facts_per_page_mean'])} · "
            f"{_num(d['facts_per_page_median'], '{:g}')} | {d['rich_pages']} | {title} | {summary} "
            f"| {_num(per_k, '{:.0f}')} |"
        )
    t = result["totals"]
    lines.append(
        f"| **total** | {t['words']} | {t['topics_found']}/{t['topics_expected']} "
        f"| {t['topic_pages']} | {t['facts']} | {t['fragments']} "
        f"| {_num(t['facts_per_page_mean'])} · {_num(t['facts_per_page_median'], '{:g}')} "
        f"| {t['rich_pages']} | {t['invented_titles']} invented | {t['cut_summaries']} cut "
        f"| {_num(result['ingest'].get('s_per_1k_words'), '{:.0f}')} |"
    )
    lines += ["", "| metric | value | target | met |", "|---|---|---|---|"]
    for key, check in result["targets"].items():
        value = check["value"]
        shown = _pct(value) if isinstance(value, float) else ("–" if value is None else str(value))
        shown = _num(value) if key == "updates_per_later_source" else shown
        met = "–" if check["met"] is None else ("yes" if check["met"] else "**no**")
        lines.append(f"| {TARGET_LABELS[key]} | {shown} | {check['target']} | {met} |")
    ingest = result["ingest"]
    extra = [
        ("topic recall without episodes", _pct(t["topic_recall_without_episodes"])),
        (
            "topic recall, counting topics listed on a parent's page",
            _pct(t.get("topic_recall_with_listed")),
        ),
        ("related lists distinct from a sibling's", _pct(t.get("related_distinct_share"))),
        ("expected topics two or more pages name", _num(t.get("split_topics"), "{:,.0f}")),
        ("topic pages per source", _num(t["topic_pages_per_source"])),
        ("topic pages per 1,000 words", _num(t["topic_pages_per_1k_words"])),
        ("ingest wall s (process, model load included)", _num(ingest.get("wall_s"))),
        ("seconds per 1,000 words", _num(ingest.get("s_per_1k_words"))),
        ("prefilled tokens / source tokens", _num(ingest.get("prefill_ratio"), "{:.2f}")),
        (
            "of which extraction windows / source tokens",
            _num(ingest.get("window_prefill_ratio"), "{:.2f}"),
        ),
        ("page-write task tokens prefilled", _num(ingest.get("task_prefill_tokens"), "{:,.0f}")),
        ("decode tok/s", _num(ingest.get("decode_tok_s"))),
    ]
    qa = result.get("qa")
    if qa and qa.get("summary"):
        for system, s in qa["summary"].items():
            extra.append(
                (
                    f"QA accuracy, {system}",
                    f"{s.get('correct')}/{s.get('questions')} ({_pct(s.get('accuracy'))})",
                )
            )
    lines += [f"| {label} | {value} | | |" for label, value in extra]
    if result["skipped"]:
        lines += ["", *(f"- skipped: {s}" for s in result["skipped"])]
    return "\n".join(lines) + "\n"


# ── finder ablation: what each topic finder adds ─────────────────────────────────────────


def finder_names(text: str, *, where: str) -> tuple[str, ...]:
    """The comma-separated topic finder names of an option; an unknown one is an error that
    lists every finder."""
    names = tuple(dict.fromkeys(n.strip() for n in text.split(",") if n.strip()))
    try:
        check_finder_names(names, where=where)
    except ConfigError as exc:
        raise BenchError(str(exc).replace("\n", ". ")) from None
    return names


@dataclass(frozen=True)
class CodeOnlyRun:
    """One code-only compile of a corpus, per document: the expected topics that got a page
    (preferred names) and the junk pages (topic pages citing the document that match none of
    its expected topics)."""

    found: dict[str, tuple[str, ...]]
    junk: dict[str, tuple[str, ...]]
    topic_pages: int

    @property
    def topics_found(self) -> int:
        return sum(len(v) for v in self.found.values())

    @property
    def junk_pages(self) -> int:
        return sum(len(v) for v in self.junk.values())


def document_pages(
    file: str, expected: Sequence[tuple[str, ...]], vault: Vault
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(the expected topics of `file` that have a page citing it, the pages citing it that
    match none of them)."""
    source = next((s for s in vault.sources if s.raw == file), None)
    pages = [t for t in vault.topics if source and source.name in t.sources]
    found = tuple(t[0] for t in expected if any(topic_matches(t, p) for p in pages))
    junk = tuple(p.path for p in pages if not any(topic_matches(t, p) for t in expected))
    return found, junk


def code_only_run(
    corpus: Path,
    files: Sequence[str],
    expected: dict[str, list[tuple[str, ...]]],
    disabled: Sequence[str],
    root: Path,
) -> CodeOnlyRun:
    """Compile `files` into a new wiki at `root` with the `disabled` finders off, code only."""
    prepare_wiki(root, corpus, files, disabled_finders=disabled)
    code_only_ingest(root)
    vault = restrict(read_vault(root / "wiki", lambda text: None), files)
    pages = {f: document_pages(f, expected[f], vault) for f in files}
    return CodeOnlyRun(
        {f: p[0] for f, p in pages.items()}, {f: p[1] for f, p in pages.items()}, len(vault.topics)
    )


def _only_in(a: dict[str, tuple[str, ...]], b: dict[str, tuple[str, ...]]) -> list[str]:
    return [f"{file}: {x}" for file, xs in a.items() for x in xs if x not in b.get(file, ())]


def finder_effect(base: CodeOnlyRun, without: CodeOnlyRun, *, names: bool) -> dict[str, Any]:
    """What a finder adds: the expected topics found with every finder but not without it
    (gained), those found only without it (lost: it displaced them), the junk pages made
    with it and not without (junk added) and the reverse (junk removed); with `names`, which
    ones (file: topic or page)."""
    lists = {
        "topics_gained": _only_in(base.found, without.found),
        "topics_lost": _only_in(without.found, base.found),
        "junk_added": _only_in(base.junk, without.junk),
        "junk_removed": _only_in(without.junk, base.junk),
    }
    effect: dict[str, Any] = {k: len(v) for k, v in lists.items()}
    effect["topics_found_without"] = without.topics_found
    if names:
        effect["names"] = lists
    return effect


def ablate_corpus(corpus: Path, files: Sequence[str], work: Path, *, names: bool) -> dict[str, Any]:
    """A code-only compile of `files` with every finder on, then one with each finder off."""
    expected = load_expected(corpus / "expected.yaml")
    base = code_only_run(corpus, files, expected, (), work / "all")
    finders = {}
    for finder in FINDERS:
        print(f"without {finder.name} …", file=sys.stderr)
        without = code_only_run(corpus, files, expected, (finder.name,), work / finder.name)
        finders[finder.name] = finder_effect(base, without, names=names)
    total = sum(len(expected[f]) for f in files)
    return {
        "corpus": _shown(corpus),
        "documents": len(files),
        "topics_expected": total,
        "topics_found": base.topics_found,
        "topic_recall": _round(_ratio(base.topics_found, total)),
        "topic_pages": base.topic_pages,
        "junk_pages": base.junk_pages,
        "finders": finders,
    }


def _shown(path: Path) -> str:
    path = path.resolve()
    return path.relative_to(REPO).as_posix() if path.is_relative_to(REPO) else str(path)


def ablate(args: argparse.Namespace, command_line: Sequence[str]) -> dict[str, Any]:
    """`--code-only --ablate`: each finder's effect on the development corpus (with names)
    and on the held-out corpus (numbers only: it is not read)."""
    if not args.code_only:
        raise BenchError("--ablate needs --code-only (a compile per finder)")
    clashing = [
        o for o in ("wiki", "keep", "without", "qa", "batch_size", "extraction") if getattr(args, o)
    ]
    if clashing:
        raise BenchError(f"--ablate compiles its own wikis: drop --{clashing[0].replace('_', '-')}")
    corpus = args.corpus.resolve()
    files = choose_files(args, load_expected(corpus / "expected.yaml"))
    heldout = args.heldout or (HELDOUT if (HELDOUT / "expected.yaml").is_file() else None)
    skipped = [] if heldout else [f"held-out corpus: none at {HELDOUT.relative_to(REPO)}"]
    corpora: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="wikic-bench-ablate-") as tmp:
        corpora["development"] = ablate_corpus(corpus, files, Path(tmp) / "dev", names=True)
        if heldout:
            held = heldout.resolve()
            held_files = list(load_expected(held / "expected.yaml"))
            corpora["held-out"] = ablate_corpus(held, held_files, Path(tmp) / "held", names=False)
    return {
        "command": shlex.join(command_line),
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "model": "none (--code-only)",
        "finders": [{"name": f.name, "summary": f.summary} for f in FINDERS],
        "corpora": corpora,
        "skipped": skipped,
    }


def _signed(gained: int, lost: int) -> str:
    return f"+{gained} / −{lost}"


def render_ablation(result: dict[str, Any]) -> str:
    """Per finder and corpus: expected topics it adds / displaces, junk pages it adds /
    removes."""
    corpora = result["corpora"]
    lines = []
    for label, c in corpora.items():
        lines.append(
            f"{label} corpus ({c['corpus']}, {c['documents']} documents): every finder on "
            f"finds {c['topics_found']}/{c['topics_expected']} expected topics "
            f"({_pct(c['topic_recall'])}), {c['topic_pages']} topic pages, "
            f"{c['junk_pages']} of them junk (matching no expected topic of their document)"
        )
    head = "| finder |" + "".join(f" {label}: topics | {label}: junk |" for label in corpora)
    lines += ["", head, "|---|" + "---|---|" * len(corpora)]
    for f in result["finders"]:
        cells = ""
        for c in corpora.values():
            e = c["finders"][f["name"]]
            cells += f" {_signed(e['topics_gained'], e['topics_lost'])} |"
            cells += f" {_signed(e['junk_added'], e['junk_removed'])} |"
        lines.append(f"| {f['name']} |{cells}")
    lines += [
        "",
        "topics +: expected topics found with the finder and not without it (what it adds); "
        "−: found only without it (what it displaces). junk +: junk pages made with it and "
        "not without; −: junk pages made only without it.",
    ]
    lines += [f"- skipped: {s}" for s in result["skipped"]]
    return "\n".join(lines) + "\n"


# ── command line ─────────────────────────────────────────────────────────────────────────


def _parse(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0] if __doc__ else None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--corpus", type=Path, default=CORPUS, help="corpus folder (expected.yaml, qa.yaml)"
    )
    p.add_argument("--files", help="comma-separated document names of the corpus (default: all)")
    p.add_argument("--limit", type=int, help="the first N documents of expected.yaml")
    p.add_argument("--model", help="model for every role of the ingest (and of --qa)")
    p.add_argument(
        "--wiki", type=Path, help="measure this compiled wiki (its root) instead of ingesting"
    )
    p.add_argument(
        "--keep", type=Path, metavar="DIR", help="compile into DIR (must not exist) and keep it"
    )
    p.add_argument(
        "--batch-size",
        type=int,
        metavar="N",
        help="generation.batch_size of the compiled wiki (default: wikic's default)",
    )
    p.add_argument(
        "--one-by-one",
        action="store_true",
        help="ingest each document with its own `wikic ingest raw/FILE` in file order, as a "
        "user adding sources one at a time does (default: one `wikic ingest --all`)",
    )
    p.add_argument(
        "--revisit-sources",
        type=int,
        metavar="N",
        help="ingest.revisit_sources of the compiled wiki: earlier sources read again per "
        "ingest (0: none; default: wikic's default)",
    )
    p.add_argument(
        "--extraction",
        choices=("model", "code"),
        help="ingest.extraction of the compiled wiki: model asks the model about every window, "
        "code uses the topic finders alone (default: wikic's default)",
    )
    p.add_argument(
        "--code-only",
        action="store_true",
        help="compile with every model call failing: what code alone finds (seconds, no "
        "timing); the real compile's topic recall was within one topic of it",
    )
    p.add_argument(
        "--without",
        metavar="NAME[,NAME]",
        help="compile with these topic finders switched off (ingest.disable_finders; "
        "see docs/topic-finders.md)",
    )
    p.add_argument(
        "--ablate",
        action="store_true",
        help="with --code-only: one compile with every topic finder, then one without each, "
        "on --corpus and on --heldout: the expected topics and the junk pages each one adds",
    )
    p.add_argument(
        "--heldout",
        type=Path,
        help=f"the held-out corpus of --ablate (default {HELDOUT.relative_to(REPO)} when it "
        "exists); finders are never tuned on it",
    )
    p.add_argument(
        "--qa", action="store_true", help="also run bench_quality on the corpus questions"
    )
    p.add_argument("--qa-limit", type=int, metavar="N", help="ask at most N of those questions")
    p.add_argument("--json", action="store_true", help="print JSON instead of the tables")
    p.add_argument(
        "--out",
        type=Path,
        help=f"JSON file (default {DEFAULT_OUT.relative_to(REPO)}; with --ablate "
        f"{DEFAULT_ABLATE_OUT.relative_to(REPO)})",
    )
    args = p.parse_args(argv)
    if args.out is None:
        args.out = DEFAULT_ABLATE_OUT if args.ablate else DEFAULT_OUT
    for opt in ("limit", "qa_limit", "batch_size"):
        if getattr(args, opt) is not None and getattr(args, opt) < 1:
            p.error(f"--{opt.replace('_', '-')} must be at least 1")
    return args


def choose_files(args: argparse.Namespace, expected: dict[str, Any]) -> list[str]:
    if args.files and args.limit:
        raise BenchError("--files and --limit disagree: use one of them")
    if args.files:
        chosen = [f.strip() for f in args.files.split(",") if f.strip()]
        unknown = [f for f in chosen if f not in expected]
        if unknown or not chosen:
            raise BenchError(f"unknown documents {unknown}; the corpus has: {', '.join(expected)}")
        return list(dict.fromkeys(chosen))
    names = list(expected)
    return names[: args.limit] if args.limit else names


def main(argv: Sequence[str] | None = None) -> int:
    args = _parse(argv)
    try:
        given = list(argv if argv is not None else sys.argv[1:])
        command_line = ["scripts/bench_compile.py", *given]
        result = ablate(args, command_line) if args.ablate else run(args, command_line)
    except BenchError as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return 2
    text = json.dumps(result, indent=2, ensure_ascii=False)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text + "\n", encoding="utf-8")
    rendered = render_ablation(result) if args.ablate else render_markdown(result)
    print(text if args.json else rendered, end="\n" if args.json else "")
    return 0


def run(args: argparse.Namespace, command_line: Sequence[str]) -> dict[str, Any]:
    corpus = args.corpus.resolve()
    expected = load_expected(corpus / "expected.yaml")
    skipped: list[str] = []
    with tempfile.TemporaryDirectory(prefix="wikic-bench-compile-") as tmp:
        ingest: dict[str, Any] = {}
        outcomes: dict[str, dict[str, Any]] = {}
        if args.wiki and args.code_only:
            raise BenchError("--wiki measures a compiled wiki; --code-only compiles one: use one")
        if args.code_only and args.extraction:
            raise BenchError("--code-only makes no model call: --extraction has nothing to set")
        if args.wiki and args.extraction:
            raise BenchError("--wiki measures a compiled wiki: --extraction sets a new one's")
        if args.wiki and args.without:
            raise BenchError("--wiki measures a compiled wiki; --without compiles one: use one")
        if args.heldout:
            raise BenchError("--heldout is the second corpus of --ablate")
        disabled = finder_names(args.without or "", where="--without")
        if args.wiki:
            root = args.wiki.resolve()
            if not (root / "wiki").is_dir() or not (root / "raw").is_dir():
                raise BenchError(f"{root} is not a wiki root (no wiki/ and raw/)")
            present = {p.relative_to(root / "raw").as_posix() for p in (root / "raw").rglob("*.md")}
            chosen = choose_files(args, expected)
            files = [f for f in chosen if f in present]
            if not files:
                raise BenchError(f"{root / 'raw'} holds none of the chosen corpus documents")
            if len(files) < len(chosen):
                absent = ", ".join(f for f in chosen if f not in present)
                skipped.append(f"documents not in {root / 'raw'}: {absent}")
            skipped.append("ingest: measured an already compiled wiki (--wiki), no timing")
        else:
            files = choose_files(args, expected)
            if args.keep and args.keep.exists():
                raise BenchError(f"{args.keep} exists: --keep needs a new folder")
            root = args.keep.resolve() if args.keep else Path(tmp) / "wiki"
            prepare_wiki(
                root,
                corpus,
                files,
                args.batch_size,
                disabled,
                args.extraction,
                args.revisit_sources,
            )
        in_turn = sorted(files) if args.one_by_one else []
        if not args.wiki and args.code_only:
            wall = code_only_ingest(root, in_turn)
            skipped.append(
                f"the model: --code-only, every model call failed ({wall:.1f} s): no timing"
            )
        elif not args.wiki:
            report, wall, command = run_ingest(root, args.model, in_turn)
            outcomes = {
                str(o.get("raw", "")).removeprefix("raw/"): o for o in report.get("sources", [])
            }
            ingest = {
                "command": shlex.join(command),
                "wall_s": round(wall, 1),
                "exit_ok": not any(o.get("status") == "failed" for o in outcomes.values()),
                "stats": report.get("stats"),
                "stages": stage_stats(report.get("sources", [])),
            }
        config = load_config(root / "wikic.yaml")
        is_fragment, cut, checker = prose_checkers()
        if checker.startswith("local"):
            skipped.append(
                "wikic.language.prose_checks not importable: fragment/summary checks are the local fallback"
            )
        vault = read_vault(root / "wiki", is_fragment)
        texts = {f: (root / "raw" / f).read_text(encoding="utf-8") for f in files}
        docs = [
            measure_document(f, texts[f], expected[f], vault, config, cut, outcomes.get(f))
            for f in files
        ]
        total = totals(docs, restrict(vault, files), cut)
        total.update(split_topics([t for f in files for t in expected[f]], restrict(vault, files)))
        targets = check_targets(total)
        if (corpus / "shared.yaml").exists() and (corpus / "themes.yaml").exists():
            shared, themes = (
                load_shared(corpus / "shared.yaml"),
                load_themes(corpus / "themes.yaml"),
            )
            total["compounding"] = compounding(restrict(vault, files), files, shared, themes, texts)
            targets.update(check_targets(total["compounding"], COMPOUNDING_TARGETS))
        if ingest:
            skipped += ingest_rates(ingest, docs, config, args.model, texts.values())
        qa = None
        if args.qa:
            stems = {Path(f).stem for f in files}
            everything = set(files) == set(expected)
            ids = qa_ids(corpus / "qa.yaml", stems, args.qa_limit, everything=everything)
            qa, why = run_qa(root, corpus / "qa.yaml", ids, args.model, Path(tmp))
            if why:
                skipped.append(why)
        else:
            skipped.append("QA: not asked (pass --qa)")
    return {
        "command": shlex.join(command_line),
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "model": "none (--code-only)"
        if args.code_only
        else args.model or config.model_for("extract"),
        "role_models": {
            role: args.model or config.model_for(role) for role in ("extract", "write", "query")
        },
        "batch_size": config.generation.batch_size,
        "disabled_finders": list(config.ingest.disable_finders),
        "extraction": "none (--code-only)" if args.code_only else config.ingest.extraction,
        "one_by_one": bool(args.one_by_one),
        "revisit_sources": config.ingest.revisit_sources,
        "wiki": str(args.wiki) if args.wiki else (str(args.keep) if args.keep else None),
        "fragment_check": checker,
        "files": files,
        "ingest": ingest,
        "totals": total,
        "targets": targets,
        "qa": qa,
        "documents": [{**asdict(d), "recall": _round(d.recall)} for d in docs],
        "skipped": skipped,
    }


if __name__ == "__main__":
    sys.exit(main())
