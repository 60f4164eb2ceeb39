"""Sentences as facts: which sentences of a document are whole, self-contained statements,
and how a sentence opens and ends.

A sentence id `sN` is the document's own, so a claim the model picks by id maps back to the
verbatim sentence and its block `pK`. Only whole, self-contained statements are facts (see
`fact_text`): a heading, a lead-in ending with ':', a table-of-contents entry or a cut-off
fragment never is.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from wikic.language.prose_checks import CONTINUES, fragment_reason
from wikic.vault.document import Block, Document

_TERMINAL_RE = re.compile(r"[.!?…](?:[\"'”’)\]`*_]*)$")
# "`--flag`: does X", "**Term** — X", "Prompt processing (pp): processing a prompt …"
_DEFINITION_RE = re.compile(
    r"^(?:`[^`]+`|\*\*[^*]+\*\*|[\w.+/-]+(?: [\w.+/-]+){0,4})(?: \([^()\s]{1,12}\))?"
    r"\s*[:—–-]\s+\S"
)
_FOOTNOTE_RE = re.compile(r"\[\^[^\]]*\]")
MIN_FACT_WORDS = 4
MAX_SENTENCE_CHARS = 600


@dataclass(frozen=True)
class Sentence:
    id: str  # "s12"
    paragraph: str  # block id, "p3"
    text: str


def fact_text(text: str, block: Block, *, before_code: bool = False) -> str | None:
    """`text` as a fact if it is a whole, self-contained statement, else None.

    Table rows ("Model: Qwen; Prefill: 107 tok/s") and definition items ("`--flag`: does X")
    are whole statements without a final stop: they get one. So does a clause that introduces
    a code example and names a command of it (`before_code`: "The `llm aliases set` command
    can be used to add a new alias:"). Other lead-ins (ending with ':'), short fragments,
    footnote markers and table-of-contents entries never are."""
    flat = " ".join(text.split())
    if block.toc or block.kind == "code" or not flat or len(flat) > MAX_SENTENCE_CHARS:
        return None
    if (
        flat.endswith(":")
        and before_code
        and _names_code(flat, block)
        and not _POINTS_AT_CODE_RE.search(flat[:-1])
    ):
        flat = flat[:-1].rstrip() + "."
    if flat.endswith(":") or _FOOTNOTE_RE.search(flat) or "](#" in flat:
        return None
    if len(re.findall(r"\w+", flat)) < MIN_FACT_WORDS:
        return None
    if flat.count("`") % 2 or flat.count("(") != flat.count(")"):
        return None  # cut inside a code span or a parenthesis
    if _TERMINAL_RE.search(flat):
        fact = flat
    elif (
        block.kind == "table"
        or (block.kind == "item" and _DEFINITION_RE.match(flat))
        or (block.kind == "item" and reads_as_statement(flat))
    ):
        fact = flat + "."
    else:
        return None
    if points_elsewhere(fact):
        return None
    # the same rule lint applies afterwards (`fragment-fact`): what ingest writes lints clean
    return None if fragment_reason(fact) else with_code_spans(fact, block.code_spans)


# a sentence that only sends its reader to another text: "See the export guide for …", "See
# also Registered Algorithms.", "For more information on X, see Y.", "Refer to https://… for
# more detailed info."
_POINTER_RE = re.compile(
    r"^(?:please\s+)?(?:see|refer to|read more)\b"
    r"|^for (?:(?:more|further|additional|full|complete|detailed)\s+)?"
    r"(?:information|details|info|documentation)\b[^.;:]*?,\s*(?:please\s+)?"
    r"(?:see|refer to|check|read|visit|consult)\b",
    re.IGNORECASE,
)


def points_elsewhere(text: str) -> bool:
    """Whether a sentence only points to another text (`_POINTER_RE`): it says where to read,
    not what is true, so it is no fact of a page (it stays in its source page). The code-only
    wikis of the overlap, held-out and corpus sets held 22 such sentences as facts (stop 48)."""
    return _POINTER_RE.match(text.lstrip("*_\"'“( ")) is not None


# a finite verb that makes a clause a statement: auxiliaries and modals (with their negations)
_FINITE_VERBS = frozenset({
    "is", "are", "was", "were", "has", "have", "had", "do", "does", "did", "will", "would",
    "can", "could", "should", "may", "might", "must", "shall", "isn't", "aren't", "wasn't",
    "weren't", "hasn't", "haven't", "doesn't", "don't", "didn't", "won't", "wouldn't", "can't",
    "couldn't", "shouldn't",
})  # fmt: skip
# a clause opening with one of these is subordinate: its main clause follows a comma
SUBORDINATORS = frozenset({
    "if", "when", "whenever", "while", "although", "though", "because", "since", "unless",
    "until", "once", "before", "after", "as", "whether", "where",
})  # fmt: skip
# an item opening so goes on about its parent item or speaks for its writer: not self-contained;
# one opening with a modal has no subject ("may request a `-Z` flag", "would like to review")
_LEANS_ON = frozenset({
    "this", "these", "it", "its", "they", "their", "that", "but", "and", "or", "also", "so",
    "however", "yes", "no", "i", "may", "might", "would", "could", "should", "can", "will",
    "must", "shall",
})  # fmt: skip
# an item ending so introduces the items under it: "we should have some way to add caveats, like"
_INTRODUCES = frozenset({"like", "namely", "as"})
MIN_ITEM_STATEMENT_WORDS = 6


def reads_as_statement(text: str) -> bool:
    """Whether a list item written without a final stop is still a whole statement: at least
    `MIN_ITEM_STATEMENT_WORDS` words, a finite verb (an auxiliary or modal: "Major changes will
    be discussed before they become a PR"), no end that runs on ("… leads to", "… like"), no
    opening that leans on the parent item or the writer ("It is low-risk …", "But …", "I
    approve …", "may request …"), and a main clause after any opening subordinate one ("If a PR
    is opened without this process" is the lead-in of the items under it). Meeting notes are
    written so, often in lower case ("existing triage meeting is too full, that's clear")."""
    words = re.findall(r"[\w'’]+", text)
    if len(words) < MIN_ITEM_STATEMENT_WORDS or not text[:1].isalpha():
        return False
    folded = [w.casefold().replace("’", "'") for w in words]
    if folded[0] in _LEANS_ON or folded[-1] in CONTINUES or folded[-1] in _INTRODUCES:
        return False
    if not any(w in _FINITE_VERBS for w in folded):
        return False
    return folded[0] not in SUBORDINATORS or "," in text


def with_code_spans(text: str, spans: Sequence[str]) -> str:
    """`text` with the block's inline code marked again (the parser's text drops the
    backticks): `OLLAMA_HOST`, `llm aliases set <alias>` read as code, and `<alias>` is not taken
    for an HTML tag. Longest spans first, the first free occurrence of each."""
    marked: list[tuple[int, int]] = []
    for span in sorted({c.strip() for c in spans if c.strip() and "`" not in c}, key=len)[::-1]:
        pattern = re.compile(r"(?<![\w`-])" + re.escape(span) + r"(?![\w`-])")
        for m in pattern.finditer(text):
            if not any(a < m.end() and m.start() < b for a, b in marked):
                marked.append((m.start(), m.end()))
                break
    for start, end in sorted(marked, reverse=True):
        text = f"{text[:start]}`{text[start:end]}`{text[end:]}"
    return text


# a clause that only points at the code after it says nothing without it
_POINTS_AT_CODE_RE = re.compile(
    r"\b(?:the following|like this|like so|as follows|below|this example|for example|these)\b"
    r"|\b(?:produces?|this|run|is|are)$",
    re.IGNORECASE,
)


def _names_code(text: str, block: Block) -> bool:
    """Whether `text` names one of the block's code spans that is a command or identifier."""
    return any(len(c) >= 3 and c in text and not c.isalpha() for c in block.code_spans) or any(
        " " in c and c in text for c in block.code_spans
    )


def fact_sentences(doc: Document) -> list[Sentence]:
    """Every citable sentence of the document, in order, with the document's ids. A quote
    right after a code block is that command's output ("> Greetings, dear human! I am a clever
    gerbil …" under `llm "Pretend to be a witty gerbil"`): an example, not what the document
    says."""
    result = []
    blocks = doc.blocks
    for n, block in enumerate(blocks):
        if block.kind == "quote" and n and blocks[n - 1].kind == "code":
            continue
        following = blocks[n + 1] if n + 1 < len(blocks) else None
        before_code = following is not None and following.kind == "code"
        for i, s in enumerate(block.sentences):
            last = i == len(block.sentences) - 1
            text = fact_text(s.text, block, before_code=before_code and last)
            if text:
                result.append(Sentence(s.id, block.id, text))
    return result


# a sentence opening with one of these goes on about the sentence before it
_FOLLOWER_RE = re.compile(r"^(?:This|These|It|Its|They|Their|That)\b")
# "…, respectively": pairs its values with the names the sentence before it lists ("A
# checkpoint is begun every `checkpoint_timeout` seconds, or if `max_wal_size` is about to be
# exceeded …" — "The default settings are 5 minutes and 1 GB, respectively.")
RESPECTIVELY_RE = re.compile(r"\brespectively\b", re.IGNORECASE)


def refers_back(text: str) -> bool:
    """Whether a sentence points at the one before it: it opens so ("This ensures …"), or it
    gives values "respectively" to what that one names."""
    return _FOLLOWER_RE.match(text) is not None or RESPECTIVELY_RE.search(text) is not None


def starts_sentence(text: str) -> bool:
    first = text.lstrip("*_\"'“(")[:1]
    return first.isupper() or first.isdigit()


def ends_whole(text: str) -> bool:
    return bool(text) and text.rstrip()[-1:] in ".!?…\"'”’)"
