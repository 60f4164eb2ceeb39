"""Rendering a verified consolidation into page texts: the digest, the pattern sections on their
target pages, and the LINK / COMPRESS edits of each episode's source page.

Every line consolidation writes ends with a block id `^c-<period>-<hash of the line>`, so a
re-run of the period removes exactly its own lines that nobody edited since (an edited line's
hash no longer matches, and it stays). Every sentence is a whole sentence of the block it cites
or a model sentence code confirmed against it (`verify`); text from either is rendered inert.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from wikic.consolidate.episodes import Episode
from wikic.consolidate.verify import Cite, DigestSentence, Pattern
from wikic.consolidate.words import name_key
from wikic.language.segmentation import split_sentences
from wikic.vault.links import link, parse_links
from wikic.vault.pages import Page, to_tag
from wikic.vault.prose import escape
from wikic.vault.sections import Body, split_body
from wikic.vault.slugs import slugify, unique_slug

CHANGED = "### How this changed"
CONSOLIDATED_INTO = "Consolidated into"
EVIDENCE = "Evidence"
PATTERNS = "Patterns"
ONE_OFFS = "Once this period"
EPISODES = "Episodes"
_MARK_RE = re.compile(r"\s\^c-([a-z0-9-]+)-([0-9a-f]{6})\s*$")


def plural_episodes(n: int) -> str:
    return f"{n} episode" if n == 1 else f"{n} episodes"


def period_slug(key: str) -> str:
    return key.casefold()


def _hash(text: str) -> str:
    return hashlib.sha1(" ".join(text.split()).encode("utf-8")).hexdigest()[:6]


def marked(line: str, period: str) -> str:
    """`line` ending with this period's block id for it."""
    return f"{line} ^c-{period_slug(period)}-{_hash(line)}"


def is_ours(line: str, period: str) -> bool:
    """Whether `line` was written by consolidating `period` and has not been edited since."""
    m = _MARK_RE.search(line)
    return bool(m and m.group(1) == period_slug(period) and m.group(2) == _hash(line[: m.start()]))


def strip_period(text: str, period: str) -> str:
    """`text` without this period's unedited lines; a section, or its changes heading, that
    this leaves empty goes too (one that was empty before stays)."""
    lines = [line for line in text.split("\n") if not is_ours(line, period)]
    if len(lines) == text.count("\n") + 1:
        return text
    before = {name: section for name, section in split_body(text).sections}
    body = split_body("\n".join(lines))
    kept = []
    for name, section in body.sections:
        section = _drop_empty_changes(section)
        if section.strip() or not before.get(name, "").strip():
            kept.append((name, section))
    body.sections = kept
    return body.render()


def _drop_empty_changes(section: str) -> str:
    main, sep, changes = section.partition(CHANGED)
    if sep and not changes.strip():
        return main.rstrip() + "\n"
    return section


def cite_link(c: Cite) -> str:
    return link(c.episode.name, block=c.block.id)


def cites_text(cites: Iterable[Cite]) -> str:
    return " ".join(dict.fromkeys(cite_link(c) for c in cites))


def add_lines(section: str, evidence: Sequence[str], changes: Sequence[str]) -> str:
    """Append evidence lines to the section's main part and change entries under its
    `### How this changed` heading (created when needed)."""
    main, sep, tail = section.partition(CHANGED)
    main = main.rstrip("\n")
    main = "\n".join(x for x in (main, *evidence) if x)
    if not changes and not sep:
        return main + "\n"
    tail_lines = [x for x in tail.strip("\n").split("\n") if x] + list(changes)
    return f"{main}\n\n{CHANGED}\n" + "\n".join(tail_lines) + "\n"


def evidence_line(p: Pattern, c: Cite) -> str:
    """`- 2026-05-05: <the block's sentences that are evidence> [[cite]]`."""
    text = escape(" ".join(" ".join(p.sentences(c)).split()))
    return f"- {c.episode.date.isoformat()}: {text} {cite_link(c)}"


def change_line(p: Pattern, n: int) -> str:
    """A dated entry: the later sentence, then the earlier one it takes back, each cited."""
    ch = p.changes[n]
    after, before = Cite(ch.after.episode, ch.after.block), Cite(ch.before.episode, ch.before.block)
    return (
        f"- {after.episode.date.isoformat()}: {escape(ch.after.text)} {cite_link(after)} "
        f"Before, on {before.episode.date.isoformat()}: {escape(ch.before.text)} "
        f"{cite_link(before)}"
    )


