"""`wikic rename PAGE "New title"`: a new title, and the file moved to the new title's slug.

The old title stays as an alias. Every link to the page is pointed at the new path, keeping its
heading or block; an alias equal to the old title, and a heading link to the old `# Title`, take
the new title. Earlier log.md entries follow the move (`Plan.moves`).
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import PurePosixPath
from typing import Any

from wikic.errors import PageError, UsageError
from wikic.maintain.common import MaintainResult, PagePlan, find_page, run
from wikic.maintain.relink import rewrite_page
from wikic.operation.transaction import Plan
from wikic.paths import WikiPaths
from wikic.store.db import after_commit
from wikic.vault.links import WikiLink, clean_alias
from wikic.vault.pages import Page, parse_page, render_page
from wikic.vault.slugs import safe_page_path, slugify, unique_slug
from wikic.vault.tree import Vault


def plan_rename(paths: WikiPaths, vault: Vault, name: str, new_title: str) -> PagePlan:
    page = find_page(vault, name)
    title = clean_alias(new_title)
    if not title:
        raise UsageError("the new title is empty")
    old_title = page.title
    if title == old_title:
        raise UsageError(f"{page.name} is already titled '{title}'")
    folder = str(PurePosixPath(page.path).parent)
    folder = "" if folder == "." else folder
    slug = slugify(title)
    if slug.casefold() == page.stem.casefold():
        new_path = page.path
    else:
        prefix = f"{folder}/" if folder else ""
        files = [*vault.pages, *vault.broken]  # an unreadable page's file is taken too
        taken = [
            PurePosixPath(f).stem
            for f in files
            if f != page.path and f.startswith(prefix) and "/" not in f[len(prefix) :]
        ]
        slug = unique_slug(slug, taken)
        new_path = safe_page_path(paths.wiki, folder, slug).as_posix()
    new_name = new_path.removesuffix(".md")
    wiki_rel = paths.rel(paths.wiki)

    def rewrite(lnk: WikiLink, target: Page) -> str | None:
        if target.path != page.path:
            return None
        heading = lnk.heading
        if heading is not None and heading.strip().casefold() == old_title.casefold():
            heading = title
        alias = lnk.alias
        if alias is not None and alias.strip().casefold() == old_title.casefold():
            alias = title
        new_target = new_name if lnk.target else ""
        return WikiLink(new_target, heading, lnk.block, alias, lnk.embed).render()

    plan = Plan("rename", f"{old_title} → {title}")
    links = 0
    for other in vault:
        if other.path == page.path:
            continue
        text = (paths.wiki / other.path).read_text(encoding="utf-8")
        new_text, n = rewrite_page(text, other, vault, rewrite)
        if n:
            plan.write(f"{wiki_rel}/{other.path}", new_text)
            links += n
    text = (paths.wiki / page.path).read_text(encoding="utf-8")
    own, _ = rewrite_page(text, page, vault, rewrite)  # its links to itself
    plan.write(f"{wiki_rel}/{new_path}", _retitled(page.path, own, old_title, title))
    if new_path != page.path:
        plan.delete(f"{wiki_rel}/{page.path}")
        plan.moves[page.name] = new_name
    plan.log_bullets.append(
        f"renamed {page.name} to [[{new_name}|{title}]]; '{old_title}' kept as an alias"
        + (f"; {links} link(s) rewritten" if links else "")
    )
    moved = ((page.path, new_path),) if new_path != page.path else ()
    return PagePlan(plan, moved=moved, links=links)


def _retitled(path: str, text: str, old_title: str, title: str) -> str:
    """The page with the new title, the old one added to its aliases, and its `# Title`
    heading renamed."""
    try:
        page = parse_page(path, text)
    except PageError:
        raise PageError(f"{path}: its properties cannot be read; fix them first") from None
    aliases = [a for a in page.aliases if a.casefold() != title.casefold()]
    if old_title.casefold() not in {a.casefold() for a in aliases}:
        aliases.append(old_title)
    heading = re.compile(rf"^# +{re.escape(old_title)}[ \t]*$", re.MULTILINE)
    body = heading.sub(lambda m: f"# {title}", page.body, count=1)
    props = {**page.props, "title": title, "aliases": aliases}
    return render_page(replace(page, path=path, props=props, body=body))


def rename_page(paths: WikiPaths, name: str, new_title: str, **options: Any) -> MaintainResult:
    """Plan and commit it as one operation; `options` go to `maintain.common.run`."""
    return run(
        paths,
        "rename",
        lambda vault: plan_rename(paths, vault, name, new_title),
        on_commit=after_commit,
        **options,
    )
