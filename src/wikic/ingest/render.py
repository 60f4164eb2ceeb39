"""Pages rendered by code from structured edits: source pages and entity/concept pages.

Facts are verbatim source sentences with a citation `[[sources/s#^pN]]` and a block id derived
from the sentence, so the same sentence from two sources is one bullet with two citations; facts
from two or more source sections are grouped under their headings, which name the source too on
a page that cites several (`topic_page.source_group`). Contradictions keep both
facts and add an entry with a status. Unknown sections are kept.
"""

from __future__ import annotations

import datetime as dt
import logging
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

from wikic.ingest.extract import Extraction
from wikic.ingest.openings import DERIVED
from wikic.ingest.text import quote
from wikic.language.grounding import related
from wikic.language.name_rules import distinct_names
from wikic.language.vocabulary import is_common_term
from wikic.vault.document import render_source_body
from wikic.vault.links import link
from wikic.vault.pages import Page, to_tag
from wikic.vault.prose import escape
from wikic.vault.sections import (
    CONTRADICTIONS,
    FACTS,
    LISTED,
    RELATED,
    SOURCES,
    USAGE,
    Body,
    join_groups,
    listed_names,
    split_body,
    split_groups,
)
from wikic.vault.topic_page import (
    GROUP_SEP,
    Fact,
    add_contradictions,
    add_facts,
    cited_sources,
    merge_links,
    parse_facts,
    section_heading,
    source_group,
    source_link,
    source_titles,
)

log = logging.getLogger(__name__)
MAX_RELATED = 8


# -- source pages ---------------------------------------------------------------------------


def render_source_page(
    ex: Extraction,
    page_path: str,
    topic_links: Sequence[str],
    key_facts: Sequence[tuple[str, str]],  # (sentence text, paragraph id)
    today: dt.date,
    previous: Page | None,
    section_links: Mapping[int, Sequence[str]] | None = None,
) -> Page:
    """Summary, key claims, pages, an outline of the source's sections with the pages each fed,
    then the whole source as blocks `^p1`, `^p2`, … (rendered inert: source text is data)."""
    name = page_path.removesuffix(".md")
    lines = [f"# {ex.title}", "", " ".join(ex.summary.split())]
    if key_facts:
        lines += ["", "## Key claims", ""]
        lines += [f"- {quote(text)} {link(name, block=para)}" for text, para in key_facts]
    if topic_links:
        lines += ["", "## Pages", ""] + [f"- {lnk}" for lnk in topic_links]
    outline = _outline(ex, name, section_links or {})
    if outline:
        lines += ["", "## Outline", "", *outline]
    lines += ["", "## Text", "", render_source_body(ex.document, min_level=3)]
    created = previous.props.get("created") if previous else None
    props = {
        "type": "source",
        "title": ex.title,
        "aliases": [],
        "tags": ["source", to_tag(ex.source.kind)],
        "summary": " ".join(ex.summary.split()),
        "kind": ex.source.kind,
        "raw": ex.source.rel,
        "sha256": ex.source.sha256,
        "created": created or today,
        "ingested": today,
    }
    return Page(page_path, props, "\n".join(lines).rstrip() + "\n")


def _outline(ex: Extraction, name: str, section_links: Mapping[int, Sequence[str]]) -> list[str]:
    """One bullet per headed section, indented by level, with the pages it fed."""
    doc = ex.document
    headed = [s for s in doc.sections if s.heading]
    if len(headed) < 2:
        return []
    top = min(s.level for s in headed)
    lines = []
    for s in headed:
        fed = section_links.get(s.index, ())
        first = s.block_ids[0] if s.block_ids else None
        target = f" {link(name, block=first)}" if first and not fed else ""
        pages = (" → " + ", ".join(fed)) if fed else ""
        lines.append("  " * (s.level - top) + f"- {escape(s.heading)}{pages}{target}")
    return lines


# -- entity and concept pages ---------------------------------------------------------------


