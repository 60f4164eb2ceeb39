"""Twins at planning: a page that would be mostly another page of the batch is not made.

Two planned pages are twins when they would open with the same sentence, or when
`TWIN_SHARE` or more of one page's facts are on the other. They arise where one sentence names
several topics of a source (a heading's page and the term it defines, a command and its tool,
an option and its command), and where `plan.join_shared` adds a source's sentences to a page
that names the same things. Of a pair, the page mostly made of the other's facts (`_lesser`)
gives way, by one of three named rules:

- `MERGE`: the lesser page names the other or a narrower thing of it (`resolve.names_within`:
  its words hold all of the other's, `uv tree` / `uv`, `key value pair` / `key value`; an
  abbreviation; the last part of a command, `mlx_lm.awq` / `AWQ`), and the names are not
  `resolve.kept_apart`, and the lesser page is not named with its own abbreviation
  (`_abbreviated`: "Activation-aware Weight Quantization" (AWQ) is a named thing, not a
  narrower sense of "Quantization"). The lesser page becomes the other: one page, its name an
  alias.
  A lesser page that is thin and names itself in none of its own facts (`earns_page`: a
  heading's label, "Clearing the Cache"), and that the other page's yield would not leave
  `RICH` facts of its own (`rich_after_yield`: bbolt's `Cursor`), is merged too, but takes
  along only the facts the other page's subject is in: those already on it and those that
  name it, and its name becomes no alias of the other (a label is no name of it, nor "TXID"
  of SQLite). Its other facts stay on its source's page; moved, they made a word
  ("Specification") a page of every document's sentences about something else.
- `LIST`: such a thin page of a command, option, flag, key or file (`uv venv`, `git lfs track`,
  `lfs.url`; issue 32: a member of the page that holds its facts) is merged the same way and
  becomes a row of the other page, its name listed there (and an alias, so it is found).
- `TRIM`: two things (distinct enumerated names `AWQ`/`DWQ`, two code names
  `package_tea`/`package_water`, or names of unrelated words: `Consul` / `Leader election`).
  The lesser page keeps its own facts and fewer shared ones than `TWIN_SHARE` of it, never the
  other's opening; left with none, it is not made (`dropped`). Before a trim the other page
  yields (`YIELD`) the shared facts that name the lesser page and none of its own names (a
  term's definition in the other's paragraph), while it keeps `RICH` facts and its opening.
  A fact may be cited on two pages, but a page that is mostly another page's facts should
  not exist. The other page is never trimmed: taking shared facts off the larger page wore a
  document's main concept away (one small page after another took its sentences).

A trim never takes a source off a page several sources of the batch make: the facts of a
second source are what compounding is for (its contradictions too). Nor does it remove the
subject a source's title names (a source about sliding-window attention keeps that page even
when the Gemma 3 page it also feeds holds the same two sentences). Pages that existed before the batch are never
merged here (`wikic lint` reports those pairs,
`twin-facts`); a new page twin of an existing one gives way to it.
"""

from __future__ import annotations

import functools
import math
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from wikic.ingest.text import quote
from wikic.language.abbreviations import abbreviates
from wikic.language.grounding import mentions, related, same_word
from wikic.language.name_rules import code_name, kept_apart, names_within
from wikic.language.openings import defining_text, opening_fault, refers_back, subject_aliases
from wikic.language.prose_checks import links_as_text, plain
from wikic.language.stopwords import TOPICLESS_WORDS
from wikic.vault.name_keys import acronym, initials
from wikic.vault.topic_page import fact_id

if TYPE_CHECKING:  # plan runs `fold_twins` last
    from wikic.ingest.extract import Topic
    from wikic.ingest.plan import PageTarget, SourcePlan

_WORD_RE = re.compile(r"[A-Za-z0-9]+")
TWIN_SHARE = 0.6  # of a page's facts on another page: the two read as one concept twice
RICH = 3  # facts of a page that is not thin (issue 32: at most 25 % of pages have fewer)
MERGE = "merge"
TRIM = "trim"
LIST = "list"
YIELD = "yield"


@dataclass(frozen=True)
class _Page:
    target: PageTarget
    facts: tuple[str, ...]  # the folded texts of its facts, in plan order
    texts: tuple[str, ...]  # the same facts as written
    openings: frozenset[str]  # folded texts of the facts that may open it (one per source)
    heading: bool  # every topic planned onto it comes from a section heading
    subject: bool  # a source's title names it (`Topic.subject`): it never gives way
    names: tuple[str, ...]  # its title and the names its topics were given
    by_source: tuple[frozenset[str], ...]  # the folded texts of each source's facts on it
    code: bool = False  # a command, option, key or file: every topic on it is precise
    counted: bool = True  # its facts before the batch are counted (a new page has none)


