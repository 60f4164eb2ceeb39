"""What rename, merge and delete share: finding the page a user names, planning under the
writer lock (or without it for --dry-run), and the result they report.

A page is named by its path (`concepts/kv-cache`, `wiki/concepts/kv-cache.md`), its title or an
alias; a name that fits several pages is an error listing them.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass

from wikic.errors import PageError
from wikic.operation.transaction import CommitHook, Plan, writing
from wikic.paths import WikiPaths
from wikic.vault.names import name_key
from wikic.vault.pages import Page
from wikic.vault.tree import Vault

Planner = Callable[[Vault], "PagePlan"]


@dataclass(frozen=True)
class PagePlan:
    """An operation's plan and what it tells the user."""

    plan: Plan
    moved: tuple[tuple[str, str], ...] = ()  # (old page path, new page path)
    deleted: tuple[str, ...] = ()  # page paths removed
    links: int = 0  # links rewritten (or made plain text) in other pages
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class MaintainResult:
    op: str
    title: str
    dry_run: bool
    changes: tuple[tuple[str, str], ...]  # (root-relative path, "write" | "delete")
    moved: tuple[tuple[str, str], ...]
    deleted: tuple[str, ...]
    links: int
    notes: tuple[str, ...]
    commit: str | None = None

    def to_dict(self) -> dict[str, object]:
        return {
            "op": self.op,
            "title": self.title,
            "dry_run": self.dry_run,
            "changes": [{"path": p, "change": c} for p, c in self.changes],
            "moved": [{"from": a, "to": b} for a, b in self.moved],
            "deleted": list(self.deleted),
            "links_rewritten": self.links,
            "notes": list(self.notes),
            "commit": self.commit,
        }


def find_page(vault: Vault, name: str) -> Page:
    """The page a user means by `name`: a path, a title or an alias."""
    given = name.strip().replace("\\", "/")
    wiki = vault.wiki_dir.name + "/"
    target = given[len(wiki) :] if given.startswith(wiki) else given
    page = vault.resolve(target) if target else None
    if page is not None:
        return page
    folded = given.casefold()
    matches = [p for p in vault if folded in {n.casefold() for n in (p.title, *p.aliases)}]
    if not matches:  # the one name rule: case, punctuation, articles and plurals aside
        key = name_key(given)
        matches = [p for p in vault if key and key in {name_key(n) for n in (p.title, *p.aliases)}]
    if len(matches) == 1:
        return matches[0]
    if matches:
        listed = ", ".join(p.name for p in matches)
        raise PageError(
            f"'{name}' names {len(matches)} pages: {listed}", hint="Name one by its path."
        )
    raise PageError(
        f"no page '{name}' in the wiki",
        hint="Name it by its path (e.g. concepts/kv-cache), title or alias; `wikic search` finds it.",
    )


def run(
    paths: WikiPaths,
    op: str,
    planner: Planner,
    *,
    dry_run: bool = False,
    include_my_edits: bool = False,
    wait: float | None = None,
    on_wait: Callable[[str], None] | None = None,
    on_commit: CommitHook | None = None,
    today: dt.date | None = None,
) -> MaintainResult:
    """Plan with `planner` on the current pages and commit it as one operation (or, with
    `dry_run`, only report what it would change)."""
    if dry_run:
        page_plan = planner(Vault.load(paths.wiki))
        return _result(op, page_plan, dry_run=True, commit=None)
    with writing(
        paths,
        op,
        wait=wait,
        on_wait=on_wait,
        on_commit=on_commit,
        include_my_edits=include_my_edits,
    ) as writer:
        page_plan = planner(Vault.load(paths.wiki))  # under the lock: nobody changes it now
        result = writer.commit(page_plan.plan, today=today)
    return _result(op, page_plan, dry_run=False, commit=result.commit, changed=result.changed)


def _result(
    op: str,
    page_plan: PagePlan,
    *,
    dry_run: bool,
    commit: str | None,
    changed: tuple[str, ...] | None = None,
) -> MaintainResult:
    planned = page_plan.plan.changes
    paths = changed if changed is not None else tuple(sorted(planned))
    changes = tuple(
        (p, "delete" if p in planned and planned[p] is None else "write") for p in paths
    )
    return MaintainResult(
        op,
        page_plan.plan.title,
        dry_run,
        changes,
        page_plan.moved,
        page_plan.deleted,
        page_plan.links,
        page_plan.notes,
        commit,
    )
