"""twin-facts: two topic pages that are one concept twice, found from their text alone.

No model and no embeddings: it runs with the structural rules (from cron too). A pair of entity
or concept pages is reported when

- `SAME_OPENING`: both open with the same sentence (the summary's first sentence, links
  flattened, case and spacing folded);
- `SHARED_FACTS`: `TWIN_SHARE` or more of one page's facts (their text, citations left out,
  links flattened) are facts of the other;
- `COMMAND_OF`: a command or API page is named after a concept page: its name is one code word
  (`resolve.code_name`) whose last part is the concept's title, or an alias of it that is no
  code word (`mlx_lm.awq` next to `AWQ`; not "Understanding the WAL" next to `WAL`, nor
  `poetry.lock` next to the uv page, whose alias `--locked` names an option listed there).

Distinct names are never reported, however alike the pages read (`ingest.resolve.kept_apart`:
`AWQ`/`DWQ`, `tier 1`/`tier 2`, `HTTP_PROXY`/`HTTPS_PROXY`, two code names), nor two pages of one
name (`duplicate-title` reports those). The finding names the command that makes them one:
`wikic merge PAGE INTO`, where PAGE is the command page, the page mostly made of the other's
facts, or the one of fewer facts. Ingest resolves the same rule while it plans (`ingest.twins`);
this rule finds the pairs older wikis, hand edits and separate ingests left.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator

from wikic.language.name_rules import code_name, kept_apart, last_component, names_within
from wikic.lint.findings import Finding
from wikic.lint.page_scan import PageScan
from wikic.lint.scan import WikiScan
from wikic.vault.names import name_key

TOPIC_TYPES = ("entity", "concept")
TWIN_SHARE = 0.6  # of one page's facts on the other: the two read as one concept twice
SAME_OPENING = "same-opening"
SHARED_FACTS = "shared-facts"
COMMAND_OF = "command-of"
_SENTENCE_END_RE = re.compile(r"(?<=[.!?])\s+(?=[A-Z`*\"'(\[])")
_CITATION_RE = re.compile(r"\[\[sources/[^\]]*\]\]")
_LINK_RE = re.compile(r"\[\[([^\]|#]*)(?:#[^\]|]*)?(?:\|([^\]]*))?\]\]")


def _flat(text: str) -> str:
    """Text with citations dropped, links as their shown text, case and spacing folded."""
    text = _CITATION_RE.sub("", text)
    text = _LINK_RE.sub(lambda m: m.group(2) or m.group(1).rsplit("/", 1)[-1], text)
    return " ".join(text.casefold().split())


def opening(summary: str) -> str:
    """The first sentence of a summary, flattened (`_flat`)."""
    return _flat(_SENTENCE_END_RE.split(summary.strip(), maxsplit=1)[0])


def _names(ps: PageScan) -> tuple[str, ...]:
    return (ps.page.title, *ps.page.aliases)


def twin_pairs(scan: WikiScan) -> dict[tuple[str, str], tuple[str, str]]:
    """(page that gives way, page that stays) → (kind, detail) of every twin pair."""
    pages = [ps for ps in scan if ps.type in TOPIC_TYPES]
    facts = {ps.path: {_flat(f.text) for f in ps.facts} - {""} for ps in pages}
    by_fact: dict[str, set[str]] = {}
    by_opening: dict[str, list[PageScan]] = {}
    by_key: dict[str, PageScan] = {}  # a concept by its title and its aliases that are no code
    for ps in pages:
        for fact in facts[ps.path]:
            by_fact.setdefault(fact, set()).add(ps.path)
        if lead := opening(ps.page.summary):
            by_opening.setdefault(lead, []).append(ps)
        for name in _names(ps):
            if name == ps.page.title or not code_name(name):  # an option listed on it is none
                by_key.setdefault(name_key(name), ps)
    found: dict[tuple[str, str], tuple[str, str]] = {}

    def add(drop: PageScan, keep: PageScan, kind: str, detail: str) -> None:
        a, b = drop.page.title, keep.page.title
        if name_key(a) == name_key(b) or kept_apart(a, b):
            return
        if (keep.path, drop.path) not in found:
            found.setdefault((drop.path, keep.path), (kind, detail))

    for ps in pages:  # a command or API named after a concept
        last = last_component(ps.page.title) if code_name(ps.page.title) else ""
        concept = by_key.get(name_key(last)) if last else None
        if concept is not None and concept.path != ps.path:
            add(ps, concept, COMMAND_OF, f"'{ps.page.title}' is named after '{last}'")
    for ps in pages:
        mine = facts[ps.path]
        shared = Counter(q for f in mine for q in by_fact[f] if q != ps.path)
        for other, n in sorted(shared.items()):
            if n >= TWIN_SHARE * len(mine):
                add(ps, scan.pages[other], SHARED_FACTS, f"{n} of its {len(mine)} facts")
    for group in by_opening.values():
        for i, a in enumerate(group):
            for b in group[i + 1 :]:
                drop, keep = sorted((a, b), key=lambda p: (len(p.facts), -len(p.path), p.path))
                add(drop, keep, SAME_OPENING, "the same opening sentence")
    return found


def one_concept(drop: PageScan, keep: PageScan, kind: str, scan_facts: set[str]) -> bool:
    """Whether merging is surely right: a command named after the concept, a name that names
    the other or a narrower thing of it (`resolve.names_within`: `pdm sync` / `pdm`), or a page
    with no fact of its own (`scan_facts`: the other's facts)."""
    own = {_flat(f.text) for f in drop.facts} - scan_facts - {""}
    return kind == COMMAND_OF or names_within(drop.page.title, keep.page.title) or not own


def check_twin_facts(scan: WikiScan) -> Iterator[Finding]:
    """twin-facts: two topic pages that are one concept twice (see the module's docstring). A
    warning where merging is surely right (`one_concept`); else info: two things one source
    discusses in the same sentences read alike too, and the fix may be to keep the shared
    facts on one page. One finding a page: the surest of its merges."""
    best: dict[str, tuple[tuple[bool, bool, str], str, str, str, bool]] = {}
    for (drop_path, keep_path), (kind, detail) in twin_pairs(scan).items():
        drop, keep = scan.pages[drop_path], scan.pages[keep_path]
        surely = one_concept(drop, keep, kind, {_flat(f.text) for f in keep.facts})
        named = names_within(drop.page.title, keep.page.title)
        rank = (not surely, not named, keep_path)  # one finding a page: its surest merge
        if drop_path not in best or rank < best[drop_path][0]:
            best[drop_path] = (rank, keep_path, kind, detail, surely)
    for drop_path, (_, keep_path, kind, detail, surely) in sorted(best.items()):
        drop, keep = scan.pages[drop_path], scan.pages[keep_path]
        why = {
            COMMAND_OF: f"{detail}, a concept page",
            SHARED_FACTS: f"{detail} are facts of it",
            SAME_OPENING: "both open with the same sentence",
        }[kind]
        merge = f"wikic merge {drop.path.removesuffix('.md')} {keep.path.removesuffix('.md')}"
        yield Finding(
            "warning" if surely else "info",
            "twin-facts",
            scan.rel(drop.path),
            f"'{drop.page.title}' and '{keep.page.title}' ({scan.rel(keep.path)}) read as one "
            f"concept twice: {why}",
            f"Make them one page: {merge}"
            if surely
            else f"If they are one concept: {merge}; if not, keep the shared facts on one page",
        )