@functools.lru_cache(maxsize=1 << 16)  # each step folds every planned fact again
def _fold(text: str) -> str:
    return " ".join(text.casefold().split())


def _pages(
    plans: Sequence[SourcePlan],
    leads_of: dict[tuple[str, tuple[str, ...], tuple[str, ...]], str],
    prior: Callable[[PageTarget], Sequence[str]] | None = None,
) -> dict[str, _Page]:
    """Every planned page; `leads_of` keeps each (title, facts)'s lead from step to step.
    `prior(target)`: the facts an existing page holds before the batch, as `_prior_facts`
    keys them, counted as its facts."""
    facts: dict[str, dict[str, str]] = {}  # path → folded text → text
    targets: dict[str, PageTarget] = {}
    heading: dict[str, bool] = {}
    subject: set[str] = set()
    names: dict[str, dict[str, None]] = {}
    leads: dict[str, set[str]] = {}
    by_source: dict[str, list[frozenset[str]]] = {}
    code: dict[str, bool] = {}
    for plan in plans:
        sentences = plan.extraction.sentences
        for topic, target in plan.topics:
            targets[target.path] = target
            heading[target.path] = heading.get(target.path, True) and topic.from_heading
            code[target.path] = code.get(target.path, True) and member_name(topic)
            if topic.subject:
                subject.add(target.path)
            names.setdefault(target.path, {target.title: None}).update(
                dict.fromkeys((topic.name, *topic.aliases))
            )
            have = facts.setdefault(target.path, {})
            texts = [sentences[sid].text for sid in topic.facts if sid in sentences]
            for text in texts:
                have.setdefault(_fold(text), text)
            by_source.setdefault(target.path, []).append(frozenset(map(_fold, texts)))
            if (
                texts
            ):  # the fact each source would open the page with (`language.openings.defining_text`)
                aliases = subject_aliases(target.title, *names[target.path])
                key = (target.title, tuple(texts), aliases)
                if key not in leads_of:
                    lead = defining_text(target.title, texts, aliases=aliases)
                    leads_of[key] = (
                        _fold(lead) if opening_fault([target.title], lead) is None else ""
                    )
                if leads_of[key]:
                    leads.setdefault(target.path, set()).add(leads_of[key])
    if prior is not None:
        for path, target in targets.items():
            if target.exists:
                for held in prior(target):
                    facts[path].setdefault(held, "" if held.startswith(_UNMATCHED) else held)
    return {
        path: _Page(
            targets[path],
            tuple(have),
            tuple(have.values()),
            frozenset(leads.get(path, ())),
            heading[path],
            path in subject,
            tuple(names[path]),
            tuple(by_source[path]),
            code[path],
            # a stub with no facts takes them, as `plan.join_shared` gives them: not its share
            counted=not targets[path].exists or (prior is not None and bool(prior(targets[path]))),
        )
        for path, have in facts.items()
    }


_UNMATCHED = "\x00"  # the key of an earlier fact no sentence of the batch is


def _prior_facts(
    plans: Sequence[SourcePlan], prior: Callable[[PageTarget], Sequence[str]]
) -> Callable[[PageTarget], tuple[str, ...]]:
    """The facts each existing page holds before the batch (`prior(target)`: their fact ids),
    keyed as `_pages` keys the planned ones: a sentence of the batch (a revisited source's) by
    its folded text, so that the pair's shared facts are found; any other fact by a key no
    planned fact has, which counts only for the page's size. A new page whose facts are mostly
    on an existing page, counting what that page held already, is its twin: one at a time, the
    OCI Image Manifest's subject page got two of its five sentences onto the existing `OCI`
    page, which held a third already from the content descriptors, a twin that the planned
    facts alone did not show. Computed once per fold, each page once."""
    known: dict[str, str] = {}

    @functools.cache
    def keys(target: PageTarget) -> tuple[str, ...]:
        ids = prior(target)
        if ids and not known:  # the batch's sentences by fact id, once
            known.update(
                (fact_id(quote(s.text)), _fold(s.text))
                for plan in plans
                for s in plan.extraction.sentences.values()
            )
        return tuple(known.get(i, f"{_UNMATCHED}{i}") for i in ids)

    return keys


