"""`--fix`: the deterministic repairs, planned on a fresh scan taken under the writer lock.

Fixes: regenerate index.md; repair links (body or property) whose target names exactly one page;
quote unquoted [[links]] in properties; rename `tag`/`alias`/`cssclass` to their plural, merging
values; and, with --semantic, record contradictions found by the model as open entries. A page
body is edited only where a link is repaired (or a contradiction added); a page whose properties
change gets its property block rewritten in wikic's canonical form and its body kept byte for
byte. Everything lands as one committed operation.
"""

from __future__ import annotations

import datetime as dt
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from wikic.lint.page_scan import PageScan, split_file
from wikic.lint.parse import LINK_RE
from wikic.lint.rules_links import LinkChecker, is_attachment
from wikic.lint.rules_pages import link_in_nested
from wikic.lint.scan import WikiScan
from wikic.lint.semantic import ContradictionPair
from wikic.operation.transaction import Plan
from wikic.vault.catalog import render_index
from wikic.vault.links import WikiLink, iter_links, parse_inner
from wikic.vault.logbook import relink
from wikic.vault.pages import DEPRECATED_PROPERTIES, Page, render_page
from wikic.vault.sections import CONTRADICTIONS, FACTS, bullets, split_body
from wikic.vault.topic_page import add_contradictions as add_contradiction_entries

_FM_BOUNDARY = re.compile(r"^-{3,}\s*$", re.MULTILINE)  # python-frontmatter's YAML boundary
_SPLIT_VALUES = {"tag": r"[,\s]+", "cssclass": r"[,\s]+"}  # alias values keep their commas


@dataclass
class FixPlan:
    plan: Plan
    fixed: Counter[str] = field(default_factory=Counter)
    pages: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # pages with uncommitted edits


def repaired(checker: LinkChecker, ps: PageScan, lnk: WikiLink) -> WikiLink | None:
    """The link pointing at the one page a broken target can only mean, or None."""
    if not lnk.target or is_attachment(lnk.target) or checker.scan.resolve(ps, lnk.target):
        return None
    page = checker.repair(lnk.target)
    if page is None:
        return None
    alias: str | None = lnk.alias if lnk.alias is not None else lnk.target
    if alias == page.page.name:
        alias = None
    return WikiLink(page.page.name, lnk.heading, lnk.block, alias, lnk.embed)


def _render_like(new: WikiLink, raw: str) -> str:
    text = new.render()
    if "\\|" in raw and new.alias is not None:  # inside a table the alias pipe stays escaped
        head, _, tail = text.partition("|")
        text = f"{head}\\|{tail}"
    return text


def _repair_body_links(checker: LinkChecker, ps: PageScan, text: str) -> tuple[str, int]:
    edits = []
    for ref in ps.links:
        new = repaired(checker, ps, ref.link)
        if new is not None:
            start, end = ps.body_offset + ref.start, ps.body_offset + ref.end
            edits.append((start, end, _render_like(new, text[start:end])))
    for start, end, new_text in sorted(edits, reverse=True):
        text = text[:start] + new_text + text[end:]
    return text, len(edits)


def _repair_prop_links(checker: LinkChecker, ps: PageScan, value: Any, count: Counter[str]) -> Any:
    if isinstance(value, list):
        return [_repair_prop_links(checker, ps, v, count) for v in value]
    if not isinstance(value, str) or "[[" not in value:
        return value

    def one(m: re.Match[str]) -> str:
        new = repaired(checker, ps, parse_inner(m.group(1)))
        if new is None:
            return m.group(0)
        count["broken-link"] += 1
        return new.render()

    return LINK_RE.sub(one, value)


