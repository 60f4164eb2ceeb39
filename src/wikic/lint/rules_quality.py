"""Rules for what ingest lets slip on real documents: fragment facts, cut summaries, titles that
echo the prompt, topic pages without facts, one topic split into two pages by one ingest.

Judging prose is `language.prose_checks` (ingest uses the same functions to refuse fragments), so
lint and ingest agree on what a whole fact is. All rules read the scan only (the lead paragraph
and the facts come from the scan cache for unchanged pages).
"""

from __future__ import annotations

import datetime as dt
import re
from collections import defaultdict
from collections.abc import Iterator

from wikic.language.name_rules import kept_apart
from wikic.language.prose_checks import cut_reason, fragment_reason, instruction_echo
from wikic.lint.findings import Finding
from wikic.lint.page_scan import PageScan
from wikic.lint.rules_links import snippet
from wikic.lint.scan import WikiScan
from wikic.vault.names import name_key, near_duplicate_pairs

TOPIC_TYPES = ("entity", "concept")
_LEAD_TYPES = ("entity", "concept", "source", "digest")  # analyses open with the question


def check_fragment_facts(scan: WikiScan) -> Iterator[Finding]:
    """fragment-fact: a fact bullet that is not a whole, self-contained statement."""
    for ps in scan:
        if ps.type not in TOPIC_TYPES:
            continue
        for fact in ps.facts:
            reason = fragment_reason(fact.text)
            if reason is None:
                continue
            yield Finding(
                "warning",
                "fragment-fact",
                scan.rel(ps.path),
                f'fact is a fragment, {reason}: "{snippet(fact.text)}"',
                "Replace it with the whole sentence of the source it came from (keep the "
                "citation), or delete the bullet.",
                line=ps.line(fact.start),
            )


def check_cut_summaries(scan: WikiScan) -> Iterator[Finding]:
    """cut-summary: a `summary` property or lead paragraph that ends mid-sentence; on a digest
    and on every line consolidation wrote, any sentence before a citation that does."""
    for ps in scan:
        rel = scan.rel(ps.path)
        summary = ps.page.summary
        summary_reason = cut_reason(summary) if summary else None
        if summary_reason:
            yield Finding(
                "warning",
                "cut-summary",
                rel,
                f'summary {summary_reason}: "{snippet(summary[-120:])}"',
                "Finish the sentence or end the summary at the last whole one.",
            )
        pieces = list(_consolidated_pieces(ps))
        for piece, offset in pieces:
            reason = cut_reason(piece)
            if reason and not (summary_reason and piece.strip() == summary.strip()):
                yield Finding(
                    "warning",
                    "cut-summary",
                    rel,
                    f'sentence {reason}: "{snippet(piece[-120:])}"',
                    "Replace it with the whole sentence of the note it cites, or delete it.",
                    line=ps.line(offset),
                )
        if ps.type not in _LEAD_TYPES or ps.lead is None or (pieces and ps.type == "digest"):
            continue
        lead, offset = ps.lead
        reason = cut_reason(lead)
        if reason is None or (
            summary_reason and " ".join(lead.split()) == " ".join(summary.split())
        ):
            continue  # whole, or the same text as the summary already reported
        yield Finding(
            "warning",
            "cut-summary",
            rel,
            f'lead paragraph {reason}: "{snippet(lead[-120:])}"',
            "Finish the sentence or end the paragraph at the last whole one.",
            line=ps.line(offset),
        )


# what consolidation writes: a digest's lines, and lines ending with its `^c-<period>-<hash>`
_CONSOLIDATED_LINE_RE = re.compile(r"\s\^c-[a-z0-9-]+-[0-9a-f]{6}\s*$")
_CITED_PIECE_RE = re.compile(r"(?:^|(?<=\]\]))([^\[]+?)(?:\s*\[\[[^\[\]]*#\^[^\[\]]*\]\])+")
_LINE_LABEL_RE = re.compile(r"^\s*(?:[-*+]\s+)?(?:\d{4}-\d{2}-\d{2}:\s+)?")


def _consolidated_pieces(ps: PageScan) -> Iterator[tuple[str, int]]:
    """(text, body offset) of each run of text before block citations on a digest's lines and
    on the lines consolidation wrote elsewhere."""
    if ps.type != "digest" and "^c-" not in ps.body:
        return
    offset = 0
    for line in ps.body.split("\n"):
        if ps.type == "digest" or _CONSOLIDATED_LINE_RE.search(line):
            for m in _CITED_PIECE_RE.finditer(line):
                text = m.group(1)
                if m.start(1) == 0:
                    text = text[_LINE_LABEL_RE.match(text).end() :]  # type: ignore[union-attr]
                text = re.sub(r"^\s*Before, on \d{4}-\d{2}-\d{2}:\s*", "", text).strip()
                if text:
                    yield text, offset + m.start(1)
        offset += len(line) + 1


