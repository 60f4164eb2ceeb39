"""The evidence an answer may cite: ranked units packed under a token budget, grouped by page
(best page first), each citable unit numbered `[1]`, `[2]`, …. A unit is a `Fact` (a topic
page's bullet, with the source paragraph it cites) or a `Block` (a paragraph, list item, table,
code block or overview).

Packing never exceeds the budget (as the model's tokenizer counts it); a unit whose words are
already shown (the same fact on two pages, a paragraph that is just a fact) is shown once.
The numbers are the only ids an answer can cite; code maps them back to links.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar

from wikic.language.sentences import RESPECTIVELY_RE
from wikic.language.stemming import stem_prefix
from wikic.language.stopwords import QUERY_STOP_WORDS
from wikic.query.terms import KeyTerm, holds, missing_terms, text_words
from wikic.vault.document import names_release

TokenCounter = Callable[[str], int]
UNIT_TOKENS = 120  # a longer paragraph is cut to its sentences most about the question
MIN_UNIT_TOKENS = 12  # a cut shorter than this is not worth its tokens
PROMOTE_AFTER = 3  # a unit holding a question's term none packed holds comes after the best 3
_SENTENCE_RE = re.compile(r"(?<=[.!?])\s+(?=[\"'`(\[A-Z0-9])")
# "this flag", "these values", "It …": a sentence about what the one before it names
REFERS_BACK_RE = re.compile(r"^(?:It|They|This|These)\b|\b(?:this|these|such) [a-z]{3,}\b")
_WORD_RE = re.compile(r"[^\W_]+")


def _leans_back(sentence: str) -> bool:
    """Whether a sentence of a paragraph means something only after the one before it: it
    refers back ("this flag", "It …") or gives values "respectively"."""
    return bool(REFERS_BACK_RE.search(sentence) or RESPECTIVELY_RE.search(sentence))


# blocks of a source in their order: a list, code block or table after its lead-in
KIND_ORDER = {"overview": 0, "fact": 1, "para": 2, "item": 2, "code": 2, "table": 2}


@dataclass(frozen=True, kw_only=True)
class Unit:
    """What every unit that may be shown has; only its two kinds are made (`Evidence`). `page`
    groups units (a page path, or a raw file for plain retrieval); `heading` names the group;
    `link` is the citation target (`sources/x#^p3`, `entities/y#^f-1a2b`), None for an
    overview, which is shown but not citable."""

    page: str
    heading: str
    text: str
    link: str | None
    score: float
    ordinal: int = 0
    section: str = ""
    reason: str = "search"  # search: matched the question; link: one hop from a top page

    @property
    def targets(self) -> tuple[str, ...]:
        """The blocks that hold this unit's words: its own."""
        return (self.link,) if self.link else ()


@dataclass(frozen=True, kw_only=True)
class Fact(Unit):
    """A fact bullet of a topic page, with its citation: `holds` the source paragraph it was
    copied from, `context` that paragraph's text, `before` the source block before it and
    `after` the code block right after it, each as (link, text), in its section; `origin` the
    title of the source page it cites (the document it comes from: "LiteFS Architecture" for
    a fact of the concept page "LTX file")."""

    kind: ClassVar[str] = "fact"
    holds: str | None = None
    origin: str = ""
    context: str | None = None
    before: tuple[str, str] | None = None
    after: tuple[str, str] | None = None

    @property
    def targets(self) -> tuple[str, ...]:
        """The blocks that hold this fact's words: its own and the source paragraph it cites."""
        return tuple(x for x in (self.link, self.holds) if x)


@dataclass(frozen=True, kw_only=True)
class Block(Unit):
    """A block of a page: a source page's paragraph, list item, table or code block, or a
    topic page's overview (for plain retrieval, a raw file's paragraph)."""

    kind: str  # para | item | table | code | overview


Evidence = Fact | Block


@dataclass(frozen=True)
class Shown:
    """A unit as shown to the model: `id` is its number (0 for an uncited overview)."""

    id: int
    evidence: Evidence
    text: str  # possibly cut to fit
    tokens: int


@dataclass(frozen=True)
class Packed:
    text: str  # the rendered evidence block
    shown: tuple[Shown, ...]  # in render order
    tokens: int

    @property
    def ids(self) -> list[int]:
        return [s.id for s in self.shown if s.id]

    def by_id(self, n: int) -> Shown | None:
        return next((s for s in self.shown if s.id == n), None)

    @property
    def pages(self) -> list[str]:
        return list(dict.fromkeys(s.evidence.page for s in self.shown))