@dataclass(frozen=True)
class TopicEdit:
    path: str
    title: str
    type: str
    aliases: tuple[str, ...]
    new_facts: tuple[Fact, ...]
    summary: str | None  # None: keep the current one
    contradictions: tuple[tuple[str, str, str], ...]  # (new fact id, old fact id, reason)
    related: tuple[str, ...]  # rendered links
    source_page: str
    source_title: str
    usage: tuple[str, ...] = ()  # code examples, each a fenced block followed by its citation
    # the section of a fact already on a flat page (its new facts carry theirs)
    section_of: Callable[[Fact], str] | None = None
    # a `summary` code wrote from the document's structure (`ingest.openings`): True marks the
    # page `opening: derived` and cites `lead_citation` after it; False drops the mark; None
    # leaves it as it is (the summary is kept)
    derived: bool | None = None
    lead_citation: str = ""
    # commands, options, keys and files listed on the page (`ingest.twins.LIST`): (name, the
    # citation of its fact), a row each under `LISTED`; each name is an alias too
    listed: tuple[tuple[str, str], ...] = ()


def apply_topic_edit(existing: Page | None, edit: TopicEdit, today: dt.date) -> Page:
    body = split_body(existing.body) if existing else Body(lead=f"# {edit.title}\n")
    new_facts, section_of = edit.new_facts, edit.section_of
    if len(cited_sources([*parse_facts(body), *new_facts])) >= 2:
        new_facts, section_of = _by_source(body, edit)
    facts, _ = add_facts(body, new_facts, section_of)
    _merge_usage(body, edit.usage)
    merge_rows(body, edit.listed)
    merge_links(body, RELATED, edit.related, limit=MAX_RELATED)
    merge_links(body, SOURCES, [source_link(edit.source_page, edit.source_title)])
    open_count = add_contradictions(body, edit.contradictions)
    props = dict(existing.props) if existing else {}
    title = str(props.get("title") or edit.title)
    summary = edit.summary if edit.summary else str(props.get("summary") or "")
    shown = f"{summary} {edit.lead_citation}" if edit.derived and edit.summary else summary
    if existing is None:
        body.lead = f"# {title}\n\n{shown}".rstrip()
    elif edit.summary:
        body.lead = _new_lead(body.lead, str(props.get("summary") or ""), shown, edit.path)
    if edit.derived:
        props["opening"] = DERIVED
    elif edit.derived is False:
        props.pop("opening", None)
    aliases = [str(a) for a in props.get("aliases") or []]
    rows = dict.fromkeys(name for name, _ in edit.listed)  # in listed order, not a set's
    for alias in (*edit.aliases, *rows):
        if alias not in rows and not (related(alias, title) and names_it(alias, title, aliases)):
            continue  # a neighbouring topic, not another name for this one
        if alias.casefold() != title.casefold() and alias.casefold() not in {
            a.casefold() for a in aliases
        }:
            aliases.append(alias)
    tags = [str(t) for t in props.get("tags") or []]
    if edit.type not in tags:
        tags.insert(0, edit.type)
    props.update(
        type=props.get("type") or edit.type,
        title=title,
        aliases=aliases,
        tags=tags,
        summary=summary,
        sources=cited_sources(facts),
        created=props.get("created") or today,
        updated=today,
    )
    if open_count:
        props["contradictions"] = open_count
    else:
        props.pop("contradictions", None)
    return Page(edit.path, props, body.render())


def names_it(alias: str, title: str, kept: Sequence[str]) -> bool:
    """Whether `alias` may be another name of the page `title`, whose other names are `kept`:
    not one of a series another of its names is a member of (`distinct_names`: "SELECT FOR
    UPDATE" on a page "SELECT" that "SELECT FOR SHARE" names; "TXID" and "ID"), nor one word
    of its title that every technical text writes (`is_common_term`: the "ID" of "transaction
    ID", which a reader looking up IDs does not mean)."""
    if any(distinct_names(alias, n) for n in kept):  # the title and its alias were resolved
        return False
    words = [w.casefold() for w in title.split()]
    return not (
        len(words) > 1
        and " " not in alias.strip()
        and alias.casefold() in words
        and is_common_term(alias)
    )


