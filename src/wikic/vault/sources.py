"""Raw sources: find, read, hash, classify and split them into citable paragraphs.

wikic only ever reads `raw/`. A source that cannot be used (outside raw/, binary, empty,
undecodable, too large, unsupported format) is a SourceError saying why. Paragraph splitting is
deterministic: the same text always gives the same `^pN` block ids.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path

from wikic.errors import SourceError
from wikic.paths import WikiPaths

TEXT_SUFFIXES = {".md", ".markdown", ".txt", ".text"}
_FRONTMATTER_RE = re.compile(r"\A---\n.*?\n---\n", re.DOTALL)
_BLANK_SPLIT_RE = re.compile(r"\n[ \t]*\n")
_DATE_NAME_RE = re.compile(r"\d{4}-\d{2}-\d{2}")
_SPEAKER_RE = re.compile(r"^[A-Z][\w .'-]{0,30}:\s", re.MULTILINE)


@dataclass(frozen=True)
class Paragraph:
    id: str  # block id without the caret, e.g. "p3"
    text: str
    heading: str  # the nearest heading above it, "" if none


@dataclass(frozen=True)
class Source:
    rel: str  # path relative to the wiki root, posix, e.g. "raw/paper.md"
    text: str
    sha256: str  # "sha256:<hex>" of the raw bytes
    kind: str  # article | paper | note | journal | transcript

    @property
    def stem(self) -> str:
        return Path(self.rel).stem


def sha256_bytes(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def list_raw(paths: WikiPaths) -> list[str]:
    """Every file under raw/ (relative to the wiki root), sorted; hidden files skipped."""
    if not paths.raw.is_dir():
        return []
    found = []
    for dirpath, dirnames, filenames in os.walk(paths.raw):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        for name in filenames:
            if not name.startswith("."):
                found.append(paths.rel(Path(dirpath) / name))
    return sorted(found)


def hash_raw(paths: WikiPaths, rel: str) -> str:
    return sha256_bytes((paths.root / rel).read_bytes())


def resolve_source_path(paths: WikiPaths, given: Path) -> str:
    """The wiki-root-relative path of a source given on the command line; must be under raw/."""
    candidate = given if given.is_absolute() else Path.cwd() / given
    if not candidate.exists() and not given.is_absolute():
        alt = paths.root / given  # also accept paths relative to the wiki root
        if alt.exists():
            candidate = alt
    if not candidate.exists():
        raise SourceError(f"{given}: no such file")
    resolved = candidate.resolve()
    raw = paths.raw.resolve()
    if not resolved.is_relative_to(raw):
        raise SourceError(
            f"{given}: sources must be inside {paths.rel(paths.raw)}/",
            hint=f"Copy it there first: cp {given} {paths.rel(paths.raw)}/",
        )
    return paths.rel(resolved)


def load_source(paths: WikiPaths, rel: str, *, max_bytes: int) -> Source:
    path = paths.root / rel
    if path.suffix.lower() not in TEXT_SUFFIXES:
        raise SourceError(
            f"{rel}: unsupported format '{path.suffix or '(none)'}'",
            hint=f"Supported: {', '.join(sorted(TEXT_SUFFIXES))}. Convert it to markdown first.",
        )
    if not path.is_file():
        raise SourceError(f"{rel}: not a regular file")
    size = path.stat().st_size
    if size > max_bytes:
        raise SourceError(
            f"{rel}: {size:,} bytes is over the limit of {max_bytes:,}",
            hint="Split it into smaller files, or raise ingest.max_source_bytes in wikic.yaml.",
        )
    data = path.read_bytes()
    if b"\x00" in data:
        raise SourceError(f"{rel}: looks like a binary file (contains NUL bytes)")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SourceError(
            f"{rel}: not valid UTF-8 (byte {exc.start})",
            hint="Re-save it as UTF-8, e.g. iconv -f latin1 -t utf-8.",
        ) from None
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    controls = sum(1 for c in text if ord(c) < 32 and c not in "\n\t\f")
    if controls > max(8, len(text) // 100):
        raise SourceError(f"{rel}: looks like a binary file (many control characters)")
    if not body_text(text).strip():
        raise SourceError(f"{rel}: the file is empty")
    return Source(rel, text, sha256_bytes(data), detect_kind(rel, text))


def body_text(text: str) -> str:
    """The text without a leading YAML front-matter block."""
    return _FRONTMATTER_RE.sub("", text, count=1)


def detect_kind(rel: str, text: str) -> str:
    lowered = text.lower()
    name = Path(rel).name
    if _DATE_NAME_RE.search(name) or re.search(r"^#+\s*\d{4}-\d{2}-\d{2}", text, re.MULTILINE):
        return "journal"
    if len(_SPEAKER_RE.findall(text)) >= 6:
        return "transcript"
    if re.search(r"^#+\s*(abstract|references|related work)\b", lowered, re.MULTILINE):
        return "paper"
    if len(text.split()) < 150:
        return "note"
    return "article"


def split_paragraphs(text: str) -> list[Paragraph]:
    """Split a source into paragraphs `p1…pN` (blank-line separated; headings are not
    paragraphs but are remembered as context; fenced code blocks stay whole)."""
    body = body_text(text)
    chunks = _chunks_keeping_fences(body)
    paragraphs: list[Paragraph] = []
    heading = ""
    for chunk in chunks:
        lines = chunk.strip("\n").split("\n")
        rest: list[str] = []
        for line in lines:
            m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
            if m and not rest:
                heading = m.group(1).strip()
            else:
                rest.append(line)
        para = "\n".join(rest).strip()
        if para:
            paragraphs.append(Paragraph(f"p{len(paragraphs) + 1}", para, heading))
    return paragraphs


def _chunks_keeping_fences(body: str) -> list[str]:
    chunks: list[str] = []
    current: list[str] = []
    fence: str | None = None
    for line in body.split("\n"):
        stripped = line.strip()
        if fence is None and re.match(r"^(`{3,}|~{3,})", stripped):
            fence = stripped[:3]
        elif fence is not None and stripped.startswith(fence):
            fence = None
        if fence is None and not stripped and current:
            chunks.append("\n".join(current))
            current = []
        elif stripped or fence is not None:
            current.append(line)
    if current:
        chunks.append("\n".join(current))
    return chunks
