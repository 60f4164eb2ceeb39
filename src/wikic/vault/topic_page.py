"""Entity and concept pages as values: fact bullets with their citations and block ids, the
Contradictions entries, the Sources and Related lists. Shared by ingest (which adds facts), lint
(which adds contradictions) and the page-maintenance verbs.

A fact is a verbatim source sentence with a citation `[[sources/s#^pN]]` and a block id derived
from the sentence, so the same sentence from two sources is one bullet with two citations.
Facts from two or more source sections are grouped under `### ` sub-headings naming them (never
one lone or empty sub-heading); on a page that cites two sources or more a sub-heading names
the source before its section (`source_group`). Contradictions keep both facts and add an entry with a status.
"""

from __future__ import annotations

import hashlib
import html
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from wikic.vault.document import Document
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
    items,
    join_groups,
    split_body,
    split_groups,
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
    section: str = ""  # its group's sub-heading: the source section's, "" for none

    def render(self) -> str:
        return " ".join(["-", self.text, *self.citations, f"^{self.id}"])


def parse_facts(body: Body) -> list[Fact]:
    """Every fact bullet of `## Facts`, those before any sub-heading included."""
    lead, groups = split_groups(body.get(FACTS))
    return [_fact(b, heading) for heading, text in [("", lead), *groups] for b in bullets(text)]


def _fact(bullet: Bullet, section: str = "") -> Fact:
    text = claim_text(bullet)
    cites = tuple(lnk.render() for lnk in bullet.citations)
    return Fact(bullet.block or fact_id(text), text, cites, section)


_HEADING_DROP_RE = re.compile(r"\[\[|\]\]|[\\`*^]|~~|==|%%|(?<!\w)_+|_+(?!\w)|(?<!\w)#")
_HEADING_TAG_RE = re.compile(r"<(?=[A-Za-z/!?])")


def section_heading(heading: str) -> str:
    """A source section's heading as a sub-heading that Obsidian reads as plain text and can
    link to: no link, block, tag, math or emphasis markup (`C#` reads `C♯`)."""
    text = _HEADING_DROP_RE.sub("", heading).replace("#", "♯").replace("|", "/")
    text = _HEADING_TAG_RE.sub("&lt;", text).replace("$", "\\$")
    return " ".join(text.split())


GROUP_SEP = " — "  # between a source's title and its section in a group's sub-heading


def source_group(label: str, section: str) -> str:
    """A group's sub-heading on a page several sources share: the source's title, then its
    section unless that is the title again ("Basic usage — Installing with poetry.lock")."""
    label, section = section_heading(label), section_heading(section)
    if not section or section.casefold() == label.casefold():
        return label
    if not label or section.casefold().startswith(label.casefold() + GROUP_SEP):
        return section
    return f"{label}{GROUP_SEP}{section}"


_SOURCE_HEADING_RE = re.compile(r"^#{3,6} +(.+?) *$")
_PARAGRAPH_ID_RE = re.compile(r"(?:^|\s)\^(p\d+)\s*$")


class SourceSections:
    """The section of a source that a fact's citation points into, as its sub-heading: read
    from the source page's `## Text` (headings and `^pN` ids), once per source, or given as the
    parsed document for the source being written."""

    def __init__(self, page_of: Callable[[str], Page | None]) -> None:
        self._page_of = page_of
        self._sources: dict[str, dict[str, str]] = {}

    def add_document(self, source_page: str, doc: Document) -> None:
        heads = [section_heading(s.heading) for s in doc.sections]
        self._sources[_source_key(source_page)] = {b.id: heads[b.section] for b in doc.blocks}

    def heading(self, source_page: str, paragraph: str) -> str | None:
        """The sub-heading of that paragraph's section; None when the paragraph is unknown."""
        key = _source_key(source_page)
        if key not in self._sources:
            page = self._page_of(f"{key}.md")
            self._sources[key] = _paragraph_sections(page.body) if page else {}
        return self._sources[key].get(paragraph)

    def of(self, fact: Fact) -> str:
        """The sub-heading of the first cited paragraph that is known ("" for none)."""
        for cite in fact.citations:
            target, _, block = cite[2:-2].split("|", 1)[0].partition("#^")
            found = self.heading(target, block) if block else None
            if found is not None:
                return found
        return ""


def _source_key(source_page: str) -> str:
    return source_page.removesuffix(".md").casefold()


def _paragraph_sections(body: str) -> dict[str, str]:
    return {block: path[-1] if path else "" for block, path in paragraph_paths(body).items()}


def paragraph_paths(body: str) -> dict[str, tuple[str, ...]]:
    """Each numbered paragraph of a source page's `## Text` with the headings above it, the
    outermost first (as sub-headings: `section_heading`)."""
    found: dict[str, tuple[str, ...]] = {}
    path: list[tuple[int, str]] = []
    in_fence = False
    for line in (split_body(body).get("Text") or "").split("\n"):
        if line.lstrip().startswith(("```", "~~~")):
            in_fence = not in_fence
            continue
        heading = None if in_fence else _SOURCE_HEADING_RE.match(line)
        if heading:  # as `render_source_body` escaped it
            level = len(line) - len(line.lstrip("#"))
            while path and path[-1][0] >= level:
                path.pop()
            text = html.unescape(re.sub(r"\\(.)", r"\1", heading.group(1)))
            path.append((level, section_heading(text)))
            continue
        block = None if in_fence else _PARAGRAPH_ID_RE.search(line)
        if block:
            found[block.group(1)] = tuple(h for _, h in path)
    return found


