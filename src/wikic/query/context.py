"""What `wikic query` shows the model: pages picked by search plus one hop of links, packed
under the token budget, and the catalog, as prompt segments ordered for prefix-cache reuse.

Order: schema (AGENTS.md, system) → catalog (index.md) → pages (sorted by path) → task.
Two different questions share everything up to the pages, and two questions that pick the same
first pages share those too; only the last segment always differs. The budget
(`query.context_tokens`) covers the catalog (at most a third of it) and the pages together.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from wikic.errors import PageError
from wikic.llm.backend import Segment, system, user
from wikic.paths import WikiPaths
from wikic.store.db import Store
from wikic.store.search import content_terms, name_words, parse_query
from wikic.vault.tree import read_page

TokenCounter = Callable[[str], int]
CATALOG_SHARE = 3  # the catalog takes at most 1/CATALOG_SHARE of the context budget
MIN_EXCERPT_TOKENS = 80  # a page cut shorter than this is not worth its tokens
LINK_HOP_FROM = 3  # follow links of this many top hits
NOT_IN_WIKI = "The wiki does not contain the answer."
# Measured with the default 0.5B model: an explicit "if not, reply exactly …" escape made it
# decline questions the pages answer, and a question before the instructions got echoed. AGENTS.md
# (the system segment) already says to say so when the wiki lacks the answer, and code flags an
# answer that cites nothing.
# The example citation is one that exists in the pages shown: with a made-up example the 0.5B
# model copied it verbatim (measured: `[[sources/paper#^p3]]` in the demo answer).
TASK = (
    "Using only the wiki pages above, answer this question in one to three sentences: "
    "{question}\nEnd each sentence with the citation of the fact it uses, copied from the "
    "pages, e.g. {example}."
)
_CITATION_RE = re.compile(r"\[\[sources/[^\[\]|#]+#\^[A-Za-z0-9-]+\]\]")


def task_text(question: str, pages_text: str = "") -> str:
    found = _CITATION_RE.search(pages_text)
    example = found.group(0) if found else "[[concepts/page-name]]"
    return TASK.format(question=question.strip(), example=example)


@dataclass(frozen=True)
class ContextPage:
    """A page given to the model. `reason`: `search` (a hit) or `link` (one hop from a hit)."""

    path: str
    title: str
    type: str
    reason: str
    tokens: int
    truncated: bool
    text: str

    @property
    def name(self) -> str:
        return self.path[:-3] if self.path.endswith(".md") else self.path


@dataclass(frozen=True)
class Context:
    segments: tuple[Segment, ...]
    pages: tuple[ContextPage, ...]  # in prompt order
    catalog_tokens: int
    catalog_truncated: bool

    @property
    def context_tokens(self) -> int:
        return self.catalog_tokens + sum(p.tokens for p in self.pages)


def query_words(question: str) -> list[str]:
    """The question's topic words, lower-case, without punctuation or stopwords."""
    terms = content_terms(parse_query(question))
    return [w for t in terms if not t.exclude for w in name_words(t.text)]


def candidates(store: Store, question: str, *, limit: int) -> list[tuple[str, str]]:
    """(path, reason) of the pages worth reading, best first: search hits, then pages linked
    from or to the top hits (most connected first)."""
    hits = store.search(question, mode="any", prefix_last=False, limit=limit)
    picked = [(h.path, "search") for h in hits]
    seen = {h.path for h in hits}
    hops: Counter[str] = Counter()
    for hit in hits[:LINK_HOP_FROM]:
        for other in {*store.links_from(hit.path), *store.backlinks(hit.path)}:
            if other not in seen:
                hops[other] += 1
    picked += [(p, "link") for p, _ in sorted(hops.items(), key=lambda kv: (-kv[1], kv[0]))]
    return picked


def render_page_text(paths: WikiPaths, path: str) -> tuple[str, str, str, str] | None:
    """(header, body, title, type) of a page as the model reads it; None if unreadable."""
    try:
        page = read_page(paths.wiki, path)
    except (PageError, OSError):
        return None
    kind = page.type or "page"
    header = f"=== [[{page.name}]] · {kind} · {page.title} ==="
    if page.summary:
        header += f"\nSummary: {' '.join(page.summary.split())}"
    return header, page.body.strip(), page.title, page.type


_BLOCK_SPLIT_RE = re.compile(r"\n\s*\n|\n(?=[-*+] )")


