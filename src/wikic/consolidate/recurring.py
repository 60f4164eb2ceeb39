"""What recurs across the whole history of episodes: sentences of different episodes that say
the same thing, found by code, and the phrase that names it.

A *core* is two term words one sentence holds together, in at least `min_episodes` distinct
episodes; a sentence counts for a core only when it shares a third term word with a sentence of
another episode holding the core (two notes that share two words by coincidence are no
recurrence). Cores whose paragraphs mostly coincide are one *item*; each sentence then belongs to
the one item it shares the most words with, so two items that share a word stay apart. Pure
functions of the episodes given: the same history always gives the same items.
"""

from __future__ import annotations

import hashlib
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations

from wikic.consolidate.episodes import Episode, EpisodeBlock
from wikic.consolidate.words import keys
from wikic.language.stemming import stem
from wikic.language.stopwords import ARTICLES, NOTE_FILLER_WORDS, QUERY_STOP_WORDS

NOT_TERMS = QUERY_STOP_WORDS | NOTE_FILLER_WORDS
NOT_TERM_STEMS = frozenset(stem(w) for w in NOT_TERMS)
MAX_NAME_WORDS = 12
MIN_NAME_WORDS = 3
ASSIGN_ROUNDS = 3
_TOKEN_RE = re.compile(r"[^\W_][\w.+'’-]*[^\W_]|[^\W_]")
_WORD_ONLY_RE = re.compile(r"[^\W\d_]+")
_CLAUSE_RE = re.compile(r"[,;:()]|\s[-–—]+\s|(?<=\w)[.!?](?=\s|$)")


@dataclass(frozen=True)
class Unit:
    """One sentence of one episode block, with its term words."""

    episode: Episode
    block: EpisodeBlock
    index: int  # the sentence's position in its block
    text: str
    terms: frozenset[str]

    @property
    def ref(self) -> tuple[str, str]:
        return (self.episode.page, self.block.id)


@dataclass(frozen=True)
class Recurring:
    """Sentences of `min_episodes` or more episodes that say the same thing."""

    words: tuple[str, ...]  # its term words, in the most episodes first
    units: tuple[Unit, ...]  # in date order
    weights: tuple[tuple[str, int], ...]  # word → distinct episodes of its sentences holding it

    @property
    def key(self) -> str:
        """Stable across runs over the same history: a hash of its sentences."""
        text = "\n".join(f"{u.episode.page}#{u.block.id}.{u.index}" for u in self.units)
        return hashlib.sha1(text.encode("utf-8")).hexdigest()[:8]

    @property
    def episodes(self) -> tuple[Episode, ...]:
        return tuple({u.episode.page: u.episode for u in self.units}.values())

    @property
    def refs(self) -> tuple[tuple[str, str], ...]:
        """(episode page, block id) of its blocks, in date order."""
        return tuple(dict.fromkeys(u.ref for u in self.units))

    def weight(self, word: str) -> int:
        return dict(self.weights).get(word, 0)


def term_key(token: str) -> str | None:
    """The comparison key of a token that can say what a note is about, else None: a word
    (stemmed) that is no stop or everyday word (three letters at least, or an acronym: "CI"),
    or an identifier kept whole (`max_tokens`,
    `S3`, `LD_PRELOAD`). Numbers alone are not terms: "2" recurs by coincidence."""
    if _WORD_ONLY_RE.fullmatch(token):
        found = keys(token)
        key = found[0] if len(found) == 1 else ""
        long_enough = len(token) >= 3 or (len(token) == 2 and token.isupper())  # CI, DB
        ok = long_enough and token.casefold() not in NOT_TERMS and key not in NOT_TERM_STEMS
        return key if ok and key else None
    if not any(c.isalpha() for c in token):
        return None
    token = token.strip("'’.-+")
    if len(token) < 2 or token.casefold() in NOT_TERMS:
        return None
    return token.casefold()


def terms_of(text: str) -> frozenset[str]:
    return frozenset(k for k in (term_key(t) for t in _TOKEN_RE.findall(text)) if k)


