"""Topics from the document's structure, before any model call.

A section whose heading names a thing ("Speculative decoding", "`llama-server`", "LoRA") is a
topic whose evidence is that section's own blocks: its whole-fact sentences and its code. A
heading that only organises the text ("Installation", "Tips", "Contents", "FAQ") is a section,
not a page. Defined terms (bold terms, "Distilled Weight Quantization (DWQ)") and code names are
candidates the model may pick among.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from wikic.ingest.candidates import STOP_WORDS, VERB_S_RE, command_names
from wikic.ingest.grounding import clean_name, names_in, related, split_abbreviation
from wikic.ingest.text import Sentence
from wikic.vault.document import DATED_RE, VERSION_RE, Block, Document
from wikic.vault.names import name_key

# headings that organise a document rather than name a subject
GENERIC_HEADINGS = {
    "about", "abstract", "acknowledgements", "acknowledgments", "appendix", "attendance",
    "attendees", "authors", "background", "basic usage", "build", "building", "caveats",
    "changelog", "changes", "citation", "community", "conclusion", "conclusions", "configuration",
    "contact", "contents", "context", "contributing", "credits", "demo", "description",
    "details", "discussion", "documentation", "download", "example", "examples", "faq",
    "features", "further reading", "getting started", "guide", "help", "highlights", "how",
    "how it works", "how to use", "install", "installation", "introduction", "issues", "license",
    "limitations", "links", "motivation", "next steps", "notes", "options", "other",
    "overview", "prerequisites", "problem", "quick start", "quickstart", "readme", "references",
    "related", "related work", "release notes", "requirements", "resources", "results", "run",
    "running", "see also", "setup", "summary", "support", "table of contents", "testing",
    "tips", "toc", "todo", "troubleshooting", "tutorial", "unresolved questions", "usage",
    "use", "what", "why", "agenda", "action items", "minutes", "participants", "questions",
    "announcements", "misc", "miscellaneous", "general", "update", "updates", "fixes",
    "bug fixes", "new features", "breaking changes", "deprecations", "thanks", "outline",
}  # fmt: skip
_GENERIC_KEYS = {name_key(h) for h in GENERIC_HEADINGS}
# a heading made only of these labels a part of the document: "Syntax", "Core Implementation"
_PART_WORDS = {
    "syntax", "usage", "example", "examples", "implementation", "overview", "introduction",
    "background", "details", "detail", "notes", "note", "results", "result", "output",
    "installation", "improvements", "changes", "features", "options", "reference", "roadmap",
    "design", "internals", "architecture", "concepts", "basics", "walkthrough",
}  # fmt: skip
# a title ending in one of these names its subject before it: "Git LFS Specification"
_DOCUMENT_KINDS = {
    "specification", "spec", "troubleshooting", "tips", "guide", "tutorial", "overview",
    "introduction", "notes", "readme", "faq", "documentation", "docs", "reference", "primer",
    "cheatsheet", "walkthrough", "internals", "handbook", "manual",
}  # fmt: skip
_PART_MODIFIERS = {
    "core", "basic", "advanced", "general", "additional", "further", "more", "other",
    "detailed", "technical", "simple", "quick", "common", "main", "key", "important", "minor",
    "major", "small", "smaller", "new", "final", "initial", "full", "complete", "sample",
    "known", "recent", "latest", "implementation", "usage", "example", "high-level", "low-level",
}  # fmt: skip
# a heading with one of these is a phrase ("Text generation with different models"), and
# names a thing only through a name in it ("Installing into arbitrary Python environments")
_PHRASE_WORDS = {
    "of", "with", "for", "to", "in", "on", "at", "by", "from", "into", "and", "or", "the",
    "a", "an", "is", "are", "do", "does", "can", "different", "between", "vs", "versus",
    "this", "that", "my", "your", "our", "its", "their", "without", "via", "when",
}  # fmt: skip
_QUESTION_WORDS = {"how", "what", "why", "when", "where", "which", "using", "use", "run", "build"}
_PART_OF_RE = re.compile(
    r"^(?:an? )?(?:overview|intro|introduction|summary|guide) (?:of|to) (?:the )?", re.I
)
# "rustc's self profiler": the thing is the profiler (the owner, `rustc`, is a page of its own)
_POSSESSIVE_RE = re.compile(r"^(?:\S+['’]s )+(?=\S)")
_NUMBERING_RE = re.compile(r"^(?:\d+(?:\.\d+)*[.)]?|[IVX]+\.|[A-Z]\.)\s+")
_DEFINED_RE = re.compile(r"\b((?:[A-Z][\w-]*\s+){1,5}[A-Z]?[\w-]+)\s+\(([A-Za-z][\w-]{1,10})\)")
MAX_HEADING_WORDS = 6
FACTS_PER_SECTION_TOPIC = 8
USAGE_PER_TOPIC = 2
MAX_USAGE_LINES = 24  # a longer code block is a listing, not an example
MIN_EVIDENCE = 3  # sentences that must name a candidate for it to be a page of its own
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
# words that make a recurring phrase a turn of speech rather than a subject
_FILLER = {
    "above", "adds", "below", "case", "cases", "following", "like", "new", "number", "per",
    "runs", "safe", "second", "seconds", "section", "support", "supports", "time", "times",
    "use", "used", "uses", "using", "way", "ways", "higher", "lower", "more", "less", "better",
    "note", "see", "also", "instead", "first", "last", "next", "other", "same", "example",
}  # fmt: skip
_UNITS = {"b", "kb", "kib", "mb", "mib", "gb", "gib", "tb", "ms", "s", "n", "x", "tok"}


@dataclass(frozen=True)
class SectionTopic:
    name: str
    section: int
    facts: tuple[str, ...]  # sentence ids, in document order
    usage: tuple[str, ...]  # block ids of code blocks
    aliases: tuple[str, ...] = ()  # "BPE" of the heading "Byte pair encoding (BPE)"


def heading_name(heading: str, terms: Sequence[str] = ()) -> str | None:
    """A heading as a topic name, or None when it organises rather than names. `terms`: the
    document's defined terms; a phrase that is one names it."""
    text = _NUMBERING_RE.sub("", " ".join(heading.split())).strip(" :.?!#`*_")
    text = _PART_OF_RE.sub("", text)  # "Overview of the Cranelift backend": the backend
    text = clean_name(text.replace("`", "")) or ""
    if not text or VERSION_RE.match(text) or not any(c.isalpha() for c in text):
        return None
    words = text.split()
    if len(words) > MAX_HEADING_WORDS or text.endswith("?"):
        return None
    key = name_key(text)
    if not key or key in _GENERIC_KEYS:
        return None
    if words[0].casefold() in _QUESTION_WORDS:
        return None  # "How to fuse", "Using the API": instructions, not subjects
    if "`" not in heading and labels_a_part(text, terms):
        return None
    return text


