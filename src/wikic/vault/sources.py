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


@dataclass(frozen=True)
class SkippedRaw:
    """A file under raw/ that is not a source, and why (shown as a one-line warning)."""

    rel: str  # the file's own path relative to the wiki root, links not followed
    reason: str


@dataclass(frozen=True)
class RawListing:
    files: tuple[str, ...]  # usable sources, sorted
    skipped: tuple[SkippedRaw, ...]  # symlinks leaving raw/ or dangling, special files


def scan_raw(paths: WikiPaths) -> RawListing:
    """Every file under raw/ (relative to the wiki root, sorted; hidden names skipped). A symlink
    is a source when it resolves to a regular file inside raw/; one that leaves raw/, dangles or
    loops, and anything that is not a regular file, is skipped with its reason, never raised."""
    raw = paths.raw
    if not raw.is_dir():
        return RawListing((), ())
    raw_real = raw.resolve()
    base = os.path.relpath(raw, paths.root).replace(os.sep, "/")
    files: list[str] = []
    skipped: list[SkippedRaw] = []
    stack = [(str(raw), base)]
    while stack:
        directory, prefix = stack.pop()
        try:
            entries = list(os.scandir(directory))
        except OSError as exc:
            skipped.append(SkippedRaw(prefix, f"cannot be read ({exc.strerror or exc})"))
            continue
        for entry in entries:
            if entry.name.startswith("."):
                continue
            rel = f"{prefix}/{entry.name}"
            reason = _unusable(entry, raw_real)
            if reason == "dir":
                stack.append((entry.path, rel))
            elif reason:
                skipped.append(SkippedRaw(rel, reason))
            else:
                files.append(rel)
    return RawListing(tuple(sorted(files)), tuple(sorted(skipped, key=lambda s: s.rel)))


def _unusable(entry: os.DirEntry[str], raw_real: Path) -> str | None:
    """Why a raw/ entry is not a source ("dir": a folder to walk into; None: it is one)."""
    try:
        if not entry.is_symlink():
            if entry.is_dir(follow_symlinks=False):
                return "dir"
            return None if entry.is_file(follow_symlinks=False) else "not a regular file"
        return symlink_problem(Path(entry.path), raw_real)
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"


def symlink_problem(link: Path, raw_real: Path) -> str | None:
    """Why a symlink under raw/ cannot be a source, or None when it resolves to a regular file
    inside raw/. Never raises: loops and dangling links are reasons too."""
    shown = os.readlink(link)
    target = Path(os.path.realpath(link))
    if not target.exists():
        return f"symlink to {shown} dangles (its target does not exist)"
    if not target.is_relative_to(raw_real):
        return f"symlink to {shown} leaves raw/ (sources must be inside raw/)"
    if target.is_dir():
        return f"symlink to the folder {shown} (folders are not followed; link the files)"
    if not target.is_file():
        return f"symlink to {shown}, which is not a regular file"
    return None


def list_raw(paths: WikiPaths) -> list[str]:
    """Every usable source file under raw/ (see `scan_raw`), sorted."""
    return list(scan_raw(paths).files)


def hash_raw(paths: WikiPaths, rel: str) -> str:
    return sha256_bytes((paths.root / rel).read_bytes())


def resolve_source_path(paths: WikiPaths, given: Path) -> str:
    """The wiki-root-relative path of a source given on the command line; must be under raw/.
    A symlink keeps its own name (as `ingest --all` lists it) and must resolve inside raw/."""
    candidate = given if given.is_absolute() else Path.cwd() / given
    if not os.path.lexists(candidate) and not given.is_absolute():
        alt = paths.root / given  # also accept paths relative to the wiki root
        if os.path.lexists(alt):
            candidate = alt
    if not os.path.lexists(candidate):
        raise SourceError(f"{given}: no such file")
    # resolve the folders, not the last name: a link inside raw/ is judged by where it points
    located = Path(os.path.realpath(candidate.parent)) / candidate.name
    raw = paths.raw.resolve()
    outside = SourceError(
        f"{given}: sources must be inside {_raw_name(paths)}/",
        hint=f"Copy it there first: cp {given} {_raw_name(paths)}/",
    )
    if candidate.name in ("", ".", "..") or not located.is_relative_to(raw):
        if located.resolve() == raw:
            return _raw_name(paths)
        raise outside
    if located.is_symlink():
        problem = symlink_problem(located, raw)
        if problem:
            raise SourceError(f"{given}: {problem}")
    elif not located.resolve().is_relative_to(raw):
        raise outside
    return (Path(_raw_name(paths)) / located.relative_to(raw)).as_posix()


def _raw_name(paths: WikiPaths) -> str:
    return os.path.relpath(paths.raw, paths.root).replace(os.sep, "/")


def load_source(paths: WikiPaths, rel: str, *, max_bytes: int) -> Source:
    path = paths.root / rel
    if path.suffix.lower() not in TEXT_SUFFIXES:
        raise SourceError(
            f"{rel}: unsupported format '{path.suffix or '(none)'}'",
            hint=f"Supported: {', '.join(sorted(TEXT_SUFFIXES))}. Convert it to markdown first.",
        )
    if not path.is_file():
        raise SourceError(f"{rel}: not a regular file")
    try:
        size = path.stat().st_size
        if size > max_bytes:
            raise SourceError(
                f"{rel}: {size:,} bytes is over the limit of {max_bytes:,}",
                hint="Split it into smaller files, or raise ingest.max_source_bytes in wikic.yaml.",
            )
        data = path.read_bytes()
    except OSError as exc:
        raise SourceError(
            f"{rel}: cannot be read ({exc.strerror or exc})",
            hint="Check its permissions (wikic needs to read it, never to write it).",
        ) from None
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