def _lesser(a: _Page, b: _Page) -> tuple[_Page, _Page]:
    """(the page that gives way, the page it gives way to): a new page to an existing one or
    to a title's subject, fewer facts to more, a heading's page to a term's, a narrower name
    to the one it holds (`rotating KV cache` to `KV cache`)."""
    rank = [
        (
            p.target.exists,
            p.subject,
            len(p.facts),
            not p.heading,
            names_within(q.target.title, p.target.title),  # the broader name: `KV cache`
            p.target.path,
        )
        for p, q in ((a, b), (b, a))
    ]
    return (a, b) if rank[0] < rank[1] else (b, a)


def find_twin(pages: dict[str, _Page], settled: set[tuple[str, str]]) -> tuple[_Page, _Page] | None:
    """The first pair (lesser, other) of twins to resolve, but for the `settled` ones."""
    by_fact: dict[str, set[str]] = {}
    by_opening: dict[str, list[str]] = {}
    for path, page in pages.items():
        for fact in page.facts:
            by_fact.setdefault(fact, set()).add(path)
        if not page.target.exists:  # an existing page keeps the opening it has
            for lead in page.openings:
                by_opening.setdefault(lead, []).append(path)
    found: list[tuple[_Page, _Page]] = []
    for path, page in pages.items():
        if not page.counted:
            continue  # its facts before the batch are not known here: its share neither
        shared = Counter(q for f in page.facts for q in by_fact[f] if q != path)
        for other, n in shared.most_common():
            if n >= TWIN_SHARE * len(page.facts):
                found.append(_lesser(page, pages[other]))
    for paths in by_opening.values():
        found += [_lesser(pages[a], pages[b]) for a in paths for b in paths if a < b]

    found = [
        (p, q)
        for p, q in found
        if not p.target.exists and (p.target.path, q.target.path) not in settled
    ]
    # the lesser pages of fewest facts first; of one page's twins, a name of it first
    found.sort(
        key=lambda pq: (
            len(pq[0].facts),
            pq[0].target.path,
            rule_for(*pq) != MERGE,
            -len(pq[1].facts),
            pq[1].target.path,  # never the order of a set: the same pages, whatever the hash seed
        )
    )
    return found[0] if found else None


def rule_for(lesser: _Page, other: _Page) -> str:
    """`MERGE` or `TRIM` (see the module's docstring). A page named with its own abbreviation
    is a named thing, not a narrower sense of a word its name holds: "Activation-aware Weight
    Quantization" (AWQ) is trimmed against "Quantization", not merged into it."""
    if _abbreviated(lesser):
        return TRIM
    return _rule(lesser.target.title, other.target.title)


def _abbreviated(page: _Page) -> bool:
    """Whether one of `page`'s names is the abbreviation of its title: "AWQ" of
    "Activation-aware Weight Quantization", "WAL" of "Write-Ahead Log", "TXID" of "Transaction
    ID" (`abbreviations.abbreviates`)."""
    title = page.target.title
    if len(title.split()) < 2:
        return False
    spelled = {"".join(w[0] for w in title.split()).casefold(), initials(title)}
    return any(acronym(n) in spelled or abbreviates(n, title) for n in page.names if acronym(n))


@functools.lru_cache(maxsize=1 << 12)
def _rule(a: str, b: str) -> str:
    return MERGE if names_within(a, b) and not kept_apart(a, b) else TRIM


def earns_page(lesser: _Page, other: _Page) -> bool:
    """Whether the lesser page, trimmed, still earns a page: names `kept_apart` stay two pages;
    else it keeps `RICH` facts, or one of its own facts names it (what a reader looks up, where
    a heading's label, "Clearing the Cache", is named by none). A page that does not is merged
    into the other."""
    if kept_apart(lesser.target.title, other.target.title):
        return True
    theirs = set(other.facts)
    own = [t for f, t in zip(lesser.facts, lesser.texts, strict=True) if f not in theirs]
    shared = len(lesser.facts) - len(own)
    if len(own) + min(shared, _spare(len(own))) >= RICH:
        return True
    return any(mentions(list(lesser.names), t) for t in own)