def labels_a_part(heading: str, terms: Sequence[str] = ()) -> bool:
    """Whether a heading labels a part of a document rather than naming a thing: it is made of
    label words ("Syntax", "Core Implementation"), or it is a phrase of common words with no
    name in it ("Text generation with different models", "Notes from the meeting")."""
    words = heading.split()
    folded = [w.casefold() for w in words]
    if all(w in _PART_WORDS or w in _PART_MODIFIERS for w in folded) and any(
        w in _PART_WORDS for w in folded
    ):
        return True
    if not any(w in _PHRASE_WORDS for w in folded):
        return False
    if name_key(heading) in {name_key(t) for t in terms}:
        return False  # a term the document defines ("**Cost of a token**")
    return not any(_name_like(w, i, words) for i, w in enumerate(words))


def _name_like(word: str, i: int, words: Sequence[str]) -> bool:
    """A name in a heading: `LoRA`, `QSBR`, `GPT-2`, `llama-bench`, `logs.db`, or a capital word
    after the first in a heading that does not capitalise all its words ("Python" in
    "Installing into arbitrary Python environments")."""
    core = word.strip("()[],:;'\"")
    if any(c.isdigit() for c in core) or re.search(r"\w[-_./]\w", core):
        return True
    if any(c.isupper() for c in core[1:]):
        return True  # LoRA, QSBR, CamelCase
    content = [w for w in words[1:] if w.casefold() not in _PHRASE_WORDS]
    title_case = len(content) > 1 and all(w[:1].isupper() for w in content)
    return i > 0 and core[:1].isupper() and not title_case


