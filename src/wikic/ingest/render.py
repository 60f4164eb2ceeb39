"""Pages rendered by code from structured edits: source pages and entity/concept pages.

Facts are verbatim source sentences with a citation `[[sources/s#^pN]]` and a block id derived
from the sentence, so the same sentence from two sources is one bullet with two citations.
Contradictions keep both facts and add an entry with a status. Unknown sections are kept.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from dataclasses import dataclass

from wikic.ingest.extract import Extraction
from wikic.ingest.grounding import related
from wikic.ingest.text import quote
from wikic.vault.links import link
from wikic.vault.pages import Page, to_tag
from wikic.vault.sections import (
    FACTS,
    RELATED,
    SOURCES,
    Body,
    split_body,
)
from wikic.vault.topic_page import (
    Fact,
    add_contradictions,
    cited_sources,
    merge_links,
    parse_facts,
    source_link,
)

_PLAIN_PARA_RE = re.compile(r"^(?:[-*+>|]|\d+[.)]\s|```|~~~|    |<)")
MAX_RELATED = 8


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
    merge_links(body, RELATED, edit.related, limit=MAX_RELATED)
    merge_links(body, SOURCES, [source_link(edit.source_page, edit.source_title)])
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