def words(text: str) -> list[str]:
    return _WORD_RE.findall(text.casefold())


def excerpt(
    text: str,
    query_words: Sequence[str],
    budget: int,
    count: TokenCounter,
    *,
    relevant_only: bool = False,
    keep_best: bool = False,
) -> str:
    """The sentences of `text` most about `query_words` (not counting stop words) that fit in
    `budget`, in text order; with `relevant_only`, only sentences that share a word with them
    ('' when none does). A sentence that refers back ("… so it uses this flag") comes with the
    one before it, and that one with its own antecedent while it refers back too: a sentence
    is kept with its chain or not at all ("It's extremely important that this parameter is
    not too large." without "llama accepts a `-t N` parameter." names no parameter). With
    `keep_best` (a quote), the best sentence's chain is kept whole even past `budget`: the
    budget bounds what is added to it. Sentences are taken by what they say of the question
    per token (`score` over their cost), chain by chain: a long sentence that names the
    question's words no better than a short one does not crowd out the short one's chain."""
    sentences = [s for s in _SENTENCE_RE.split(text.strip()) if s]
    stems = {stem_prefix(w) for w in query_words if w not in QUERY_STOP_WORDS}
    held = [{x for x in stems if any(w.startswith(x) for w in words(s))} for s in sentences]
    rarity = {x: math.log(1 + len(sentences) / max(1, sum(x in h for h in held))) for x in stems}

    def score(i: int) -> float:
        """The question's words sentence `i` holds, each once, a word fewer of the text's
        sentences hold weighing more: "The default settings are 5 minutes and 1 GB" answers
        "By default, how often …?" in a paragraph where every sentence says "checkpoint"."""
        return sum(rarity[x] for x in held[i])

    def chain(i: int) -> list[int]:
        out = [i]
        while out[-1] > 0 and _leans_back(sentences[out[-1]]):
            out.append(out[-1] - 1)
        return out

    costs = [count(s) + 1 for s in sentences]
    candidates = [i for i in range(len(sentences)) if not relevant_only or score(i) > 0]
    kept: list[int] = []
    if keep_best and candidates:
        kept = chain(max(candidates, key=lambda i: (score(i), -i)))
    used = sum(costs[j] for j in kept)
    while True:  # then the chain that says most of the question per token, while one fits
        best: tuple[float, float, int, list[int], int] | None = None
        for i in candidates:
            new = [j for j in chain(i) if j not in kept]
            cost = sum(costs[j] for j in new)
            if not new or used + cost > budget:
                continue
            value = sum(score(j) for j in new)
            option = (value / cost, value, -i, new, cost)
            if best is None or option[:3] > best[:3]:
                best = option
        if best is None:
            break
        kept += best[3]
        used += best[4]
    if not kept:
        return ""
    parts: list[str] = []
    last = -2
    for i in sorted(kept):
        if (i != last + 1 and parts) or (i > 0 and not parts):
            parts.append("…")
        parts.append(sentences[i])
        last = i
    return " ".join(parts)


def _without_shown(text: str, shown: list[str]) -> str | None:
    """`text` without the shown units it repeats (a paragraph holding a fact already shown
    keeps only its other sentences); None when nothing new is left."""
    flat = " ".join(words(text))
    if not flat or any(flat in " ".join(words(other)) for other in shown):
        return None
    for other in shown:
        if other in text:
            text = " ".join(text.replace(other, " … ").split())
    text = re.sub(r"…(?:\s*…)+", "…", text)  # sentences shown in a row: one gap
    return text if words(text) else None


def code_span(code: str) -> str:
    """`code` as inline code, fenced by more backticks than it holds in a row."""
    ticks = "`" * (max((len(r) for r in re.findall(r"`+", code)), default=0) + 1)
    pad = " " if code.startswith("`") or code.endswith("`") else ""
    return f"{ticks}{pad}{code}{pad}{ticks}"


