"""Entity and concept pages as values: fact bullets with their citations and block ids, the
Contradictions entries, the Sources and Related lists. Shared by ingest (which adds facts), lint
(which adds contradictions) and the page-maintenance verbs.

A fact is a verbatim source sentence with a citation `[[sources/s#^pN]]` and a block id derived
from the sentence, so the same sentence from two sources is one bullet with two citations.
Contradictions keep both facts and add an entry with a status.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from wikic.vault.links import link
from wikic.vault.pages import Page
from wikic.vault.sections import (
    CONTRADICTIONS,
    FACTS,
    SOURCES,
    Body,
    Bullet,
    bullets,
    edit_bullets,
    split_body,
)

_CITATION_RE = re.compile(r"\s*\[\[sources/[^\[\]]*#\^[A-Za-z0-9-]+(?:\|[^\[\]]*)?\]\]")


def fact_id(text: str) -> str:
    norm = " ".join(re.findall(r"\w+", text.casefold()))
    return "f-" + hashlib.sha256(norm.encode()).hexdigest()[:6]


def claim_text(bullet: Bullet) -> str:
    """A fact bullet's claim without its citations."""
    return _CITATION_RE.sub("", bullet.text).strip()


@dataclass(frozen=True)
class Fact:
    id: str  # block id, "f-1a2b3c"
    text: str
    citations: tuple[str, ...]  # rendered links, "[[sources/s#^p3]]"

    def render(self) -> str:
        return " ".join(["-", self.text, *self.citations, f"^{self.id}"])


def parse_facts(body: Body) -> list[Fact]:
    facts = []
    for b in bullets(body.get(FACTS)):
        text = claim_text(b)
        cites = tuple(lnk.render() for lnk in b.citations)
        facts.append(Fact(b.block or fact_id(text), text, cites))
    return facts


def citation(source_page: str, block: str) -> str:
    return link(source_page.removesuffix(".md"), block=block)


def source_link(source_page: str, title: str) -> str:
    return link(source_page.removesuffix(".md"), alias=title)


def cited_sources(facts: Iterable[Fact]) -> list[str]:
    names: list[str] = []
    for f in facts:
        for c in f.citations:
            target = c[2:-2].split("#", 1)[0].split("|", 1)[0]
            quoted = f"[[{target}]]"
            if quoted not in names:
                names.append(quoted)
    return names


def merge_links(
    body: Body, section: str, links: Sequence[str], *, limit: int | None = None
) -> None:
    current = bullets(body.get(section))
    have = {b.links[0].target.casefold() for b in current if b.links}
    count = len(current)
    added: list[str] = []
    for lnk in links:
        target = lnk[2:-2].split("|", 1)[0].split("#", 1)[0].casefold()
        if target in have or (limit is not None and count >= limit):
            continue
        have.add(target)
        added.append(f"- {lnk}")
        count += 1
    if added:  # the list grows in place: what else the section holds (a note) stays
        body.set(section, edit_bullets(body.get(section), append=added))


def add_contradictions(body: Body, pairs: Sequence[tuple[str, str, str]]) -> int:
    """Add `**open**` entries for (fact id, fact id, reason) pairs not recorded yet; return the
    number of open entries. Shared with `wikic lint --semantic --fix`."""
    current = bullets(body.get(CONTRADICTIONS))
    have = {b.block for b in current if b.block}
    added: list[str] = []
    for new, old, why in pairs:
        block = "x-" + hashlib.sha256("|".join(sorted((new, old))).encode()).hexdigest()[:6]
        if block in have:
            continue
        have.add(block)
        reason = " ".join(why.split()).replace("[[", "[").replace("]]", "]")
        added.append(
            f"- **open** — {link('', block=new)} vs {link('', block=old)}: {reason} ^{block}"
        )
    if added:  # entries the user resolved, and notes between them, stay as written
        body.set(CONTRADICTIONS, edit_bullets(body.get(CONTRADICTIONS), append=added))
    return sum(1 for b in current if b.status == "open") + len(added)


def _updated(bullet: Bullet, by_id: dict[str, Fact]) -> str | None:
    """A fact bullet as `by_id` now has it: None when unchanged, "" when it went."""
    fact_key = bullet.block or fact_id(claim_text(bullet))
    fact = by_id.get(fact_key)
    if fact is None:
        return ""
    before = tuple(lnk.render() for lnk in bullet.citations)
    return None if fact.citations == before and fact.text == claim_text(bullet) else fact.render()


def retract_source(page: Page, source_page: str, relocate: dict[str, str]) -> tuple[Page, int]:
    """Re-point or drop the citations of `source_page` on `page` after the source changed.

    `relocate` maps a fact id to the paragraph id its sentence now has in the new version; a
    fact of this source not in it is no longer supported by it. Returns (page, facts dropped).
    """
    body = split_body(page.body)
    name = source_page.removesuffix(".md").casefold()
    kept: list[Fact] = []
    dropped = 0
    changed = False
    for fact in parse_facts(body):
        cites = []
        for c in fact.citations:
            target = c[2:-2].split("#", 1)[0].casefold()
            if target != name:
                cites.append(c)
            elif fact.id in relocate:
                cites.append(citation(source_page, relocate[fact.id]))
                changed = changed or cites[-1] != c
            else:
                changed = True
        if cites:
            kept.append(Fact(fact.id, fact.text, tuple(dict.fromkeys(cites))))
        else:
            dropped += 1
            changed = True
    if not changed:
        return page, 0
    if kept:
        by_id = {f.id: f for f in kept}
        body.set(FACTS, edit_bullets(body.get(FACTS), lambda b: _updated(b, by_id)))
    else:
        body.remove(FACTS)
    props = dict(page.props)
    props["sources"] = cited_sources(kept)
    if f"[[{source_page.removesuffix('.md')}]]" not in props["sources"]:
        text = edit_bullets(
            body.get(SOURCES),
            lambda b: "" if b.links and b.links[0].target.casefold() == name else None,
        )
        if text.strip():
            body.set(SOURCES, text)
        else:
            body.remove(SOURCES)
    return Page(page.path, props, body.render()), dropped
