"""Page references from agents → one page file inside wiki/, and the part of it they asked for.

A reference is a path (`concepts/kv-cache`, `wiki/concepts/kv-cache.md`), a link
(`[[concepts/kv-cache#^f-1a2b3c]]`), a URI (`wiki://concepts/kv-cache`) or a title or alias. It never
leaves wiki/: `..`, absolute paths, NUL bytes and symlinks that point outside are refused.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from wikic.errors import PageError, UsageError
from wikic.paths import WikiPaths
from wikic.store.db import Store
from wikic.vault.links import HEADING_RE, mask_code, parse_inner
from wikic.vault.tree import SPECIAL_FILES

URI_SCHEME = "wiki://"
_LIST_ITEM_RE = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s")
_HEADING_LINE_RE = re.compile(r"^ {0,3}(#{1,6})[ \t]")


@dataclass(frozen=True)
class PageRef:
    """A resolved reference: `path` relative to wiki/ (posix, ends in `.md`), an optional anchor."""

    path: str
    block: str | None = None
    heading: str | None = None

    @property
    def uri(self) -> str:
        return page_uri(self.path)


def page_uri(path: str) -> str:
    """`concepts/kv-cache.md` → `wiki://concepts/kv-cache`."""
    return URI_SCHEME + (path[:-3] if path.endswith(".md") else path)


def _split(ref: str) -> tuple[str, str | None, str | None]:
    """(target, block, heading) of what an agent wrote."""
    text = ref.strip()
    if text.startswith("![[") or text.startswith("[["):
        text = text.lstrip("!")[2:]
        text = text[:-2] if text.endswith("]]") else text
    if text.startswith(URI_SCHEME):
        text = text[len(URI_SCHEME) :]
    lnk = parse_inner(text)
    return lnk.target, lnk.block, lnk.heading


def confined(paths: WikiPaths, rel: str) -> Path:
    """The file of `rel` (relative to wiki/), refused unless it lies inside wiki/ for real."""
    wiki = paths.wiki.resolve()
    try:
        target = (wiki / rel).resolve()
    except (OSError, RuntimeError, ValueError):
        raise UsageError(f"{rel!r} is not a page path") from None
    if not target.is_relative_to(wiki):
        raise UsageError(f"{rel!r} is outside the wiki", hint="Pages live under wiki/.")
    return target


def _clean_target(paths: WikiPaths, target: str) -> str:
    if "\x00" in target:
        raise UsageError("a page reference may not contain NUL bytes")
    posix = target.replace("\\", "/")
    parts = PurePosixPath(posix).parts
    if posix.startswith("/") or re.match(r"^[A-Za-z]:", posix) or ".." in parts:
        raise UsageError(f"{target!r} is outside the wiki", hint="Pages live under wiki/.")
    wiki_prefix = paths.config.paths.wiki.strip("/") + "/"
    return posix[len(wiki_prefix) :] if posix.startswith(wiki_prefix) else posix


def resolve_ref(paths: WikiPaths, store: Store, ref: str) -> PageRef:
    """The page `ref` names (see the module docstring); a clear UsageError when none or several."""
    target, block, heading = _split(ref)
    if not target:
        raise UsageError("name a page: a path such as concepts/kv-cache, a [[link]] or a title")
    target = _clean_target(paths, target)
    special = target.removesuffix(".md").casefold()
    if f"{special}.md" in SPECIAL_FILES:
        return PageRef(f"{special}.md", block, heading)
    path = store.resolve(target)
    if path is None:
        named = store.named(target)
        if len(named) > 1:
            listed = ", ".join(p.path for p in named)
            raise UsageError(f"{target!r} names several pages: {listed}", hint="Pass one path.")
        path = named[0].path if named else None
    if path is None:
        hits = store.search(re.sub(r"[/_-]+", " ", target), limit=5, mode="any")
        hint = (
            "Did you mean: " + ", ".join(h.path for h in hits) + "?"
            if hits
            else "Use the search tool to find pages."
        )
        raise UsageError(f"no page {target!r} in the wiki", hint=hint)
    confined(paths, path)
    return PageRef(path, block, heading)


def read_text(paths: WikiPaths, rel: str) -> str:
    try:
        return confined(paths, rel).read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise PageError(f"{rel} is not UTF-8 text") from None
    except OSError as exc:
        raise PageError(f"{rel} cannot be read: {exc.strerror or exc}") from None


def block_text(body: str, block: str) -> str | None:
    """The paragraph or list item that ends with `^block` (Obsidian's block reference); an id
    alone on its line names the block above it. None when the page has no such block."""
    masked = mask_code(body)
    lines, shown = masked.split("\n"), body.split("\n")
    tail = re.compile(rf"(?:^|\s)\^{re.escape(block)}[ \t]*$")
    end = next((i for i, line in enumerate(lines) if tail.search(line)), None)
    if end is None:
        return None
    last = end
    if lines[end].strip() == f"^{block}":  # a lone id: the block is the one just above
        last = end - 1
        while last >= 0 and not lines[last].strip():
            last -= 1
        if last < 0:
            return None
    start = last
    while start > 0:
        here = lines[start]
        if _LIST_ITEM_RE.match(here) or _HEADING_LINE_RE.match(here):
            break
        above = lines[start - 1]
        if not above.strip() or _HEADING_LINE_RE.match(above):
            break
        start -= 1
    return "\n".join(shown[start : end + 1]).strip()


def section_text(body: str, heading: str) -> str | None:
    """The section under the heading `heading` (case-insensitive) down to the next heading of
    the same or a higher level; None when the page has no such heading."""
    masked = mask_code(body)
    lines, shown = masked.split("\n"), body.split("\n")
    wanted = heading.strip().casefold()
    start = level = None
    for i, line in enumerate(lines):
        m = _HEADING_LINE_RE.match(line)
        if not m:
            continue
        if start is None:
            name = HEADING_RE.match(line.lstrip())
            if name and name.group(1).strip().casefold() == wanted:
                start, level = i, len(m.group(1))
        elif level is not None and len(m.group(1)) <= level:
            return "\n".join(shown[start:i]).strip()
    return None if start is None else "\n".join(shown[start:]).strip()


def jsonable(props: Any) -> Any:
    """Page properties as JSON values (YAML dates become ISO strings)."""
    return json.loads(json.dumps(props, default=str))
