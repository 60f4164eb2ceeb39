"""Episode fixtures and a FakeBackend responder that plays the model's part in consolidation.

Episodes are written as source pages directly (as ingest would leave them), with blocks `^pN`.
The script names patterns and digest sentences by distinctive substrings of the blocks they
cite; the responder finds those blocks' ids (`e2p1`) in the prompt, as a model would.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from tests.helpers.wikitools import commit_pages
from wikic.llm.fake import FakeBackend, FakeCall
from wikic.paths import WikiPaths
from wikic.vault.document import parse_document, render_source_body
from wikic.vault.pages import Page, render_page
from wikic.vault.sources import sha256_bytes

_BLOCK_RE = re.compile(r"^\[(e\d+p\d+)\] (.*)$", re.MULTILINE)
_ITEM_RE = re.compile(r"^\[(r\d+)\] (PATTERN, )?\d+ notes \([^)]*\): (.*)$")
_SENTENCE_RE = re.compile(r"^  - \d{4}-\d{2}-\d{2}: (.*)$")
_TARGETS_RE = re.compile(r"^  may belong to: (.*)$")
_TARGET_RE = re.compile(r"\[(t\d+)\] (.*?) — ")


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
    about: str  # a substring of the recurring item's name or of one of its sentences shown
    name: str = ""  # the name the model proposes; "" repeats code's name for it
    statement: str = ""  # "" proposes the item's first sentence shown
    target: str = "new"  # "new" or a substring of a target line (e.g. "concepts/ci")


@dataclass(frozen=True)
class ShownItem:
    id: str
    pattern: bool
    name: str
    sentences: tuple[str, ...]
    targets: tuple[tuple[str, str], ...]  # (id, label)


def shown_items(prompt: str) -> list[ShownItem]:
    """The recurring items a consolidation prompt shows, as the model reads them."""
    items: list[ShownItem] = []
    for line in prompt.split("\n"):
        if m := _ITEM_RE.match(line):
            items.append(ShownItem(m.group(1), bool(m.group(2)), m.group(3), (), ()))
        elif items and (m := _SENTENCE_RE.match(line)):
            last = items[-1]
            items[-1] = ShownItem(
                last.id, last.pattern, last.name, (*last.sentences, m.group(1)), last.targets
            )
        elif items and (m := _TARGETS_RE.match(line)):
            last = items[-1]
            found = tuple(_TARGET_RE.findall(m.group(1) + "; "))
            items[-1] = ShownItem(last.id, last.pattern, last.name, last.sentences, found)
    return items


@dataclass
class ConsolidateScript:
    """The model's part: digest sentences cited by substrings of their blocks, and patterns
    proposed for the recurring items code shows (a constrained model can name no other)."""

    digest: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)  # (text, cite subs)
    patterns: list[ScriptedPattern] = field(default_factory=list)

    def backend(self) -> FakeBackend:
        return FakeBackend(self.respond)

    def respond(self, call: FakeCall) -> dict:
        prompt = call.prompt
        blocks = _BLOCK_RE.findall(prompt)

        def ids(subs: tuple[str, ...]) -> list[str]:
            return [bid for sub in subs for bid, text in blocks if sub in text]

        digest = [
            {"text": text[:200], "cites": ids(subs)[:3]} for text, subs in self.digest if ids(subs)
        ]
        items = [i for i in shown_items(prompt) if i.pattern]
        patterns = []
        for p in self.patterns:
            about = p.about.casefold()
            item = next(
                (
                    i
                    for i in items
                    if about in i.name.casefold() or any(about in s.casefold() for s in i.sentences)
                ),
                None,
            )
            if item is None or any(x["id"] == item.id for x in patterns):
                continue
            target = "new"
            if p.target != "new":
                target = next((tid for tid, label in item.targets if p.target in label), "new")
            statement = p.statement or (item.sentences[0] if item.sentences else item.name)
            patterns.append(
                {
                    "id": item.id,
                    "name": (p.name or item.name)[:90],
                    "statement": statement[:200],
                    "target": target,
                }
            )
        return {"digest": digest[:5], "patterns": patterns[:4]}


def add_notes(paths: WikiPaths, notes: list[Path]) -> None:
    """Dated notes (markdown files) as ingest would leave them: each copied to raw/journal/
    and its source page rendered from its document, with blocks ^p1…; one commit."""
    (paths.raw / "journal").mkdir(parents=True, exist_ok=True)
    pages = {}
    for note in notes:
        data = note.read_bytes()
        (paths.raw / "journal" / note.name).write_bytes(data)
        doc = parse_document(data.decode("utf-8"), filename=note.name)
        first = doc.blocks[0].sentences[0].text if doc.blocks[0].sentences else doc.title
        props = {
            "type": "source",
            "title": doc.title,
            "aliases": [],
            "tags": ["source", "journal"],
            "summary": first,
            "kind": "journal",
            "raw": f"raw/journal/{note.name}",
            "sha256": sha256_bytes(data),
        }
        body = f"# {doc.title}\n\n{first}\n\n## Text\n\n{render_source_body(doc)}"
        pages[f"wiki/sources/{note.stem}.md"] = render_page(Page("", props, body))
    commit_pages(paths, pages, title="notes")
