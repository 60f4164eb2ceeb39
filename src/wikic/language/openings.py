"""Openings that stand alone: whether a sentence can be the first sentence of a topic page.

A page's first sentence is read without its document around it (in the index, in a search
hit, as a link's preview). It must name the page's subject, and it must not lean on what came
before it in its document: a sentence that refers back ("This …", "The above command …"), a
bare default ("Defaults to `0.0`.", "If not provided, the default mappings are used."), or
a lead-in cut before the code block it introduced ("You can also use `mlx-lm` from the
command line with.") says nothing on its own.

Of the facts a page has, `defining_text` picks the one that best opens it: a sentence whose
subject the page's name is, followed by a defining verb, best when it names a kind of thing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

from wikic.language import grounding
from wikic.language.frequency import zipf
from wikic.language.prose_checks import cut_reason, links_as_text, plain, table_row_reason
from wikic.language.sentences import RESPECTIVELY_RE, SUBORDINATORS, starts_sentence
from wikic.language.sentences import refers_back as follows_on
from wikic.language.stopwords import DETERMINERS
from wikic.vault.name_keys import acronym, initials

# opens by pointing at what came before it in the document
_REFERS_BACK_RE = re.compile(
    r"^(?:This|These|Those|That|It|Its|They|Their|Them|Such|Here|Above|Below|"
    r"The (?:above|following|below|former|latter|same)|As (?:above|such|mentioned)|"
    r"In (?:this|that|these) (?:case|cases|way|mode)|(?:For|Because of) (?:this|that|these) "
    r"reasons?|(?:For|Because of|Due to|Given|Following|Under) (?:the )?(?:above|preceding|previous|"
    r"aforementioned)\b|(?:Because of|Due to) (?:this|that|these|those)\b|(?:Also|Otherwise|Then|Instead),?)\b"
)
# a default, a condition or an instruction with no subject: what a field's row says after its name
_BARE_DEFAULT_RE = re.compile(
    r"^(?:\(?defaults?\b|by default[,:]?\s*(?:`|\d|true|false|none|null|disabled|enabled)|"
    r"(?:if|when|unless) (?:not |this is |it is |left )?(?:provided|set|given|specified|"
    r"omitted|unset|empty|absent|present|enabled|disabled)\b|"
    r"set (?:to|this|it)\b|optional\b|required\b|(?:only )?(?:used|applies|ignored) (?:when|if)\b)",
    re.IGNORECASE,
)
# a reader of the page alone asks "again after what?", "an example of what?", "which step?":
# a connective that continues an argument, a step of a sequence, a pointer to another text, a
# version note ("Added in 2.10.0.": of what its heading names)
_CONTINUES_RE = re.compile(
    r"^(?:Again|Additionally|Further|Furthermore|Moreover|However|Nevertheless|Similarly|"
    r"Likewise|Conversely|Alternatively|Therefore|Thus|Hence|Finally|Lastly|First(?:ly)?|"
    r"Second(?:ly)?|Third(?:ly)?|Next|Still|Meanwhile|In (?:contrast|addition|particular|"
    r"practice|short)|For (?:example|instance)|As a result|On the other hand|See|"
    r"The (?:other|second|third|next|last|final|remaining|table|figure|diagram|example|output|"
    r"snippet|listing)\b|(?:Added|Changed|Deprecated|Removed|New) in v?\d)\b"
)
# a clause that opens with a pronoun: "When they connect to the primary node, they specify …"
# (who connects?)
_PRONOUN_CLAUSE_RE = re.compile(
    r"(?:When|Whenever|If|Once|After|Before|Because|Since|As|While|Although|Unless|Until)\s+"
    r"(?:they|it|he|she)\b"
)
_DEMONSTRATIVE_RE = re.compile(r"\b(?:this|these|those|such an?)\b(?![-\w])", re.IGNORECASE)
_WORD_RE = re.compile(r"[\w'’]+")
# words no sentence ends with: a lead-in whose code block was its end ("… the command line
# with."); "binds to." and "is set by." are whole
_CUT_ENDS = frozenset({
    "a", "an", "the", "with", "using", "via", "including", "like", "and", "or", "of", "into",
    "onto", "such", "e.g", "i.e", "namely", "your", "its", "their", "our", "my",
})  # fmt: skip


def refers_back(text: str) -> bool:
    """Whether `text` points at what its document said before: it opens so ("These are …",
    "The above command …", "It defaults …"), or gives values "respectively" to the names
    said before ("The default settings are 5 minutes and 1 GB, respectively.")."""
    flat = plain(text)
    return _REFERS_BACK_RE.match(flat.lstrip("*_\"'“(")) is not None or bool(
        RESPECTIVELY_RE.search(flat)
    )


def points_back(text: str) -> bool:
    """Whether `text` points at something its document named before, anywhere in it ("…
    within this virtual environment", "… one of those two outcomes", "such a piece"): it may
    open a page when nothing better does, but reads worse than a sentence that does not."""
    flat = plain(text)
    if _PRONOUN_CLAUSE_RE.match(_unmarked(flat)):
        return True
    return _DEMONSTRATIVE_RE.search(re.sub(r"`[^`]*`", " ", flat)) is not None


def bare_default(text: str) -> bool:
    """Whether `text` is a default, a condition or an instruction said of a subject it does not
    name ("Defaults to `0.0` (disabled).", "Set to `null` to unload.", "If not provided, the
    default mappings are used.")."""
    return _BARE_DEFAULT_RE.match(plain(text).lstrip("*_\"'“(")) is not None


def cut_before_code(text: str) -> bool:
    """Whether `text` is a lead-in whose end was its code block: it ends with ':' or with a word
    that needs more after it ("… from the command line with.")."""
    return _cut_flat(plain(text).rstrip())


def _cut_flat(flat: str) -> bool:
    if flat.endswith(":"):
        return True
    words = _WORD_RE.findall(flat[-40:])
    return bool(words) and flat[-1:] in ".:" and words[-1].casefold() in _CUT_ENDS


def leans_on_context(text: str) -> str | None:
    """Why `text` means nothing without the text around it in its document, or None: it is
    empty, cut, refers back, a bare default or a table row."""
    flat = plain(text)
    if not flat:
        return "empty"
    if _cut_flat(flat) or cut_reason(flat):
        return "cut: it ends where its document went on (a code block, a list)"
    opening = flat.lstrip("*_\"'“(")
    if refers_back(opening):
        return "refers back to what its document said before"
    if _BARE_DEFAULT_RE.match(opening):
        return "a default or condition without its subject"
    if _CONTINUES_RE.match(opening) or flat.startswith("("):
        return "continues what its document said before"
    if table_row_reason(flat):
        return "a table row"
    return None


def opening_fault(names: Sequence[str], text: str) -> str | None:
    """Why `text` cannot open the page of the subject called `names` (title first, then its
    aliases), or None when it stands alone: it names the subject and does not lean on its
    context (`leans_on_context`)."""
    reason = leans_on_context(text)
    if reason is None and not grounding.mentions([n for n in names if n], plain(text)):
        return "does not name its subject"
    return reason


_DEFINES_RE = re.compile(
    r"\s*(?:is|are|means|refers to|stands for|controls|sets|specifies|determines|enables|"
    r"disables|limits|selects|gives|holds|returns)\b",
    re.IGNORECASE,
)


def defines(names: Sequence[str], text: str) -> bool:
    """Whether `text` defines the subject called `names`: it opens with the name (after an
    article, in code or not; its abbreviation may follow in parentheses) and a defining verb
    ("`top_p` is the cumulative probability …", "The `--threads` option sets …",
    "Write-Ahead Logging (WAL) is a standard method …")."""
    flat = _without_article(text)
    for name in (n.strip("`") for n in names if n.strip("`")):
        m = re.match(
            rf"`?{re.escape(name)}`?(?:\s+(?:option|flag|field|parameter|setting|key))?"
            r"(?:\s+\([^()\s]{1,12}\))?",
            flat,
            re.IGNORECASE,
        )
        if m and _DEFINES_RE.match(flat, m.end()):
            return True
    return False


# "is a …", "is an extremely fast …", "are the …": the subject named as a kind of thing
_KIND_RE = re.compile(r"(?:is|are)\s+(?:\w+ly\s+)?(?:a|an|the|one)\b")
_DEFINING_RE = re.compile(r"\b(?:is|are|was|means|refers to|describes|lets|allows|runs|provides)\b")
# a present-tense verb and what it takes: "features the …", "quickly resolves a …", "supports
# `int8` …", "installs packages …" (`_acts`)
_ACTS_RE = re.compile(
    r"\s+(?:[a-z]+ly\s+)?(?P<verb>[a-z]+[^s\W]s)\s+"
    r"(?:(?:the|a|an|its|their|your|all|each|every|both|any|this|these|one|two|several|many|most)\b"
    r"|\d|`|[a-z]{3,}s\b)",  # or a plural: "installs packages …"
)


def defining_text(
    title: str, texts: Sequence[str], *, shared: bool = False, aliases: Sequence[str] = ()
) -> str:
    """The fact that best says what `title` is: one whose subject it is ("Ollama runs …",
    "QSBR is …": the title within the first words, then a defining verb; best when it names a
    kind of thing, "uv is an extremely fast Python package resolver …"), else one that names
    it and defines something, else prose before a table row, one that opens like a sentence,
    else the first. A fact that refers back ("This functionality is …") defines nothing, and
    a gerund opening is no subject ("Trimming a KV cache is …").

    On a page several sources share (`shared`), a fact whose subject is another named thing
    (one tool: "PDM installs … from the lock file") opens it worse than a general one
    (`names_other_subject`).

    `aliases` are other names of the subject (`subject_aliases`: the title shortened): "Read
    Committed is the default isolation level in PostgreSQL." says what the page "Read Committed
    Isolation Level" is as well as a sentence naming the whole title would."""
    names = proper_names(texts) if shared else None
    return min(texts, key=lambda t: opening_faults(title, t, proper=names, aliases=aliases))


def subject_aliases(title: str, *aliases: str) -> tuple[str, ...]:
    """The `aliases` of a page that are its title shortened, the subject without its kind:
    "Read Committed" of "Read Committed Isolation Level" (`language.kinds`), or the title
    written out, where the title is the alias's abbreviation: "Write-Ahead Logging" of "WAL"
    ("Write-Ahead Logging (WAL) is a standard method …" defines the page "WAL"). Not an
    abbreviation of the title ("pp": "Each pp and tg test is run …" is about the tests), a row
    the page lists (`start_ts`) nor a label folded into it."""
    own = {w.casefold() for w in _WORD_RE.findall(title)}
    short = acronym(title)
    return tuple(
        dict.fromkeys(
            a
            for a in aliases
            if (words := {w.casefold() for w in _WORD_RE.findall(a)})
            and len(words) >= 2
            and (words < own or (short and initials(a) == short))
        )
    )


class OpeningFaults(NamedTuple):
    """What keeps a text from opening a page, worst first: compared as a tuple, fewer and
    later faults open a page better (see `defining_text`)."""

    not_alone: bool  # it does not stand alone (`language.openings.opening_fault`)
    no_subject: bool  # the page's name is not its subject followed by a defining verb
    other_subject: bool  # on a shared page: its subject is another name (`names_other_subject`)
    late_subject: bool  # on a shared page: it names the subject late (`names_subject_late`)
    weak: bool  # it refers back or does not open like a sentence
    no_kind: bool  # it does not name the subject as a kind of thing ("is an …")
    points: bool  # it points at something named before ("… this virtual environment")
    no_definition: bool  # it does not both name the subject and define something
    row: bool  # a table row
    no_opening: bool  # it does not open like a sentence
    unnamed: bool  # it does not name the subject


def opening_faults(
    title: str,
    text: str,
    *,
    proper: frozenset[str] | None = None,
    aliases: Sequence[str] = (),
) -> OpeningFaults:
    """What keeps `text` from opening the page of `title` (also called `aliases`); with
    `proper` (the proper names of a shared page's facts, `proper_names`) a sentence about
    another named thing is worse."""
    own = [title, *aliases]
    words = text.split()
    names = any(grounding.mentions([n], text) and not _inside_code_name(n, words) for n in own)
    verb = _DEFINING_RE.search(text)
    subject = bool(names and verb and any(_opens_with(name, text[: verb.start()]) for name in own))
    subject = subject or (names and _acts(own, text))
    kind = subject and verb is not None and bool(_KIND_RE.match(text, verb.start()))
    glossed = glossary_kind(own, text) if names else None
    if glossed is not None:  # "Digest: a unique identifier …": a glossary's entry for it
        subject, kind = True, kind or glossed
    opens = starts_sentence(text) or _opens_with_code(text)
    return OpeningFaults(
        not_alone=not names or leans_on_context(text) is not None,  # `opening_fault`
        no_subject=not subject,
        other_subject=proper is not None
        and not subject
        and names_other_subject(title, text, proper),
        late_subject=proper is not None and names_subject_late(title, text),
        weak=follows_on(text) or not opens,
        no_kind=not kind,
        points=points_back(text),
        no_definition=not (names and (verb or glossed is not None)),
        row=table_row_reason(text) is not None,
        no_opening=not opens,
        unnamed=not names,
    )


# a glossary's or a feature list's entry: "Digest: a unique identifier …", "`--frozen`: use
# the lock file as it is"; what follows the colon names a kind of thing after an article
_GLOSSED_RE = re.compile(r"\s*[*`\"“]*(?P<term>[^:*`\"”\n]{1,60}?)[*`\"”]*\s*:\s+(?=\S)")
_ARTICLE_RE = re.compile(r"(?:a|an|the|one)\s", re.IGNORECASE)


def glossary_kind(names: Sequence[str], text: str) -> bool | None:
    """Whether `text` is the entry of a glossary or a feature list for the subject called
    `names`: the subject (singular or plural) before a colon, what it is or does after it
    ("Digest: a unique identifier created from a cryptographic hash of a Blob's content.",
    "`_PyUnicode_InternStatic`: intern a static singleton …"). True when the entry names a
    kind of thing (an article after the colon), False when it is code's entry saying what it
    does, None when `text` is no such entry, or a plain label's of a feature list ("Dependency
    resolution: Captures the complete dependency graph …", a lock file's feature). Such an
    entry says what its term is, as "X is …" does."""
    flat = links_as_text(text)
    m = _GLOSSED_RE.match(flat)
    if m is None:
        return None
    term = m.group("term").strip().strip("_").casefold()  # "_Digest_:" emphasised
    forms = {n.strip("`").strip("_").casefold() for n in names if n}
    if not any(term in (f, f + "s", f.removesuffix("s")) for f in forms):
        return None
    if _ARTICLE_RE.match(flat, m.end()):
        return True
    # an identifier's entry says what it does; a plain label's ("Dependency resolution:
    # Captures the complete dependency graph …", of a lock file's features) what else does
    return False if text.lstrip("*_").startswith("`") else None


def _without_article(text: str) -> str:
    """`text` plain, from its first word, an opening article dropped: where `defines` and
    `_acts` look for the subject's name."""
    return re.sub(r"^(?:the|a|an)\s+", "", plain(text).lstrip("*_\"'“("), flags=re.IGNORECASE)


def _opens_with_code(text: str) -> bool:
    """Whether `text` opens with a code span ("`pip` is the reference Python package
    manager."): technical prose starts a sentence with a name as written, in lower case."""
    return re.match(r"`[^`\s][^`]*`", _unmarked(text)) is not None


def _unmarked(text: str) -> str:
    """`text` without the emphasis, quote or bracket it opens with."""
    return text.lstrip("*_\"'“(")


def _acts(names: Sequence[str], text: str) -> bool:
    """Whether `text` opens with one of `names` (after an article) and a present-tense verb of
    it: "bitsandbytes features the LLM.int8 and QLoRA quantization …" is about bitsandbytes,
    though no defining verb says so (its page had opened "Once a model is quantized to 8-bit,
    you can't push … unless you're using … Transformers and bitsandbytes.")."""
    flat = _without_article(text)
    for name in (n.strip("`") for n in names if n.strip("`")):
        m = re.match(rf"`?{re.escape(name)}`?(?=\s)", flat, re.IGNORECASE)
        if m and _ACTS_RE.match(flat, m.end()):
            return True
    return False


def _opens_with(title: str, head: str) -> bool:
    """Whether `head` (the words before a fact's verb) is the title, maybe with an article or
    a short qualifier: "Ollama", "The KV cache", "Python's QSBR implementation"."""
    words = head.split()
    if (
        words
        and words[0].casefold().endswith("ing")
        and not title.casefold().startswith(words[0].casefold())
    ):
        return False  # "Trimming a rotating KV cache is …": its subject is the trimming
    if _inside_code_name(title, words):
        return False  # "`tool.poetry.exclude` is …" is not about Poetry
    if _after_subordinator(title, words):
        return False  # "If PDM is not able to …, it will raise an error": about the error
    if _narrowed(title, words):
        return False  # "Alternate lock files are helpful when …": a kind of lock file
    return len(words) <= len(title.split()) + 3 and grounding.mentions([title], head)


PLAIN_ZIPF = 3.0  # a capitalised first word this common in general English is a plain word


def _narrowed(title: str, words: Sequence[str]) -> bool:
    """Whether the title comes in a fact's opening words after a lower-case word that is no
    determiner ("Alternate lock files …", "Platform-specific lock files …"): the subject is a
    narrower kind of the title's thing, which a sentence about it does not define. An article,
    a possessive or a capitalised name before it ("The KV cache", "Python's QSBR", "SQLite WAL
    mode") leaves the title the subject; a plain word of general English (`PLAIN_ZIPF`) that
    opens the sentence is read in lower case."""
    i = _title_at(title, words)
    if not i:
        return False  # not there, or the first word
    before = words[i - 1].strip('`*_"“(,')
    if i == 1 and before[1:].islower() and zipf(before.casefold()) >= PLAIN_ZIPF:
        before = before.casefold()  # "Alternate" opens the sentence: a plain word
    return (
        before.islower()
        and before.replace("-", "").isalpha()
        and before not in DETERMINERS
        and not before.endswith(("'s", "’s"))
    )


def _title_at(title: str, words: Sequence[str]) -> int | None:
    """The index of the first of `words` that is the title's first word, or None."""
    first = grounding.word_keys(title)[:1]
    if first:
        for i, word in enumerate(words):
            if grounding.word_keys(word)[:1] == first:
                return i
    return None


def _after_subordinator(title: str, words: Sequence[str]) -> bool:
    """Whether the title comes in a fact's opening words only after a subordinate clause
    opens ("If the lockfile is not up-to-date, …", "Because LiteFS is meant to be used …",
    "Once a lock file contains …"): the sentence is about what its main clause says, not
    about the title (`sentences.SUBORDINATORS`, a closed class of English words)."""
    i = _title_at(title, words)
    return i is not None and any(w.casefold().strip('`*_"“(,') in SUBORDINATORS for w in words[:i])


def _inside_code_name(title: str, words: Sequence[str]) -> bool:
    """Whether a one-word `title` is among `words` only as a part of a longer code name
    (`tool.poetry.exclude`, `uv.lock`, `python3-pip`): a name of another thing."""
    own = title.strip("`").casefold()
    if not own or " " in own:
        return False
    tokens = [w.strip("`*_\"'“”(),:;.!?").casefold() for w in words]
    if any(t in (own, f"{own}s", f"{own}'s", f"{own}’s") for t in tokens):
        return False
    return any(own in t and _CODE_JOINS_RE.search(t) for t in tokens)


_CODE_JOINS_RE = re.compile(r"[./:-]")


# a word that is a name wherever it stands: an acronym, a capital inside it, a digit, code
_NAME_TOKEN_RE = re.compile(r"[A-Za-z]*[A-Z][A-Za-z]*[A-Z0-9][\w.-]*|[a-z][\w.-]*")
# "You should commit …", "To create the lock file, run …": said to one tool's user
_ADDRESSES_READER_RE = re.compile(
    r"(?:You|Your|We|Our|To [a-z]+|See|Run|Use|Set|Add|Install|Check|Create|Make|Note|Pass|"
    r"Try|Refer|Please)\b"
)
_AFTER_LOWER_RE = re.compile(r"\b[a-z][\w-]*,?\s+([A-Z][\w-]*)")


def proper_names(texts: Sequence[str]) -> frozenset[str]:
    """Capitalised words `texts` write so after a lower-case word, not only where a sentence
    starts: "… when Poetry has finished" makes "Poetry" a name; "Locking is …" alone does not."""
    return frozenset(m.group(1) for t in texts for m in _AFTER_LOWER_RE.finditer(plain(t)))


def names_other_subject(title: str, text: str, proper: frozenset[str]) -> bool:
    """Whether `text` opens with a name that is not `title`'s: code, an acronym, a word that
    stays lower case at a sentence's start, or one of the `proper` names ("PDM installs …",
    "`pdm sync` installs …", "uv will …", "Pipenv creates …"), or addresses the reader ("You
    should …", "To create …, run …"). On a page several sources share, such a sentence says
    what one tool does, not what the subject is."""
    flat = text.lstrip("*_\"'“( ")
    first = flat.split(maxsplit=1)[0] if flat.split() else ""
    own = {w.casefold() for w in _WORD_RE.findall(title)}
    if not first or {w.casefold() for w in _WORD_RE.findall(first)} <= own:
        return False  # no words, or the page's own name ("Read Committed is …")
    if _ADDRESSES_READER_RE.match(flat):
        return True  # an instruction to the reader of one tool's documentation
    if first.startswith("`"):
        return True
    word = re.sub(r"['’]s$", "", first.strip(",.:;"))
    return _NAME_TOKEN_RE.fullmatch(word) is not None or word in proper


def names_subject_late(title: str, text: str) -> bool:
    """Whether `text` does not name `title` within its first words (the title's own and three
    more): "Lock files that … use …" is about lock files, "To create or overwrite the lock file,
    run `pdm lock`" about a command."""
    head = " ".join(plain(text).split()[: len(title.split()) + 3])
    return not grounding.mentions([title], head)
