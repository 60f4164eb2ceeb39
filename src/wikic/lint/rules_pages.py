"""Structural rules about pages as a whole: readability, properties, orphans, duplicates, index.

Orphans: a page nobody links to (from a body or a property) is a warning; a source page nobody
cites is only info (it was ingested but taught the wiki nothing); analyses are exempt (they are
answers filed back, reached from the index). Property rules follow Obsidian: one type per
property name across the vault, flat values, quoted links, valid tags, no deprecated names.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter, defaultdict
from collections.abc import Iterator
from typing import Any

from wikic.language.name_rules import kept_apart
from wikic.lint.findings import Finding
from wikic.lint.rules_links import snippet
from wikic.lint.scan import WikiScan
from wikic.vault.catalog import render_index
from wikic.vault.names import name_key, near_duplicate_pairs
from wikic.vault.pages import (
    DEPRECATED_PROPERTIES,
    PAGE_TYPES,
    PROPERTY_TYPES,
    is_valid_tag,
    to_tag,
)

_UNTYPED = ("empty", "nested")


def check_unreadable(scan: WikiScan) -> Iterator[Finding]:
    for rel, message in sorted(scan.broken.items()):
        yield Finding(
            "error",
            "unreadable-page",
            scan.rel(rel),
            message,
            "Fix the YAML between the --- lines (Obsidian flags it too), or restore the file "
            "from git.",
        )


def check_page_types(scan: WikiScan) -> Iterator[Finding]:
    for ps in scan:
        kind = ps.page.props.get("type")
        if kind in PAGE_TYPES:
            continue
        message = "no 'type' property" if kind in (None, "") else f"unknown type {kind!r}"
        yield Finding(
            "warning",
            "page-type",
            scan.rel(ps.path),
            message,
            f"Set type to one of {', '.join(PAGE_TYPES)}.",
        )


def check_orphans(scan: WikiScan) -> Iterator[Finding]:
    back = scan.backlinks
    for ps in scan:
        if ps.type == "analysis" or back.get(ps.path):
            continue
        if ps.type == "source":
            yield Finding(
                "info",
                "orphan-page",
                scan.rel(ps.path),
                "no page cites this source",
                "Its claims reached no entity or concept page; re-ingest it, or delete the "
                "source page if the source is not wanted.",
            )
        else:
            yield Finding(
                "warning",
                "orphan-page",
                scan.rel(ps.path),
                "no other page links here",
                "Link it from a related page (## Related), or merge or delete it.",
            )


def check_index(scan: WikiScan) -> Iterator[Finding]:
    expected = render_index(scan.vault)
    try:
        current: str | None = scan.paths.index_md.read_text(encoding="utf-8")
    except (FileNotFoundError, UnicodeDecodeError):
        current = None
    if current == expected:
        return
    if current is None:
        message = "index.md is missing or unreadable"
    else:
        want, have = set(expected.splitlines()), set(current.splitlines())
        message = (
            f"index.md differs from the catalog generated from the pages "
            f"({len(want - have)} lines missing, {len(have - want)} extra)"
        )
    yield Finding(
        "warning",
        "index-drift",
        scan.rel("index.md"),
        message,
        "`wikic lint --fix` regenerates it. index.md is generated: edit page properties instead.",
        fixable=True,
    )


def check_duplicates(scan: WikiScan) -> Iterator[Finding]:
    """duplicate-title: the same or nearly the same title/alias on two pages of one kind. A
    listed row's name is no name of its page: Poetry's and pip's pages both list `.gitignore`,
    and are not one page."""
    for sources in (True, False):
        names: dict[str, dict[str, str]] = defaultdict(dict)  # key → page path → name
        for ps in scan:
            if (ps.type == "source") != sources:
                continue
            for name in (ps.page.title, *ps.page.aliases):
                key = name_key(name)
                if key:
                    names[key].setdefault(ps.path, name)
        reported: set[tuple[str, str]] = set()
        for key, by_page in sorted(names.items()):
            if len(by_page) > 1:
                by_page = {p: n for p, n in by_page.items() if scan.pages[p].names_itself(n)}
                names[key] = by_page
            if len(by_page) > 1:
                first, *others = sorted(by_page)
                reported.update((first, o) for o in others)
                yield _duplicate(scan, by_page, first, others, "the same name")
        keyed = {k: set(v) for k, v in names.items()}
        for a, b in sorted(near_duplicate_pairs(keyed)):
            for pa in sorted(keyed[a]):
                for pb in sorted(keyed[b]):
                    pair = (min(pa, pb), max(pa, pb))
                    if pa == pb or pair in reported:
                        continue
                    reported.add(pair)
                    if kept_apart(names[a][pa], names[b][pb]):
                        continue  # `HTTP_PROXY` / `HTTPS_PROXY`: two names, one letter apart
                    if not (
                        scan.pages[pa].names_itself(names[a][pa])
                        and scan.pages[pb].names_itself(names[b][pb])
                    ):
                        continue
                    shown = {pa: names[a][pa], pb: names[b][pb]}
                    yield _duplicate(scan, shown, pair[0], [pair[1]], "nearly the same name")


def _duplicate(
    scan: WikiScan, shown: dict[str, str], first: str, others: list[str], what: str
) -> Finding:
    listed = " and ".join(f"'{shown[p]}' ({scan.rel(p)})" for p in [first, *others])
    keep, away = first.removesuffix(".md"), others[0].removesuffix(".md")
    if scan.pages[first].type in ("entity", "concept") and scan.pages[others[0]].type in (
        "entity",
        "concept",
    ):
        hint = (
            f"Merge them: wikic merge {away} {keep} (its title stays as an alias), or tell "
            f'them apart: wikic rename {away} "New title".'
        )
    else:
        hint = (
            f'Tell them apart: wikic rename {away} "New title", or remove one: wikic delete {away}.'
        )
    return Finding(
        "warning",
        "duplicate-title",
        scan.rel(first),
        f"{listed} have {what}: merge candidates",
        hint,
    )


def link_in_nested(value: Any) -> str | None:
    """`[[a]]` written without quotes reads as [['a']]: give back the link text, else None."""
    if (
        isinstance(value, list)
        and len(value) == 1
        and isinstance(value[0], list)
        and len(value[0]) == 1
        and isinstance(value[0][0], str)
    ):
        return f"[[{value[0][0]}]]"
    return None


def unquoted_links(value: Any) -> bool:
    """Whether every nested part of `value` is an unquoted link (so quoting fixes it)."""
    if link_in_nested(value) is not None:
        return True
    if not isinstance(value, list):
        return False
    nested = [v for v in value if isinstance(v, list | dict)]
    return bool(nested) and all(link_in_nested(v) is not None for v in nested)


def _compatible(expected: str, kind: str) -> bool:
    if kind == expected or kind in _UNTYPED:
        return True
    return (kind == "text" and expected == "list") or (kind == "list" and expected == "text")


def vault_property_types(scan: WikiScan) -> dict[str, str]:
    """The type of each property name: wikic's own, else the most common one in the vault."""
    seen: dict[str, Counter[str]] = defaultdict(Counter)
    for ps in scan:
        for key, kind in ps.prop_kinds.items():
            if kind not in _UNTYPED:
                seen[key][kind] += 1
    types = {k: max(sorted(c), key=lambda t: c[t]) for k, c in seen.items()}
    return {**types, **PROPERTY_TYPES}