def section_topics(doc: Document, sentences: Sequence[Sentence]) -> list[SectionTopic]:
    """One topic per section whose heading names a thing, with the section's own evidence.

    The document's title section is the source page itself, not a topic."""
    by_block: dict[str, list[str]] = {}
    for s in sentences:
        by_block.setdefault(s.paragraph, []).append(s.id)
    title_key = name_key(doc.title)
    terms = defined_terms(doc)
    options = flag_aliases(doc)
    commands = command_names(doc)
    asked_often = _asked_often([s.heading for s in doc.sections])
    found: list[SectionTopic] = []
    for section in doc.sections:
        blocks = [doc.block(b) for b in section.block_ids]
        facts = [sid for b in blocks for sid in by_block.get(b.id, [])]
        usage = [b.id for b in blocks if b.kind == "code" and b.text.strip()]
        if not facts:
            continue  # a heading with nothing citable under it makes an empty page
        option = section_option(section.heading, blocks, options)
        command = section_command(section.heading, blocks, commands)
        name = heading_name(section.heading, terms)
        asked = [  # "Ollama", "Ollama.ai": the subject every question asks about
            n
            for n in question_names(section.heading)
            if not any(name_key(n).startswith(k) for k in asked_often)
        ]
        if option is not None:
            name, aliases = option, tuple(options[option])
        elif command is not None:
            name, aliases = command, ()
        elif name is None and asked:
            name, aliases = asked[0], ()  # "Why is networking slow in WSL2 on Windows 10?"
        elif name is None or name_key(name) == title_key:
            continue
        else:
            name, aliases = split_abbreviation(name)
            prose = [b.text for b in blocks if b.kind != "code"]
            specific = specific_name(name, prose, doc.title) or governed_name(name, prose)
            if specific is not None:
                name, aliases = specific, (name, *aliases)
        found.append(
            SectionTopic(
                name,
                section.index,
                tuple(facts[:FACTS_PER_SECTION_TOPIC]),
                tuple(usage[:USAGE_PER_TOPIC]),
                aliases,
            )
        )
    return found


def section_option(
    heading: str, blocks: Sequence[Block], options: Mapping[str, Sequence[str]]
) -> str | None:
    """The long flag a section demonstrates, or None: its example runs the flag (long or short
    form) and its heading names every word of the flag ("Different numbers of threads" runs
    `-t 1,2,4`: `--threads`; "Prompt processing with different batch sizes" runs `-b`:
    `--batch-size`). `options`: the document's long flags and their short forms
    (`flag_aliases`)."""
    said = {_stem(w.removesuffix("s")) for w in re.findall(r"[A-Za-z]+", heading)}
    code = "\n".join(b.text for b in blocks if b.kind == "code")
    best: tuple[int, str] | None = None
    for long, shorts in options.items():
        words = [w for w in long.lstrip("-").split("-") if len(w) > 1]
        if not words or not all(_stem(w.removesuffix("s")) in said for w in words):
            continue
        runs = any(re.search(rf"(?<![\w-]){re.escape(f)}(?![\w-])", code) for f in (long, *shorts))
        if runs and (best is None or len(words) > best[0]):
            best = (len(words), long)  # "batch sizes" is --batch-size's, not --n-prompt's
    return best[1] if best else None


def section_command(heading: str, blocks: Sequence[Block], commands: Sequence[str]) -> str | None:
    """The subcommand a section demonstrates, or None: its example runs the command and its
    heading names every word after the program's ("New mechanism for storing API keys" runs
    `llm keys set openai`: `llm keys`); the command with most words wins. `commands`: the
    document's (`command_names`)."""
    said = {_stem(w.removesuffix("s")) for w in re.findall(r"[A-Za-z]+", heading)}
    lines = [
        line.removeprefix("$ ").strip()
        for b in blocks
        if b.kind == "code"
        for line in b.text.splitlines()
    ]
    best: tuple[int, str] | None = None
    for command in commands:
        words = command.split()
        if len(words) < 2 or not all(_stem(w.removesuffix("s")) in said for w in words[1:]):
            continue
        runs = any(re.match(rf"{re.escape(command)}(?![\w-])", line) for line in lines)
        if runs and (best is None or len(words) > best[0]):
            best = (len(words), command)
    return best[1] if best else None


