"""`wikic query --save`: file an answer as an analysis page, linked from the pages it cites.

One operation, one commit: the analysis page (`wiki/analyses/<slug>.md`, or the existing
analysis of the same question, updated), a `## Related` bullet on every cited page that lacks
one, index.md and log.md. Format `marp` makes the page a valid Marp deck (`marp: true`, slides
between `---` lines with blank lines around them).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, Literal

from wikic.errors import OperationError, PageError
from wikic.operation.transaction import Plan, writing
from wikic.paths import WikiPaths
from wikic.query.answer import QueryResult, check_citations
from wikic.store.db import PageInfo, Store, after_commit, open_store
from wikic.store.rows import search_text
from wikic.vault.catalog import one_line
from wikic.vault.links import link
from wikic.vault.pages import Page, render_page, to_tag
from wikic.vault.sections import RELATED, bullets, split_body
from wikic.vault.slugs import safe_page_path, slugify, unique_slug
from wikic.vault.tree import read_page

Format = Literal["md", "marp"]
ANALYSIS_FOLDER = "analyses"
TITLE_CHARS = 120
SLIDE_CHARS = 600  # more text than this on one slide overflows a 16:9 Marp slide
SLIDE_LINES = 9
_HR_RE = re.compile(r"^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_FENCE_RE = re.compile(r"^ {0,3}(```|~~~)")
_HEADING_RE = re.compile(r"^#{1,6}[ \t]")


@dataclass(frozen=True)
class SavedAnalysis:
    path: str  # relative to wiki/
    created: bool  # False: an analysis of the same question was updated
    linked_from: tuple[str, ...]  # pages that got a Related link to it
    commit: str | None
    op_id: str | None


def analysis_title(question: str) -> str:
    return one_line(question, TITLE_CHARS)


def first_sentence(answer: str) -> str:
    text = re.sub(r"\s+([.,;:!?])", r"\1", " ".join(search_text(answer).split()))
    m = re.match(r"(.+?[.!?])(\s|$)", text)
    return one_line(m.group(1) if m else text, 200)


def _blocks(markdown: str) -> list[str]:
    """Paragraphs, lists and code fences of `markdown`; thematic breaks become '---'."""
    blocks: list[list[str]] = [[]]
    in_fence = False
    for line in markdown.split("\n"):
        if _FENCE_RE.match(line):
            in_fence = not in_fence
        if not in_fence and _HR_RE.match(line):
            blocks += [["---"], []]
        elif not in_fence and _HEADING_RE.match(line):
            blocks += [[line], []]
        elif not in_fence and not line.strip():
            blocks.append([])
        else:
            blocks[-1].append(line)
    return ["\n".join(b) for b in blocks if any(x.strip() for x in b)]


def _split_long(block: str) -> list[str]:
    """A paragraph or list longer than a slide, cut between sentences or items."""
    fits = len(block) <= SLIDE_CHARS and block.count("\n") < SLIDE_LINES
    if fits or _FENCE_RE.match(block) or _HEADING_RE.match(block):
        return [block]
    lines = block.split("\n")
    if all(re.match(r"\s*([-*+]|\d+\.)\s", line) or line.startswith(" ") for line in lines):
        units: list[str] = []  # list items, each with its continuation lines
        for line in lines:
            if line.startswith(" ") and units:
                units[-1] += "\n" + line
            else:
                units.append(line)
        joiner = "\n"
    else:
        units = re.split(r"(?<=[.!?])\s+", " ".join(line.strip() for line in lines))
        joiner = " "
    pieces: list[str] = []
    for unit in units:
        lines_after = (pieces[-1].count("\n") + unit.count("\n") + 2) if pieces else 0
        if pieces and len(pieces[-1]) + len(unit) < SLIDE_CHARS and lines_after <= SLIDE_LINES:
            pieces[-1] += joiner + unit
        else:
            pieces.append(unit)
    return pieces


def marp_slides(answer: str) -> list[str]:
    """The answer cut into slides: a heading or a thematic break starts one, and a slide holds
    at most about `SLIDE_CHARS` characters / `SLIDE_LINES` lines."""
    slides: list[list[str]] = [[]]
    for block in [piece for b in _blocks(answer) for piece in _split_long(b)]:
        current = slides[-1]
        size = sum(len(b) for b in current)
        lines = sum(b.count("\n") + 1 for b in current)
        if block == "---":
            slides.append([])
            continue
        starts_new = bool(_HEADING_RE.match(block)) or (
            current
            and (size + len(block) > SLIDE_CHARS or lines + block.count("\n") + 1 > SLIDE_LINES)
        )
        if starts_new and current:
            slides.append([])
        slides[-1].append(block)
    return ["\n\n".join(s) for s in slides if s]


def _source_pages(store: Store, result: QueryResult) -> list[PageInfo]:
    """The source pages behind the answer: cited directly or through a cited fact."""
    paths = {*result.cited_pages, *(p for t in result.cited_sources if (p := store.resolve(t)))}
    infos = [store.page(p) for p in sorted(paths)]
    return [i for i in infos if i is not None and i.type == "source"]


def analysis_page(
    store: Store,
    result: QueryResult,
    path: str,
    *,
    fmt: Format,
    today: dt.date,
    existing: Page | None = None,
) -> Page:
    """The analysis page of `result` at `path` (relative to wiki/)."""
    title = analysis_title(result.question)
    cited = [store.page(p) for p in result.cited_pages]
    tags: list[str] = []
    for info in cited:
        if info is not None and info.type != "source":
            tags += [t for t in (to_tag(str(x)) for x in info.tags) if t and t not in tags]
    source_pages = _source_pages(store, result)
    sources = [f"[[{i.name}]]" for i in source_pages]
    props: dict[str, Any] = {
        "type": "analysis",
        "title": title,
        "tags": tags[:8],
        "summary": first_sentence(result.answer),
        "sources": sources,
        "question": result.question,
        "consulted": [f"[[{p.name}]]" for p in result.pages],
        "created": (existing.props.get("created") if existing else None) or today,
        "updated": today,
    }
    source_lines = [f"- {link(i.name, alias=i.title)}" for i in source_pages]
    if fmt == "marp":
        props = {"marp": True, **props}
        slides = [f"# {title}\n\n*Answered from the wiki on {today.isoformat()}*"]
        slides += marp_slides(result.answer)
        if source_lines:
            slides.append("## Sources\n\n" + "\n".join(source_lines))
        body = "\n\n---\n\n".join(slides)
    else:
        body = f"# {title}\n\n> Question: {result.question}\n\n{result.answer}"
        if source_lines:
            body += "\n\n## Sources\n\n" + "\n".join(source_lines)
    return Page(path, props, body + "\n")


def with_related_link(page: Page, analysis: Page, store: Store) -> Page | None:
    """`page` with a `## Related` bullet linking `analysis`, or None if it already has one."""
    body = split_body(page.body)
    section = body.get(RELATED)
    for item in bullets(section):
        if any(store.resolve(lnk.target) == analysis.path for lnk in item.links if lnk.target):
            return None
    bullet = f"- {link(analysis.name, alias=analysis.title)}"
    body.set(RELATED, f"{(section or '').strip(chr(10))}\n{bullet}".strip("\n"))
    return Page(page.path, page.props, body.render())


def _existing_analysis(store: Store, question: str) -> str | None:
    hits = store.search("", types=["analysis"], where=[("question", question.casefold())])
    return hits[0].path if hits else None


def save_answer(
    paths: WikiPaths,
    result: QueryResult,
    *,
    fmt: Format = "md",
    wait: float | None = None,
    on_wait: Callable[[str], None] | None = None,
    today: dt.date | None = None,
) -> SavedAnalysis:
    """File `result` as an analysis page in one commit (see the module docstring)."""
    if not result.answered:
        why = (
            f"the wiki does not say ({result.decline_reason})"
            if result.declined
            else "the answer cites no page of the wiki"
        )
        raise OperationError(
            f"there is no answer to save: {why}",
            hint="Ingest sources about the question first (wikic ingest), then ask again.",
        )
    day = today or dt.date.today()
    with (
        writing(paths, "query", wait=wait, on_wait=on_wait, on_commit=after_commit) as writer,
        open_store(paths) as store,
    ):
        answer, citations, _removed = check_citations(result.answer, store)  # pages may have moved
        result = replace(result, answer=answer, citations=tuple(citations))
        rel = _existing_analysis(store, result.question)
        existing = None
        if rel is not None:
            try:
                existing = read_page(paths.wiki, rel)
            except PageError:
                rel = None
        if rel is None:
            taken = [p.path.rsplit("/", 1)[-1][:-3] for p in store.pages(type="analysis")]
            taken += [f.stem for f in (paths.wiki / ANALYSIS_FOLDER).glob("*.md")]
            slug = unique_slug(slugify(analysis_title(result.question)), taken)
            rel = safe_page_path(paths.wiki, ANALYSIS_FOLDER, slug).as_posix()
        page = analysis_page(store, result, rel, fmt=fmt, today=day, existing=existing)
        wiki_rel = paths.rel(paths.wiki)
        plan = Plan("query", analysis_title(result.question))
        plan.write(f"{wiki_rel}/{rel}", render_page(page))
        linked = []
        for cited in result.cited_pages:
            if cited == rel:
                continue
            try:
                updated = with_related_link(read_page(paths.wiki, cited), page, store)
            except (PageError, OSError):
                continue  # an unreadable page is lint's business, not a reason to fail
            if updated is not None:
                plan.write(f"{wiki_rel}/{cited}", render_page(updated))
                linked.append(cited)
        plan.log_bullets.append(f"{'filed' if existing is None else 'updated'} [[{page.name}]]")
        if linked:
            plan.log_bullets.append("linked from " + ", ".join(f"[[{p[:-3]}]]" for p in linked))
        op = writer.commit(plan)
    return SavedAnalysis(rel, existing is None, tuple(linked), op.commit, op.op_id)
