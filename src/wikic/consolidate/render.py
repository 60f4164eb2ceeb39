"""Rendering a verified consolidation into page texts: the digest, the pattern sections on their
target pages, and the LINK / COMPRESS edits of each episode's source page.

Every line consolidation writes ends with a block id `^c-<period>-<hash of the line>`, so a
re-run of the period removes exactly its own lines that nobody edited since (an edited line's
hash no longer matches, and it stays). Text from the model or an episode is rendered inert.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from wikic.consolidate.episodes import Episode
from wikic.consolidate.verify import Cite, DigestSentence, Pattern, best_sentence
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
EPISODES = "Episodes"
GIST_CHARS = 200
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
    """`text` without this period's unedited lines; sections and the changes heading left empty
    by that go too."""
    lines = [line for line in text.split("\n") if not is_ours(line, period)]
    body = split_body("\n".join(lines))
    kept = []
    for name, section in body.sections:
        section = _drop_empty_changes(section)
        if section.strip():
            kept.append((name, section))
    body.sections = kept
    return body.render()


def _drop_empty_changes(section: str) -> str:
    main, sep, changes = section.partition(CHANGED)
    if sep and not changes.strip():
        return main.rstrip() + "\n"
    return section


def cites_text(cites: Iterable[Cite]) -> str:
    return " ".join(dict.fromkeys(link(c.episode.name, block=c.block.id) for c in cites))


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


def pattern_lines(p: Pattern, period: str, existing: str) -> tuple[list[str], list[str]]:
    """(evidence lines, change lines) of `p`, without the ones `existing` already holds."""
    about = f"{p.name} {p.statement or ''}"
    evidence = []
    if p.statement:
        evidence.append(marked(f"- {escape(p.statement)} {cites_text(p.cites)}", period))
    for c in p.cites:
        cite = link(c.episode.name, block=c.block.id)
        if cite in existing:
            continue
        sentence = escape(" ".join(best_sentence(c.block, about).split()))
        evidence.append(marked(f"- {c.episode.date.isoformat()}: {sentence} {cite}", period))
    changes = []
    if p.change is not None:
        ch = p.change
        how = (
            escape(ch.how)
            if ch.how
            else f"earlier: “{escape(best_sentence(ch.before.block, about))}”; later: "
            f"“{escape(best_sentence(ch.after.block, about))}”"
        )
        changes.append(
            marked(
                f"- {ch.after.episode.date.isoformat()}: {how} {cites_text([ch.before, ch.after])}",
                period,
            )
        )
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
    is about the pattern itself, else a section named after the pattern."""
    if p.target is not None and p.target.heading:
        return p.target.heading
    return EVIDENCE if name_key(p.name) == name_key(page.title) else p.name


def place_pattern(edits: Edits, p: Pattern, period: str, today: dt.date, taken: set[str]) -> None:
    """Write `p` to its target section, a new section of its target page, or a new page."""
    if p.target is None:
        existing_path = next(
            (
                path
                for path, page in edits.pages.items()
                if page.type == "concept" and name_key(page.title) == name_key(p.name)
            ),
            None,
        )
        if existing_path is None:
            _new_page(edits, p, period, today, taken)
            return
        page, heading = edits.pages[existing_path], EVIDENCE
    else:
        page = edits.pages[p.target.page]
        heading = target_heading(p, page)
    body = split_body(page.body)
    current = body.get(heading) or ""
    evidence, changes = pattern_lines(p, period, current)
    body.set(heading, add_lines(current, evidence, changes))
    edits.pages[page.path] = Page(page.path, {**page.props, "updated": today}, body.render())
    edits.placed.append((p, page.path, heading))


def _new_page(edits: Edits, p: Pattern, period: str, today: dt.date, taken: set[str]) -> None:
    slug = unique_slug(slugify(p.name), taken)
    taken.add(slug)
    path = f"concepts/{slug}.md"
    evidence, changes = pattern_lines(p, period, "")
    summary = p.statement or best_sentence(p.cites[0].block, p.name)
    body = Body(lead=f"# {escape(p.name)}\n\n{escape(summary)}")
    body.set(EVIDENCE, add_lines("", evidence, changes))
    props = {
        "type": "concept",
        "title": p.name,
        "aliases": list(p.aliases),
        "tags": ["concept", "pattern"],
        "summary": summary,
        "sources": [f"[[{e.removesuffix('.md')}]]" for e in p.episodes],
        "created": today,
        "updated": today,
    }
    edits.pages[path] = Page(path, props, body.render())
    edits.created.append(path)
    edits.placed.append((p, path, EVIDENCE))


def is_emptied_pattern_page(page: Page) -> bool:
    """A page consolidation created for a pattern that a redo no longer finds: nothing on it
    cites a source any more (lines a person added would, and keep it)."""
    tags = [str(t) for t in page.props.get("tags") or []]
    return page.type == "concept" and "pattern" in tags and "[[sources/" not in page.body


def heading_link(path: str, heading: str, title: str) -> str:
    name = path.removesuffix(".md")
    return link(name, heading=heading, alias=title if heading == EVIDENCE else heading)


def digest_page(
    path: str,
    key: str,
    title: str,
    sentences: Sequence[DigestSentence],
    episodes: Sequence[Episode],
    placed: Sequence[tuple[Pattern, str, str, str]],  # pattern, page, heading, page title
    previous: Page | None,
    today: dt.date,
) -> Page:
    """The digest of a period: a cited paragraph, the patterns, every episode. Sections a person
    added to an earlier version stay."""
    prose = " ".join(f"{escape(s.text)} {cites_text(s.cites)}" for s in sentences)
    body = split_body(previous.body) if previous else Body()
    body.lead = f"# {title}\n\n{prose}"
    if placed:
        body.set(
            PATTERNS,
            "\n".join(
                f"- {heading_link(page, heading, page_title)}: "
                f"{plural_episodes(len(p.episodes))} this period"
                for p, page, heading, page_title in placed
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
    first = sentences[0].text if sentences else title
    props = {
        "type": "digest",
        "title": title,
        "aliases": [],
        "tags": ["digest"],
        "summary": first,
        "sources": [f"[[{e.name}]]" for e in episodes],
        "period": key,
        "created": (previous.props.get("created") if previous else None) or today,
        "updated": today,
    }
    return Page(path, props, body.render())


def gist(ep: Episode) -> str:
    """One sentence standing for the episode: the first of its summary, else of its text."""
    for text in (ep.summary, ep.blocks[0].text if ep.blocks else ""):
        sentences = split_sentences(" ".join(text.split()))
        if sentences:
            return sentences[0][:GIST_CHARS]
    return ep.title


def episode_page(
    page: Page,
    ep: Episode,
    period: str,
    links: Sequence[str],
    today: dt.date,
) -> Page:
    """LINK (the pages it exemplifies, and its digest) and COMPRESS (`consolidated`, `gist`)."""
    body = split_body(page.body)
    current = body.get(CONSOLIDATED_INTO) or ""
    have = {str(x) for x in parse_links(current)}
    fresh = [marked(f"- {lnk}", period) for lnk in dict.fromkeys(links) if lnk not in have]
    if fresh:
        body.set(CONSOLIDATED_INTO, add_lines(current, fresh, []))
    props = {**page.props, "consolidated": today, "gist": gist(ep)}
    tags = [str(t) for t in props.get("tags") or []]
    if to_tag("episode") not in tags:
        props["tags"] = [*tags, "episode"]
    return Page(page.path, props, body.render())