_ASKING = {"how", "what", "why", "when", "where", "which", "who", "does", "do", "is", "are", "can"}
# a question's name: `code`, a run of capitalised words, a word with a digit (WSL2)
_QUESTION_NAME_RE = re.compile(
    r"`([^`]+)`|\b([A-Z][\w.+-]*(?: [A-Z][\w.+-]*)*)|\b(\w*\d\w*[A-Za-z]\w*|[A-Za-z]+\d\w*)\b"
)
_PLATFORMS = {"mac", "macos", "windows", "linux", "ubuntu", "docker desktop"}


def question_names(heading: str) -> list[str]:
    """The names a question heading asks about, in order: "What is quantization?" asks about
    quantization; "Why is networking slow in WSL2 on Windows 10?" about WSL2 (a platform such
    as Windows or Linux, a term of every text, a number or a pronoun is not what it asks
    about). Empty for a heading that is not a question."""
    text = " ".join(heading.split()).strip("# ")
    words = text.split()
    if not words or not (text.endswith("?") or words[0].casefold() in _ASKING):
        return []
    found: list[str] = []
    for m in re.finditer(
        r"\bwhat (?:is|are) (?:an? |the )?([\w.+-]+(?: [\w.+-]+){0,3})\?", text, re.I
    ):
        found.append(m.group(1))
    for m in _QUESTION_NAME_RE.finditer(text):
        name = next(g for g in m.groups() if g)
        parts = name.split()
        if m.start() == 0 or parts[0].casefold() in _ASKING:
            parts = parts[1:]  # "How", "What": the question's own first word
        name = " ".join(parts)
        key = name_key(name)
        if len(name) < 2 or not key or key in _COMMON_TERMS or name.casefold() in _PLATFORMS:
            continue
        found.append(name)
    return list(dict.fromkeys(found))


def _asked_often(headings: Sequence[str]) -> set[str]:
    """Name keys that more than a third of the question headings ask about (at least three):
    the document's subject ("How can I expose Ollama …", "How do I use Ollama …"), no page
    of any one question."""
    counts: dict[str, int] = {}
    questions = [question_names(h) for h in headings]
    for names in questions:
        for key in {name_key(n) for n in names}:
            counts[key] = counts.get(key, 0) + 1
    asked = sum(bool(q) for q in questions)
    return {k for k, c in counts.items() if c >= 3 and 3 * c > asked}


def named_by_phrase(
    name: str, candidates: Sequence[str], sentences: Sequence[Sentence]
) -> tuple[str, tuple[str, ...]] | None:
    """(phrase, its sentence ids) when a one-word heading (`name`: "Pointer") names the first
    word of a two-word phrase that `MIN_EVIDENCE` sentences use ("pointer file"): the section
    and the phrase are one page, under the phrase, not two. None otherwise."""
    if " " in name or not name.isalpha() or any(c.isupper() for c in name[1:]):
        return None
    word = name_key(name)
    for phrase in candidates:
        words = _words(phrase)
        if len(words) != 2 or words[0] != word or not is_subject(phrase):
            continue
        ids = tuple(s.id for s in sentences if names_sentence(phrase, s.text))
        if len(ids) >= MIN_EVIDENCE:
            return phrase, ids
    return None