def pattern_lines(
    p: Pattern, period: str, existing: str, *, statement: bool = True
) -> tuple[list[str], list[str]]:
    """(evidence lines, change lines) of `p`, without the ones `existing` (the section's text)
    already holds: a block its main part cites, a change entry its changes part has."""
    main, _, changed = existing.partition(CHANGED)
    evidence = []
    if statement and p.statement and escape(p.statement) not in main:
        evidence.append(marked(f"- {escape(p.statement)} {cites_text(p.statement_cites)}", period))
    for c in p.cites:
        if cite_link(c) not in main:
            evidence.append(marked(evidence_line(p, c), period))
    changes = []
    for n in range(len(p.changes)):
        line = change_line(p, n)
        if line not in changed:
            changes.append(marked(line, period))
    return evidence, changes


@dataclass
class Edits:
    """Pages after the edits of one period (path relative to wiki/ → page)."""

    pages: dict[str, Page] = field(default_factory=dict)
    created: list[str] = field(default_factory=list)
    # pattern → (page path, heading) it landed in
    placed: list[tuple[Pattern, str, str]] = field(default_factory=list)


def target_heading(p: Pattern, page: Page) -> str:
    """The section of `page` a pattern goes to: the chosen one, else `Evidence` when the page
    is about the pattern itself (a pattern page, or one of its name), else a section named
    after the pattern."""
    if p.target is not None and p.target.heading:
        return p.target.heading
    tags = [str(t) for t in page.props.get("tags") or []]
    if "pattern" in tags or name_key(p.name) == name_key(page.title):
        return EVIDENCE
    return p.name


def place_pattern(edits: Edits, p: Pattern, period: str, today: dt.date, taken: set[str]) -> None:
    """Write `p` to its target section, a new section of its target page, or a new page."""
    if p.target is None:
        _new_page(edits, p, period, today, taken)
        return
    page = edits.pages[p.target.page]
    heading = target_heading(p, page)
    body = split_body(page.body)
    if heading == EVIDENCE and not _lead_text(body):
        body.lead = _lead(p, page.title)  # a pattern page a redo emptied gets its opening back
    current = body.get(heading) or ""
    evidence, changes = pattern_lines(p, period, current, statement=heading != EVIDENCE)
    body.set(heading, add_lines(current, evidence, changes))
    edits.pages[page.path] = Page(page.path, {**page.props, "updated": today}, body.render())
    edits.placed.append((p, page.path, heading))


def summary_of(p: Pattern) -> tuple[str, tuple[Cite, ...]]:
    """The sentence a pattern page opens with: the confirmed statement, else the evidence
    sentence holding the most of what recurs, with what it cites."""
    if p.statement:
        return p.statement, p.statement_cites
    changed = {(c.after.ref, c.after.index) for c in p.changes}
    changed |= {(c.before.ref, c.before.index) for c in p.changes}
    units = [u for u in p.item.units if (u.ref, u.index) not in changed] or list(p.item.units)
    best = max(units, key=lambda u: (sum(p.item.weight(w) for w in u.terms), -units.index(u)))
    return best.text, (Cite(best.episode, best.block),)


def _lead(p: Pattern, title: str) -> str:
    text, cites = summary_of(p)
    return f"# {escape(title)}\n\n{escape(text)} {cites_text(cites)}"


def _lead_text(body: Body) -> str:
    return body.lead.split("\n\n", 1)[1].strip() if "\n\n" in body.lead.strip() else ""


def _new_page(edits: Edits, p: Pattern, period: str, today: dt.date, taken: set[str]) -> None:
    slug = unique_slug(slugify(p.name), taken)
    taken.add(slug)
    path = f"concepts/{slug}.md"
    evidence, changes = pattern_lines(p, period, "", statement=False)
    body = Body(lead=_lead(p, p.name))
    body.set(EVIDENCE, add_lines("", evidence, changes))
    props = {
        "type": "concept",
        "title": p.name,
        "aliases": [],
        "tags": ["concept", "pattern"],
        "summary": summary_of(p)[0],
        "sources": [f"[[{e.removesuffix('.md')}]]" for e in p.episodes],
        "created": today,
        "updated": today,
    }
    edits.pages[path] = Page(path, props, body.render())
    edits.created.append(path)
    edits.placed.append((p, path, EVIDENCE))


