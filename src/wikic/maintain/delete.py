"""`wikic delete PAGE`: remove a page and every link to it.

A link in prose becomes plain text (its alias, else the page's title); a list item that is only
that link (Related, Sources) goes; a property value linking it is dropped. The raw sources stay,
so a later ingest can bring the facts back. A source page is refused while its raw file exists
(it would come back on the next `ingest --all`), unless forced: then facts citing only it are
dropped from the pages and facts citing other sources too keep those.
"""

from __future__ import annotations

from typing import Any

from wikic.errors import OperationError
from wikic.maintain.common import MaintainResult, PagePlan, find_page, run
from wikic.maintain.relink import REMOVE, rewrite_page
from wikic.operation.transaction import Plan
from wikic.paths import WikiPaths
from wikic.store.db import after_commit
from wikic.vault.links import WikiLink, headings
from wikic.vault.pages import Page, parse_page, render_page
from wikic.vault.sections import split_body
from wikic.vault.topic_page import parse_facts, retract_source
from wikic.vault.tree import Vault


def plan_delete(paths: WikiPaths, vault: Vault, name: str, *, force: bool = False) -> PagePlan:
    page = find_page(vault, name)
    notes: list[str] = []
    raw = str(page.props.get("raw") or "")
    if page.type == "source" and raw and (paths.root / raw).exists():
        if not force:
            raise OperationError(
                f"{page.name} is the source page of {raw}, which still exists: the next "
                "`ingest --all` would bring it back",
                hint=f"Remove {raw} first (then delete the page), or pass --force.",
            )
        notes.append(f"{raw} still exists: `wikic ingest --all` will compile it again")
    wiki_rel = paths.rel(paths.wiki)

    texts: dict[str, str] = {}
    gone_blocks: set[tuple[str, str]] = set()  # (page path, fact id) of facts removed with it
    dropped = 0
    for other in vault:
        if other.path == page.path:
            continue
        texts[other.path] = (paths.wiki / other.path).read_text(encoding="utf-8")
        if page.type == "source":
            text, removed = _retract(other, texts[other.path], page)
            if removed:
                texts[other.path] = text
                gone_blocks.update((other.path, block) for block in removed)
                dropped += len(removed)

    # headings left on the pages that lost facts (a `## Facts` may go with the last one)
    heads = {path: {h.strip().casefold() for h in headings(texts[path])} for path, _ in gone_blocks}

    def rewrite(lnk: WikiLink, target: Page) -> str | None:
        if target.path == page.path and lnk.target:
            return REMOVE + (lnk.alias or page.title)
        if (
            lnk.heading is not None
            and target.path in heads
            and lnk.heading.strip().casefold() not in heads[target.path]
        ):
            return WikiLink(lnk.target, alias=lnk.alias, embed=lnk.embed).render()
        if lnk.block is not None and (target.path, lnk.block) in gone_blocks:
            if not lnk.target:  # a contradiction entry's link to a removed fact
                return "a removed fact"
            return WikiLink(lnk.target, alias=lnk.alias or target.title).render()
        return None

    plan = Plan("delete", page.title)
    links = 0
    for other in vault:
        if other.path == page.path:
            continue
        original = (paths.wiki / other.path).read_text(encoding="utf-8")
        text = texts[other.path]
        holder = other if text == original else parse_page(other.path, text)
        new_text, n = rewrite_page(text, holder, vault, rewrite)
        if new_text != original:
            plan.write(f"{wiki_rel}/{other.path}", new_text)
            links += n
    plan.delete(f"{wiki_rel}/{page.path}")
    if dropped:
        notes.append(f"{dropped} fact(s) cited only this source and were removed")
    plan.log_bullets.append(
        f"deleted {page.title} ({page.name})"
        + (f"; {links} link(s) made plain text" if links else "")
        + (f"; {dropped} fact(s) citing only it removed" if dropped else "")
    )
    return PagePlan(plan, deleted=(page.path,), links=links, notes=tuple(notes))


def _retract(other: Page, text: str, source: Page) -> tuple[str, list[str]]:
    """A page's text without its citations of a deleted source page, and the ids of the facts
    that cited only it (removed)."""
    if other.type == "source":
        return text, []
    page = parse_page(other.path, text)
    retracted, _ = retract_source(page, source.path, {})
    if retracted is page:
        return text, []
    before = {f.id for f in parse_facts(split_body(page.body))}
    after = {f.id for f in parse_facts(split_body(retracted.body))}
    return render_page(retracted), sorted(before - after)


def delete_page(
    paths: WikiPaths, name: str, *, force: bool = False, **options: Any
) -> MaintainResult:
    """Plan and commit it as one operation; `options` go to `maintain.common.run`."""
    return run(
        paths,
        "delete",
        lambda vault: plan_delete(paths, vault, name, force=force),
        on_commit=after_commit,
        **options,
    )