def _merged_values(old_key: str, old: Any, current: Any) -> list[Any]:
    values = list(current) if isinstance(current, list) else [] if current is None else [current]
    extra = old if isinstance(old, list) else [] if old is None else [old]
    for item in extra:
        parts = (
            re.split(_SPLIT_VALUES[old_key], item)
            if old_key in _SPLIT_VALUES and isinstance(item, str)
            else [item]
        )
        for part in parts:
            if isinstance(part, str):
                part = part.strip().lstrip("#") if old_key == "tag" else part.strip()
            if part not in ("", None) and part not in values:
                values.append(part)
    return values


def fixed_props(
    checker: LinkChecker, ps: PageScan, rules: set[str], count: Counter[str]
) -> dict[str, Any]:
    props: dict[str, Any] = {}
    for key, value in ps.page.props.items():
        if "unquoted-link-property" in rules:
            value = _quote_links(value, count)
        if "broken-link" in rules:
            value = _repair_prop_links(checker, ps, value, count)
        new_key = DEPRECATED_PROPERTIES.get(key) if "deprecated-property" in rules else None
        if new_key is None:
            if key not in props:  # else its deprecated twin was merged into it already
                props[key] = value
            continue
        count["deprecated-property"] += 1
        props[new_key] = _merged_values(key, value, props.get(new_key, ps.page.props.get(new_key)))
    return props


def _quote_links(value: Any, count: Counter[str]) -> Any:
    link_text = link_in_nested(value)
    if link_text is not None:
        count["unquoted-link-property"] += 1
        return link_text
    if isinstance(value, list) and any(link_in_nested(v) for v in value):
        count["unquoted-link-property"] += 1
        return [link_in_nested(v) or v for v in value]
    return value


def replace_props(path: str, text: str, props: dict[str, Any]) -> str:
    """`text` with its property block rewritten from `props`; the body kept byte for byte."""
    lead = len(text) - len(text.lstrip())
    bounds = [m for _, m in zip(range(2), _FM_BOUNDARY.finditer(text, lead), strict=False)]
    rendered = render_page(Page(path, props, ""))
    head = rendered[: rendered.rindex("---") + 3]
    if len(bounds) == 2 and bounds[0].start() == lead:
        dashes = re.match(r"-+", text[bounds[1].start() :])
        end = bounds[1].start() + (dashes.end() if dashes else 3)
        new_text = text[:lead] + head + text[end:]
    else:
        new_text = head + "\n\n" + text.strip() + "\n"
    if split_file(path, new_text)[0].props != props:  # keep the result exact, whatever the input
        page, _ = split_file(path, text)
        new_text = render_page(Page(path, props, page.body))
    return new_text


def _record_contradictions(
    path: str, text: str, pairs: Sequence[ContradictionPair], today: dt.date
) -> tuple[str, int]:
    page, _ = split_file(path, text)
    body = split_body(page.body)
    facts = {b.block for b in bullets(body.get(FACTS)) if b.block}
    recorded = [
        {lnk.block for lnk in entry.links if lnk.block}
        for entry in bullets(body.get(CONTRADICTIONS))
    ]
    wanted = [
        (p.a, p.b, p.reason)
        for p in pairs
        if {p.a, p.b} <= facts and not any({p.a, p.b} <= r for r in recorded)
    ]
    if not wanted:
        return text, 0
    before = body.render()
    open_count = add_contradiction_entries(body, wanted)
    if body.render() == before:
        return text, 0
    props = {**page.props, "contradictions": open_count, "updated": today}
    return render_page(Page(path, props, body.render())), len(wanted)