def rich_after_yield(
    lesser: _Page, other: _Page, given: frozenset[str], pages: dict[str, _Page]
) -> bool:
    """Whether the lesser page keeps `RICH` facts of its own once the other page has yielded
    `given` (`_yielded`: the shared facts whose subject it is), and those that refer back to
    them; facts a third page of `pages` holds are not its own. One yielded fact that names it
    is not enough: `--no-install-workspace`, one item of uv's list of install options, stays
    a row of `uv sync` (`LIST`), as a thin member does. Nor a page mostly a third page's:
    LiteFS's `Consul` took two sentences off `Leader election`, then was merged into
    `Guarantees`, and the two were on neither."""
    if not given:
        return False
    skip = {lesser.target.path, other.target.path}
    theirs = set(other.facts) - given
    theirs |= {f for path, page in pages.items() if path not in skip for f in page.facts}
    own, previous = 0, False
    for f, t in zip(lesser.facts, lesser.texts, strict=True):
        # a sentence that refers back goes with its antecedent, the fact before it
        # (`plan._with_antecedents`): "It can seek to a specific key …" follows `Cursor`'s
        # definition onto its page
        previous = f not in theirs or (previous and refers_back(t))
        own += previous
    return own >= RICH


def _spare(own: int) -> int:
    """Shared facts a page of `own` facts of its own may keep below `TWIN_SHARE`."""
    return int(max(0, -(-own * TWIN_SHARE // (1 - TWIN_SHARE)) - 1))


def _below(facts: int) -> int:
    """Shared facts the lesser page may keep so that they are fewer than `TWIN_SHARE` of the
    other's `facts` too: the pair is twins from either side (a title's subject of five facts,
    four of them on an option's page that two sources write, was twins of it still)."""
    return max(0, math.ceil(TWIN_SHARE * facts) - 1)


def member_name(topic: Topic) -> bool:
    """Whether a topic's name is what a page lists as a member (`LIST`): a code name (a flag,
    key, file or identifier: `code_name`) or a command of several words (`uv venv`). A
    precise name of one plain word is a thing of its own: the project a document links to
    ("more complex tools such as [rqlite](…)") had become a row, and an alias, of LiteFS."""
    return code_name(topic.name) or (topic.precise and " " in topic.name.strip())


def fold_twins(
    plans: Sequence[SourcePlan], prior: Callable[[PageTarget], Sequence[str]] | None = None
) -> list[tuple[str, str, str]]:
    """Resolve every twin pair of the batch's plans in place; (rule, lesser title, other
    title) of each, in order. `prior(target)`: the fact ids an existing page holds."""
    done: list[tuple[str, str, str]] = []
    settled: set[tuple[str, str]] = set()  # pairs a trim could not part (`_trim`)
    leads_of: dict[tuple[str, tuple[str, ...], tuple[str, ...]], str] = {}
    steps = sum(len(t.facts) + 1 for p in plans for t, _ in p.topics)
    earlier = None if prior is None else _prior_facts(plans, prior)
    for _ in range(steps):  # each step removes a page or some of its facts, or settles a pair
        pages = _pages(plans, leads_of, earlier)
        pair = find_twin(pages, settled)
        if pair is None:
            break
        lesser, other = pair
        rule = rule_for(lesser, other)
        taken: frozenset[str] | None = None  # the facts a merge takes along (None: all)
        given = _yielded(lesser, other) if rule == TRIM else frozenset()
        # a thin page that earns none is merged or listed, but a named thing (a term with its
        # abbreviation, `_abbreviated`) is no member: "Transaction ID" (TXID) had become a row,
        # and an alias, of the Litestream page. One that the other page's yield makes `RICH`
        # earns it (`rich_after_yield`): bbolt's `Cursor`, defined by two sentences its B+tree
        # page held too, had been merged into that page
        if (
            rule == TRIM
            and not earns_page(lesser, other)
            and not rich_after_yield(lesser, other, given, pages)
            and not _abbreviated(lesser)
        ):
            rule = LIST if lesser.code else MERGE
            taken = about(lesser, other)
            given = frozenset()
        before = [p.topics[:] for p in plans]
        # a title's subject its own sentences name ("The `db` package is …"), not a title
        # that names no thing its facts speak of ("Cache notes A": those facts go to the page)
        whole = (
            lesser.subject
            and other.target.exists
            and any(mentions(list(lesser.names), t) for t in lesser.texts)
        )
        if whole:  # a title's subject keeps its page: an existing page gives up what it shares
            given = _off_existing(lesser, other)
        if given:  # `YIELD`: the other page gives up the facts about the lesser alone first
            for plan in plans:
                _give_up(plan, other.target, given, whole=whole)
            if [p.topics for p in plans] == before:
                settled.add((lesser.target.path, other.target.path))
            else:
                done.append((YIELD, lesser.target.title, other.target.title))
            continue
        spare = [min(_spare(len(set(lesser.facts) - set(other.facts))), _below(len(other.facts)))]
        for plan in plans:
            if rule == TRIM:
                _trim(plan, lesser, other, spare)
            else:  # a merge of unrelated names (a label, a page that earns none) adds no alias
                alias = rule == LIST or named_alike(lesser.target.title, other.target.title)
                _merge(plan, lesser.target, other.target, taken, listed=rule == LIST, alias=alias)
        if [p.topics for p in plans] == before:
            settled.add((lesser.target.path, other.target.path))
        else:
            done.append((rule, lesser.target.title, other.target.title))
    return done


def named_alike(a: str, b: str) -> bool:
    """Whether two page names can name one thing, so that one is an alias of the other when
    its page gives way: they share a word, inflected or not (`pdm export` / "Exporting the
    lockfile"), or one is the other's initials. "TXID" is no name of SQLite, nor a heading's
    label "Clearing the Cache" of `pipenv lock`."""
    if related(a, b):
        return True
    words = [[w.casefold() for w in _WORD_RE.findall(n)] for n in (a, b)]
    return any(same_word(x, y) for x in words[0] for y in words[1] if x not in TOPICLESS_WORDS)


def about(lesser: _Page, other: _Page) -> frozenset[str]:
    """The folded facts of `lesser` that may go onto `other` when a page that does not earn
    its own gives way: those `other` holds already, and those that name `other` (or, for a
    row of it, `lesser`). A fact that names neither is about something else: moved, it made
    a generic word a page of other documents' sentences."""
    names = [*other.names, *(lesser.names if lesser.code else ())]
    theirs = set(other.facts)
    return frozenset(
        f
        for f, t in zip(lesser.facts, lesser.texts, strict=True)
        if f in theirs or mentions(names, t)
    )


def _merge(
    plan: SourcePlan,
    lesser: PageTarget,
    other: PageTarget,
    taken: frozenset[str] | None = None,
    *,
    listed: bool = False,
    alias: bool = True,
) -> None:
    """`lesser`'s topic in `plan` made `other`'s: its names aliases (`listed`: its name a row
    of `other`; not `alias`: no names, where the two name different things: "TXID" is no
    other name of SQLite), its facts `taken` (all when None) added."""
    at = [i for i, (_, t) in enumerate(plan.topics) if t.path == lesser.path]
    if not at:
        return
    topic = plan.topics[at[0]][0]
    sentences = plan.extraction.sentences
    facts = tuple(
        f
        for f in topic.facts
        if taken is None or (f in sentences and _fold(sentences[f].text) in taken)
    )
    if len(facts) < len(topic.facts):
        plan.dropped.append(
            f"{topic.name} ({len(topic.facts) - len(facts)} of its facts name not {other.title}:"
            " they stay on the source's page)"
        )
    names = (topic.name, *topic.aliases) if alias else ()
    rows = (topic.name,) if listed else ()
    into = next((i for i, (_, t) in enumerate(plan.topics) if t.path == other.path), None)
    if into is None:
        if facts:
            moved = replace(
                topic,
                name=other.title,
                aliases=_unique(names),
                facts=facts,
                listed=_unique((*topic.listed, *rows)),
            )
            plan.topics[at[0]] = (moved, other)
        else:
            del plan.topics[at[0]]
        return
    kept, target = plan.topics[into]
    plan.topics[into] = (
        replace(
            kept,
            aliases=_unique((*kept.aliases, *names)),
            facts=_unique((*kept.facts, *facts)),
            usage=_unique((*kept.usage, *topic.usage)),
            listed=_unique((*kept.listed, *topic.listed, *rows)),
        ),
        target,
    )
    del plan.topics[at[0]]


def _yielded(lesser: _Page, other: _Page) -> frozenset[str]:
    """The folded facts `other` gives up to `lesser` before a trim (`YIELD`): those the two
    share that name the lesser page and none of the other's names, never the other's opening
    nor a sentence that refers back (its subject is the other's), and only while the other
    keeps `RICH` facts; and those whose subject is the lesser page (`_subject_of`), while
    another source's fact may open the other. Such a fact is about the lesser page's subject
    and sits on the other page as a neighbour in its section: LiteFS's "Distributed leases work
    by obtaining a lock on a key within Consul …" on its `Leader election` page, which a trim
    had taken off `Consul`."""
    theirs = set(other.facts)
    names = [n for n in lesser.names if n != other.target.title]
    given = [
        f
        for f, t in zip(lesser.facts, lesser.texts, strict=True)
        if f in theirs
        and not refers_back(t)  # "It is usually faster than LLVM": about the other page's subject
        and mentions(names, t)
        and (
            (f not in other.openings and not mentions(list(other.names), t))
            # its subject is the lesser page's: the other gives it up, even where one source
            # would have opened the other page with it, while another source opens it or it
            # is not the other's subject either ("Bolt is a pure Go key/value store …" had
            # opened "Key value" and been trimmed off "Bolt")
            or (
                _subject_of(names, t)
                and (bool(other.openings - {f}) or not _subject_of(list(other.names), t))
            )
        )
    ]
    if not given or len(theirs) - len(given) < RICH:
        return frozenset()
    return frozenset(given)


def _subject_of(names: Sequence[str], text: str) -> bool:
    """Whether `text` opens with one of `names`, its subject: "[Activation-aware Weight
    Quantization (AWQ)](…) doesn't quantize all the weights …" is about AWQ, whatever else
    it names, and goes to AWQ's page rather than stay on "Quantization" alone."""
    flat = plain(links_as_text(text)).lstrip("*_\"'“(`")
    flat = re.sub(r"^(?:the|a|an)\s+", "", flat, flags=re.IGNORECASE)
    return any(
        re.match(rf"{re.escape(n.strip('`'))}(?![\w-])", flat, re.IGNORECASE)
        for n in names
        if len(n.strip("`")) > 1
    )


def _off_existing(subject: _Page, existing: _Page) -> frozenset[str]:
    """The folded facts an existing page gives up to a title's `subject` page of the batch
    that shares them: those that do not name the existing page ("Sliding-window attention
    limits each token …" off `Gemma 3`, which keeps "Gemma 3 interleaves local sliding-window
    layers …"); where every one names it, all of them (rqlite's "DB Package" opens with two
    sentences that name SQLite: they had merged the subject into the SQLite page)."""
    theirs = set(existing.facts)
    shared = [(f, t) for f, t in zip(subject.facts, subject.texts, strict=True) if f in theirs]
    names = list(existing.names)
    apart = frozenset(f for f, t in shared if not mentions(names, t))
    return apart or frozenset(f for f, _ in shared)


def _give_up(
    plan: SourcePlan, other: PageTarget, given: frozenset[str], *, whole: bool = False
) -> None:
    """Take the `given` facts off `other`'s topic in `plan` (`YIELD`), never its last fact (a
    source stays on a page it makes), but for an existing page (`whole`): a source whose title's
    subject it would hold does not update it at all (rqlite's "DB Package", two sentences that
    name SQLite, had been merged into the SQLite page an earlier source made)."""
    sentences = plan.extraction.sentences
    for i, (topic, target) in enumerate(plan.topics):
        if target.path != other.path:
            continue
        kept = tuple(
            f for f in topic.facts if f not in sentences or _fold(sentences[f].text) not in given
        )
        if kept and kept != topic.facts:
            plan.topics[i] = (replace(topic, facts=kept), target)
        elif not kept and whole:
            del plan.topics[i]
            plan.dropped.append(f"{topic.name} (its facts are on the title's subject)")
        return


def _trim(plan: SourcePlan, lesser: _Page, other: _Page, spare: list[int]) -> None:
    """Take the facts `other` holds off `lesser`'s topic in `plan`, but for as many as keep
    below `TWIN_SHARE` of the page (`spare`, counted over every plan; never an opening of
    either): a shared fact may be cited on both pages, so long as the page stays mostly its
    own."""
    sentences = plan.extraction.sentences
    theirs = set(other.facts)
    for i, (topic, target) in enumerate(plan.topics):
        if target.path != lesser.target.path:
            continue
        mine: list[str] = []
        for f in topic.facts:
            text = _fold(sentences[f].text) if f in sentences else ""
            if text not in theirs:
                mine.append(f)
            elif spare[0] and text not in other.openings and text not in lesser.openings:
                mine.append(f)
                spare[0] -= 1
        if not mine and (len(lesser.by_source) > 1 or lesser.subject):
            return  # a trim never takes a source off a page another source makes too, nor
            # removes the subject a source's title names
        if mine:
            plan.topics[i] = (replace(topic, facts=tuple(mine)), target)
        else:
            del plan.topics[i]
            plan.dropped.append(f"{topic.name} (its facts are on {other.target.title})")
        return


def _unique(items: Sequence[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(items))
