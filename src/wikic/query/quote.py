"""Quoted answers (`query.answer_style: quote`, the default): the answer quotes the shown
units that answer the question, each with its link; the model names the ones it would quote and
says whether they answer, and code picks the quotes (`select`).

Why quotes: with the default 0.5B model on the realistic corpus, the fact a question asks for
was in the shown evidence 96 % of the time, but the model's own sentences stated it 15 % of the
time (bench_compile-corpus6-qa.json): it paraphrased numbers and names away. Why code picks:
asked for the numbers of the facts that answer, the same model listed the first ones shown
([1, 2, 3] for 14 of 20 questions, starting at 1 for 17; bench_quality_corpus6-modelpicks.json),
so its choice only breaks ties. A few ids also decode in seconds where sentences took a minute.
Larger models can write their own sentences (`answer_style: write`, `query.compose`).

A quote is a fact whole (a fact is one self-contained sentence) or the sentences of a
paragraph most about the question, so a citation always holds exactly what is quoted.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model

from wikic.language.prose_checks import links_as_text
from wikic.language.stemming import stem
from wikic.language.stopwords import QUERY_STOP_WORDS
from wikic.query.evidence import (
    REFERS_BACK_RE,
    Block,
    Fact,
    Packed,
    Shown,
    TokenCounter,
    code_span,
    excerpt,
    introduced,
    is_lead_in,
    relevant_lines,
    words,
)
from wikic.query.terms import asked_for, key_terms, text_words
from wikic.query.terms import holds as holds_term

MAX_QUOTES = 3
QUOTE_TOKENS = 90  # a paragraph is quoted by its sentences most about the question, this many


def quote_model(ids: Sequence[int]) -> type[BaseModel]:
    """The schema: one to `MAX_QUOTES` ids (an enum of the shown numbers), then `answerable`
    (after the ids: asked first, the default model said false to questions a fact answers)."""
    id_type: Any = Literal[tuple(ids)] if ids else Literal[0]
    return create_model(
        "Answer",
        __config__=ConfigDict(extra="forbid"),
        ids=(list[id_type], Field(min_length=1, max_length=MAX_QUOTES)),
        answerable=(bool, ...),
    )


def quote_text(unit: Shown, question: str, count: TokenCounter) -> str:
    """What the answer quotes of `unit`: a fact whole; a code block as inline code and a table
    as its rows (when long, the first line and the lines about the question:
    `relevant_lines`); a paragraph's or list item's sentences about
    the question, the most relevant that fit in `QUOTE_TOKENS`, in text order, with `…` where
    sentences were left out (its opening sentences when none shares a word with it)."""
    text = " ".join(unit.text.split())
    if unit.evidence.kind == "code":  # the lines about the question
        lines = relevant_lines(unit.evidence.text, words(question), QUOTE_TOKENS, count)
        return code_span(" ".join(lines.split()))
    if unit.evidence.kind == "table":  # the header and the rows about the question
        rows = relevant_lines(unit.evidence.text, words(question), QUOTE_TOKENS, count, sep="; ")
        return " ".join(rows.split())
    if unit.evidence.kind == "fact" or count(text) <= QUOTE_TOKENS:
        return text
    asked = words(question)
    return (
        excerpt(text, asked, QUOTE_TOKENS, count, relevant_only=True, keep_best=True)
        or excerpt(text, [], QUOTE_TOKENS, count)
        or text
    )


def in_context(quotes: Sequence[Shown], count: TokenCounter) -> list[tuple[Shown, Shown | None]]:
    """`quotes` as (what to quote, the fact it stands for or None): a quoted fact as the source
    paragraph it was copied from, cited to the fact and that paragraph, when the paragraph says
    more. The fact says what the question asks about, its neighbours often the rest ("Once the
    deferral count reaches a limit (QSBR_DEFERRED_LIMIT, currently 10) …" comes after "To
    reduce memory contention …, its advancement is sometimes deferred.", the cost a question
    asks for). A paragraph another quote already cites keeps the fact as it is; two facts of
    one paragraph quote it once; a long paragraph is quoted by its sentences about the question
    (`quote_text`). A fact that opens its paragraph referring back brings the source block
    before it (`_antecedent`); one that ends its paragraph, the code block after it
    (`_example`). The answer is checked (declines) on the facts, before this: a paragraph's
    other sentences answer nothing on their own."""
    cited = {q.evidence.link for q in quotes if q.evidence.kind != "fact"}
    out: list[tuple[Shown, Shown | None]] = []
    for unit in quotes:
        e = unit.evidence
        if not isinstance(e, Fact):
            out.append((unit, None))
            continue
        context, holds = e.context or "", e.holds or ""
        taken = cited | {q.evidence.link for q, _ in out}
        whole = (
            context
            and holds not in cited
            and len(words(context)) > len(words(e.text)) + 2  # not the fact alone
            and _flat(e.text) in _flat(context)  # the fact is in it
        )
        if whole and holds in taken:
            continue  # its paragraph is quoted already
        antecedent = _antecedent(e, context, taken, count)
        if antecedent is not None:
            out.append((antecedent, None))
        if not whole:
            out.append((unit, None))
        else:
            para = _block(e, (holds, context), "para")
            out.append((replace(unit, evidence=para, text=context, tokens=count(context)), unit))
        example = _example(e, context, cited | {q.evidence.link for q, _ in out}, count)
        if example is not None:
            out.append((example, None))
    return out


def _example(fact: Fact, context: str, taken: set[str | None], count: TokenCounter) -> Shown | None:
    """The code block right after a quoted fact's paragraph, in its section, when the fact
    ends that paragraph: the sentence before a code block introduces it, with a stop as often
    as with a colon ("First, we'll install the tools we're going to use from the `measureme`
    repository." above `cargo install … crox flamegraph summarize`)."""
    if fact.after is None or fact.after[0] in taken:
        return None
    if not _flat(context).endswith(_flat(fact.text)):
        return None
    return _neighbour(fact, fact.after, "code", count)


def _antecedent(
    fact: Fact, context: str, taken: set[str | None], count: TokenCounter
) -> Shown | None:
    """The source block before a quoted fact's paragraph, in its section, when the fact opens
    that paragraph and its first sentence refers back ("The key and value of each entry in
    this dict reference the same object." — the dict is named in the paragraph before), unless
    it is quoted already."""
    if fact.before is None or fact.before[0] in taken:
        return None
    opens = _flat(context).startswith(_flat(fact.text))
    first = re.split(r"(?<=[.!?])\s+", fact.text.strip(), maxsplit=1)[0]
    if not opens or not REFERS_BACK_RE.search(first):
        return None
    return _neighbour(fact, fact.before, "para", count)


def _neighbour(fact: Fact, block: tuple[str, str], kind: str, count: TokenCounter) -> Shown:
    """The source block `block` (link, text) next to `fact`'s paragraph, as an unnumbered unit."""
    _, text = block
    return Shown(0, _block(fact, block, kind), text, count(text))


def _block(fact: Fact, block: tuple[str, str], kind: str) -> Block:
    """The source block `block` (link, text) that `fact` cites or sits next to, as a block of
    its source page with the fact's heading, section, rank and place."""
    link, text = block
    return Block(
        page=_page_of(link),
        heading=fact.heading,
        kind=kind,
        text=text,
        link=link,
        score=fact.score,
        ordinal=fact.ordinal,
        section=fact.section,
        reason=fact.reason,
    )


_URL_RE = re.compile(r"<?\bhttps?://[^\s<>()]+>?")


def _flat(text: str) -> str:
    """`text` as its words, for finding one text in another; a Markdown link as its text: a
    fact is copied from its paragraph without the links' targets ("… such as Fly.io or
    Kubernetes, …" from "… such as [Fly.io](https://fly.io/) or …")."""
    return " ".join(words(links_as_text(text)))


def _page_of(link: str) -> str:
    return link.split("#", 1)[0] + ".md"


KEY_TERM_WEIGHT = 2.0  # a number, name or code token of the question held: worth two rare words
PARAGRAPH_WEIGHT = 0.95  # a fact says the same in fewer words: it wins a tie with its paragraph
PASSAGE_BONUS = 3.0  # a unit of a passage already quoted (see `select`)
LIST_BONUS = 2.0  # a lead-in naming what a "which X" question asks for: "The required keys are:"
LIST_NOUN_AT = 3  # … among its last words
# a word of the question only a fact's section holds counts this much of its weight: a fact is
# one self-contained sentence, and the section it was copied from lends every fact of it its
# words ("Setting a Python Version" lent "set" to a fact about Python versions for "How do you
# make poetry install set up only the dependencies …?", "As an application developer" the
# rare "applications" to a fact about pip that outranked PDM's answer)
LABEL_WEIGHT = 0.5
MIN_NEW_WORDS = 2  # a further quote must answer this many more words of the question (or a term)
# verbs a question and its answer use for one action: "Which command deletes an alias?" is
# answered by "`llm aliases remove` will remove the alias"
_SAME_ACTION = {
    stem(verb): stem(same)
    for verb, same in (("delete", "remove"), ("erase", "remove"), ("display", "show"))
}


def _word_key(word: str) -> str:
    """'added', 'adds' and 'add' are one word (their stem); 'deletes' and 'removes' as well
    (`_SAME_ACTION`)."""
    key = stem(word)
    return _SAME_ACTION.get(key, key)


def _words(text: str, *, prose: bool = False) -> set[str]:
    """The words of `text` that count; in `prose` (not code), a web address's words do not:
    "Python version obtained from https://www.python.org/downloads/" says nothing about
    downloading (in code, `cargo install --git https://github.com/rust-lang/measureme …` names
    the repository a question asks about)."""
    if prose:
        text = _URL_RE.sub(" ", text)
    return {_word_key(w) for w in words(text) if len(w) >= 3 and w not in QUERY_STOP_WORDS}


_KINDS = {"kinds", "types", "sorts"}


def _closing_word(question: str) -> str | None:
    """The last word of `question` ("contain" of "What kinds of information does a
    Pipfile.lock contain?")."""
    found = words(question)
    return found[-1] if found else None


def _lists(unit: Shown, noun: str) -> bool:
    """Whether `unit` is a lead-in that ends by naming `noun`, what its list holds: "The
    required keys are:", "The following files are created:" (not "a polling mechanism
    processes this list:", which lists steps)."""
    if not is_lead_in(unit.evidence):
        return False
    return _word_key(noun) in {_word_key(w) for w in words(unit.text)[-LIST_NOUN_AT:]}


def _same_passage(a: Shown, b: Shown) -> bool:
    """Two units of one passage: on one page, or one is (or both are copied from) the same
    source paragraph: a fact and the paragraph it cites."""
    ea, eb = a.evidence, b.evidence
    return ea.page == eb.page or bool(set(ea.targets) & set(eb.targets))


def select(
    packed: Packed,
    question: str,
    ids: Sequence[int] = (),
    count: TokenCounter | None = None,
) -> list[Shown]:
    """The units that answer `question` together, best first (at most `MAX_QUOTES`): each adds
    the most of the question not yet answered — its words weighted by how rare they are among
    the shown units, and its key terms (numbers, names, code) — in what would be quoted of it
    (`quote_text`, given `count`: a paragraph's sentences about the question); of units that
    add as much, the one about more of the question (what it adds or repeats: "compared with
    tier 1?" after a quote on tier 2 takes tier 1's guarantee, not any fact naming tier 1; a
    fact before a paragraph that says as much), then the one the model chose (`ids`), then the
    one search ranked higher. A
    further unit must add `MIN_NEW_WORDS` of the question's words or one of its key terms
    (one word in the passage of a quote already taken: its page, or the source paragraph a
    quoted fact was copied from), and a unit of that passage weighs `PASSAGE_BONUS` more: the
    answer reads from one place, not from a page that shares a word by chance. A word only
    a fact's section holds weighs `LABEL_WEIGHT` of its own: the fact says what it says
    itself, while a list item's or paragraph's section says what it is about. A question
    about one thing gets one quote; a quoted lead-in ("run this:", "The required keys are:")
    brings what it introduces after it, and one that names what a "which X" question asks
    for, many of them (`asked_for`: "Which keys must a pointer contain?", not "In which file
    …"), weighs `LIST_BONUS` more: its list is the answer.

    Why code and not the model alone: asked for the facts that answer, the default 0.5B model
    mostly listed the first numbers shown ([1, 2, 3]). `PASSAGE_BONUS` was set on the corpus
    QA set (20 answerable questions, the model's picks simulated as [1, 2, 3]): 1, 2 and 3
    answered 8, 8 and 10 for the wiki; plain retrieval, with the same rule, kept 11. Its picks
    weighed 1.5× until the fourteen-document corpus showed them outranking the answer
    ("The main goal of this project is …" lost to the first fact shown): they break the ties left."""
    units = [u for u in packed.shown if u.id and u.evidence.link]
    asked = _words(question)
    terms = key_terms(question)
    wanted = asked_for(question)
    many = wanted if wanted and re.search(r"[^su]s$", wanted) else None  # "keys", not "file"
    if many in _KINDS:  # "What kinds of information does X contain?": "X contains:" lists them
        many = _closing_word(question)
    lists = {u.id for u in units if many and _lists(u, many)}

    # each unit's page title and what the answer would quote of it (quoting cuts paragraphs
    # and code with the tokenizer: once per unit)
    seen = {
        u.id: [u.evidence.heading, quote_text(u, question, count) if count else u.text]
        for u in units
    }
    # a lead-in is quoted with what it introduces (`_with_followers`): it answers with them
    pool = [u.evidence for u in units]
    for u in units:
        seen[u.id] += [" ".join(e.text.split()) for e in introduced(u.evidence, pool)]
    # a fact names the document it comes from (`origin`) as a passage of plain retrieval
    # does, for the names a question asks about: "What do Litestream and LiteFS each use …?"
    origin = {u.id: u.evidence.origin if isinstance(u.evidence, Fact) else "" for u in units}
    names = _words(" ".join(t.text for t in terms if t.kind == "name"))
    said = {
        u.id: (_words(" ".join(seen[u.id]), prose=u.evidence.kind != "code") & asked)
        | (_words(origin[u.id]) & names & asked)
        for u in units
    }
    # its section: what a block is about ("Final proposed process" above "something where it
    # would make sense to update rustc-guide"); where a fact, a sentence whole, was copied from
    lent = {u.id: _words(u.evidence.section) & asked for u in units}
    for u in units:
        if u.evidence.kind != "fact":
            said[u.id] |= lent[u.id]
        seen[u.id].append(u.evidence.section)
    words_of = {u.id: said[u.id] | lent[u.id] for u in units}
    terms_of = {
        u.id: {
            t.text
            for t in terms
            if holds_term(text_words(seen[u.id]), t)
            or (t.kind == "name" and holds_term(text_words([origin[u.id]]), t))
        }
        for u in units
    }
    df: dict[str, int] = {}
    for found in words_of.values():
        for w in found:
            df[w] = df.get(w, 0) + 1
    idf = {w: math.log(1 + len(units) / n) for w, n in df.items()}
    picked = set(ids)
    quotes: list[Shown] = []
    covered: set[str] = set()
    held: set[str] = set()
    while len(quotes) < MAX_QUOTES:
        best: tuple[tuple[float, float, bool, float], Shown] | None = None
        for u in units:
            new_words, new_terms = words_of[u.id] - covered, terms_of[u.id] - held
            near = any(_same_passage(q, u) for q in quotes)
            enough = MIN_NEW_WORDS - near
            if u in quotes or (quotes and len(new_words) < enough and not new_terms):
                continue
            gain = sum(idf[w] * (1 if w in said[u.id] else LABEL_WEIGHT) for w in new_words)
            gain += KEY_TERM_WEIGHT * len(new_terms)
            gain *= PASSAGE_BONUS if near else 1
            gain *= LIST_BONUS if u.id in lists else 1
            # a tie goes to the unit about more of the question (a fact before a paragraph
            # that says as much), then to the one the model chose, then to the one search
            # ranked higher
            kind = 1 if u.evidence.kind == "fact" else PARAGRAPH_WEIGHT
            overall = kind * sum(1 if w in said[u.id] else LABEL_WEIGHT for w in words_of[u.id])
            rank = (round(gain, 9), overall, u.id in picked, u.evidence.score)
            if gain > 0 and (best is None or rank > best[0]):
                best = (rank, u)
        if best is None:
            break
        unit = best[1]
        quotes.append(unit)
        covered |= words_of[unit.id]
        held |= terms_of[unit.id]
    return _with_followers(quotes, units, [t.text for t in terms if t.kind == "name"])


# a sentence that goes on about the one before it: "The converse is not true: …", "This is …"
_CONTINUES_RE = re.compile(
    r"^(?:The converse|Conversely|However|But|Otherwise|In contrast|Instead|This|These|It|They)\b"
)


def _with_followers(
    quotes: list[Shown], units: Sequence[Shown], names: Sequence[str] = ()
) -> list[Shown]:
    """`quotes` with what each quoted lead-in introduces ("run this:" and its code block, "The
    required keys are:" and its items) right after it, in order; and a quoted fact or paragraph
    with the shown one after it on its page when that one goes on about it ("Every immortal
    string is interned." — "The converse is not true: interned strings can be mortal."), or
    when the quote is about something else and the next one is about a name the question asks
    about (`names`): "Standard BPE and Unigram assume whitespace separates words, which doesn't
    work for languages like Chinese …" — "SentencePiece treats the input text as a raw byte
    or character stream …" for "How does SentencePiece handle languages that do not separate
    words with spaces?"."""
    by_evidence = {id(u.evidence): u for u in units}
    at = {(u.evidence.page, u.evidence.kind, u.evidence.ordinal): u for u in units}
    out: list[Shown] = []
    for q in quotes:
        if q in out:
            continue
        out.append(q)
        for e in introduced(q.evidence, [u.evidence for u in units]):
            follower = by_evidence[id(e)]
            if follower in out:
                out.remove(follower)
            # whole, though shown without a fact quoted elsewhere: a list reads as a list
            out.append(replace(follower, text=" ".join(e.text.split())))
        e = q.evidence
        nxt = at.get((e.page, e.kind, e.ordinal + 1)) if e.kind in ("fact", "para") else None
        if (
            nxt is not None
            and nxt not in out
            and nxt.evidence.section == e.section
            and (
                _CONTINUES_RE.match(nxt.evidence.text.lstrip())
                or (_opens_with(nxt.evidence.text, names) and not _opens_with(e.text, names))
            )
        ):
            out.append(nxt)
    return out


def _opens_with(text: str, names: Sequence[str]) -> bool:
    """Whether `text` opens with one of `names` (after an article): its subject."""
    head = re.sub(r"^(?:The|A|An)\s+", "", text.lstrip(), flags=re.IGNORECASE).casefold()
    return any(re.match(re.escape(n.casefold()) + r"\b", head) for n in names)
