"""`wikic merge PAGE INTO`: PAGE's facts, aliases, related links, contradictions, sources and
any section of its own move into INTO; PAGE is removed and every link to it points at INTO.

Facts are deduplicated by block id (the id is derived from the sentence, so the same sentence
is one fact) with their citations united; ids are kept, so a block link `[[page#^f-…]]` to a
moved fact resolves on INTO. Contradiction entries keep their ids and self-links. Only entity and
concept pages merge: a source page is the record of one raw file.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from wikic.errors import UsageError
from wikic.maintain.common import MaintainResult, PagePlan, find_page, run
from wikic.maintain.relink import dedupe_link_items, rewrite_page
from wikic.operation.transaction import Plan
from wikic.paths import WikiPaths
from wikic.store.db import after_commit
from wikic.vault.links import WikiLink
from wikic.vault.pages import Page, parse_page, render_page
from wikic.vault.sections import (
    CONTRADICTIONS,
    KNOWN_SECTIONS,
    RELATED,
    SOURCES,
    Body,
    bullets,
    split_body,
)
from wikic.vault.topic_page import SourceSections, add_facts, merge_links, parse_facts
from wikic.vault.tree import Vault

MERGEABLE = ("entity", "concept")


def plan_merge(paths: WikiPaths, vault: Vault, name: str, into_name: str) -> PagePlan:
    page = find_page(vault, name)
    into = find_page(vault, into_name)
    if page.path == into.path:
        raise UsageError(f"{page.name} and {into_name} are the same page")
    for p in (page, into):
        if p.type not in MERGEABLE:
            raise UsageError(
                f"{p.name} is a {p.type or 'untyped'} page; only entity and concept pages merge",
                hint="A source page records one raw file: delete it instead (wikic delete).",
            )
    wiki_rel = paths.rel(paths.wiki)
    into_heads = {h.casefold() for h in vault.anchors(into)[1]}

    def rewrite(lnk: WikiLink, target: Page) -> str | None:
        if target.path != page.path:
            return None
        heading = lnk.heading
        if heading is not None and heading.strip().casefold() not in into_heads:
            heading = None  # a section of PAGE that INTO lacks: link the page itself
        alias = lnk.alias if lnk.alias is not None else (None if lnk.block else page.title)
        target_name = into.name if lnk.target else ""
        return WikiLink(target_name, heading, lnk.block, alias, lnk.embed).render()

    plan = Plan("merge", f"{page.title} into {into.title}")
    links = 0
    for other in vault:
        if other.path in (page.path, into.path):
            continue
        text = (paths.wiki / other.path).read_text(encoding="utf-8")
        new_text, n = rewrite_page(text, other, vault, rewrite)
        if n:
            plan.write(f"{wiki_rel}/{other.path}", dedupe_link_items(new_text))
            links += n
    page_text, _ = rewrite_page(_read(paths, page), page, vault, rewrite)
    into_text, _ = rewrite_page(_read(paths, into), into, vault, rewrite)
    merged, moved_facts = _merged(
        parse_page(into.path, into_text),
        parse_page(page.path, page_text),
        SourceSections(vault.pages.get),
    )
    plan.write(f"{wiki_rel}/{into.path}", merged)
    plan.delete(f"{wiki_rel}/{page.path}")
    plan.moves[page.name] = into.name
    plan.log_bullets.append(
        f"merged {page.title} ({page.name}) into [[{into.name}|{into.title}]]: "
        f"{moved_facts} new fact(s); '{page.title}' kept as an alias"
        + (f"; {links} link(s) rewritten" if links else "")
    )
    return PagePlan(plan, moved=((page.path, into.path),), deleted=(page.path,), links=links)


def _read(paths: WikiPaths, page: Page) -> str:
    return (paths.wiki / page.path).read_text(encoding="utf-8")


def _merged(into: Page, page: Page, sections: SourceSections) -> tuple[str, int]:
    """INTO's file text with PAGE's content added; and how many facts were new to INTO. PAGE's
    facts join INTO's groups by their source section (`SourceSections` knows a flat page's)."""
    body, extra = split_body(into.body), split_body(page.body)
    moved = [replace(f, section=f.section or sections.of(f)) for f in parse_facts(extra)]
    new = len(add_facts(body, moved, sections.of)[1])
    _merge_contradictions(body, extra)
    _drop_self_links(body, into.name)  # INTO's own link to PAGE now points at INTO itself
    own = _own_prose(extra.lead, page)
    if own:  # what the user wrote at the top of PAGE, beyond its title and summary
        body.lead = f"{body.lead.rstrip()}\n\n{own}"
    related = [
        b.text
        for b in bullets(extra.get(RELATED))
        if b.links and b.links[0].target.casefold() not in (into.name.casefold(), "")
    ]
    merge_links(body, RELATED, related)
    merge_links(body, SOURCES, [b.text for b in bullets(extra.get(SOURCES)) if b.links])
    for heading, text in extra.sections:  # sections wikic does not write: kept, not lost
        if heading.casefold() in {h.casefold() for h in KNOWN_SECTIONS} or not text.strip():
            continue
        current = body.get(heading)
        body.set(heading, text if current is None else f"{current.rstrip()}\n\n{text.strip()}")
    props = dict(into.props)
    aliases = list(into.aliases)
    for name in (page.title, *page.aliases):
        if name.casefold() != into.title.casefold() and name.casefold() not in {
            a.casefold() for a in aliases
        }:
            aliases.append(name)
    props["aliases"] = aliases
    props["sources"] = list(dict.fromkeys([*into.sources, *page.sources]))
    tags = list(
        dict.fromkeys([*_as_list(into.props.get("tags")), *_as_list(page.props.get("tags"))])
    )
    if tags:
        props["tags"] = tags
    open_entries = sum(1 for b in bullets(body.get(CONTRADICTIONS)) if b.status == "open")
    if "contradictions" in props or open_entries:
        props["contradictions"] = open_entries
    return render_page(replace(into, props=props, body=body.render())), new


def _own_prose(lead: str, page: Page) -> str:
    paragraphs = [p.strip() for p in lead.split("\n\n") if p.strip()]
    generated = {f"# {page.title}", page.summary.strip()}
    return "\n\n".join(p for p in paragraphs if p not in generated)


def _drop_self_links(body: Body, name: str) -> None:
    kept = [
        f"- {b.text}"
        for b in bullets(body.get(RELATED))
        if not (b.links and b.links[0].target.casefold() == name.casefold())
    ]
    if kept:
        body.set(RELATED, "\n".join(kept))
    else:
        body.remove(RELATED)


def _merge_contradictions(body: Body, extra: Body) -> None:
    current = bullets(body.get(CONTRADICTIONS))
    have = {b.block for b in current if b.block}
    lines = [f"- {b.text}" + (f" ^{b.block}" if b.block else "") for b in current]
    for b in bullets(extra.get(CONTRADICTIONS)):
        if b.block and b.block in have:
            continue
        lines.append(f"- {b.text}" + (f" ^{b.block}" if b.block else ""))
    if lines:
        body.set(CONTRADICTIONS, "\n".join(lines))


def _as_list(value: object) -> list[object]:
    if value is None:
        return []
    return list(value) if isinstance(value, list | tuple) else [value]


def merge_pages(paths: WikiPaths, name: str, into: str, **options: Any) -> MaintainResult:
    """Plan and commit it as one operation; `options` go to `maintain.common.run`."""
    return run(
        paths,
        "merge",
        lambda vault: plan_merge(paths, vault, name, into),
        on_commit=after_commit,
        **options,
    )
