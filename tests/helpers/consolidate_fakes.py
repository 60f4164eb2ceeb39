"""Episode fixtures and a FakeBackend responder that plays the model's part in consolidation.

Episodes are written as source pages directly (as ingest would leave them), with blocks `^pN`.
The script names patterns and digest sentences by distinctive substrings of the blocks they
cite; the responder finds those blocks' ids (`e2p1`) in the prompt, as a model would.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from tests.helpers.wikitools import commit_pages
from wikic.llm.fake import FakeBackend, FakeCall
from wikic.paths import WikiPaths
from wikic.vault.pages import Page, render_page
from wikic.vault.sources import sha256_bytes

_BLOCK_RE = re.compile(r"^\[(e\d+p\d+)\] (.*)$", re.MULTILINE)
_TARGET_RE = re.compile(r"^- (t\d+): (.*?) — ", re.MULTILINE)
_TERMS_RE = re.compile(r"^Recurring terms: (.*)\.$", re.MULTILINE)
_TERM_RE = re.compile(r"(.*?) \(\d+ episodes\)(?:; |$)")


def raw_text(title: str, paragraphs: list[str]) -> str:
    return f"# {title}\n\n" + "\n\n".join(paragraphs) + "\n"


def episode_page(slug: str, title: str, paragraphs: list[str], raw: str | None = None) -> str:
    """The source page ingest would write for an episode (blocks ^p1…, sha256 of its raw)."""
    body = [f"# {title}", "", "## Text", ""]
    for i, text in enumerate(paragraphs, 1):
        body += [f"{text} ^p{i}", ""]
    props = {
        "type": "source",
        "title": title,
        "aliases": [],
        "tags": ["source", "journal"],
        "summary": paragraphs[0],
        "kind": "journal",
        "raw": raw or f"raw/{slug}.md",
        "sha256": sha256_bytes(raw_text(title, paragraphs).encode("utf-8")),
    }
    return render_page(Page(f"sources/{slug}.md", props, "\n".join(body)))


def add_episodes(paths: WikiPaths, notes: dict[str, list[str]]) -> None:
    """`notes`: slug (e.g. 2026-04-01-standup) → paragraphs. Writes raw/<slug>.md and commits
    its source page, as ingest would."""
    pages = {}
    for slug, paragraphs in notes.items():
        (paths.raw / f"{slug}.md").write_text(raw_text(slug, paragraphs), encoding="utf-8")
        pages[f"wiki/sources/{slug}.md"] = episode_page(slug, slug, paragraphs)
    commit_pages(paths, pages, title="episodes")


@dataclass
class ScriptedPattern:
    name: str  # a recurring term code offers (case-insensitive); others cannot be chosen
    statement: str
    target: str = "new"  # "new" or a substring of a target line (e.g. "concepts/ci")
    changed: tuple[str, str, str] | None = None  # (before substring, after substring, how)


@dataclass
class ConsolidateScript:
    digest: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)  # (text, cite subs)
    patterns: list[ScriptedPattern] = field(default_factory=list)

    def backend(self) -> FakeBackend:
        return FakeBackend(self.respond)

    def respond(self, call: FakeCall) -> dict:
        prompt = call.prompt
        blocks = _BLOCK_RE.findall(prompt)
        targets = _TARGET_RE.findall(prompt)

        def ids(subs: tuple[str, ...]) -> list[str]:
            return [bid for sub in subs for bid, text in blocks if sub in text]

        digest = [
            {"text": text, "cites": ids(subs)[:3]} for text, subs in self.digest if ids(subs)
        ] or [{"text": blocks[0][1][:150], "cites": [blocks[0][0]]}]
        terms_line = _TERMS_RE.search(prompt)
        offered = _TERM_RE.findall(terms_line.group(1)) if terms_line else []
        patterns = []
        for p in self.patterns:
            name = next((t for t in offered if t.casefold() == p.name.casefold()), None)
            if name is None:
                continue  # a constrained model can only pick an offered term
            target = "new"
            if p.target != "new":
                target = next((tid for tid, label in targets if p.target in label), "new")
            changed = None
            if p.changed and ids((p.changed[0],)) and ids((p.changed[1],)):
                changed = {
                    "before": ids((p.changed[0],))[0],
                    "after": ids((p.changed[1],))[0],
                    "how": p.changed[2],
                }
            patterns.append(
                {"name": name, "statement": p.statement, "target": target, "changed": changed}
            )
        return {"digest": digest[:3], "patterns": patterns[:3]}
