"""Facts on a topic page that are not about it: the check of issue 32's junk pages.

A fact on a page should name the page's subject (its title or an alias), follow on the page a
fact of the same source that does (a paragraph's second sentence: "It also …"), or come from a
section of its source whose heading (or a heading above it) names the subject. This
counts the facts that do neither, per page and in all, over a compiled wiki's topic pages.
A page most of whose facts are such is a junk page: a word that gathered other pages' facts.

With `--headings`, a fact from under a heading that names the subject counts as about it too
(a section's page: its facts need not repeat the heading's label).

    python scripts/check_fact_subjects.py WIKI [--headings] [--json] [--top N]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

from wikic.language.grounding import mentions
from wikic.vault.links import normalize_target
from wikic.vault.pages import parse_page
from wikic.vault.sections import FACTS, bullets, split_body

TOPIC_TYPES = frozenset({"entity", "concept"})


_BLOCK_RE = re.compile(r"\^(p\d+)\s*$")
_HEADING_RE = re.compile(r"^(#{1,6})\s+(.*?)\s*$")


def headings_of(source_body: str) -> dict[str, tuple[str, ...]]:
    """Each block id of a source page's `## Text` → the headings above it, outermost first."""
    found: dict[str, tuple[str, ...]] = {}
    stack: list[tuple[int, str]] = []
    in_text = False
    for line in source_body.splitlines():
        heading = _HEADING_RE.match(line)
        if heading and len(heading[1]) == 2:
            in_text = heading[2] == "Text"
            stack = []
            continue
        if not in_text:
            continue
        if heading:
            level = len(heading[1])
            stack = [(lv, h) for lv, h in stack if lv < level] + [(level, heading[2])]
        elif block := _BLOCK_RE.search(line):
            found[block[1]] = tuple(h for _, h in stack)
    return found


def stray_facts(
    names: list[str],
    facts: list[tuple[str, frozenset[str], tuple[str, ...]]],
    *,
    headings: bool = True,
) -> list[str]:
    """The texts of `facts` ((text, cited sources, headings over its cited blocks), in page
    order) that name none of `names`, do not directly follow a fact of a shared source that
    does and come from under no heading that names it."""
    stray = []
    previous: tuple[bool, frozenset[str]] = (False, frozenset())
    for text, cites, over in facts:
        named = mentions(names, text)
        under = headings and any(mentions(names, h) or mentions([h], names[0]) for h in over)
        if not (named or under or (previous[0] and previous[1] & cites)):
            stray.append(text)
        previous = (named or under, cites)
    return stray


@dataclass(frozen=True)
class PageCheck:
    facts: int
    stray: tuple[str, ...]
    sources: tuple[str, ...]  # the sources the stray facts cite


@dataclass(frozen=True)
class Checked:
    facts: int
    pages: dict[str, PageCheck]  # the pages with a stray fact, by path

    @property
    def stray_facts(self) -> int:
        return sum(len(p.stray) for p in self.pages.values())

    @property
    def junk_pages(self) -> list[str]:
        """Pages more than half of whose facts are stray."""
        return [path for path, p in self.pages.items() if 2 * len(p.stray) > p.facts]


def check(wiki: Path, *, headings: bool = False) -> Checked:
    pages: dict[str, PageCheck] = {}
    total = 0
    parsed = [
        parse_page(f.relative_to(wiki).as_posix(), f.read_text(encoding="utf-8"))
        for f in sorted(wiki.rglob("*.md"))
    ]
    blocks = {normalize_target(p.name): headings_of(p.body) for p in parsed if p.type == "source"}
    for page in parsed:
        if page.type not in TOPIC_TYPES:
            continue
        names = [page.title, *(str(a) for a in page.props.get("aliases") or [])]
        facts = []
        for b in bullets(split_body(page.body).get(FACTS)):
            cites = frozenset(normalize_target(c.target) for c in b.citations)
            over = tuple(
                h
                for c in b.citations
                for h in blocks.get(normalize_target(c.target), {}).get(str(c.block), ())
            )
            facts.append((b.text, cites, over))
        total += len(facts)
        stray = stray_facts(names, facts, headings=headings)
        if stray:
            sources = sorted({c for text, cites, _ in facts if text in stray for c in cites})
            pages[page.path] = PageCheck(len(facts), tuple(stray), tuple(sources))
    return Checked(total, pages)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("wiki", type=Path)
    parser.add_argument("--headings", action="store_true", help="a heading naming it counts")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--top", type=int, default=15)
    args = parser.parse_args(argv)
    if not args.wiki.is_dir():
        print(f"error: {args.wiki} is not a folder", file=sys.stderr)
        return 2
    found = check(args.wiki, headings=args.headings)
    if args.json:
        out = {
            "facts": found.facts,
            "stray_facts": found.stray_facts,
            "junk_pages": found.junk_pages,
            "pages": {path: asdict(p) for path, p in found.pages.items()},
        }
        print(json.dumps(out, indent=2))
        return 0
    print(
        f"{found.stray_facts} of {found.facts} facts name neither their page's title nor an "
        f"alias nor follow a fact that does; {len(found.junk_pages)} pages mostly such"
    )
    ranked = sorted(found.pages.items(), key=lambda kv: -len(kv[1].stray))
    for path, p in ranked[: args.top]:
        print(f"  {path}: {len(p.stray)}/{p.facts} from {len(p.sources)} sources")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