def excerpt(body: str, words: Sequence[str], budget: int, count: TokenCounter) -> str:
    """The parts of `body` most about `words` that fit in `budget` tokens, in page order: the
    lead first, then paragraphs and bullets by how many of the words they hold."""
    blocks = [b.strip() for b in _BLOCK_SPLIT_RE.split(body) if b.strip()]
    if not blocks:
        return ""

    stems = [w[: max(5, len(w) - 2)] for w in words]  # "persisted" also finds "persist"

    def score(block: str) -> int:
        low = block.casefold()
        return sum(low.count(w) for w in stems)

    # the lead: the first block, and the paragraph after it when that first block is the title
    lead = [0, 1] if blocks[0].startswith("#") and len(blocks) > 1 else [0]
    rest = sorted(range(len(lead), len(blocks)), key=lambda i: (-score(blocks[i]), i))
    order = [*lead, *rest]
    chosen: list[int] = []
    used = 0
    for i in order:
        cost = count(blocks[i]) + 1
        if used + cost <= budget:
            chosen.append(i)
            used += cost
    if not chosen:
        return _cut(blocks[0], budget, count)
    parts: list[str] = []
    last = -1
    for i in sorted(chosen):
        if i != last + 1:
            parts.append("…")
        parts.append(blocks[i])
        last = i
    text = "\n\n".join(parts)
    while count(text) > budget and len(chosen) > 1:  # separators made it too long
        chosen.pop()
        text = "\n\n".join(blocks[i] for i in sorted(chosen))
    return text if count(text) <= budget else _cut(text, budget, count)


def _cut(text: str, budget: int, count: TokenCounter) -> str:
    """The longest prefix of `text` (at a word boundary) within `budget` tokens."""
    lo, hi = 0, len(text)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if count(text[:mid]) <= budget:
            lo = mid
        else:
            hi = mid - 1
    cut = text[:lo]
    if lo < len(text) and " " in cut:
        cut = cut.rsplit(" ", 1)[0]
    return cut.rstrip()


def pack_pages(
    paths: WikiPaths,
    picked: Sequence[tuple[str, str]],
    words: Sequence[str],
    budget: int,
    count: TokenCounter,
) -> list[ContextPage]:
    """Take pages in `picked` order while they fit; a search hit that does not fit whole is
    cut down to its most relevant parts if enough room is left for that."""
    pages: list[ContextPage] = []
    left = budget
    for path, reason in picked:
        if left < MIN_EXCERPT_TOKENS and pages:
            break
        rendered = render_page_text(paths, path)
        if rendered is None:
            continue
        header, body, title, kind = rendered
        text = f"{header}\n\n{body}\n"
        tokens = count(text)
        truncated = False
        if tokens > left:
            room = left - count(header) - 2
            if reason != "search" or room < MIN_EXCERPT_TOKENS // 2:
                continue
            text = f"{header}\n\n{excerpt(body, words, room, count)}\n[page cut to fit]\n"
            tokens, truncated = count(text), True
            if tokens > left:
                continue
        pages.append(ContextPage(path, title, kind, reason, tokens, truncated, text))
        left -= tokens
    return pages


def catalog_text(paths: WikiPaths, budget: int, count: TokenCounter) -> tuple[str, int, bool]:
    """index.md, cut at a line boundary to fit `budget` tokens: (text, tokens, truncated)."""
    try:
        text = paths.index_md.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return "", 0, False
    text = "\n".join(line for line in text.strip().split("\n") if not line.startswith("<!--"))
    text = f"Wiki catalog (index.md):\n\n{text}\n"
    tokens = count(text)
    if tokens <= budget:
        return text, tokens, False
    lines = text.split("\n")
    kept: list[str] = []
    used = 0
    for line in lines:
        cost = count(line) + 1
        if used + cost > budget - 12:
            break
        kept.append(line)
        used += cost
    more = sum(1 for line in lines[len(kept) :] if line.startswith("- "))
    kept.append(f"- … {more} more pages, not listed here")
    cut = "\n".join(kept) + "\n"
    return cut, count(cut), True


def build_context(
    paths: WikiPaths,
    question: str,
    picked: Sequence[tuple[str, str]],
    *,
    count: TokenCounter,
    budget: int,
) -> Context:
    """The prompt for `question` from the `candidates()` it picked."""
    catalog, catalog_tokens, catalog_cut = catalog_text(paths, budget // CATALOG_SHARE, count)
    pages = pack_pages(paths, picked, query_words(question), budget - catalog_tokens, count)
    pages.sort(key=lambda p: p.path)  # stable order: better prefix reuse across questions
    segments: list[Segment] = []
    if paths.agents_md.is_file():
        segments.append(system(paths.agents_md.read_text(encoding="utf-8")))
    if catalog:
        segments.append(user(catalog))
    segments += [user(p.text) for p in pages]
    segments.append(user(task_text(question, "".join(p.text for p in pages))))
    return Context(tuple(segments), tuple(pages), catalog_tokens, catalog_cut)