def units_of(episodes: Iterable[Episode]) -> list[Unit]:
    found = []
    for ep in episodes:
        for block in ep.blocks:
            for i, sentence in enumerate(block.sentences or (block.text,)):
                terms = terms_of(sentence)
                if terms:
                    found.append(Unit(ep, block, i, sentence, terms))
    return found


def find_recurring(episodes: Sequence[Episode], *, min_episodes: int = 2) -> list[Recurring]:
    """What recurs in `episodes` (every one given, whatever its period), most episodes first."""
    units = units_of(sorted(episodes, key=lambda e: (e.date, e.page)))
    cores = _cores(units, min_episodes)
    groups = _group(cores, units)
    items = _assign(groups, units, min_episodes)
    return sorted(items, key=lambda r: (-len(r.episodes), r.units[0].episode.date, r.words))


def _distinct(members: Iterable[Unit]) -> int:
    return len({u.episode.page for u in members})


def _cores(units: Sequence[Unit], min_episodes: int) -> dict[tuple[str, str], list[int]]:
    by_pair: dict[tuple[str, str], list[int]] = defaultdict(list)
    for n, unit in enumerate(units):
        for pair in combinations(sorted(unit.terms), 2):
            by_pair[pair].append(n)
    in_note: dict[str, set[str]] = defaultdict(set)  # the term words of each note
    for u in units:
        in_note[u.episode.page] |= u.terms
    cores = {}
    for pair, members in by_pair.items():
        if _distinct(units[n] for n in members) < min_episodes:
            continue
        kept = _coherent(pair, members, units, in_note)
        if _distinct(units[n] for n in kept) >= min_episodes:
            cores[pair] = kept
    return cores


def _coherent(
    pair: tuple[str, str],
    members: Sequence[int],
    units: Sequence[Unit],
    in_note: dict[str, set[str]],
) -> list[int]:
    """The members whose note shares a term word besides the pair with the note of a member
    of another episode (a note may give the cause in one sentence and the symptom in the
    next: "prefill was slow: 3 tokens per second", "mlx used its reference BLAS")."""
    rest = {n: in_note[units[n].episode.page] - set(pair) for n in members}
    return [
        n
        for n in members
        if any(
            units[m].episode.page != units[n].episode.page and rest[n] & rest[m] for m in members
        )
    ]


def _group(
    cores: dict[tuple[str, str], list[int]], units: Sequence[Unit]
) -> list[set[tuple[str, str]]]:
    """Cores joined when half the paragraphs of the smaller one are paragraphs of the other."""
    pairs = sorted(cores)
    blocks = {p: {units[n].ref for n in cores[p]} for p in pairs}
    parent = {p: p for p in pairs}

    def root(p: tuple[str, str]) -> tuple[str, str]:
        while parent[p] != p:
            parent[p] = parent[parent[p]]
            p = parent[p]
        return p

    for a, b in combinations(pairs, 2):
        shared = len(blocks[a] & blocks[b])
        if shared and shared * 2 >= min(len(blocks[a]), len(blocks[b])):
            parent[root(b)] = root(a)
    groups: dict[tuple[str, str], set[tuple[str, str]]] = defaultdict(set)
    for p in pairs:
        groups[root(p)].add(p)
    return [groups[k] for k in sorted(groups)]


def _weights(group: set[tuple[str, str]], members: Iterable[Unit]) -> dict[str, int]:
    words = {w for pair in group for w in pair}
    found: dict[str, set[str]] = defaultdict(set)
    for u in members:
        for w in u.terms & words:
            found[w].add(u.episode.page)
    return {w: len(pages) for w, pages in found.items()}