def specific_name(word: str, texts: Sequence[str], title: str) -> str | None:
    """The name the section's prose gives the thing a one-word heading names, qualified by the
    document's subject: under "String interning", "State" is the "intern state"; under "Git
    LFS Specification", "Server" is the "Git LFS server" (a capitalised run or one plain word
    before it that shares a stem with the `title`, the most frequent, then the first). None
    when the prose never qualifies it so ("a remote server" is one server, not the page), or
    the heading is an acronym or code."""
    if " " in word or not word.isalpha() or any(c.isupper() for c in word[1:]):
        return None
    pattern = re.compile(
        rf"\b((?:[A-Z][\w-]*\s+){{1,3}}|[a-z][a-z-]{{2,}}\s+)((?i:{re.escape(word)}))\b"
    )
    skip = STOP_WORDS | _PHRASE_WORDS | _FILLER | {word.casefold()}
    subject = {_stem(w) for w in re.findall(r"[A-Za-z]+", title) if w.casefold() not in skip}
    found: dict[str, tuple[int, str]] = {}  # key: (count, spelling)
    for text in texts:
        for m in pattern.finditer(text):
            before = m.group(1).split()
            while before and before[0].casefold() in skip:
                before = before[1:]  # "The Git LFS server": the article is no part of it
            if not before or not any(_stem(w) in subject for w in before):
                continue
            phrase = " ".join(
                (*before, m.group(2).casefold() if before[-1].islower() else m.group(2))
            )
            key = phrase.casefold()
            count, spelling = found.get(key, (0, phrase))
            found[key] = (count + 1, spelling)
    if not found:
        return None
    best = max(found.values(), key=lambda f: f[0])  # max keeps the first of equals
    return best[1]


# a heading naming the rules for a thing: "Tier 2 target policy", "Plugin requirements"
_GOVERNS_RE = re.compile(
    r"^(.+?)\s+(?:policy|policies|requirements|rules|guidelines|criteria)$", re.IGNORECASE
)


def governed_name(heading: str, texts: Sequence[str]) -> str | None:
    """The thing a heading of rules governs, when the section's prose names it at least twice
    (plural or not): "Tier 2 target policy" is what a tier 2 target must do, and a reader looks
    up "tier 2 target" (the heading stays an alias). None for a heading that is not so made
    ("Retention policy" over prose that never says "retention" twice on its own)."""
    m = _GOVERNS_RE.match(heading)
    if m is None:
        return None
    thing = m.group(1).strip()
    pattern = re.compile(rf"\b{re.escape(thing)}(?:s|es)?\b", re.IGNORECASE)
    if sum(len(pattern.findall(t)) for t in texts) < 2:
        return None
    return thing


def _stem(word: str) -> str:
    return word.casefold()[:5]


# "Cranelift is a code generation backend …", "`version` is the first key …": a sentence that
# opens by saying what its subject is (a name: capitalised or code) defines it
_DEFINES_RE = re.compile(
    r"(?:An?\s+|The\s+)?((?:`[^`]+`|[A-Z][\w.+-]*)(?:\s+[A-Z][\w.+-]*){0,2})\s+(?:is|are)\s+"
    r"(?:an?|the)\s"
)


def defined_subjects(sentences: Sequence[Sentence]) -> list[str]:
    """Names a sentence defines ("Cranelift is a code generation backend written in Rust …"),
    in document order. Such a name is a page even when a longer name holds it ("Cranelift
    backend", the title): the document says what it is."""
    found: dict[str, None] = {}
    for s in sentences:
        m = _DEFINES_RE.match(s.text)
        name = m.group(1).strip("`") if m else ""
        if name and name.casefold() not in STOP_WORDS and name_key(name) not in _GENERIC_KEYS:
            found[name] = None
    return list(found)


def defined_terms(doc: Document) -> list[str]:
    """Bold terms, "Long Name (ABBR)" definitions and code names of headings and list items."""
    terms: list[str] = []
    for block in doc.blocks:
        if block.toc:
            continue
        terms += [t for t in block.strong if 1 <= len(t.split()) <= MAX_HEADING_WORDS]
        for m in _DEFINED_RE.finditer(block.text):
            if m.group(2)[0].isupper() or related(m.group(2), m.group(1)):
                terms.append(m.group(1).strip())  # "Prompt processing (pp)", not "Go (optional)"
        if block.kind == "item":
            terms += [c for c in block.code_spans[:1] if re.fullmatch(r"[\w.-]{3,40}", c)]
    seen: set[str] = set()
    unique = []
    for t in terms:
        key = name_key(t)
        if key and key not in seen and key not in _GENERIC_KEYS:
            seen.add(key)
            unique.append(t)
    return unique


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


