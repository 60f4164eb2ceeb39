"""The key terms of a question (numbers, names, code tokens) and whether a text holds them.

This is the code side of declining: a question whose key terms no shown unit holds is not
answered by them, whatever the model says. Matching is on word sequences, case- and
accent-free, so `mlx-lm` matches "mlx-lm" and "MLX LM", and `8k` matches "8192" or "8,000".
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from wikic.language.stopwords import QUERY_STOP_WORDS
from wikic.store.search import name_words

_TOKEN_RE = re.compile(r"`([^`]+)`|(\S+)")
_EDGE_PUNCT = "?!,;:.()[]{}\"'“”‘’"
_CODE_CHARS = set("_/.:=<>@#$%*+\\-")
_THOUSANDS_RE = re.compile(r"(?<=\d),(?=\d{3}\b)")
_K_RE = re.compile(r"^(\d+)k$")
# capitalised words that are not names when they open a clause
_NOT_NAMES = QUERY_STOP_WORDS | {"many", "much", "according", "does", "did", "is", "are", "can"}


@dataclass(frozen=True)
class KeyTerm:
    text: str
    kind: str  # number | code | name

    @property
    def words(self) -> list[str]:
        return name_words(_THOUSANDS_RE.sub("", self.text))


def key_terms(question: str) -> list[KeyTerm]:
    """Numbers, code tokens (backticked, or with `-_./:` inside) and names (capitalised words
    other than the first) of `question`, in order, without repeats."""
    found: dict[str, KeyTerm] = {}
    for n, m in enumerate(_TOKEN_RE.finditer(question)):
        term: KeyTerm | None
        if m.group(1) is not None:
            term = KeyTerm(m.group(1).strip(), "code")
        else:
            token = m.group(2).strip(_EDGE_PUNCT)
            token = re.sub(r"['’]s$", "", token)  # "Gemma's" names Gemma
            if not token or not any(c.isalnum() for c in token):
                continue
            term = _classify(token, first=n == 0)
        if term is not None and term.words and term.text.casefold() not in found:
            found[term.text.casefold()] = term
    return list(found.values())


def _classify(token: str, *, first: bool) -> KeyTerm | None:
    if any(c.isdigit() for c in token):
        return KeyTerm(token, "number")
    inner = token.strip("-")
    if token.startswith("--") or any(c in _CODE_CHARS for c in inner):
        return KeyTerm(token, "code")
    mixed = any(c.isupper() for c in token[1:])  # CPython, QSBR, mlx-LM
    if mixed or (token[0].isupper() and not first and token.casefold() not in _NOT_NAMES):
        return KeyTerm(token, "name")
    return None


def text_words(texts: Iterable[str]) -> list[str]:
    """The words of `texts` as one sequence (thousands separators dropped), for `holds`."""
    return [w for t in texts for w in ("\x00", *name_words(_THOUSANDS_RE.sub("", t)))]


def holds(haystack: list[str], term: KeyTerm) -> bool:
    """Whether the word sequence `haystack` (from `text_words`) contains `term`."""
    variants = [term.words]
    k = _K_RE.match(term.text.casefold())
    if k:  # "8k" is also written 8192 or 8000
        variants += [[str(int(k.group(1)) * 1024)], [str(int(k.group(1)) * 1000)]]
    for wanted in variants:
        size = len(wanted)
        if any(haystack[i : i + size] == wanted for i in range(len(haystack) - size + 1)):
            return True
    return False


def missing_terms(terms: Iterable[KeyTerm], texts: Iterable[str]) -> list[KeyTerm]:
    """The terms that none of `texts` holds."""
    haystack = text_words(texts)
    return [t for t in terms if not holds(haystack, t)]


def unsupported(question_terms: list[KeyTerm], shown_texts: Iterable[str]) -> list[KeyTerm]:
    """Why the shown units cannot answer the question, as the key terms they lack: every one
    of them when none is held; else the numbers and names that are missing (a question about
    "$100", "version 3.12", "Ollama Pro" or "AMD ROCm" is not answered by units that never
    say it). A code token may be written otherwise (`llama.cpp` as "llama"): alone it is no
    reason. [] when fine.

    Measured on the corpus QA set (scripts/data/corpus/qa.yaml): every name of every
    answerable question appears in its source documents; two unanswerable questions name
    something none does ("Ollama Pro", "AMD ROCm")."""
    if not question_terms:
        return []
    missing = missing_terms(question_terms, shown_texts)
    if len(missing) == len(question_terms):
        return missing
    return [t for t in missing if t.kind in ("number", "name")]


# "How many …", "what is the maximum …", "how many times faster …", "what is the vocabulary
# size …", "what vocabulary size …": the answer is a number ("what does the number after the q
# mean" asks what it means)
_QUANTITY_RE = re.compile(
    r"\bhow (?:many|much|long|large|big|fast|often)\b|\b(?:maximum|minimum)\b"
    r"|\btimes (?:faster|slower|larger|smaller|more|less)\b"
    r"|\bwhat(?:'s| is| are| was| were) (?:the )?(?:[\w-]+ ){0,2}(?:size|count|price|cost)\b"
    r"|\bwhat (?:[\w-]+ )?(?:size|count|price|cost)\b",
    re.IGNORECASE,
)
# a numeral not inside a name (`sha256`, `q4_0`), or a number word
_NUMBER_RE = re.compile(
    r"(?<![A-Za-z_\d])\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve"
    r"|twice|half|dozens?|hundreds?|thousands?|millions?|billions?)\b",
    re.IGNORECASE,
)


def asks_quantity(question: str) -> bool:
    """Whether the question asks for an amount: how many, how much, a maximum, times faster."""
    return _QUANTITY_RE.search(question) is not None


def states_quantity(text: str) -> bool:
    """Whether `text` states a number (`27mb`, `1,000`, "two"); `sha256` and `q4_0` are names."""
    return _NUMBER_RE.search(text) is not None


_AMOUNT_NOUNS = r"(?:size|number|count|price|cost|length|limit|speed|version)"
# the owner of the amount asked for: "the vocabulary size of Llama's …", "Llama's vocabulary
# size" (not "according to llama-bench's tables", which says where to look)
_POSSESSOR_RE = re.compile(
    rf"\b{_AMOUNT_NOUNS}s? of (?:the |an? )?(`[^`]+`|[^\s`]+)['’]s\b"
    rf"|(`[^`]+`|[^\s`]+)['’]s (?:[\w-]+ ){{0,2}}{_AMOUNT_NOUNS}\b",
    re.IGNORECASE,
)
_COMPARAND_RE = re.compile(
    r"\b(?:faster|slower|larger|smaller|bigger|more|less|fewer|better|worse|cheaper)"
    r" than (`[^`]+`|[^\s`?!,;]+)",
    re.IGNORECASE,
)
# the question's closing phrase after a preposition: "… stored on Windows?", "… on an AMD ROCm
# backend?" (at most three words to the end)
_QUALIFIER_RE = re.compile(
    r"\b(?:on|for|in|under|with) (?:an? |the )?((?:\S+ ){0,2}\S+?)\W*$", re.IGNORECASE
)


def amount_owners(question: str) -> list[KeyTerm]:
    """Whose amount an amount question asks for: the name that owns it ("the vocabulary size
    of Llama's BPE tokenizer") and what it compares with ("times faster than pdm"). The number that answers
    it is stated with them: GPT-2's vocabulary size is not Llama's, and "10-100x faster than
    pip" says nothing about pdm."""
    found: dict[str, KeyTerm] = {}
    for m in _POSSESSOR_RE.finditer(question):
        token = (m.group(1) or m.group(2)).strip("`" + _EDGE_PUNCT)
        term = _classify(token, first=False) if any(c.isalpha() for c in token) else None
        if term is not None and term.words:  # GPT-2's: a name with a digit
            found.setdefault(term.text.casefold(), term)
    for m in _COMPARAND_RE.finditer(question):
        token = m.group(1).strip("`" + _EDGE_PUNCT)
        if token and not any(c.isdigit() for c in token):  # "shorter than 2 ms": a bound
            term = KeyTerm(token, "name")
            if term.words and term.words[0] not in QUERY_STOP_WORDS:
                found.setdefault(term.text.casefold(), term)
    return list(found.values())


def qualifiers(question: str) -> list[KeyTerm]:
    """The names and code tokens of the question's closing prepositional phrase ("… stored on
    Windows?"): a condition the answer has to meet, not the question's subject."""
    m = _QUALIFIER_RE.search(question)
    if m is None:
        return []
    terms = (_classify(w.strip(_EDGE_PUNCT), first=False) for w in m.group(1).split())
    return [t for t in terms if t is not None and t.kind in ("name", "code") and t.words]


_NUMBER_WORDS = frozenset({"two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"})
_AUXILIARIES = frozenset({
    "must", "should", "can", "could", "will", "would", "may", "might", "shall", "do", "does",
    "did", "is", "are", "was", "were", "has", "have", "had",
})  # fmt: skip


def asked_for(question: str) -> str | None:
    """The thing a "which/what X" question asks for, the last word of X ("keys" of "Which keys
    must a pointer file contain?", "tools" of "Which three tools from …", "formats" of "Which
    output formats does …"): a list whose lead-in names it ("The required keys are:") answers.
    X is the run of words after "which"/"what" up to a stop word or auxiliary (at most two,
    numbers skipped: "Which llama.cpp flag offloads …" asks for a flag); None when one follows
    at once ("What does …")."""
    m = re.search(r"\b(?:which|what)\s+(.*)", question, re.I)
    if not m:
        return None
    run: list[str] = []
    for word in re.findall(r"[\w.-]+", m.group(1)):
        folded = word.casefold()
        if folded in QUERY_STOP_WORDS or folded in _AUXILIARIES or len(run) == 2:
            break
        if folded not in _NUMBER_WORDS and not folded.isdigit():
            run.append(folded)
    return run[-1] if run else None
