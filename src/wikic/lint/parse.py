"""Markdown-level parsing lint needs beyond `wikic.vault.links` and `wikic.vault.sections`, built for speed.

`LINK_RE` finds the same links as `wikic.vault.links.iter_links` (it starts with the literal `[[`, so
the regex engine can skip ahead; an embed is a match preceded by `!`). `section_claims` gives the
bullets `sections.bullets(split_body(body).get(heading))` gives, plus their offsets and links
taken from the page's own link list, so no bullet is masked and parsed twice.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from wikic.lint.model import Claim, Link
from wikic.vault.links import WikiLink

LINK_RE = re.compile(r"\[\[([^\[\]\n\r]+?)\]\]")
# a `^token` ending a line; valid block ids are letters, digits and `-` (Obsidian's rule)
BLOCK_TOKEN_RE = re.compile(r"\^([^\s\[\]^|#]+)[ \t]*$", re.MULTILINE)
VALID_BLOCK_RE = re.compile(r"[A-Za-z0-9-]+")
_valid_blocks: dict[str, bool] = {}


def is_valid_block(token: str) -> bool:
    """Whether `token` is a block id Obsidian accepts (memoised: `p1`…`pN` recur on every
    source page)."""
    ok = _valid_blocks.get(token)
    if ok is None:
        ok = bool(VALID_BLOCK_RE.fullmatch(token))
        if len(_valid_blocks) < 100_000:
            _valid_blocks[token] = ok
    return ok


_H2_RE = re.compile(r"^## +(.+?) *$")
_BULLET_RE = re.compile(r"^[-*+] +(.*)$")
_BLOCK_TAIL_RE = re.compile(r"([A-Za-z0-9-]+)\s*")
_FENCES = ("```", "~~~")
_MARKERS = frozenset("-*+")
_INDENTS = frozenset(" \t")


def split_block_id(text: str) -> tuple[str, str | None]:
    """(text, id) of a bullet ending in ` ^id`, as `sections.bullets` splits it (no regex
    search from every position: the id can only follow the last `^`)."""
    at = text.rfind("^")
    if at <= 0 or not text[at - 1].isspace():
        return text, None
    m = _BLOCK_TAIL_RE.fullmatch(text, at + 1)
    if m is None:
        return text, None
    return text[:at].rstrip(), m.group(1)


def _section_span(body: str, heading: str) -> tuple[int, int] | None:
    """Body offsets of the first `## heading` section's text (as `split_body` finds it)."""
    wanted = heading.casefold()
    if "```" not in body and "~~~" not in body:  # no fences: scan only the `## ` lines
        begin = -1
        for line_start, name in _h2_lines(body):
            if begin >= 0:
                return begin, line_start
            if name.casefold() == wanted:
                eol = body.find("\n", line_start)
                begin = len(body) if eol < 0 else eol + 1
        return (begin, len(body)) if begin >= 0 else None
    in_fence = False
    begin = -1
    pos = 0
    for line in body.split("\n"):
        line_start, pos = pos, pos + len(line) + 1
        if line.lstrip().startswith(_FENCES):
            in_fence = not in_fence
        m = None if in_fence else _H2_RE.match(line)
        if m is None:
            continue
        if begin >= 0:
            return begin, line_start
        if m.group(1).casefold() == wanted:
            begin = min(pos, len(body))
    return (begin, len(body)) if begin >= 0 else None


_H2_AFTER_NEWLINE_RE = re.compile(r"\n## +(.+?) *$", re.MULTILINE)  # literal-first: fast


def _h2_lines(body: str) -> Iterator[tuple[int, str]]:
    """(offset, name) of every `## name` line; the regex starts with a literal, so it skips."""
    eol = body.find("\n")
    first = _H2_RE.match(body if eol < 0 else body[:eol])
    if first:
        yield 0, first.group(1)
    for m in _H2_AFTER_NEWLINE_RE.finditer(body):
        yield m.start() + 1, m.group(1)


def section_claims(body: str, heading: str, links: Sequence[Link]) -> list[Claim]:
    """Top-level bullets of the first `## heading` section (continuation lines joined)."""
    span = _section_span(body, heading)
    if span is None:
        return []
    lines: list[tuple[int, int, int]] = []  # (start, end, bullet) of each line of a bullet
    parts: list[list[str]] = []
    pos = span[0]
    for line in body[span[0] : span[1]].split("\n"):
        line_start, pos = pos, pos + len(line) + 1
        if line[:1] in _MARKERS and line[1:2] == " ":  # `^[-*+] +(.*)$` without the regex
            parts.append([line[1:].lstrip(" ")])
        elif parts and line[:1] in _INDENTS and line.strip():
            parts[-1].append(line.strip())
        else:
            continue
        lines.append((line_start, line_start + len(line), len(parts) - 1))
    inside: list[list[WikiLink]] = [[] for _ in parts]
    refs = iter(ref for ref in links if span[0] <= ref.start < span[1])
    ref = next(refs, None)
    for start, end, bullet in lines:  # both sorted by offset: one walk
        while ref is not None and ref.start < end:
            if ref.start >= start:
                inside[bullet].append(ref.link)
            ref = next(refs, None)
    first = {b: s for s, _, b in reversed(lines)}
    last = {b: e for _, e, b in lines}
    claims = []
    for n, words in enumerate(parts):
        text, block = split_block_id(" ".join(words) if len(words) > 1 else words[0])
        claims.append(Claim(text.strip(), block, first[n], last[n], tuple(inside[n])))
    return claims