# what a one-word code name is ("the `clean` filter"), singular
_KIND_WORDS = (
    "filter", "command", "option", "flag", "hook", "function", "method", "parameter",
    "setting", "field", "subcommand", "directive", "attribute", "macro",
)  # fmt: skip
_KIND_RE = re.compile(rf"^\s+({'|'.join(_KIND_WORDS)})s?\b")


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


def kind_names(doc: Document) -> list[str]:
    """Names a one-word code span makes with the kind word after it: "the `clean` filter" names
    the "clean filter", "the `pointer` command" the "pointer command" (`clean` alone is any
    word), in document order."""
    found: dict[str, None] = {}
    for block in doc.blocks:
        if block.toc or block.kind == "code":
            continue
        here: list[tuple[int, str]] = []
        for span in dict.fromkeys(block.code_spans):
            if not re.fullmatch(r"[a-z][a-z-]{2,}", span):
                continue
            for m in re.finditer(rf"(?<![\w-]){re.escape(span)}(?![\w-])", block.text):
                kind = _KIND_RE.match(block.text[m.end() :])
                if kind:
                    here.append((m.start(), f"{span} {kind.group(1)}"))
        found.update((name, None) for _, name in sorted(here))
    return list(found)


def kind_commands(
    kinds: Sequence[str], commands: Sequence[str]
) -> tuple[list[str], dict[str, tuple[str, ...]]]:
    """(names, aliases): "the `pointer` command" of a document that runs `git lfs pointer` is
    that command, with the kind name as its alias; other kind names stay as they are."""
    runs = {c.rsplit(" ", 1)[-1]: c for c in commands if " " in c}
    names: list[str] = []
    aliases: dict[str, tuple[str, ...]] = {}
    for kind in kinds:
        command = runs.get(kind.removesuffix(" command")) if kind.endswith(" command") else None
        names.append(command or kind)
        if command:
            aliases[command] = (kind,)
    return names, aliases


# "Safe memory reclamation (SMR)": a term the document defines with its abbreviation
_ABBREVIATED_RE = re.compile(
    r"\b([A-Za-z][\w-]*(?:\s+[\w-]+){1,5}?)\s+\(([A-Z][A-Z0-9]{1,9}s?|[a-z]{2,5})\)"
)


def defined_abbreviations(doc: Document) -> dict[str, tuple[str, ...]]:
    """Terms the document defines with an abbreviation whose letters are their initials:
    "Safe memory reclamation (SMR)" gives "Safe memory reclamation": ("SMR",), "Prompt
    processing (pp)" gives "Prompt processing": ("pp",). The shortest run of words before the
    parenthesis that the initials fit is the term."""
    found: dict[str, tuple[str, ...]] = {}
    for block in doc.blocks:
        if block.toc or block.kind == "code":
            continue
        for m in _ABBREVIATED_RE.finditer(block.text):
            abbr = m.group(2).removesuffix("s")  # "SMRs"
            words = m.group(1).split()
            term = " ".join(words[-len(abbr) :]) if len(words) >= len(abbr) else ""
            initials = "".join(w[0] for w in term.split()).upper()
            if term and initials == abbr.upper() and term[0].isalpha():
                found.setdefault(term[0].upper() + term[1:], (abbr,))
    return found


_FOR_SHORT_RE = re.compile(r"([\w./-]+),? or ([\w./-]+),? for short\b")


def short_names(doc: Document) -> dict[str, tuple[str, ...]]:
    """Code names the document shortens: "`rustc_codegen_cranelift` or `cg_cranelift` for
    short" gives `rustc_codegen_cranelift`: (`cg_cranelift`,)."""
    found: dict[str, tuple[str, ...]] = {}
    for block in doc.blocks:
        if block.toc or block.kind == "code":
            continue
        for long, short in _FOR_SHORT_RE.findall(block.text):
            if {long, short} <= set(block.code_spans) and short not in found.get(long, ()):
                found[long] = (*found.get(long, ()), short)
    return found