def plan_fixes(
    scan: WikiScan,
    rules: set[str],
    pairs: Sequence[ContradictionPair] = (),
    *,
    skip: frozenset[str] = frozenset(),
    today: dt.date | None = None,
) -> FixPlan:
    """Every deterministic fix of the enabled `rules`, as one Plan (empty when nothing to do).

    Pages in `skip` (root-relative: those with uncommitted edits of the user's) are left alone,
    so a fix never commits someone's half-done work along with it."""
    today = today or dt.date.today()
    fix = FixPlan(Plan("lint", "fix"))
    checker = LinkChecker(scan)
    by_page: dict[str, list[ContradictionPair]] = {}
    if "contradiction" in rules:
        for pair in pairs:
            by_page.setdefault(pair.page, []).append(pair)
    for ps in scan:
        text, count = _fixed_page(checker, ps, rules, by_page.get(ps.path, ()), today)
        if text == ps.text:
            continue
        if scan.rel(ps.path) in skip:
            fix.skipped.append(scan.rel(ps.path))
            continue
        fix.fixed.update(count)
        fix.plan.write(scan.rel(ps.path), text)
        fix.pages.append(scan.rel(ps.path))
    if "index-drift" in rules:
        _fix_index(scan, fix)
    if "broken-link" in rules and scan.rel("log.md") not in skip:
        _relink_log(scan, fix)
    fix.fixed = Counter({k: v for k, v in fix.fixed.items() if v})
    total = sum(fix.fixed.values())
    fix.plan.title = f"fixed {total} finding{'s' if total != 1 else ''}"
    fix.plan.log_bullets = [_bullet(rule, n) for rule, n in sorted(fix.fixed.items())]
    if fix.pages:
        shown = ", ".join(fix.pages[:10]) + (
            f" and {len(fix.pages) - 10} more" if len(fix.pages) > 10 else ""
        )
        fix.plan.log_bullets.append(f"pages: {shown}")
    return fix


def _fixed_page(
    checker: LinkChecker,
    ps: PageScan,
    rules: set[str],
    pairs: Sequence[ContradictionPair],
    today: dt.date,
) -> tuple[str, Counter[str]]:
    """One page's text with its fixes applied, and how many of each rule were fixed."""
    text = ps.text
    repaired_links = 0
    if "broken-link" in rules:
        text, repaired_links = _repair_body_links(checker, ps, text)
    count: Counter[str] = Counter()
    props = fixed_props(checker, ps, rules, count)
    if count:
        text = replace_props(ps.path, text, props)
    if pairs:
        text, count["contradiction"] = _record_contradictions(ps.path, text, pairs, today)
    count["broken-link"] += repaired_links
    return text, count


def _fix_index(scan: WikiScan, fix: FixPlan) -> None:
    expected = render_index(scan.vault)
    current = (
        scan.paths.index_md.read_text(encoding="utf-8") if scan.paths.index_md.exists() else None
    )
    if current != expected:
        fix.plan.write(scan.rel("index.md"), expected)
        fix.fixed["index-drift"] += 1


def _relink_log(scan: WikiScan, fix: FixPlan) -> None:
    """Links in log.md to pages that no longer exist become their plain names."""
    try:
        text = scan.paths.log_md.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return

    def exists(lnk: WikiLink) -> bool:
        page = scan.vault.resolve(lnk.target)
        if page is None:
            return False
        ps = scan.pages[page.path]
        if lnk.block is not None:
            return lnk.block in ps.blocks
        return lnk.heading is None or lnk.heading.strip().casefold() in ps.headings

    gone = sum(1 for _, _, lnk in iter_links(text) if lnk.target and not exists(lnk))
    if gone:
        fix.plan.write(scan.rel("log.md"), relink(text, exists))
        fix.fixed["broken-link"] += gone


_BULLETS = {
    "broken-link": ("repaired {n} link{s} with one unambiguous target", "s"),
    "unquoted-link-property": ("quoted the [[links]] of {n} propert{s}", "ies"),
    "deprecated-property": ("renamed {n} deprecated propert{s} (tag, alias, cssclass)", "ies"),
    "index-drift": ("regenerated index.md", ""),
    "contradiction": ("recorded {n} contradiction{s} found by the semantic check, as open", "s"),
}


def _bullet(rule: str, n: int) -> str:
    template, plural = _BULLETS.get(rule, (rule + ": {n}", ""))
    singular = "y" if plural == "ies" else ""
    return template.format(n=n, s=plural if n != 1 else singular)