def relevant_lines(
    text: str, query_words: Sequence[str], budget: int, count: TokenCounter, *, sep: str = "\n"
) -> str:
    """The lines (a table's rows: `sep` "; ") of a long code block or table a question is about,
    within `budget` tokens: its first line (the command, the `usage:` line, the table's header),
    then the lines that hold the question's rarest words, in order, with `…` for what was left
    out. Asked "How many times does llama-bench repeat each test by default?", a 30-line option
    listing shows `-r, --repetitions <n> (default: 5)`, where its first words ended before it;
    asked about "35 layers", a benchmark table shows its row with 35. A word on most lines
    ("default") counts for nothing, others weigh 1 / the lines holding them; of lines that
    weigh as much, the one holding more of the question's words comes first ("tg 128 with 35
    layers": the row with 35 and tg 128 before the row with 35 and pp 512). The first words
    when no line holds a word of the question; the whole text when it fits."""
    if count(text) <= budget:
        return text
    lines = [line.strip() for line in text.split(sep) if line.strip()]
    stems = {stem_prefix(w) for w in query_words if w not in QUERY_STOP_WORDS}
    matched = [{x for x in stems for w in words(line) if w.startswith(x)} for line in lines]
    spread = {x: sum(x in m for m in matched) for x in stems}
    rare = {x for x, n in spread.items() if n <= max(1, len(lines) // 3)}
    score = [sum(1 / spread[x] for x in m & rare) for m in matched]
    # of lines as rare, the one with more of the question's other words: "35 | tg 128" first
    ranked = sorted(
        (i for i in range(1, len(lines)) if score[i] > 0),
        key=lambda i: (-score[i], -len(matched[i])),
    )
    if not ranked:
        return head(text, budget, count)

    def joined(kept: list[int]) -> str:
        parts: list[str] = []
        for n, i in enumerate(kept):
            if n and i != kept[n - 1] + 1:
                parts.append("…")
            parts.append(lines[i])
        return sep.join([*parts, "…"] if kept[-1] != len(lines) - 1 else parts)

    kept = [0]
    for i in ranked:
        if count(joined(sorted([*kept, i]))) <= budget:
            kept = sorted([*kept, i])
    return joined(kept)


def head(text: str, budget: int, count: TokenCounter) -> str:
    """The first words of `text` that fit in `budget` tokens, with `…` when cut (code: it has
    no sentences to choose from)."""
    if count(text) <= budget:
        return text
    kept = text.split()
    while kept and count(" ".join(kept) + " …") > budget:
        kept = kept[: max(0, min(len(kept) - 1, len(kept) * 3 // 4))]
    return " ".join(kept) + " …" if kept else ""


def release_of(e: Evidence) -> str:
    """The release or day `e`'s section sits under ("0.5 (2023-07-12)" of "0.5 (2023-07-12):
    New features", "2024-03-05"), '' when it names none."""
    head = e.section.split(": ", 1)[0].strip()
    return head if head and names_release(head) else ""


def unit_text(e: Evidence, text: str) -> str:
    """A unit as shown and quoted: a code block as inline code."""
    return code_span(text) if e.kind == "code" else text


def _render_unit(n: int, e: Evidence, text: str) -> str:
    if not n:
        return text
    label = f"{e.section}: " if e.section else ""
    return f"[{n}] {label}{unit_text(e, text)}"


def pack(
    ranked: Sequence[Evidence],
    query_words: Sequence[str],
    budget: int,
    count: TokenCounter,
    terms: Sequence[KeyTerm] = (),
) -> Packed:
    """Take units in `ranked` order (best first) while they fit in `budget` tokens with their
    group headings; render them grouped by page, pages in order of their best unit, units in
    page order, citable ones numbered from 1. A lead-in ("To see the path, run this:", "The
    required keys are:") brings the code block, list items or table it introduces (`introduced`):
    one without the other says nothing.

    A number or name of the question (`terms`) that no packed unit holds is looked for further
    down `ranked`: the best unit holding it is packed after the first `PROMOTE_AFTER`. Search
    ranks a long table low for one rare number ("… with 35 layers offloaded?" is answered by
    one row of sixteen), and an answer is declined when no shown unit holds a number or name
    the question asks about (`terms.unsupported`)."""
    packed = _pack(ranked, query_words, budget, count)
    wanted = [t for t in terms if t.kind in ("number", "name")]
    missing = missing_terms(wanted, [s.text for s in packed.shown])
    shown = {id(s.evidence) for s in packed.shown}
    promoted: list[Evidence] = []
    for term in missing:
        unit = next(
            (e for e in ranked if id(e) not in shown and holds(text_words([e.text]), term)),
            None,
        )
        if unit is not None and all(unit is not p for p in promoted):
            promoted.append(unit)
    if not promoted:
        return packed
    rest = [e for e in ranked if all(e is not p for p in promoted)]
    return _pack(
        [*rest[:PROMOTE_AFTER], *promoted, *rest[PROMOTE_AFTER:]], query_words, budget, count
    )


def _pack(
    ranked: Sequence[Evidence],
    query_words: Sequence[str],
    budget: int,
    count: TokenCounter,
) -> Packed:
    chosen: list[tuple[Evidence, str, int]] = []
    used = 0

    def take(e: Evidence, *, whole: bool = False) -> bool:
        nonlocal used
        if any(c is e for c, _, _ in chosen):
            return False  # taken already, after its lead-in
        source = e.text
        if e.kind in ("code", "table") and count(source) > UNIT_TOKENS:
            sep = "\n" if e.kind == "code" else "; "
            source = relevant_lines(source, query_words, UNIT_TOKENS, count, sep=sep)
        flat = " ".join(source.split())
        shown = [t for _, t, _ in chosen]
        if e.kind == "code":  # whole or not at all: `… set turbo` is no command
            text = None if _without_shown(flat, shown) is None else flat
        else:
            text = _without_shown(flat, shown)
        if text is None and whole:
            text = flat  # an item a lead-in introduces, shown as a fact too: a list has no gaps
        if text is None:
            return False
        tokens = count(text)
        if tokens > UNIT_TOKENS:
            text = (
                head(text, UNIT_TOKENS, count)
                if e.kind in ("code", "table")
                else excerpt(text, query_words, UNIT_TOKENS, count)
            )
            tokens = count(text)
            if tokens < MIN_UNIT_TOKENS:
                return False
        cost = tokens + 4  # the "[n] " label and the line break
        if all(c[0].page != e.page for c in chosen):
            cost += count(_heading(e)) + 2
        if used + cost > budget:
            return False
        chosen.append((e, text, cost))
        used += cost
        return True

    for e in ranked:
        if take(e):
            for unit in introduced(e, ranked):
                if not any(c is unit for c, _, _ in chosen) and not take(unit, whole=True):
                    break
    return _render(chosen, budget, count)


FOLLOWER_KINDS = ("item", "code", "table")  # what a lead-in ending with ':' introduces
MAX_FOLLOWERS = 6


def is_lead_in(e: Evidence) -> bool:
    """A source paragraph or list item ending with ':' ("The required keys are:", "If the
    content matches the pointer format:" above its nested steps) or '?' (notes' 'What is a
    "major change"?' above the items that answer it), or a list item that is only a condition
    ('If a "major change" PR is opened without going through this process', no stop, no
    comma, above what then happens)."""
    if e.kind not in ("para", "item"):
        return False
    text = e.text.rstrip()
    if text[-1:] in (":", "?"):
        return True
    condition = _CONDITION_RE.match(text) is not None and "," not in text
    return e.kind == "item" and condition and text[-1:] not in ".!;)"


_CONDITION_RE = re.compile(r"(?:If|When|Whenever|Once|Unless|Before|After)\s", re.I)


def introduced(lead_in: Evidence, pool: Sequence[Evidence]) -> list[Evidence]:
    """The units of `pool` that `lead_in` (a paragraph or item: "The required keys are:", "run
    this:") introduces: the list items, code block or table right after it on its page and in
    its section, in order, while each is in `pool` (at most `MAX_FOLLOWERS`)."""
    if not is_lead_in(lead_in):
        return []
    at = {(u.page, u.ordinal): u for u in pool if u.kind in FOLLOWER_KINDS}
    found: list[Evidence] = []
    while len(found) < MAX_FOLLOWERS:
        unit = at.get((lead_in.page, lead_in.ordinal + len(found) + 1))
        if unit is None or unit.section != lead_in.section:
            break  # a list ends with its section
        found.append(unit)
    return found


def _heading(e: Evidence) -> str:
    return f"## {e.heading}"


def _render(chosen: list[tuple[Evidence, str, int]], budget: int, count: TokenCounter) -> Packed:
    while True:
        page_order = list(dict.fromkeys(e.page for e, _, _ in chosen))
        blocks: list[str] = []
        shown: list[Shown] = []
        n = 0
        for page in page_order:
            units = sorted(
                ((e, t) for e, t, _ in chosen if e.page == page),
                key=lambda u: (KIND_ORDER.get(u[0].kind, 3), u[0].ordinal),
            )
            lines = [_heading(units[0][0])]
            for e, text in units:
                n += 1 if e.link else 0
                number = n if e.link else 0
                lines.append(_render_unit(number, e, text))
                shown.append(Shown(number, e, text, count(text)))
            blocks.append("\n".join(lines))
        rendered = "\n\n".join(blocks)
        tokens = count(rendered) if rendered else 0
        if tokens <= budget or not chosen:
            return Packed(rendered, tuple(shown), tokens)
        chosen = chosen[:-1]  # separators made it too long: drop the weakest unit
