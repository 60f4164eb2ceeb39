"""Count the facts of a compiled wiki that refer back without their antecedent: a fact bullet
that opens by pointing at what came before ("This file …", "These …", `language.openings.
refers_back`) whose bullet before it in its group is not from the same source paragraph, or
that has no bullet before it; also the pages that open with such a sentence. English only.

    .venv/bin/python scripts/orphan_refer_backs.py WIKI_DIR [--list]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from wikic.language.openings import refers_back
from wikic.vault.pages import parse_page
from wikic.vault.sections import split_body
from wikic.vault.topic_page import Fact, parse_facts


def _paragraph(fact: Fact) -> str:
    return fact.citations[0][2:-2].split("|", 1)[0] if fact.citations else ""


def orphans(facts: list[Fact]) -> list[Fact]:
    """The refer-back facts of one page whose antecedent is not the bullet right before them
    (in the same group, cited to the same source paragraph)."""
    found = []
    for i, fact in enumerate(facts):
        if not refers_back(fact.text):
            continue
        before = facts[i - 1] if i else None
        if (
            before is None
            or before.section != fact.section
            or _paragraph(before) != _paragraph(fact)
        ):
            found.append(fact)
    return found


def count(wiki: Path) -> dict[str, object]:
    pages = listed = openings = 0
    where: list[str] = []
    for path in sorted([*wiki.glob("concepts/*.md"), *wiki.glob("entities/*.md")]):
        page = parse_page(str(path.relative_to(wiki)), path.read_text(encoding="utf-8"))
        pages += 1
        bad = orphans(parse_facts(split_body(page.body)))
        listed += len(bad)
        where += [f"{page.path}: {f.text}" for f in bad]
        openings += refers_back(str(page.props.get("summary") or ""))
    return {
        "topic_pages": pages,
        "orphan_refer_backs": listed,
        "refer_back_openings": openings,
        "list": where,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("wiki", type=Path, help="the wiki/ folder of a compiled wiki")
    parser.add_argument("--list", action="store_true", help="list each orphan fact")
    args = parser.parse_args(argv)
    if not args.wiki.is_dir():
        print(f"Error: {args.wiki} is no folder", file=sys.stderr)
        return 2
    found = count(args.wiki)
    if not args.list:
        found.pop("list")
    print(json.dumps(found, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