def _by_source(
    body: Body, edit: TopicEdit
) -> tuple[tuple[Fact, ...], Callable[[Fact], str] | None]:
    """On a page that cites two sources or more, a group says whose claims it holds: the
    groups already there are renamed (`source_group`, from the source their bullets cite
    first) and the new facts and `edit.section_of` give sub-headings of the same form."""
    titles = source_titles(body)
    titles[edit.source_page.removesuffix(".md").casefold()] = edit.source_title

    def label(fact: Fact) -> str:
        first = fact.citations[0][2:-2].split("|", 1)[0].split("#", 1)[0] if fact.citations else ""
        return titles.get(first.casefold(), "")

    lead, groups = split_groups(body.get(FACTS))
    if groups:
        renamed: dict[str, tuple[str, list[str]]] = {}
        for heading, text in groups:
            facts = parse_facts(Body(sections=[(FACTS, text)]))
            name = source_group(label(facts[0]), heading) if facts else heading
            own = section_heading(label(facts[0])).casefold() if facts else ""
            if own and (
                heading.casefold() == own or heading.casefold().startswith(own + GROUP_SEP)
            ):
                name = heading  # named so already
            renamed.setdefault(name.casefold(), (name, []))[1].append(text.strip("\n"))
        joined = [(h, "\n".join(texts)) for h, texts in renamed.values()]
        body.set(FACTS, join_groups(lead, joined))
    old_section = edit.section_of
    new = tuple(replace(f, section=source_group(label(f), f.section)) for f in edit.new_facts)
    if old_section is None:
        return new, None
    return new, lambda f: source_group(label(f), old_section(f))


def _new_lead(lead: str, old_summary: str, summary: str, path: str) -> str:
    """The lead with the summary paragraph wikic wrote last (`old_summary`, the `summary`
    property) replaced. Paragraphs the user added stay; a summary paragraph the user rewrote
    is kept and reported (the property still gets the new summary). A derived summary's
    citation after it goes with it."""
    if old_summary and old_summary in lead:
        cited = re.compile(re.escape(old_summary) + r"(?: \[\[sources/[^\[\]]*\]\])?")
        return cited.sub(lambda _: summary, lead, count=1)
    if not lead.strip() or all(
        line.startswith("# ") or not line.strip() for line in lead.split("\n")
    ):
        return f"{lead.rstrip()}\n\n{summary}".strip()
    log.warning(
        "kept your edited opening paragraph of %s (its new summary is in its properties)", path
    )
    return lead


def _merge_usage(body: Body, examples: Sequence[str]) -> None:
    """Add code examples not on the page yet (an example is known by its citation)."""
    current = body.get(USAGE) or ""
    added = [e for e in examples if e.rsplit("\n", 1)[-1] not in current]
    if added:
        body.set(USAGE, "\n\n".join(p for p in [current.strip("\n"), *added] if p))


def merge_rows(body: Body, rows: Sequence[tuple[str, str]]) -> None:
    """Add a row `- `name` — citation` to the `LISTED` section for each of `rows` the page
    does not list yet (a row is known by its name), the section before `## Related`."""
    current = body.get(LISTED)
    have = {n.casefold() for n in listed_names(body)}
    added = [f"- `{n}` — {c}".rstrip(" —") for n, c in rows if n.casefold() not in have]
    if not added:
        return
    text = "\n".join(p for p in [(current or "").strip("\n"), *added] if p)
    if current is not None:
        body.set(LISTED, text)
        return
    after = {RELATED.casefold(), CONTRADICTIONS.casefold(), SOURCES.casefold()}
    at = next(
        (i for i, (n, _) in enumerate(body.sections) if n.casefold() in after),
        len(body.sections),
    )
    body.sections.insert(at, (LISTED, text))
