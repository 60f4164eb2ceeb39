"""Semantic checks done in code: names that deserve a page, and links a page is missing.

Missing pages: link targets that resolve to nothing from two or more pages, and capitalised names
(multi-word, CamelCase, acronyms) mentioned on two or more pages that no page has as its title
or alias. Suggested links without embeddings (search.embedding_model: none; with them, `lint.twins`):
TF-IDF similarity of each entity/concept page to the others through an inverted index over each
page's few most distinctive terms (common terms are skipped), so the cost grows with the pages,
not with their pairs — seed 003's "top text-similar nodes that aren't neighbours".
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Iterator

from wikic.language.stopwords import TOPICLESS_WORDS
from wikic.lint.findings import Finding
from wikic.lint.page_scan import PageScan
from wikic.lint.rules_links import is_attachment
from wikic.lint.scan import WikiScan
from wikic.vault.links import link as render_link
from wikic.vault.names import name_key

MIN_PAGES = 2
MAX_MISSING = 20
SUGGESTIONS = 3
MIN_SIMILARITY = 0.15
TOP_TERMS = 8
_LINK_TEXT_RE = re.compile(r"!?\[\[([^\[\]\n|]*)(?:\|([^\[\]\n]*))?\]\]")
_PHRASE_RE = re.compile(
    r"\b(?:[A-Z][\w'-]*[A-Z0-9][\w'-]*|[A-Z]{2,}[0-9]*|"  # CamelCase, acronyms
    r"[A-Z][a-z][\w'-]*(?:\s+(?:of\s+|de\s+)?[A-Z][\w'-]+){1,3})\b"  # Title Case runs
)
_LEADING = frozenset({"The", "A", "An", "This", "That", "These", "Those", "In", "On", "At"})
_WORD_RE = re.compile(r"[^\W\d_]{3,}")


def _plain(text: str) -> str:
    """Markdown text with links reduced to what a reader sees."""
    return _LINK_TEXT_RE.sub(lambda m: m.group(2) or m.group(1).split("#")[0], text)


def _page_text(ps: PageScan) -> str:
    if ps.type == "source":
        return ps.masked
    return ps.masked.split("\n## Sources", 1)[0]


def check_missing_pages(scan: WikiScan) -> Iterator[Finding]:
    known = {name_key(n) for ps in scan for n in (ps.page.stem, ps.page.title, *ps.page.aliases)}
    linked: dict[str, set[str]] = defaultdict(set)
    shown: dict[str, str] = {}
    for ps in scan:
        targets = [r.link.target for r in ps.links] + [lnk.target for _, lnk in ps.prop_links]
        for target in targets:
            if target and not is_attachment(target) and scan.resolve(ps, target) is None:
                key = name_key(target.rsplit("/", 1)[-1])
                linked[key].add(ps.path)
                shown.setdefault(key, target)
    mentioned: dict[str, set[str]] = defaultdict(set)
    for ps in scan:
        # names inside links are pages (or the linked-targets case above), not mentions
        for m in _PHRASE_RE.finditer(_LINK_TEXT_RE.sub(" ", _page_text(ps))):
            words = m.group(0).split()
            while words and words[0] in _LEADING:
                words = words[1:]
            if not words or (len(words) == 1 and words[0][1:].islower()):
                continue
            phrase = " ".join(words)
            key = name_key(phrase)
            if len(key) >= 3 and key not in known:
                mentioned[key].add(ps.path)
                shown.setdefault(key, phrase)
    counts = {k: (v, True) for k, v in linked.items() if len(v) >= MIN_PAGES}
    for key, pages in mentioned.items():
        if len(pages) >= MIN_PAGES and key not in counts:
            counts[key] = (pages, False)
    ranked = sorted(counts.items(), key=lambda kv: (-len(kv[1][0]), kv[0]))[:MAX_MISSING]
    for key, (pages, is_link) in ranked:
        listed = ", ".join(scan.rel(p) for p in sorted(pages)[:3]) + (
            " …" if len(pages) > 3 else ""
        )
        how = "linked from" if is_link else "mentioned on"
        yield Finding(
            "info",
            "missing-page",
            "",
            f"'{shown[key]}' is {how} {len(pages)} pages but has no page of its own ({listed})",
            "Ingest a source about it, or add it as an alias of the page that covers it.",
        )


def _terms(ps: PageScan) -> Counter[str]:
    page = ps.page
    text = " ".join([page.title] * 3 + page.aliases + [page.summary, _plain(_page_text(ps))])
    words = (w.casefold() for w in _WORD_RE.findall(text))
    return Counter(w for w in words if w not in TOPICLESS_WORDS)


def linked_pages(scan: WikiScan) -> dict[str, set[str]]:
    """Each page's linked pages, in either direction."""
    near: dict[str, set[str]] = defaultdict(set)
    for ps in scan:
        targets = [r.link.target for r in ps.links] + [lnk.target for _, lnk in ps.prop_links]
        for target in targets:
            found = scan.resolve(ps, target)
            if found is not None and found.path != ps.path:
                near[ps.path].add(found.path)
                near[found.path].add(ps.path)
    return near


def check_suggested_links(scan: WikiScan) -> Iterator[Finding]:
    docs = [ps for ps in scan if ps.type in ("entity", "concept")]
    if len(docs) < 2:
        return
    tfs = {ps.path: _terms(ps) for ps in docs}
    df: Counter[str] = Counter()
    for tf in tfs.values():
        df.update(tf.keys())
    n = len(docs)
    max_df = max(2, min(100, n // 10))
    vectors: dict[str, dict[str, float]] = {}
    postings: dict[str, list[tuple[str, float]]] = defaultdict(list)
    for path, tf in tfs.items():
        weights = {
            t: (1 + math.log(c)) * math.log(n / df[t]) for t, c in tf.items() if df[t] <= max_df
        }
        norm = math.sqrt(sum(w * w for w in weights.values())) or 1.0
        top = sorted(weights.items(), key=lambda tw: (-tw[1], tw[0]))[:TOP_TERMS]
        vectors[path] = {t: w / norm for t, w in top}
        for t, w in vectors[path].items():
            postings[t].append((path, w))
    near = linked_pages(scan)
    for ps in docs:
        scores: dict[str, float] = defaultdict(float)
        for t, w in vectors[ps.path].items():
            for other, w2 in postings[t]:
                scores[other] += w * w2
        skip = near.get(ps.path, set()) | {ps.path}
        best = sorted(
            ((s, p) for p, s in scores.items() if p not in skip and s >= MIN_SIMILARITY),
            key=lambda sp: (-sp[0], sp[1]),
        )[:SUGGESTIONS]
        if best:
            yield suggested_links(scan, ps.path, best)


def suggested_links(scan: WikiScan, path: str, best: list[tuple[float, str]]) -> Finding:
    """The `suggested-link` finding for `path`: the (similarity, page) pairs of `best`."""
    shown = ", ".join(
        f"{render_link(scan.pages[p].page.name, alias=scan.pages[p].page.title)} ({s:.2f})"
        for s, p in best
    )
    return Finding(
        "info",
        "suggested-link",
        scan.rel(path),
        f"similar pages not linked yet: {shown}",
        "Add the ones that are related under ## Related.",
    )