# `[llm-replicate](https://github.com/simonw/llm-replicate)`: an inline link to a web address
_WEB_LINK_RE = re.compile(r"\[`?([^\[\]`\n]+)`?\]\((https?://[^()\s]+)\)")
_LINKED_NAME_RE = re.compile(r"[A-Za-z][\w.+-]{1,39}")


def linked_names(doc: Document) -> list[str]:
    """Names of what the document links to, where the link's text is the last part of its
    address: `[llm-replicate](https://github.com/simonw/llm-replicate)`,
    `[Ruff](https://github.com/astral-sh/ruff)`. Such a link names a project, package or tool
    as its own home calls it: a precise name a reader looks up, however it is cased. A page
    deep in a site's docs (`[Windows](https://docs.docker.com/desktop/settings/windows/)`)
    names no project."""
    found: dict[str, None] = {}
    for block in doc.blocks:
        if block.toc or block.kind == "code":
            continue
        for text, url in _WEB_LINK_RE.findall(block.markdown):
            path = url.split("#", 1)[0].split("?", 1)[0].rstrip("/")
            last = re.sub(r"\.(?:git|html?|md)$", "", path.rpartition("/")[2])
            name = text.strip()
            parts = path.partition("://")[2].split("/")[1:]
            if (
                1 <= len(parts) <= 2  # a project's home (`owner/name`), not a page deep in docs
                and _LINKED_NAME_RE.fullmatch(name)
                and not is_common_term(name)
                and name.casefold() == last.casefold()
                and name_key(name) not in _GENERIC_KEYS
            ):
                found[name] = None
    return list(found)


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


