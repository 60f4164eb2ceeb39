"""Code names in a document: the commands it runs, the flags it pairs, the identifiers it
writes, and the code blocks that show one of them in use.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from wikic.language.sentences import Sentence
from wikic.vault.document import Document

USAGE_PER_TOPIC = 2
MAX_USAGE_LINES = 24  # a longer code block is a listing, not an example


_CODE_TERM_RE = re.compile(r"[A-Za-z_.-][\w.\-/:=]{2,39}|[a-z][\w-]*(?: [a-z-][\w-]*){1,3}")
# a path's placeholder part and what follows it: `/{OID-PATH}`, `/<name>/config`
_PLACEHOLDER_RE = re.compile(r"(?<=\w)/(?:\{[^{}]*\}|<[^<>]*>).*$")
_FLAG_ARG_RE = re.compile(
    r"^(--?[A-Za-z][\w-]*)(?:[ =](?:[A-Z][A-Z_]*|<[^<>]+>|\[[^\]]+\]|\d+(?:,\d+)*)|=\S+)$"
)
# `-ngl N` (or `--n-gpu-layers N`): the document gives a flag's two forms
_FLAG_PAIR_RE = re.compile(r"(?<![\w-])(-[A-Za-z][\w]*)\b[^()]{0,12}\(or (--[A-Za-z][\w-]+)")
_FLAG_LIST_RE = re.compile(r"(?<![\w-])(-[A-Za-z][\w]*), (--[A-Za-z][\w-]+)")
# identifiers in plain prose: snake_case, CamelCase with inner capitals, dotfiles
_PROSE_IDENTIFIER_RE = re.compile(
    r"(?<![\w./-])(?:_?[A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_]*[A-Za-z0-9]"
    r"|_?[A-Z][a-z]+(?:[A-Z][a-z0-9]+){2,}|\.[a-z][a-z0-9_-]{2,})(?![\w-]|\.\w)"
)


# commands: a program and its subcommands ("uv pip install", "llm aliases set", "llama-bench")
_SHELL_LANGS = {"sh", "bash", "shell", "console", "zsh", "shell-session"}
_SHELL_TOOLS = {
    "cd", "echo", "cat", "ls", "mkdir", "rm", "cp", "mv", "export", "source", "set", "sh",
    "bash", "chmod", "touch", "grep", "sed", "awk", "head", "tail", "tee", "xargs", "env",
    "which", "pwd", "exit",
}  # fmt: skip
_PROGRAM_RE = re.compile(r"(?:\.{0,2}/|~/)?(?:[\w.-]+/)*([a-z][\w.-]*[a-z0-9]|[a-z])")
_SUBCOMMAND_RE = re.compile(r"[a-z][a-z0-9-]*")
MAX_COMMAND_WORDS = 3


def command_names(doc: Document) -> list[str]:
    """Programs and subcommands the document shows being run, most used first. A line of a
    shell block (`$ ./llama-bench -o csv`) names the longest part of its command that the prose
    also names ("llama-bench"), or whose last word it writes as code ("run the `pointer`
    command": `git lfs pointer`); an inline command (`llm aliases set <alias> <model-id>`) names
    itself, when its program is run in a block, it has an option or the prose calls it a
    command ("the `git lfs track` command")."""
    prose = " ".join(b.text for b in doc.blocks if b.kind != "code")
    spans = {c.strip() for b in doc.blocks if b.kind != "code" for c in b.code_spans}
    counts: Counter[str] = Counter()
    programs: set[str] = set()
    for block in doc.blocks:
        if block.kind != "code":
            continue
        for line in block.text.splitlines():
            if not (line.startswith("$ ") or block.lang in _SHELL_LANGS):
                continue
            words = command_words(line.removeprefix("$ "))
            programs.update(words[:1])
            # `git lfs pointer` is named when the prose names it, or its subcommand (`pointer`)
            while words and not (
                _mentions(" ".join(words), prose) or (len(words) > 2 and words[-1] in spans)
            ):
                words = words[:-1]
            if words:
                counts[" ".join(words)] += 1
    for block in doc.blocks:
        if block.kind == "code" or block.toc:
            continue
        for span in block.code_spans:
            words = command_words(span)
            option = any(t.startswith("-") for t in span.split()[1:])
            called = re.search(rf"(?<![\w-]){re.escape(span)}\s+commands?\b", block.text)
            if len(span.split()) > 1 and words and (words[0] in programs or option or called):
                counts[" ".join(words)] += 1
    return sorted(counts, key=lambda c: -counts[c])


def command_words(line: str) -> list[str]:
    """The program (its file name, without a path) and the plain words after it."""
    tokens = line.split("#", 1)[0].split()
    while tokens and ("=" in tokens[0] or tokens[0] == "sudo"):
        tokens = tokens[1:]  # `OLLAMA_HOST=0.0.0.0 ollama serve`
    if not tokens:
        return []
    program = _PROGRAM_RE.fullmatch(tokens[0])
    if program is None or program.group(1) in _SHELL_TOOLS:
        return []
    words = [program.group(1)]
    for token in tokens[1:MAX_COMMAND_WORDS]:
        if not _SUBCOMMAND_RE.fullmatch(token):
            break
        words.append(token)
    return words


def _mentions(name: str, text: str) -> bool:
    return re.search(r"(?<![\w.-])" + re.escape(name) + r"(?![\w-])", text) is not None


def code_terms(doc: Document) -> list[str]:
    """Inline code that names something (`--n-gpu-layers`, `_Py_ID`, `git lfs track`; a flag
    without its argument: `-ngl N` names `-ngl`), then identifiers written in plain prose
    (`eval_breaker`, `PyDictKeysObject`, `.lfsconfig`), most frequent first: in technical
    documents these are the things readers look up."""
    long_of = {short: long for long, shorts in flag_aliases(doc).items() for short in shorts}
    counts: dict[str, int] = {}
    for block in doc.blocks:
        if block.toc or block.kind == "code":
            continue
        for span in dict.fromkeys(block.code_spans):
            span = _FLAG_ARG_RE.sub(r"\1", span.strip())
            span = _PLACEHOLDER_RE.sub("", span)  # `.git/lfs/objects/{OID-PATH}`: the folder
            span = long_of.get(span, span)  # `-r` of "-r, --repetitions <n>" names that
            if _CODE_TERM_RE.fullmatch(span) and any(c.isalpha() for c in span):
                counts[span] = counts.get(span, 0) + 1
    spans = sorted(counts, key=lambda s: (-counts[s], s))
    prose: dict[str, int] = {}
    for block in doc.blocks:
        if block.toc or block.kind in ("code", "table"):
            continue
        text = block.text
        for span in sorted(set(block.code_spans), key=len, reverse=True):
            text = text.replace(span, " ")  # inside code it is part of a bigger name, or counted
        for m in _PROSE_IDENTIFIER_RE.finditer(text):
            name = m.group(0).rstrip(".")
            if name not in counts and len(name) <= 40:
                prose[name] = prose.get(name, 0) + 1
    return spans + sorted(prose, key=lambda s: (-prose[s], s))


def shorthand_commands(commands: Sequence[str]) -> dict[str, tuple[str, ...]]:
    """Commands the document also writes without their program, as aliases: a README that runs
    `uv pip install` and says "when running `pip install`, uv will …" means one command."""
    found: dict[str, tuple[str, ...]] = {}
    for command in commands:
        for other in commands:
            one_more = command.count(" ") == other.count(" ") + 1
            if " " in other and one_more and command.endswith(" " + other):
                found[command] = (*found.get(command, ()), other)
    return found


def flag_aliases(doc: Document) -> dict[str, tuple[str, ...]]:
    """Long flags with the short forms the document pairs them with: "`-ngl N` (or
    `--n-gpu-layers N`)" and "`-b, --batch-size`" give `--n-gpu-layers`: (`-ngl`,) and
    `--batch-size`: (`-b`,)."""
    found: dict[str, list[str]] = {}
    for block in doc.blocks:
        if block.toc:
            continue
        text = block.text if block.kind == "code" else " ".join(block.code_spans)
        for short, long in _FLAG_PAIR_RE.findall(block.text) + _FLAG_LIST_RE.findall(text):
            if short not in found.setdefault(long, []):
                found[long].append(short)
    return {k: tuple(v) for k, v in found.items()}


def is_precise(name: str, known: Sequence[str] = ()) -> bool:
    """An identifier, flag or variable, or one of the `known` precise names: the commands the
    document runs and the terms it defines with an abbreviation."""
    if name in known:
        return True
    return bool(_IDENTIFIER_RE.fullmatch(name)) and "/" not in name and name.count(".") < 2


# a flag, a snake_case or SCREAMING_CASE name, camelCase, a file name with an extension
_IDENTIFIER_RE = re.compile(
    r"--?[A-Za-z][\w-]+|\w*_\w*|[a-z]+[A-Z]\w*|_?[A-Z][a-z]+(?:[A-Z][a-z0-9]+){2,}"
    r"|[\w-]+\.[A-Za-z]{1,5}|\.[a-z][\w-]{2,}"
)


# a capitalised compound of words, as a heading writes it: "Trade-offs", "Read-only", "Built-in"
_PROSE_COMPOUND_RE = re.compile(r"[A-Z][a-z]+(?:-[a-z]+)+")


def prose_compound(name: str) -> bool:
    """Whether `name` is a capitalised compound of words ("Trade-offs", "Non-locking")."""
    return _PROSE_COMPOUND_RE.fullmatch(name) is not None


def is_code_like(name: str) -> bool:
    """`--threads`, `_Py_ID`, `aliases.json`, `camelCase`, `llama-bench`: matched verbatim,
    precise enough that two sentences are evidence. A capitalised compound ("Trade-offs") is
    English, not code: a heading "Trade-offs" had been listed as a member, and an alias, of
    the page "Post-Training Quantization"."""
    if prose_compound(name):
        return False
    return re.search(r"[_.\-/=:]|^[a-z]+[A-Z]", name) is not None


def code_examples(
    doc: Document, name: str, facts: Sequence[str], sentences: Sequence[Sentence]
) -> tuple[str, ...]:
    """Code blocks that use `name` (a command, flag or identifier: `llm aliases remove`,
    `--json`), at most `USAGE_PER_TOPIC`: a command's page shows how it is run. Blocks of the
    sections its facts (sentence ids) come from first, then a block with a line that starts
    with the name (it is run, not mentioned), then document order."""
    pattern = re.compile(rf"(?<![\w-]){re.escape(name)}(?![\w-])")
    ids = set(facts)
    paragraphs = {s.paragraph for s in sentences if s.id in ids}
    sections = {doc.block(p).section for p in paragraphs}
    found: list[tuple[bool, bool, int, str]] = []
    for n, block in enumerate(doc.blocks):
        if block.kind != "code" or block.text.count("\n") >= MAX_USAGE_LINES:
            continue
        if not pattern.search(block.text):
            continue
        runs = any(line.lstrip("$ ").startswith(name) for line in block.text.splitlines())
        found.append((block.section not in sections, not runs, n, block.id))
    return tuple(b for *_, b in sorted(found)[:USAGE_PER_TOPIC])
