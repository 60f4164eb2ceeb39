"""A small wiki that lints clean, built in code, and helpers to break it one rule at a time.

Pages follow the layout ingest writes: source pages with `## Text` paragraphs ending in `^pN`,
entity/concept pages with cited `## Facts`, `## Related` and `## Sources`, and one analysis.
Every change goes through `commit_pages`, so the wiki stays committed and index.md current
unless a test breaks that on purpose.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path

from tests.helpers.wikitools import commit_pages, git, make_wiki
from wikic.lint import LintOptions, LintReport, run_lint
from wikic.paths import WikiPaths, open_paths
from wikic.vault.pages import Page, render_page
from wikic.vault.sources import sha256_bytes, split_paragraphs

DAY = dt.date(2026, 3, 1)
SOURCES = {
    "kv-cache": (
        "The KV cache",
        [
            "A transformer decoder stores the keys and values of past tokens in a KV cache.",
            "Prefix caching reuses the KV cache of a shared prompt prefix across requests.",
            "Gemma 3 interleaves 5 local sliding-window layers with 1 global layer.",
        ],
    ),
    "sliding-window": (
        "Sliding-window attention",
        [
            "Sliding-window attention limits each token to a fixed window of recent tokens.",
            "Trimming a rotating KV cache is impossible once it has wrapped.",
        ],
    ),
}
# (type, slug, title, aliases, facts [(text, source, paragraph)], related [name])
TOPICS = [
    ("concept", "kv-cache", "KV cache", [],
     [("A decoder keeps past keys and values in the KV cache.", "kv-cache", 1)],
     ["concepts/prefix-caching", "entities/gemma-3"]),
    ("concept", "prefix-caching", "Prefix caching", [],
     [("Prefix caching reuses the KV cache of a shared prefix.", "kv-cache", 2),
      ("A wrapped rotating cache cannot be trimmed.", "sliding-window", 2)],
     ["concepts/kv-cache"]),
    ("entity", "gemma-3", "Gemma 3", ["Gemma three"],
     [("Gemma 3 interleaves 5 local layers with 1 global layer.", "kv-cache", 3)],
     ["concepts/kv-cache", "concepts/sliding-window-attention"]),
    ("concept", "sliding-window-attention", "Sliding-window attention", ["SWA"],
     [("Each token attends to a fixed window of recent tokens.", "sliding-window", 1)],
     ["entities/gemma-3"]),
]  # fmt: skip
FOLDERS = {"concept": "concepts", "entity": "entities"}


def fact_line(text: str, source: str, para: int, block: str) -> str:
    return f"- {text} [[sources/{source}#^p{para}]] ^{block}"


def raw_text(slug: str) -> str:
    title, paragraphs = SOURCES[slug]
    return f"# {title}\n\n" + "\n\n".join(paragraphs) + "\n"


def source_page(slug: str, raw: str | None = None, topics: list[str] | None = None) -> str:
    title, _ = SOURCES[slug]
    raw = raw if raw is not None else raw_text(slug)
    paras = split_paragraphs(raw)
    lines = [f"# {title}", "", f"What {title.lower()} says.", "", "## Pages", ""]
    lines += [f"- [[{t}]]" for t in topics or []]
    lines += ["", "## Text", ""]
    for p in paras:
        lines += [f"{p.text} ^{p.id}", ""]
    props = {
        "type": "source",
        "title": title,
        "aliases": [],
        "tags": ["source", "note"],
        "summary": f"What {title.lower()} says.",
        "kind": "note",
        "raw": f"raw/{slug}.md",
        "sha256": sha256_bytes(raw.encode()),
        "created": DAY,
        "ingested": DAY,
    }
    return render_page(Page(f"sources/{slug}.md", props, "\n".join(lines)))


def topic_page(
    kind: str,
    title: str,
    facts: list[str],
    related: list[str],
    sources: list[str],
    *,
    aliases: list[str] | None = None,
    extra_props: dict[str, object] | None = None,
    extra_body: str = "",
) -> str:
    body = [f"# {title}", "", f"{title} in short.", "", "## Facts", "", *facts, ""]
    if related:
        body += ["## Related", "", *[f"- [[{r}]]" for r in related], ""]
    if extra_body:
        body += [extra_body, ""]
    body += ["## Sources", "", *[f"- [[sources/{s}|{SOURCES[s][0]}]]" for s in sources]]
    props = {
        "type": kind,
        "title": title,
        "aliases": aliases or [],
        "tags": [kind],
        "summary": f"{title} in short.",
        "sources": [f"[[sources/{s}]]" for s in sources],
        "created": DAY,
        "updated": DAY,
        **(extra_props or {}),
    }
    return render_page(Page("x.md", props, "\n".join(body)))


def clean_pages() -> dict[str, str]:
    pages: dict[str, str] = {}
    cited: dict[str, list[str]] = {s: [] for s in SOURCES}
    for n, (kind, slug, title, aliases, facts, related) in enumerate(TOPICS):
        name = f"{FOLDERS[kind]}/{slug}"
        lines = [fact_line(t, s, p, f"f-{n}{i}a") for i, (t, s, p) in enumerate(facts)]
        sources = list(dict.fromkeys(s for _, s, _ in facts))
        for s in sources:
            cited[s].append(name)
        pages[f"wiki/{name}.md"] = topic_page(kind, title, lines, related, sources, aliases=aliases)
    for slug in SOURCES:
        pages[f"wiki/sources/{slug}.md"] = source_page(slug, topics=cited[slug])
    analysis = Page(
        "analyses/why-prefix-caching.md",
        {
            "type": "analysis",
            "title": "Why prefix caching?",
            "question": "Why prefix caching?",
            "summary": "It saves prefill.",
            "consulted": ["[[concepts/prefix-caching]]"],
            "created": DAY,
            "updated": DAY,
        },
        "# Why prefix caching?\n\nBecause [[concepts/prefix-caching|prefix caching]] saves prefill.",
    )
    pages["wiki/analyses/why-prefix-caching.md"] = render_page(analysis)
    return pages


@dataclass
class FixtureWiki:
    paths: WikiPaths

    @property
    def root(self) -> Path:
        return self.paths.root

    def read(self, rel: str) -> str:
        return (self.root / rel).read_text(encoding="utf-8")

    def commit(self, pages: dict[str, str | None], title: str = "fixture") -> None:
        commit_pages(self.paths, pages, title)

    def edit(self, rel: str, old: str, new: str) -> None:
        text = self.read(rel)
        assert old in text, f"{old!r} not in {rel}"
        self.commit({rel: text.replace(old, new, 1)})

    def git_commit(self, message: str = "by hand") -> None:
        git(self.root, "add", "-A")
        git(self.root, "commit", "-qm", message)

    def set_config(self, text: str) -> None:
        (self.root / "wikic.yaml").write_text(text, encoding="utf-8")
        self.git_commit("config")
        self.paths = open_paths(self.root)

    def lint(self, **options: object) -> LintReport:
        return run_lint(self.paths, LintOptions(**options), today=DAY)  # type: ignore[arg-type]

    def rules(self, **options: object) -> set[str]:
        return {f.rule for f in self.lint(**options).findings}


def build_clean_wiki(root: Path) -> FixtureWiki:
    """Two sources, four entity/concept pages, one analysis: zero lint findings."""
    paths = make_wiki(root)
    for slug in SOURCES:
        (paths.raw / f"{slug}.md").write_text(raw_text(slug), encoding="utf-8")
    wiki = FixtureWiki(paths)
    wiki.git_commit("sources")
    wiki.commit(clean_pages(), "clean fixture")
    return wiki