def is_subject(name: str) -> bool:
    """Whether a code-found phrase can name a page: not a unit, a filler phrase or a letter."""
    words = re.findall(r"\w+", name.casefold())
    if not words or len(name.strip()) < 2 or all(w in _UNITS or w.isdigit() for w in words):
        return False
    if " " in name and name.islower() and VERB_S_RE.fullmatch(words[0]):
        return False  # "splits text", "adds support": a verb and its object
    return not any(w in _FILLER for w in words)


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
) -> list[tuple[str, tuple[str, ...]]]:
    """(name, sentence ids) for candidates that enough whole-fact sentences name
    (`min_evidence`; a sentence naming one of its `aliases` counts; names the document writes
    as inline code are in `coded`), best first: precise names
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
        if not key or key in taken or key in _GENERIC_KEYS or key in short:
            continue
        if name not in known and not is_subject(name):
            continue  # a term the document defines is a subject, whatever its words
        forms = (name, *aliases.get(name, ()))
        naming = [
            s
            for s in sentences
            if any(names_sentence(n, s.text, verbatim=n in coded and " " not in n) for n in forms)
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
# terms of every technical text: a page about one says nothing the reader looks up here
_COMMON_TERMS = frozenset({
    "stdin", "stdout", "stderr", "url", "urls", "uri", "http", "https", "api", "cpu", "cpus",
    "gpu", "gpus", "ram", "vram", "os", "id", "ids", "utf8", "ascii", "json", "yaml", "csv",
    "html", "sql", "linux", "macos", "windows",
})  # fmt: skip


def is_common_term(name: str) -> bool:
    """`STDIN`, `URL`, `GPU`, `Linux`: a name every technical text uses."""
    return name_key(name) in _COMMON_TERMS


def topic_weight(name: str, facts: int, known: Sequence[str] = ()) -> int:
    """How much a topic deserves one of a source's pages: its facts, and `PRECISE_WEIGHT` more
    for a precise name (`OLLAMA_HOST`, `--threads`, `git credential`): what readers of a
    technical document look up, where a phrase many sentences share ("Properties") is not. A
    term of every technical text (`is_common_term`: `STDIN`, `URL`) weighs nothing: it takes a
    page only when no other topic wants one."""
    if is_common_term(name):
        return 0
    return facts + (PRECISE_WEIGHT if is_precise(name, known) else 0)


def is_precise(name: str, known: Sequence[str] = ()) -> bool:
    """An identifier, flag or variable, or one of the `known` precise names: the commands the
    document runs and the terms it defines with an abbreviation."""
    if name in known:
        return True
    return bool(_IDENTIFIER_RE.fullmatch(name)) and "/" not in name and name.count(".") < 2


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
    """Whether `name` is a run of fewer words of `other`: "Git LFS" of "git lfs track"."""
    words, others = _words(name), _words(other)
    n = len(words)
    return 0 < n < len(others) and any(
        others[i : i + n] == words for i in range(len(others) - n + 1)
    )


def _words(text: str) -> list[str]:
    return [name_key(w) for w in re.findall(r"\w+", text)]


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
    return MIN_EVIDENCE - 1 if is_code_like(name) or name in coded or named else MIN_EVIDENCE


# a flag, a snake_case or SCREAMING_CASE name, camelCase, a file name with an extension
_IDENTIFIER_RE = re.compile(
    r"--?[A-Za-z][\w-]+|\w*_\w*|[a-z]+[A-Z]\w*|_?[A-Z][a-z]+(?:[A-Z][a-z0-9]+){2,}"
    r"|[\w-]+\.[A-Za-z]{1,5}|\.[a-z][\w-]{2,}"
)


def is_code_like(name: str) -> bool:
    """`--threads`, `_Py_ID`, `aliases.json`, `camelCase`: matched verbatim, precise enough that
    two sentences are evidence."""
    return re.search(r"[_.\-/=:]|^[a-z]+[A-Z]", name) is not None


def title_topic(doc: Document, sentences: Sequence[Sentence]) -> SectionTopic | None:
    """The subject the title names ("uv", "String interning", "Quiescent-State Based
    Reclamation" of "… (QSBR)") as a page of its own: its facts are the sentences that name it
    or its alias. A document that never names its subject in a sentence (a tool's README) is
    about it throughout: then its facts are those of the opening section and of the sections
    that label parts of it ("Syntax", "Examples"). The source page stays the page about the
    document."""
    subject = subject_name(doc)
    if subject is None:
        return None
    name, aliases = subject
    ids = tuple(s.id for s in sentences if any(names_sentence(n, s.text) for n in (name, *aliases)))
    if not ids:
        about = {
            block
            for section in doc.sections
            if section.index == 0 or labels_a_part(" ".join(section.heading.split()))
            for block in section.block_ids
        }
        ids = tuple(s.id for s in sentences if s.paragraph in about)
    if not ids:
        return None
    return SectionTopic(name, 0, ids[:FACTS_PER_SECTION_TOPIC], (), aliases)


def subject_name(doc: Document) -> tuple[str, tuple[str, ...]] | None:
    """(name, aliases) of the subject the title names: "Quiescent-State Based Reclamation"
    (alias QSBR) of "… (QSBR)", "llama-bench" (alias the path) of "llama.cpp/examples/llama-bench";
    None for a title that is not a name or is the file's name."""
    heading = heading_name(doc.title)
    if heading is None or doc.title_from == "filename" or DATED_RE.match(heading):
        return None  # a dated note is about an event, not a subject
    name, aliases = split_abbreviation(heading)
    name = _POSSESSIVE_RE.sub("", name)
    tail = name.rstrip("/").rsplit("/", 1)[-1]
    if " " not in name and tail != name and any(c.isalpha() for c in tail):
        name, aliases = tail, (name, *aliases)  # a path names the thing at its end
    words = name.split()
    while len(words) > 1 and words[-1].casefold() in _DOCUMENT_KINDS:
        words = words[:-1]  # "Git LFS Specification", "Token generation … troubleshooting"
    name = " ".join(words)
    return (name, aliases) if len(words) <= 4 else None


def names_sentence(name: str, text: str, *, verbatim: bool = False) -> bool:
    """Code-like names (and any name when `verbatim`: a word the document writes as code, whose
    capitalised namesake in prose is another thing: `rust` the repository, Rust the language)
    must appear verbatim; other names as a run of words (`uv pip compile`, "pip-compile")."""
    if verbatim or is_code_like(name):
        return re.search(r"(?<![\w-])" + re.escape(name) + r"(?![\w-])", text) is not None
    return names_in([name], text)


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
