"""Auditing what consolidation wrote: every sentence holds up against the episode blocks it cites,
and no sentence is cut.

Independent of the checks consolidation runs while writing (it shares no rule with `verify`,
only the one stop list and stemmer of `wikic.language`): a check of the result, for tests, benchmarks and anyone who edits a digest by hand.
A line is consolidation's when it is on a digest, ends with a `^c-…` mark, or is the lead of a
page consolidation created for a pattern. Its text is split at citations: each piece is the
sentence(s) before a run of `[[sources/x#^pN]]` links, judged against each block it cites.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from wikic.consolidate.episodes import page_blocks
from wikic.language.prose_checks import cut_reason, plain
from wikic.language.stemming import stem
from wikic.language.stopwords import QUERY_STOP_WORDS
from wikic.vault.links import parse_links
from wikic.vault.pages import Page
from wikic.vault.tree import Vault

MIN_WORD_SHARE = 0.75  # of a piece's content words, the cited block must hold at least this
_MARK_RE = re.compile(r"\s\^c-[a-z0-9-]+\s*$")
_CITES_RE = re.compile(r"(?:\s*\[\[[^\[\]|#]+#\^[A-Za-z0-9-]+(?:\|[^\[\]]*)?\]\])+")
# "2026-05-12: ", "Before, on 2026-05-09: ", "(2026-05-09) ": the date a line or piece is about
_LABEL_RE = re.compile(
    r"^[\s—–-]*(?:[A-Z][a-z]+(?:,? [a-z]+)*,? )?(?:on )?\(?\d{4}-\d{2}-\d{2}\)?:?\s+"
)
_WORD_RE = re.compile(r"[^\W\d_]{3,}")
_NUMBER_RE = re.compile(r"\d+(?:[.,:]\d+)*")
_CODE_RE = re.compile(r"\b\w+(?:[_.]\w+)+\b")
_NAME_RE = re.compile(r"(?<=[a-z,;:] )[A-Z][\w'’-]*")


@dataclass(frozen=True)
class Problem:
    page: str  # path relative to wiki/
    kind: str  # unsupported | missing-block | cut
    text: str  # the piece of the line, as a reader sees it
    detail: str


def _words(text: str) -> set[str]:
    """Content words by their stem ("preloaded" and "preload" are one word)."""
    return {stem(w) for w in _WORD_RE.findall(text) if w.casefold() not in QUERY_STOP_WORDS}


def lacks(sentence: str, block: str) -> str | None:
    """What of `sentence` the block text does not hold (its numbers, code tokens and names
    verbatim, `MIN_WORD_SHARE` of its content words), or None when it holds the sentence."""
    folded = block.casefold()
    for pattern in (_NUMBER_RE, _CODE_RE, _NAME_RE):
        for token in pattern.findall(sentence):
            if token.casefold() not in folded:
                return f"the block does not say {token!r}"
    wanted = _words(sentence)
    if not wanted:
        return None
    share = len(wanted & _words(block)) / len(wanted)
    if share < MIN_WORD_SHARE:
        missing = ", ".join(sorted(wanted - _words(block))[:5])
        return f"the block holds {share:.0%} of its words (not: {missing})"
    return None


def pieces(line: str) -> Iterator[tuple[str, list[tuple[str, str]]]]:
    """(text, [(page name, block id)]) for each run of text ending in block citations."""
    line = _MARK_RE.sub("", line).strip()
    line = re.sub(r"^[-*+]\s+", "", line)
    start = 0
    for m in _CITES_RE.finditer(line):
        text = plain(_LABEL_RE.sub("", line[start : m.start()].strip(" ;—–"))).strip(' “”"')
        cites = [
            (lnk.target, lnk.block) for lnk in parse_links(m.group(0)) if lnk.block is not None
        ]
        start = m.end()
        if text:
            yield text, cites


def consolidated_lines(page: Page) -> list[str]:
    """The lines of `page` that consolidation wrote (see the module docstring)."""
    lines = page.body.split("\n")
    if page.type == "digest":
        return [x for x in lines if "[[sources/" in x and "#^" in x]
    found = [x for x in lines if _MARK_RE.search(x)]
    if "pattern" in [str(t) for t in page.props.get("tags") or []]:
        lead = page.body.split("\n## ", 1)[0].split("\n\n", 1)
        if len(lead) == 2:
            found += [x for x in lead[1].split("\n") if x.strip() and x not in found]
    return found


def audit(vault: Vault) -> list[Problem]:
    """Every problem with what consolidation wrote in `vault`."""
    blocks: dict[str, dict[str, str]] = {}

    def block_text(name: str, block: str) -> str | None:
        path = f"{name}.md"
        if path not in blocks:
            page = vault.pages.get(path)
            blocks[path] = {b.id: b.text for b in page_blocks(page)} if page else {}
        return blocks[path].get(block)

    problems: list[Problem] = []
    for page in vault:
        for prop in ("summary", "gist"):
            value = str(page.props.get(prop) or "")
            if value and (page.type == "digest" or prop == "gist" or _is_pattern(page)):
                reason = cut_reason(value)
                if reason:
                    problems.append(Problem(page.path, "cut", value, f"{prop} {reason}"))
        for line in consolidated_lines(page):
            for text, cites in pieces(line):
                reason = cut_reason(text)
                if reason:
                    problems.append(Problem(page.path, "cut", text, reason))
                for name, block in cites:
                    held = block_text(name, block)
                    if held is None:
                        problems.append(
                            Problem(page.path, "missing-block", text, f"no block {name}#^{block}")
                        )
                        continue
                    why = lacks(text, held)
                    if why:
                        problems.append(
                            Problem(page.path, "unsupported", text, f"{name}#^{block}: {why}")
                        )
    return problems


def _is_pattern(page: Page) -> bool:
    return "pattern" in [str(t) for t in page.props.get("tags") or []]
