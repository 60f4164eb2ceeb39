"""File names from titles: unicode-aware, collision-safe, never outside the wiki.

A slug is one path component: letters, digits and marks of any script joined by single hyphens,
lower-cased, at most `MAX_SLUG_BYTES` of UTF-8, never a reserved device name, never starting with
a dot. `safe_page_path` is the only way a page path is built from model or user text.
"""

from __future__ import annotations

import hashlib
import unicodedata
from collections.abc import Iterable
from pathlib import Path, PurePosixPath

from wikic.errors import PageError

MAX_SLUG_BYTES = 96
_WINDOWS_RESERVED = {
    "con", "prn", "aux", "nul",
    *(f"com{i}" for i in range(10)), *(f"lpt{i}" for i in range(10)),
}  # fmt: skip
# Names a page may not take inside a folder: they would shadow files wikic owns.
RESERVED_STEMS = {"index", "log"}


def _short_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:8]


def _keep(ch: str) -> bool:
    return unicodedata.category(ch)[0] in "LNM"


def slugify(title: str) -> str:
    """A safe, stable, human-readable file stem for `title`."""
    text = unicodedata.normalize("NFKC", title).casefold()
    words: list[str] = []
    current: list[str] = []
    for ch in text:
        if _keep(ch):
            current.append(ch)
        elif current:
            words.append("".join(current))
            current = []
    if current:
        words.append("".join(current))
    slug = "-".join(words)
    slug = unicodedata.normalize("NFC", slug)
    if not slug or not any(unicodedata.category(c)[0] in "LN" for c in slug):
        return f"page-{_short_hash(title)}"
    if len(slug.encode("utf-8")) > MAX_SLUG_BYTES:
        slug = _truncate_utf8(slug, MAX_SLUG_BYTES - 9).rstrip("-") + "-" + _short_hash(title)
    if slug in _WINDOWS_RESERVED or slug in RESERVED_STEMS:
        slug = f"{slug}-page"
    return slug


def _truncate_utf8(text: str, limit: int) -> str:
    out = text.encode("utf-8")[:limit].decode("utf-8", "ignore")
    # never leave a combining mark without its base character
    while out and unicodedata.category(out[-1]).startswith("M"):
        out = out[:-1]
    return out


def unique_slug(slug: str, taken: Iterable[str]) -> str:
    """`slug`, or `slug-2`, `slug-3`, … : the first not in `taken` (compared case-insensitively,
    as on macOS and Windows file systems)."""
    used = {t.casefold() for t in taken}
    if slug.casefold() not in used:
        return slug
    n = 2
    while f"{slug}-{n}".casefold() in used:
        n += 1
    return f"{slug}-{n}"


def safe_page_path(wiki_dir: Path, folder: str, slug: str) -> PurePosixPath:
    """The page path `folder/slug.md` relative to `wiki_dir`, checked to stay inside it.

    `folder` comes from code (page types), `slug` from `slugify`; both are checked anyway, so a
    bug upstream fails loudly instead of writing outside the wiki.
    """
    if slug != slugify_passthrough(slug):
        raise PageError(f"unsafe page name {slug!r}")
    rel = PurePosixPath(folder) / f"{slug}.md" if folder else PurePosixPath(f"{slug}.md")
    parts = rel.parts
    if any(p in ("", ".", "..") or p.startswith(".") for p in parts) or rel.is_absolute():
        raise PageError(f"unsafe page path {rel}")
    if len(parts) == 1 and slug in RESERVED_STEMS:
        raise PageError(f"{rel} is reserved for wikic's own {slug}.md")
    target = (wiki_dir / rel).resolve()
    if not target.is_relative_to(wiki_dir.resolve()):
        raise PageError(f"{rel} would be outside the wiki")
    return rel


def slugify_passthrough(slug: str) -> str:
    """`slug` if it is already a valid slug, else its slugified form (used as a validity check)."""
    if not slug or slug.startswith(".") or "/" in slug or "\\" in slug or "\x00" in slug:
        return slugify(slug)
    if len(slug.encode("utf-8")) > MAX_SLUG_BYTES or slug in _WINDOWS_RESERVED:
        return slugify(slug)
    if all(_keep(c) or c == "-" for c in slug):
        return slug
    return slugify(slug)