def check_instruction_titles(scan: WikiScan) -> Iterator[Finding]:
    """instruction-title: a page title copied from wikic's own prompt text."""
    for ps in scan:
        reason = instruction_echo(ps.page.title)
        if reason is None:
            continue
        yield Finding(
            "error",
            "instruction-title",
            scan.rel(ps.path),
            f'title "{snippet(ps.page.title)}" {reason}, not the source',
            "Set the title the document gives itself (its front matter title or first heading), "
            "then re-ingest or rename the page.",
        )


def _cites_a_source(scan: WikiScan, ps: PageScan) -> bool:
    targets = scan.targets(ps)
    return any(
        ref.link.block is not None and t is not None and t.type == "source"
        for ref, t in zip(ps.links, targets, strict=True)
    )


def check_empty_topics(scan: WikiScan) -> Iterator[Finding]:
    """empty-topic: an entity or concept page with no fact bullets and no cited evidence."""
    for ps in scan:
        if ps.type not in TOPIC_TYPES or ps.facts or _cites_a_source(scan, ps):
            continue
        yield Finding(
            "warning",
            "empty-topic",
            scan.rel(ps.path),
            f"'{ps.page.title}' has no facts: nothing on it cites a source",
            "Add cited facts under ## Facts, merge it into a related page "
            f"(wikic merge {ps.path.removesuffix('.md')} OTHER-PAGE), or delete it.",
        )


def _source_names(ps: PageScan) -> frozenset[str]:
    names = set()
    for value in ps.page.sources:
        inner = value.strip().removeprefix("[[").removesuffix("]]")
        target = inner.split("|", 1)[0].split("#", 1)[0].strip().removesuffix(".md")
        if target:
            names.add(target.casefold())
    return frozenset(names)


def _created(ps: PageScan) -> object:
    value = ps.page.props.get("created")
    return value.date() if isinstance(value, dt.datetime) else value


def _same_ingest(a: PageScan, b: PageScan) -> str | None:
    """The source(s) both pages were made from, if one ingest made both: the same single
    source, or a shared source and the same creation date."""
    sa, sb = _source_names(a), _source_names(b)
    shared = sa & sb
    if not shared:
        return None
    created = _created(a)
    if (len(sa) == 1 and sa == sb) or (created is not None and created == _created(b)):
        return ", ".join(sorted(shared))
    return None


def _repeat_free(name: str) -> str:
    """The name with a word repeated right after itself dropped: `fine-tune fine-tune`."""
    words = name.split()
    kept = [w for i, w in enumerate(words) if i == 0 or w.casefold() != words[i - 1].casefold()]
    return " ".join(kept)


def check_ingest_duplicates(scan: WikiScan) -> Iterator[Finding]:
    """duplicate-from-one-ingest: one topic made into two pages by the same ingest."""
    names: dict[str, dict[str, str]] = defaultdict(dict)  # key → page path → name
    for ps in scan:
        if ps.type not in TOPIC_TYPES:
            continue
        for name in (ps.page.title, *ps.page.aliases):
            once = _repeat_free(name)
            for key in {name_key(name), name_key(once)} if once != name else {name_key(name)}:
                if key:
                    names[key].setdefault(ps.path, name)
    pairs: set[tuple[str, str]] = set()
    for key, by_page in names.items():
        if len(by_page) > 1:  # a listed row names a member of its page, not the page
            names[key] = by_page = {
                p: n for p, n in by_page.items() if scan.pages[p].names_itself(n)
            }
        paths = sorted(by_page)
        pairs.update((a, b) for i, a in enumerate(paths) for b in paths[i + 1 :])
    for ka, kb in near_duplicate_pairs(names):
        for pa in names[ka]:
            for pb in names[kb]:
                if (
                    pa != pb
                    and not kept_apart(names[ka][pa], names[kb][pb])
                    and scan.pages[pa].names_itself(names[ka][pa])
                    and scan.pages[pb].names_itself(names[kb][pb])
                ):
                    pairs.add((min(pa, pb), max(pa, pb)))
    for a, b in sorted(pairs):
        first, second = scan.pages[a], scan.pages[b]
        source = _same_ingest(first, second)
        if source is None:
            continue
        # keep the page with more facts (then the shorter name): the other one is merged in
        keep, drop = sorted(
            (first, second), key=lambda p: (-len(p.facts), len(p.page.title), p.path)
        )
        yield Finding(
            "warning",
            "duplicate-from-one-ingest",
            scan.rel(drop.path),
            f"'{drop.page.title}' and '{keep.page.title}' ({scan.rel(keep.path)}) are one topic "
            f"made into two pages from {source}",
            f"Merge them: wikic merge {drop.path.removesuffix('.md')} "
            f"{keep.path.removesuffix('.md')}",
        )
