"""Topics named by enough whole-fact sentences: which candidates are subjects (not units,
filler, verb phrases or clauses), how many sentences each needs, and how topics rank.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence

from wikic.language.commands import is_code_like, is_precise, prose_compound
from wikic.language.frequency import capital_only
from wikic.language.grounding import names_in, word_keys
from wikic.language.headings import GENERIC_KEYS
from wikic.language.phrases import VERB_S_RE, follows_determiner
from wikic.language.sentences import Sentence
from wikic.language.vocabulary import FILLER, UNITS, is_common_term
from wikic.vault.names import name_key

FACTS_PER_SECTION_TOPIC = 8


MIN_EVIDENCE = 3  # sentences that must name a candidate for it to be a page of its own


def is_subject(name: str, texts: Sequence[str] = ()) -> bool:
    """Whether a code-found phrase can name a page: not a unit, a filler phrase, a letter, or
    a verb and its object ("splits text"); a phrase `texts` write after a determiner ("the
    weights file") opens with a plural noun, not a verb."""
    words = re.findall(r"\w+", name.casefold())
    if not words or len(name.strip()) < 2 or all(w in UNITS or w.isdigit() for w in words):
        return False
    if (
        " " in name
        and name.islower()
        and VERB_S_RE.fullmatch(words[0])
        and not follows_determiner(name, texts)
    ):
        return False  # "splits text", "adds support": a verb and its object
    return not any(w in FILLER for w in words)


# a verb's object starts after it; an -ing clause starts after one of these
_OBJECT_START = frozenset({"a", "an", "the", "its", "their", "this", "these", "that", "your"})
_CLAUSE_START = frozenset({"when", "while", "before", "after", "by", "if", "without"})
# a phrase right after a modal opens with a verb: "must provide documentation" (the phrases of
# a policy's rules, not its subjects; not "to", also a preposition: "compared to prefix caching")
_VERB_BEFORE = frozenset({
    "must", "should", "shall", "may", "might", "can", "could", "will", "would", "cannot",
})  # fmt: skip


def reads_as_clause(name: str, texts: Sequence[str]) -> bool:
    """Whether the source uses a lower-case phrase mostly inside a clause, not as a name: a
    subject and its verb before an object ("llama accepts the `-ngl N` flag") or an -ing
    clause ("When running llama, …"), or a verb and its object after a modal ("targets must
    provide documentation"). Such a phrase names no page."""
    if " " not in name or not name.islower():
        return False
    gerund = name.split()[0].endswith("ing")
    pattern = re.compile(rf"(?:(\w+)\s+)?(?<!\w){re.escape(name)}(?!\w)(?:\s+(\w+))?", re.I)
    uses = clauses = 0
    for text in texts:
        for m in pattern.finditer(text):
            uses += 1
            before, after = (m.group(1) or "").casefold(), (m.group(2) or "").casefold()
            clauses += (
                after in _OBJECT_START
                or (gerund and before in _CLAUSE_START)
                or before in _VERB_BEFORE
            )
    return uses > 0 and 2 * clauses > uses


def evidence_topics(
    candidates: Sequence[str],
    sentences: Sequence[Sentence],
    taken: set[str],
    *,
    limit: int,
    names_taken: Sequence[str] = (),
    aliases: Mapping[str, tuple[str, ...]] | None = None,
    known: Sequence[str] = (),
    rows: Collection[str] = (),
    coded: Collection[str] = (),
    as_words: Collection[str] = (),
) -> list[tuple[str, tuple[str, ...]]]:
    """(name, sentence ids) for candidates that enough whole-fact sentences name
    (`min_evidence`; a sentence naming one of its `aliases` counts; names the document writes
    as inline code are in `coded`; words it writes as code and in prose alike, the `add` of
    "the `add` command", are in `as_words`: `names_sentence`), best first: precise names
    (`is_precise`) weigh `PRECISE_WEIGHT` sentences more. `taken` holds name keys already used
    (updated). A candidate that is only part of a taken name, or another's alias, is not a page
    of its own. Sentences of the blocks in `rows` (table rows) come after the prose that names
    it: "Prompt processing (pp): processing a prompt in batches" before "test: pp 64; …"."""
    aliases = aliases or {}
    short = {name_key(a) for forms in aliases.values() for a in forms}
    found: list[tuple[str, tuple[str, ...]]] = []
    found_names: list[str] = []
    texts = [s.text for s in sentences]
    for name in candidates:
        key = name_key(name)
        if not key or key in taken or key in GENERIC_KEYS or key in short:
            continue
        if name not in known and not is_subject(name, texts):
            continue  # a term the document defines is a subject, whatever its words
        forms = (name, *aliases.get(name, ()))
        naming = [
            s
            for s in sentences
            if any(
                names_sentence(
                    n,
                    s.text,
                    verbatim=n in coded and " " not in n,
                    as_word=n in as_words and " " not in n,
                )
                for n in forms
            )
        ]
        if naming and all(only_listed(forms, s.text) for s in naming):
            continue  # "With the exception of `-r`, `-o` and `-v`, …" is about none of them
        ids = tuple(s.id for s in sorted(naming, key=lambda s: s.paragraph in rows))
        if name not in known and reads_as_clause(name, texts):
            continue
        if any(named_only_within(name, ids, other, sentences) for other in found_names):
            continue  # "KV" of "KV cache", "Self-Profile Working" of "… Working Group"
        if name not in known and any(part_of(name, other) for other in names_taken):
            continue  # but the program `llm` of a section's `llm keys` is a page of its own
        need = min_evidence(name, known, coded)
        if need > 1 and " " in name and any(said_of(f, s.text) for s in naming for f in forms):
            # "Subword tokenization is especially useful …": said of it, not in passing (one
            # word so placed is any sentence's subject: "Properties are shown …")
            need -= 1
        if len(ids) >= need:
            found.append((name, ids[:FACTS_PER_SECTION_TOPIC]))
            found_names.append(name)
            taken.add(key)
    order = {name: i for i, (name, _) in enumerate(found)}
    # a phrase of plain words needs one more sentence than a name (capitalised, or written as
    # code) to rank with it: "Self-Profile Working Group" and `measureme` named twice rank with
    # "working directory" named three times, and before it
    plain = {
        n for n, _ in found if n.islower() and not is_code_like(n) and n not in (*coded, *known)
    }
    found.sort(
        key=lambda f: (
            -topic_weight(f[0], len(f[1]) + (f[0] not in plain), known),
            f[0] in plain,
            order[f[0]],
        )
    )
    return found[:limit]


# "`-r`, `-o` and `-v`", "`a`, `b`, `c`": code names listed, none of them the subject
_LISTED_RE = re.compile(r"`[^`]+`(?:\s*,\s*`[^`]+`)+,?\s*(?:(?:and|or)\s+`[^`]+`)?")


_SAID_OF_VERBS = "is|are|was|were|has|have|can|cannot|will|does|do|makes|means|keeps"


def said_of(name: str, text: str) -> bool:
    """Whether `text` says something of `name` as its subject: the name (or its plural) right
    before a verb ("Subword tokenization is …", "… so unknown tokens are rare")."""
    pattern = rf"(?<![\w-]){re.escape(name)}(?:s|es)?\s+(?:{_SAID_OF_VERBS})\b"
    return re.search(pattern, text, re.IGNORECASE) is not None


def only_listed(forms: Sequence[str], text: str) -> bool:
    """Whether `text` names any of `forms` only as one of three or more listed code names."""
    lists = [m for m in _LISTED_RE.finditer(text) if m.group(0).count("`") >= 6]
    outside = text
    for m in reversed(lists):
        outside = outside[: m.start()] + " " + outside[m.end() :]
    return bool(lists) and not any(names_sentence(n, outside) for n in forms)


PRECISE_WEIGHT = 2  # a flag, identifier or command named once weighs like a phrase named thrice


def topic_weight(name: str, facts: int, known: Sequence[str] = ()) -> int:
    """How much a topic deserves one of a source's pages: its facts, and `PRECISE_WEIGHT` more
    for a precise name (`OLLAMA_HOST`, `--threads`, `git credential`): what readers of a
    technical document look up, where a phrase many sentences share ("Properties") is not. A
    term of every technical text (`is_common_term`: `STDIN`, `URL`) weighs nothing: it takes a
    page only when no other topic wants one."""
    if is_common_term(name):
        return 0
    return facts + (PRECISE_WEIGHT if is_precise(name, known) else 0)


def named_only_within(
    name: str, ids: Sequence[str], other: str, sentences: Sequence[Sentence]
) -> bool:
    """Whether `name` is part of `other` and every sentence naming it names `other`: "KV" of
    "KV cache" is then no topic of its own, but "Ollama" of `ollama serve` named elsewhere is."""
    if not part_of(name, other):
        return False
    within = {s.id for s in sentences if names_sentence(other, s.text)}
    return set(ids) <= within


def part_of(name: str, other: str) -> bool:
    """Whether `name` is a run of fewer words of `other`: "Git LFS" of "git lfs track". A flag
    is part only of a command line that writes it (`--pre` of `pip install --pre`): its words
    stemmed are not it, `--locked` is no part of `uv lock`, nor `--check` of "Malware checks"."""
    if name.startswith("-"):
        parts = other.split()
        return len(parts) > 1 and name in parts
    words, others = word_keys(name), word_keys(other)
    n = len(words)
    return 0 < n < len(others) and any(
        others[i : i + n] == words for i in range(len(others) - n + 1)
    )


def min_evidence(name: str, known: Sequence[str] = (), coded: Collection[str] = ()) -> int:
    """Whole-fact sentences that must name a candidate before it gets a page. An identifier,
    flag, variable or command (`OLLAMA_HOST`, `--threads`, `_PyUnicode_InternMortal`,
    `git credential`) is what readers of technical documents look up, and its name is too
    precise to be mentioned by chance: one sentence will do. Other code-like names (a path, a
    hyphenated word) and words the document writes as inline code (`coded`: the `measureme`
    repository) need one less than a phrase."""
    if is_precise(name, known):
        return 1
    # one capitalised word: a product or project (`Homebrew`, `Zulip`), but not a plural, which
    # is more often a label ("the Properties window")
    named = re.fullmatch(r"[A-Z][a-z]+[A-Za-z]*(?<!s)", name) is not None
    one_word = named or prose_compound(name)  # "Non-locking": one word, if not code
    return MIN_EVIDENCE - 1 if is_code_like(name) or name in coded or one_word else MIN_EVIDENCE


def names_sentence(name: str, text: str, *, verbatim: bool = False, as_word: bool = False) -> bool:
    """Code-like names (and any name when `verbatim`: a word the document writes as code, whose
    capitalised namesake in prose is another thing: `rust` the repository, Rust the language)
    must appear verbatim; a word the document writes as code and names in prose too (`as_word`:
    the `add` of "the `add` command") as that word or its plural, in any case, not inflected
    ("Added in 2.25.0." is no sentence about `add`); other names as a run of words (`uv pip
    compile`, "pip-compile"), inflected or not."""
    if verbatim or is_code_like(name) or capital_only(name):
        return re.search(r"(?<![\w-])" + re.escape(name) + r"(?![\w-])", text) is not None
    if as_word:
        pattern = r"(?<![\w-])" + re.escape(name) + r"(?:e?s)?(?![\w-])"
        return re.search(pattern, text, re.IGNORECASE) is not None
    return names_in([name], text)