def _assign(
    groups: list[set[tuple[str, str]]], units: Sequence[Unit], min_episodes: int
) -> list[Recurring]:
    """Each sentence holding a core of some group goes to the group it shares most weight
    with; groups left with fewer than `min_episodes` episodes give their sentences back."""
    live = list(range(len(groups)))
    weights = [_weights(g, (u for u in units if any(set(p) <= u.terms for p in g))) for g in groups]
    chosen: dict[int, list[Unit]] = {}
    for _ in range(ASSIGN_ROUNDS):
        chosen = defaultdict(list)
        for u in units:
            fits = [
                (sum(weights[g].get(w, 0) for w in u.terms), -g)
                for g in live
                if any(set(p) <= u.terms for p in groups[g])
            ]
            if fits:
                chosen[-max(fits)[1]].append(u)
        survivors = [g for g in live if _distinct(chosen.get(g, [])) >= min_episodes]
        if survivors == live:
            break
        live = survivors
    items = []
    for g in live:
        members = chosen.get(g, [])
        if _distinct(members) < min_episodes:
            continue
        weight = _weights(groups[g], members)
        ordered = sorted(weight, key=lambda w: (-weight[w], w))
        items.append(
            Recurring(
                tuple(ordered),
                tuple(
                    sorted(
                        members, key=lambda u: (u.episode.date, u.episode.page, u.ref[1], u.index)
                    )
                ),
                tuple((w, weight[w]) for w in ordered),
            )
        )
    return items


# -- naming ---------------------------------------------------------------------------------


def clauses(sentence: str) -> list[str]:
    return [c.strip() for c in _CLAUSE_RE.split(sentence) if c and c.strip()]


def phrase(item: Recurring, avoid: Iterable[tuple[str, str]] = ()) -> str:
    """The phrase that names `item`: the stretch of one clause of its sentences that holds the
    most of its words (by how many episodes hold each), shortest on a tie, at most
    `MAX_NAME_WORDS` words. Sentences in `avoid` ((page, block)) state a change, not what
    recurs: they name it only when nothing else does."""
    skip = set(avoid)
    best: tuple[float, int, int, str] | None = None
    for rank, pool in enumerate(
        ([u for u in item.units if u.ref not in skip] or list(item.units), list(item.units))
    ):
        for order, unit in enumerate(pool):
            for clause in clauses(unit.text):
                found = _best_span(clause, item)
                if found is None:
                    continue
                score, text = found
                key = (score, -len(text.split()), -order - 1000 * rank, text)
                if best is None or key > best:
                    best = key
        if best is not None:
            break
    return best[3] if best else ""


def _best_span(clause: str, item: Recurring) -> tuple[float, str] | None:
    tokens = list(_TOKEN_RE.finditer(clause))
    keys_ = [term_key(t.group()) for t in tokens]
    hits = [i for i, k in enumerate(keys_) if k and item.weight(k)]
    if len({keys_[i] for i in hits}) < 2:
        return None
    best: tuple[float, int, int, int] | None = None
    for a, b in combinations(hits, 2):
        if b - a + 1 > MAX_NAME_WORDS:
            continue
        held = sum(item.weight(k) for k in {keys_[i] for i in range(a, b + 1)} if k)
        key = (held - (b - a + 1) / 4, -(b - a), a, b)  # a word must earn its place
        if best is None or key > best:
            best = key
    if best is None:
        return None
    words = [t.group() for t in tokens]
    a, b = _widen(best[2], best[3], keys_, words)
    text = clause[tokens[a].start() : tokens[b].end()]
    if words[a].casefold() in NOT_TERMS and words[a].islower():  # "the docs build broke"
        text = text[0].upper() + text[1:]
    return best[0], text


def _widen(a: int, b: int, keys_: Sequence[str | None], words: Sequence[str]) -> tuple[int, int]:
    """The span grown within its clause: to its first words when one or two come before
    (leading stop words left out, articles kept: "The docs build broke"), to its last when one
    or two remain and the last says something ("… reference BLAS speed", "… port 8080"), and to
    `MIN_NAME_WORDS` words."""
    size = len(words)
    if a <= 2:
        a = next(
            (
                i
                for i in range(a)
                if words[i].casefold() in ARTICLES or words[i].casefold() not in NOT_TERMS
            ),
            a,
        )
    last = words[size - 1]
    if 0 < size - 1 - b <= 2 and (keys_[size - 1] is not None or any(c.isdigit() for c in last)):
        b = size - 1
    while b - a + 1 < MIN_NAME_WORDS and (a > 0 or b < size - 1):
        if b < size - 1:
            b += 1
        else:
            a -= 1
    return a, b
