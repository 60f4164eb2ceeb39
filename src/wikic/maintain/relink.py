"""Rewrite the links of a page file: each link to a page being moved, merged or deleted is
passed to a function that returns its new text.

The body is rewritten in place (text outside links, and links that do not change, keep their
bytes); properties are rewritten on their values and the file re-rendered only when one of them
changed, so a page whose properties link nothing affected keeps its front matter as written.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from wikic.vault.links import WikiLink, iter_links, normalize_target, parse_inner
from wikic.vault.pages import Page, render_page
from wikic.vault.tree import Vault

# (link as written, page it resolves to) → the new text of the link, or None to keep it
Rewrite = Callable[[WikiLink, Page], str | None]
# A new text starting with REMOVE: the link goes with its list item or property value when it
# stands alone there; elsewhere (prose) the rest of the text replaces it.
REMOVE = "\x00"
_PROP_LINK_RE = re.compile(r"\[\[([^\[\]\n\r]+?)\]\]")
_BULLET_START_RE = re.compile(r"[ \t]*[-*+][ \t]+\Z")


def rewrite_text(text: str, vault: Vault, holder: Page, rewrite: Rewrite) -> tuple[str, int]:
    """`text` (a page body) with the links `rewrite` changes replaced; and how many changed."""
    parts: list[str] = []
    last = 0
    count = 0
    for start, end, lnk in iter_links(text):
        target = holder if not lnk.target else vault.resolve(lnk.target)
        if target is None:
            continue
        new = rewrite(lnk, target)
        if new is None or new == text[start:end]:
            continue
        count += 1
        if new.startswith(REMOVE):
            line_start = text.rfind("\n", 0, start) + 1
            line_end = text.find("\n", end)
            line_end = len(text) if line_end < 0 else line_end
            alone = (
                _BULLET_START_RE.match(text[line_start:start]) and not text[end:line_end].strip()
            )
            if alone and line_start >= last:
                parts.append(text[last:line_start])
                last = min(line_end + 1, len(text))
                continue
            new = new[len(REMOVE) :]
        parts += [text[last:start], new]
        last = end
    if not count:
        return text, 0
    return "".join(parts) + text[last:], count


def _rewrite_value(value: Any, vault: Vault, holder: Page, rewrite: Rewrite) -> tuple[Any, int]:
    if isinstance(value, list):
        out: list[Any] = []
        total = 0
        for item in value:
            new, n = _rewrite_value(item, vault, holder, rewrite)
            total += n
            if new != "":  # a property link that became nothing is dropped from the list
                out.append(new)
        return out, total
    if not isinstance(value, str) or "[[" not in value:
        return value, 0
    count = 0

    def one(m: re.Match[str]) -> str:
        nonlocal count
        lnk = parse_inner(m.group(1))
        target = holder if not lnk.target else vault.resolve(lnk.target)
        new = rewrite(lnk, target) if target is not None else None
        if new is None or new == m.group(0):
            return m.group(0)
        count += 1
        return new

    new_value = _PROP_LINK_RE.sub(one, value)
    if not count:
        return value, 0
    if new_value.startswith(REMOVE) and new_value.count(REMOVE) == 1:
        return "", count  # the value was only the link: dropped
    return new_value.replace(REMOVE, "").strip(), count


def rewrite_page(text: str, page: Page, vault: Vault, rewrite: Rewrite) -> tuple[str, int]:
    """The page file `text` with its links rewritten (body and properties); and the count."""
    props: dict[str, Any] = {}
    prop_count = 0
    for key, value in page.props.items():
        props[key], n = _rewrite_value(value, vault, page, rewrite)
        prop_count += n
    if not prop_count:
        body_at = _body_start(text)
        body, n = rewrite_text(text[body_at:], vault, page, rewrite)
        return (text[:body_at] + body, n) if n else (text, 0)
    body, n = rewrite_text(page.body, vault, page, rewrite)
    return render_page(replace(page, props=props, body=body)), n + prop_count


def _body_start(text: str) -> int:
    """Where the body starts: after the closing `---` of the front matter, if any."""
    if not text.startswith("---"):
        return 0
    end = re.search(r"^---[ \t]*$", text[3:], re.MULTILINE)
    if end is None:
        return 0
    close = text.find("\n", 3 + end.end())
    return len(text) if close < 0 else close + 1


_LINK_ITEM_RE = re.compile(
    r"""^[ \t]*[-*+][ \t]+(['"]?)\[\[([^\[\]|#\n]+)(?:\|[^\[\]\n]*)?\]\]\1[ \t]*$"""
)


def dedupe_link_items(text: str) -> str:
    """`text` without list items that only repeat a page link an earlier item of the same list
    already has (a merge turns links to two pages into two links to one): in markdown lists and
    in YAML list properties alike."""
    out: list[str] = []
    seen: set[str] = set()
    for line in text.split("\n"):
        m = _LINK_ITEM_RE.match(line)
        if m is None:
            if not line.startswith((" ", "\t")):  # a list ends where a non-item line starts
                seen = set()
            out.append(line)
            continue
        key = normalize_target(m.group(2))
        if key in seen:
            continue
        seen.add(key)
        out.append(line)
    return "\n".join(out)
