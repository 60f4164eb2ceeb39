"""Pages rendered by code from structured edits: source pages and entity/concept pages.

Facts are verbatim source sentences with a citation `[[sources/s#^pN]]` and a block id derived
from the sentence, so the same sentence from two sources is one bullet with two citations.
Contradictions keep both facts and add an entry with a status. Unknown sections are kept.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from wikic.ingest.extract import Extraction
from wikic.ingest.grounding import related
from wikic.ingest.text import quote
from wikic.vault.links import link
from wikic.vault.pages import Page, to_tag
from wikic.vault.sections import (
    CONTRADICTIONS,
    FACTS,
    RELATED,
    SOURCES,
    Body,
    Bullet,
    bullets,
    split_body,
)

_CITATION_RE = re.compile(r"\s*\[\[sources/[^\[\]]*#\^[A-Za-z0-9-]+(?:\|[^\[\]]*)?\]\]")
_PLAIN_PARA_RE = re.compile(r"^(?:[-*+>|]|\d+[.)]\s|```|~~~|    |<)")
MAX_RELATED = 8


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


# -- source pages ---------------------------------------------------------------------------


def render_source_page(
    ex: Extraction,
    page_path: str,
    topic_links: Sequence[str],
    key_facts: Sequence[tuple[str, str]],  # (sentence text, paragraph id)
    today: dt.date,
    previous: Page | None,
) -> Page:
    name = page_path.removesuffix(".md")
    lines = [f"# {ex.title}", "", " ".join(ex.summary.split())]
    if key_facts:
        lines += ["", "## Key claims", ""]
        lines += [f"- {quote(text)} {link(name, block=para)}" for text, para in key_facts]
    if topic_links:
        lines += ["", "## Pages", ""] + [f"- {lnk}" for lnk in topic_links]
    lines += ["", "## Text", ""]
    heading = ex.title  # the source's own title heading is the page's H1 already
    for para in ex.paragraphs:
        if para.heading and para.heading != heading:
            lines += [f"#### {para.heading}", ""]  # below the page's own ## sections
        heading = para.heading
        lines += [_block(para.text, para.id), ""]
    created = previous.props.get("created") if previous else None
    props = {
        "type": "source",
        "title": ex.title,
        "aliases": [],
        "tags": ["source", to_tag(ex.source.kind)],
        "summary": " ".join(ex.summary.split()),
        "kind": ex.source.kind,
        "raw": ex.source.rel,
        "sha256": ex.source.sha256,
        "created": created or today,
        "ingested": today,
    }
    return Page(page_path, props, "\n".join(lines).rstrip() + "\n")


def _block(text: str, block: str) -> str:
    """A paragraph with its block id: inline for plain text, on its own line after lists,
    quotes, tables and code (where Obsidian wants it)."""
    text = re.sub(r"\s\^([A-Za-z0-9-]+)\s*$", r" \\^\1", text.rstrip())
    if _PLAIN_PARA_RE.match(text) or (
        "\n" in text and any(_PLAIN_PARA_RE.match(line) for line in text.splitlines())
    ):
        return f"{text}\n\n^{block}"
    return f"{text} ^{block}"


# -- entity and concept pages ---------------------------------------------------------------


@dataclass(frozen=True)
class TopicEdit:
    path: str
    title: str
    type: str
    aliases: tuple[str, ...]
    new_facts: tuple[Fact, ...]
    summary: str | None  # None: keep the current one
    contradictions: tuple[tuple[str, str, str], ...]  # (new fact id, old fact id, reason)
    related: tuple[str, ...]  # rendered links
    source_page: str
    source_title: str


def apply_topic_edit(existing: Page | None, edit: TopicEdit, today: dt.date) -> Page:
    body = split_body(existing.body) if existing else Body(lead=f"# {edit.title}\n")
    facts = parse_facts(body)
    by_id = {f.id: i for i, f in enumerate(facts)}
    for fact in edit.new_facts:
        if fact.id in by_id:
            old = facts[by_id[fact.id]]
            cites = tuple(dict.fromkeys((*old.citations, *fact.citations)))
            facts[by_id[fact.id]] = Fact(old.id, old.text, cites)
        else:
            by_id[fact.id] = len(facts)
            facts.append(fact)
    body.set(FACTS, "\n".join(f.render() for f in facts))
    _merge_links(body, RELATED, edit.related, limit=MAX_RELATED)
    _merge_links(body, SOURCES, [source_link(edit.source_page, edit.source_title)])
    open_count = add_contradictions(body, edit.contradictions)
    props = dict(existing.props) if existing else {}
    title = str(props.get("title") or edit.title)
    summary = edit.summary if edit.summary else str(props.get("summary") or "")
    if edit.summary or existing is None:
        body.lead = f"# {title}\n\n{summary}".rstrip()
    aliases = [str(a) for a in props.get("aliases") or []]
    for alias in edit.aliases:
        if not related(alias, title):
            continue  # a neighbouring topic, not another name for this one
        if alias.casefold() != title.casefold() and alias.casefold() not in {
            a.casefold() for a in aliases
        }:
            aliases.append(alias)
    tags = [str(t) for t in props.get("tags") or []]
    if edit.type not in tags:
        tags.insert(0, edit.type)
    props.update(
        type=props.get("type") or edit.type,
        title=title,
        aliases=aliases,
        tags=tags,
        summary=summary,
        sources=cited_sources(facts),
        created=props.get("created") or today,
        updated=today,
    )
    if open_count:
        props["contradictions"] = open_count
    else:
        props.pop("contradictions", None)
    return Page(edit.path, props, body.render())


def cited_sources(facts: Iterable[Fact]) -> list[str]:
    names: list[str] = []
    for f in facts:
        for c in f.citations:
            target = c[2:-2].split("#", 1)[0].split("|", 1)[0]
            quoted = f"[[{target}]]"
            if quoted not in names:
                names.append(quoted)
    return names


def _merge_links(
    body: Body, section: str, links: Sequence[str], *, limit: int | None = None
) -> None:
    current = bullets(body.get(section))
    have = {b.links[0].target.casefold() for b in current if b.links}
    lines = [f"- {b.text}" for b in current]
    for lnk in links:
        target = lnk[2:-2].split("|", 1)[0].split("#", 1)[0].casefold()
        if target in have or (limit is not None and len(lines) >= limit):
            continue
        have.add(target)
        lines.append(f"- {lnk}")
    if lines:
        body.set(section, "\n".join(lines))


def add_contradictions(body: Body, pairs: Sequence[tuple[str, str, str]]) -> int:
    """Add `**open**` entries for (fact id, fact id, reason) pairs not recorded yet; return the
    number of open entries. Shared with `wikic lint --semantic --fix`."""
    current = bullets(body.get(CONTRADICTIONS))
    lines = [f"- {b.text}" + (f" ^{b.block}" if b.block else "") for b in current]
    have = {b.block for b in current if b.block}
    for new, old, why in pairs:
        block = "x-" + hashlib.sha256("|".join(sorted((new, old))).encode()).hexdigest()[:6]
        if block in have:
            continue
        have.add(block)
        reason = " ".join(why.split()).replace("[[", "[").replace("]]", "]")
        lines.append(
            f"- **open** — {link('', block=new)} vs {link('', block=old)}: {reason} ^{block}"
        )
    if lines:
        body.set(CONTRADICTIONS, "\n".join(lines))
    return sum(1 for line in lines if line.startswith("- **open**"))


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
        body.set(FACTS, "\n".join(f.render() for f in kept))
    else:
        body.remove(FACTS)
    props = dict(page.props)
    props["sources"] = cited_sources(kept)
    if f"[[{source_page.removesuffix('.md')}]]" not in props["sources"]:
        remaining = [
            b
            for b in bullets(body.get(SOURCES))
            if not (b.links and b.links[0].target.casefold() == name)
        ]
        if remaining:
            body.set(SOURCES, "\n".join(f"- {b.text}" for b in remaining))
        else:
            body.remove(SOURCES)
    return Page(page.path, props, body.render()), dropped