def check_properties(scan: WikiScan) -> Iterator[Finding]:
    """deprecated-property, unquoted-link-property, nested-property, property-type, invalid-tag."""
    types = vault_property_types(scan)
    for ps in scan:
        rel = scan.rel(ps.path)
        for key, value in ps.page.props.items():
            if key in DEPRECATED_PROPERTIES:
                new = DEPRECATED_PROPERTIES[key]
                yield Finding(
                    "warning",
                    "deprecated-property",
                    rel,
                    f"'{key}' is deprecated in Obsidian",
                    f"Use '{new}'; `wikic lint --fix` renames it (merging into '{new}').",
                    fixable=True,
                )
            kind = ps.prop_kinds[key]
            if kind == "nested" and unquoted_links(value):
                yield Finding(
                    "error",
                    "unquoted-link-property",
                    rel,
                    f"'{key}' holds a [[link]] without quotes, which YAML reads as a nested list",
                    f'Quote it: {key}: "[[…]]"; `wikic lint --fix` does.',
                    fixable=True,
                )
            elif kind == "nested":
                yield Finding(
                    "error",
                    "nested-property",
                    rel,
                    f"'{key}' holds a nested value; Obsidian properties are flat",
                    "Use a text, number, date, checkbox or a list of texts.",
                )
            expected = types.get(key)
            if expected and not _compatible(expected, kind):
                where = "in wikic's schema" if key in PROPERTY_TYPES else "elsewhere in the wiki"
                yield Finding(
                    "warning",
                    "property-type",
                    rel,
                    f"'{key}' is a {kind} here but a {expected} {where}",
                    f"Obsidian gives a property one type across the vault: make it a {expected}.",
                )
        tags = ps.page.props.get("tags")
        for tag in tags if isinstance(tags, list) else [tags] if tags is not None else []:
            if isinstance(tag, list | dict) or is_valid_tag(tag):
                continue
            better = to_tag(str(tag))
            yield Finding(
                "warning",
                "invalid-tag",
                rel,
                f"invalid tag {tag!r}",
                "Tags are letters, digits, _, - and / with at least one non-digit"
                + (f", e.g. '{better}'." if better else "."),
            )


def check_contradictions(scan: WikiScan) -> Iterator[Finding]:
    """open-contradiction: entries still marked **open** in `## Contradictions`."""
    for ps in scan:
        for entry in ps.contradictions:
            if entry.status == "open":
                yield Finding(
                    "info",
                    "open-contradiction",
                    scan.rel(ps.path),
                    snippet(entry.text),
                    "Check the sources; when settled, mark it **resolved** and say why.",
                    line=ps.line(entry.start),
                )


def check_outdated(scan: WikiScan, *, today: dt.date | None = None) -> Iterator[Finding]:
    days = scan.paths.config.lint.stale_after_days
    if days <= 0:
        return
    today = today or dt.date.today()
    for ps in scan:
        updated = ps.page.props.get("updated") or ps.page.props.get("ingested")
        if isinstance(updated, dt.datetime):
            updated = updated.date()
        if not isinstance(updated, dt.date) or (today - updated).days <= days:
            continue
        yield Finding(
            "info",
            "outdated-page",
            scan.rel(ps.path),
            f"not updated since {updated.isoformat()} ({(today - updated).days} days)",
            "Review it against newer sources, or raise lint.stale_after_days.",
        )