def is_emptied_pattern_page(page: Page) -> bool:
    """A page consolidation created for a pattern that a redo no longer finds: nothing below
    its opening cites a source any more (lines a person added would, and keep it)."""
    tags = [str(t) for t in page.props.get("tags") or []]
    sections = "".join(text for _, text in split_body(page.body).sections)
    return page.type == "concept" and "pattern" in tags and "[[sources/" not in sections


def heading_link(path: str, heading: str, title: str) -> str:
    name = path.removesuffix(".md")
    return link(name, heading=heading, alias=title if heading == EVIDENCE else heading)


@dataclass(frozen=True)
class Digest:
    """What a period's digest says: a paragraph, what happened once, the patterns."""

    paragraph: Sequence[DigestSentence]
    once: Sequence[DigestSentence]  # one sentence per paragraph that recurs nowhere
    placed: Sequence[tuple[Pattern, str, str, str]]  # pattern, page, heading, page title


def digest_page(
    path: str,
    key: str,
    title: str,
    digest: Digest,
    episodes: Sequence[Episode],
    previous: Page | None,
    today: dt.date,
) -> Page:
    """The digest of a period: a cited paragraph (what recurs and what was learned first), a
    dated list of what happened once, the patterns, every episode. Sections a person added to
    an earlier version stay."""
    prose = " ".join(f"{escape(s.text)} {cites_text(s.cites)}" for s in digest.paragraph)
    body = split_body(previous.body) if previous else Body()
    body.lead = f"# {title}\n\n{prose}" if prose else f"# {title}"
    if digest.once:
        body.set(
            ONE_OFFS,
            "\n".join(
                f"- {s.cites[0].episode.date.isoformat()}: {escape(s.text)} {cites_text(s.cites)}"
                for s in digest.once
            )
            + "\n",
        )
    else:
        body.remove(ONE_OFFS)
    mine = {e.page for e in episodes}
    if digest.placed:
        body.set(
            PATTERNS,
            "\n".join(
                f"- {heading_link(page, heading, page_title)}: "
                f"{plural_episodes(len(p.episodes))}, "
                f"{sum(1 for e in p.episodes if e in mine)} this period"
                for p, page, heading, page_title in digest.placed
            )
            + "\n",
        )
    else:
        body.remove(PATTERNS)
    body.set(
        EPISODES,
        "\n".join(f"- {e.date.isoformat()}: {link(e.name, alias=e.title)}" for e in episodes)
        + "\n",
    )
    first = next(iter([*digest.paragraph, *digest.once]), None)
    props = {
        "type": "digest",
        "title": title,
        "aliases": [],
        "tags": ["digest"],
        "summary": first.text if first else title,
        "sources": [f"[[{e.name}]]" for e in episodes],
        "period": key,
        "created": (previous.props.get("created") if previous else None) or today,
        "updated": today,
    }
    return Page(path, props, body.render())


def gist(ep: Episode) -> str:
    """One sentence standing for the episode, whole: the first of its summary, else of its text."""
    for text in (ep.summary, ep.blocks[0].text if ep.blocks else ""):
        sentences = split_sentences(" ".join(text.split()))
        if sentences:
            return sentences[0]
    return ep.title


def episode_page(
    page: Page,
    ep: Episode,
    period: str,
    links: Sequence[str],
    today: dt.date,
    *,
    compress: bool = True,
) -> Page:
    """LINK (the pages it exemplifies, and its digest) and, for an episode of the period,
    COMPRESS (`consolidated`, `gist`)."""
    body = split_body(page.body)
    current = body.get(CONSOLIDATED_INTO) or ""
    have = {str(x) for x in parse_links(current)}
    fresh = [marked(f"- {lnk}", period) for lnk in dict.fromkeys(links) if lnk not in have]
    if fresh:
        body.set(CONSOLIDATED_INTO, add_lines(current, fresh, []))
    if not compress:
        return Page(page.path, page.props, body.render())
    props = {**page.props, "consolidated": today, "gist": gist(ep)}
    tags = [str(t) for t in props.get("tags") or []]
    if to_tag("episode") not in tags:
        props["tags"] = [*tags, "episode"]
    return Page(page.path, props, body.render())
