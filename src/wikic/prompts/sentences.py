"""Every sentence of wikic's prompts, generated from the templates of this package.

A model asked for a title or a summary sometimes copies its prompt; `language.prose_checks`
recognises such an echo by these sentences. They are cut from each template's literal text (the
values filled in are left out): a sentence ends at '.', '?' or '!' before a space, or at a line
break; a sentence after a capitalised label ("TASK:", "EXISTING PAGES:") counts with and
without it, the label alone too; a piece counts with at least `MIN_WORDS` words, so labels like
"Facts:" or "PAGE:" are left out.
"""

from __future__ import annotations

import functools
import re
import string
from collections.abc import Iterator, Sequence
from types import ModuleType

from wikic.prompts import consolidate, ingest, lint, query, repair

MODULES: tuple[ModuleType, ...] = (ingest, consolidate, lint, query, repair)
MIN_WORDS = 2

_CONSTANT_RE = re.compile(r"_?[A-Z][A-Z0-9_]*")
_BREAK_RE = re.compile(r"(?<=[.?!])\s+|\s*\n\s*")
_LABEL_RE = re.compile(r"([A-Z][A-Z ]*[A-Z]:)\s+(?=\S)")
_WORD_RE = re.compile(r"[^\W\d_]{2,}")
_PAIRS = (("(", ")"), ("[", "]"), ('"', '"'), ("'", "'"))


def templates(modules: Sequence[ModuleType] = MODULES) -> Iterator[str]:
    """Every UPPER_CASE string of `modules` (and each string of an UPPER_CASE tuple or dict)."""
    for module in modules:
        for name, value in vars(module).items():
            if not _CONSTANT_RE.fullmatch(name):
                continue
            if isinstance(value, str):
                yield value
            elif isinstance(value, tuple | dict):
                items = value.values() if isinstance(value, dict) else value
                yield from (v for v in items if isinstance(v, str))


def literal_parts(template: str) -> list[str]:
    """The text of a `str.format` template between its fields, braces undoubled."""
    parts = [""]
    for literal, field, _, _ in string.Formatter().parse(template):
        parts[-1] += literal  # the parser also stops at each doubled brace
        if field is not None:
            parts.append("")
    return [p for p in parts if p]


def split_sentences(text: str) -> list[str]:
    """The sentences of prompt text (see the module docstring), trimmed of unmatched brackets
    and quotes at their ends; pieces with fewer than `MIN_WORDS` words are dropped."""
    found = []
    for piece in _BREAK_RE.split(text):
        label = _LABEL_RE.match(piece)
        for part in (piece, label.group(1), piece[label.end() :]) if label else (piece,):
            trimmed = _trim(part)
            if len(_WORD_RE.findall(trimmed)) >= MIN_WORDS:
                found.append(trimmed)
    return found


@functools.cache
def prompt_sentences() -> tuple[str, ...]:
    """Every sentence of every prompt template, once each, in module order."""
    found = (s for t in templates() for part in literal_parts(t) for s in split_sentences(part))
    return tuple(dict.fromkeys(found))


def _trim(text: str) -> str:
    text = text.strip()
    for opener, closer in _PAIRS:
        unmatched = (
            text.count(opener) % 2 if opener == closer else text.count(opener) != text.count(closer)
        )
        if unmatched:
            text = text.strip(opener + closer + " ")
    return text
