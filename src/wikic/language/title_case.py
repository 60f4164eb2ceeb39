"""Page titles capitalised like a heading's first word: a lower-case common noun a finder took
from prose ("manifests", "dirty read") reads "Manifests", "Dirty read" as a title; a name the
document writes in lower case stays as it is: code (`pip`, `top_p`, `uv lock`), a command it
runs, or a word it writes in lower case where a sentence starts ("rqlite is …", "uv will …").
English only. `phrases._spelling` already capitalises a name the source writes so at a
sentence start; this rule covers the names it never does.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from wikic.language.commands import command_names, is_code_like
from wikic.vault.document import Document

_PLAIN_RE = re.compile(r"[a-z]+(?: [a-z]+)*")  # lower-case words only (`mlx-lm` is code-like)
_SPAN_WORD_RE = re.compile(r"[\w.-]+")
# what a code block says in English, not as code: a comment (`# naive Q4_K_M quantization …`,
# `// …`) to the end of its line, a quoted string of words (`["auto-gptq is an easy-to-use
# model quantization library …"]`, not `"requests[socks]"`); their words name nothing the code
# uses
_NOT_CODE_RE = re.compile(r"""(?:^|(?<=\s))(?:#|//).*$|"[^"\n]* [^"\n]*"|'[^'\n]* [^'\n]*'""", re.M)


def capitalised_title(name: str, docs: Sequence[Document]) -> str:
    """`name` with a capital first letter when it is a plain lower-case phrase that none of
    `docs` (the documents compiled together) writes as code, runs as a command or starts a
    sentence with in lower case; else `name` unchanged."""
    if not _PLAIN_RE.fullmatch(name) or is_code_like(name):
        return name
    starts = re.compile(rf"{re.escape(name)}(?:'s)?,? [a-z]")  # "rqlite is", not "dirty read A …"
    for doc in docs:
        words, commands, code = _code_words(doc)
        coded = name in code if " " in name else name in words  # "data file" in SQL is no name
        if coded or name.split()[0] in commands:
            # `poetry` the program is Poetry the tool; `pdm config` stays a command
            return (" " not in name and prose_spelling(name, docs)) or name
        if any(starts.match(s.text) for s in doc.sentences):
            return name  # a document writes it as a name
    return name[0].upper() + name[1:]


_CODE: dict[int, tuple[Document, tuple[frozenset[str], frozenset[str], str]]] = {}
_CODE_KEPT = 64  # documents whose code words are kept (one batch's)


def _code_words(doc: Document) -> tuple[frozenset[str], frozenset[str], str]:
    """(the words of `doc`'s code spans and code blocks, the words of the commands it runs, its
    code joined), kept for the documents of a batch: each of its topics asks."""
    kept = _CODE.get(id(doc))
    if kept is None or kept[0] is not doc:
        code = [
            *(span for b in doc.blocks for span in b.code_spans),
            *(_NOT_CODE_RE.sub(" ", b.text) for b in doc.blocks if b.kind == "code"),
        ]
        words = frozenset(w for c in code for w in _SPAN_WORD_RE.findall(c))
        commands = frozenset(w for c in command_names(doc) for w in c.split()[:1])
        if len(_CODE) >= _CODE_KEPT:
            _CODE.clear()
        kept = _CODE[id(doc)] = (doc, (words, commands, "\n".join(code)))
    return kept[1]


# a name where the prose writes it: not inside inline code, a link's target or a web address
_NOT_PROSE_RE = re.compile(r"`[^`]*`|\]\([^)]*\)|\S*://\S*|\S+\.(?:com|org|io|dev|net)\b\S*")


def prose_spelling(name: str, docs: Sequence[Document]) -> str | None:
    """How the documents' prose writes the lower-case code name `name` in mid-sentence, when
    that is with capitals and more often than as `name`: the command `poetry` is the tool
    Poetry, `pdm` is PDM, `python` is Python; `pip` and `uv`, which prose writes in lower case,
    have none (None). A sentence's first word is capitalised anyway and does not count."""
    pattern = re.compile(rf"(?<![\w.-]){re.escape(name)}(?![\w-])", re.IGNORECASE)
    counts: Counter[str] = Counter()
    for doc in docs:
        for block in doc.blocks:
            if block.kind == "code":
                continue
            prose = _NOT_PROSE_RE.sub(" ", block.markdown)
            for m in pattern.finditer(prose):
                before = prose[: m.start()].rstrip(" *_[(\"'#>-")
                if not before or before[-1] in ".!?:|":
                    continue  # a sentence, item or cell starts with it: capitalised anyway
                counts[m.group(0)] += 1
    best = max(counts, key=lambda w: (counts[w], w != name), default=None)
    return best if best is not None and counts[best] > counts[name] else None