def add_facts(
    body: Body, new: Sequence[Fact], section_of: Callable[[Fact], str] | None = None
) -> tuple[list[Fact], list[Fact]]:
    """Add `new` facts to the page's `## Facts`; return (every fact now there, the added ones).

    A fact already on the page (same id) gains the new citations where it stands; the others
    go under the sub-heading of their section (`Fact.section`). Bullets change in place, so a
    note or a fix the user wrote stays. A flat list whose facts (sections from `section_of`)
    and the added ones come from two or more sections is grouped; bullets of no known section
    stay above the groups."""
    facts = parse_facts(body)
    by_id = {f.id: i for i, f in enumerate(facts)}
    added: list[Fact] = []
    for fact in new:
        if fact.id in by_id:
            old = facts[by_id[fact.id]]
            cites = tuple(dict.fromkeys((*old.citations, *fact.citations)))
            facts[by_id[fact.id]] = Fact(old.id, old.text, cites, old.section)
        else:
            by_id[fact.id] = len(facts)
            facts.append(fact)
            added.append(fact)
    now = {f.id: f for f in facts}
    text = edit_bullets(body.get(FACTS), lambda b: _fact_line(b, now))
    if added:
        text = _file(text, added, section_of or (lambda f: f.section))
    if text.strip() or body.get(FACTS) is not None:
        body.set(FACTS, text)
    return facts, added


def _fact_line(bullet: Bullet, facts: Mapping[str, Fact]) -> str | None:
    """A fact bullet's new text if its citations grew, else None (kept byte for byte, so a typo
    the user fixed in it stays fixed)."""
    fact = facts.get(bullet.block or fact_id(claim_text(bullet)))
    if fact is None or fact.citations == tuple(lnk.render() for lnk in bullet.citations):
        return None
    return fact.render()


def _file(text: str, added: Sequence[Fact], section_of: Callable[[Fact], str]) -> str:
    lead, groups = split_groups(text)
    if not groups:
        filed = {b.block or fact_id(claim_text(b)): section_of(_fact(b)) for b in bullets(lead)}
        headings = {h.casefold() for h in [*filed.values(), *(f.section for f in added)] if h}
        if len(headings) < 2:
            return edit_bullets(text, append=[f.render() for f in added])
        lead, groups = _grouped(lead, filed)
    for fact in added:
        at = next(
            (i for i, (h, _) in enumerate(groups) if h.casefold() == fact.section.casefold()), -1
        )
        if not fact.section:
            lead = edit_bullets(lead, append=[fact.render()])
        elif at < 0:
            groups.append((fact.section, fact.render()))
        else:
            groups[at] = (groups[at][0], edit_bullets(groups[at][1], append=[fact.render()]))
    return join_groups(lead, groups)


def _grouped(lead: str, filed: Mapping[str, str]) -> tuple[str, list[tuple[str, str]]]:
    """A flat list's bullets moved under the sub-headings `filed` gives them (fact id →
    heading); the others, and every line that is not a bullet, stay in the lead."""
    kept: list[str] = []
    groups: dict[str, tuple[str, list[str]]] = {}
    for bullet, lines in items(lead):
        heading = filed.get(bullet.block or fact_id(claim_text(bullet)), "") if bullet else ""
        if heading:
            groups.setdefault(heading.casefold(), (heading, []))[1].extend(lines)
        else:
            kept.extend(lines)
    return "\n".join(kept), [(h, "\n".join(lines)) for h, lines in groups.values()]


def _tidy(text: str) -> str:
    """Facts text without empty sub-headings, and flat again when one group is left."""
    lead, groups = split_groups(text)
    kept = [(h, t) for h, t in groups if t.strip()]
    if len(kept) == len(groups) and len(kept) != 1:
        return text
    if len(kept) == 1:
        return "\n".join(p for p in (lead.strip("\n"), kept[0][1].strip("\n")) if p)
    return join_groups(lead, kept)


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
        if cites or not fact.citations:  # a bullet the user wrote without a citation stays
            kept.append(Fact(fact.id, fact.text, tuple(dict.fromkeys(cites)), fact.section))
        else:
            dropped += 1
            changed = True
    if not changed:
        return page, 0
    if kept:
        by_id = {f.id: f for f in kept}
        text = edit_bullets(body.get(FACTS), lambda b: _updated(b, by_id))
        if len(cited_sources(kept)) == 1:  # one source left: its groups need not name it
            text = _unlabelled(
                text, source_titles(body).get(cited_sources(kept)[0][2:-2].casefold(), "")
            )
        body.set(FACTS, _tidy(text))
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


def source_titles(body: Body) -> dict[str, str]:
    """Source page (lower case, no `.md`) → its title, from the `## Sources` links."""
    return {
        lnk.target.casefold(): lnk.alias or lnk.target
        for b in bullets(body.get(SOURCES))
        for lnk in b.links
    }


def _unlabelled(text: str, label: str) -> str:
    """Facts text whose group sub-headings lose the source `label` that `source_group` put
    before their section ("Basic usage — Installing" → "Installing")."""
    prefix = section_heading(label).casefold() + GROUP_SEP
    if not label:
        return text
    lead, groups = split_groups(text)
    return join_groups(
        lead,
        [(h[len(prefix) :] if h.casefold().startswith(prefix) else h, body) for h, body in groups],
    )
