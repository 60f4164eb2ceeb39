"""A page's opening when none of its facts can open it: written by code from the document's
own structure (what kind of thing the subject is, the section and the document it is in),
cited to that section, and marked `opening: derived` in the page's properties.

"`top_p` is a request field described under “Request fields” in HTTP Model Server." says
what the page is about without a fact that defines it; a fact that stands alone
(`language.openings.opening_fault`) always wins over it, now or when a later source brings
one (`write._better_lead`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from wikic.language.commands import command_names, is_code_like
from wikic.language.openings import leans_on_context, points_back
from wikic.vault.document import Document
from wikic.vault.names import name_key
from wikic.vault.topic_page import section_heading

DERIVED = "derived"  # the value of the `opening` property of a page whose opening code wrote
# what a thing is called in the text right before or after its name: "the `OLLAMA_HOST`
# environment variable", "the option `--json`"; most specific first
KIND_NOUNS = (
    "environment variable", "configuration file", "config file", "config key", "request field",
    "response field", "command-line option", "command line option", "subcommand", "command",
    "option", "flag", "field", "parameter", "argument", "setting", "variable", "key",
    "function", "macro", "method", "class", "struct", "type", "module", "package", "library",
    "plugin", "file", "directory", "endpoint", "filter", "hook", "model", "format", "tool",
    "backend", "service", "server", "table", "header", "property",
)  # fmt: skip
_KINDS = "|".join(re.escape(k) for k in KIND_NOUNS)
_WORD = r"`?(?P<word>[^\s`]+?)`?"
_WORD_KIND_RE = re.compile(rf"(?<![\w-]){_WORD}\s+(?P<kind>{_KINDS})s?\b", re.IGNORECASE)
_KIND_WORD_RE = re.compile(rf"\b(?P<kind>{_KINDS})\s+{_WORD}(?=[\s.,;:!?)]|$)", re.IGNORECASE)


@dataclass(frozen=True)
class Opening:
    text: str  # the sentence, plain (the `summary` property)
    block: str  # the paragraph it is cited to


def kind_of(
    name: str, texts: Sequence[str], doc: Document, commands: Collection[str] | None = None
) -> str | None:
    """What kind of thing `name` is, as the document calls it: the kind noun right after or
    before the name in its sentences, the most frequent ("the `OLLAMA_HOST` environment
    variable"); a flag is an option and a command the document runs (`commands`, found when
    not given) a command. None when the text never says."""
    plain = name.strip("`")
    found: Counter[str] = Counter()
    folded = plain.casefold()
    texts = [t for t in texts if folded in t.casefold()]
    if " " in plain and texts:  # a phrase: its own patterns
        quoted = rf"`?{re.escape(plain)}`?"
        after = re.compile(rf"(?<![\w-]){quoted}\s+({_KINDS})s?\b", re.IGNORECASE)
        before = re.compile(rf"\b({_KINDS})\s+{quoted}(?![\w-])", re.IGNORECASE)
        for text in texts:
            for m in (*after.finditer(text), *before.finditer(text)):
                found[m.group(1).casefold()] += 1
    else:  # one word: the precompiled patterns, the word compared
        for text in texts:
            for m in _WORD_KIND_RE.finditer(text):
                if m.group("word") == plain:
                    found[m.group("kind").casefold()] += 1
            for m in _KIND_WORD_RE.finditer(text):
                if m.group("word") == plain:
                    found[m.group("kind").casefold()] += 1
    if found:
        return found.most_common(1)[0][0]
    if plain.startswith("-") and any(
        b.kind == "code" and re.search(rf"(?<![\w-]){re.escape(plain)}(?![\w-])", b.text)
        for b in doc.blocks
    ):
        return "option"  # a flag a command line of the document passes
    if plain in (document_commands(doc) if commands is None else commands):
        return "command"
    return None


_LAST: list[tuple[Document, frozenset[str]]] = []  # the last document's commands


def document_commands(doc: Document) -> frozenset[str]:
    """The commands `doc` runs (`command_names`), kept for the document asked last: the pages
    of one source ask in turn."""
    if not _LAST or _LAST[0][0] is not doc:
        _LAST[:] = [(doc, frozenset(command_names(doc)))]
    return _LAST[0][1]


MAX_LEAD_IN_CHARS = 200  # a longer lead-in is an argument, not what its section shows


def command_lead_in(doc: Document, section: int) -> tuple[str, str, str] | None:
    """(lead-in, command, the lead-in's block) when a section opens with a sentence that ends
    with ':' and a code block of one line, the command it introduces ("If you encounter issues
    with the lock file, you can clear the cache:" over `pipenv lock --clear`): what the section
    shows, in its own words. None otherwise."""
    ids = doc.sections[section].block_ids
    # only the section's first paragraph says what it is for
    first = next((n for n, b in enumerate(ids) if doc.block(b).kind == "paragraph"), len(ids))
    if first + 1 >= len(ids):
        return None
    lead, code = doc.block(ids[first]), doc.block(ids[first + 1])
    lines = [x.strip() for x in code.text.splitlines() if x.strip()]
    last = lead.sentences[-1].text if lead.sentences else lead.text
    text = " ".join(last.split())  # the sentence that introduces the code
    if (
        code.kind == "code"
        and len(lines) == 1
        and "`" not in lines[0]
        and text.endswith(":")
        and len(text) <= MAX_LEAD_IN_CHARS
        and leans_on_context(text[:-1] + ".") is None
        and not points_back(text)  # "One easy way to deal with this is to …:"
    ):
        return text, lines[0].removeprefix("$ "), lead.id
    return None


# a heading that names a group of things: "Lock strategies", "Use Cases", "Output formats";
# not a task ("Syncing optional dependencies"), a phrase ("Handling of extraneous packages") nor
# one word, which names a topic as often as a group ("Digests" over "Verification")
_GROUP_RE = re.compile(r"(?:[A-Za-z][a-z-]*\s+){1,2}[A-Za-z][a-z-]*[a-rt-z]s")
_NOT_IN_GROUP = frozenset({"of", "the", "to", "for", "with", "and", "or", "in", "on", "a", "an"})


def _group_of(path: Sequence[str], title: str) -> str | None:
    """The heading of the section above a section's own, as the group its subject is one of
    ("lock strategies"), when it names a group of things: a plural noun phrase of two or three
    words, not the document's title. None otherwise."""
    if len(path) < 2:
        return None
    parent = section_heading(path[-2])
    words = parent.split()
    if (
        not parent
        or name_key(parent) == name_key(title)
        or not _GROUP_RE.fullmatch(parent)
        or words[0].casefold().endswith("ing")
        or any(w.casefold() in _NOT_IN_GROUP for w in words)
    ):
        return None
    # "Lock strategies" → "lock strategies"; a name in capitals stays: "HTTP endpoints"
    return " ".join(w.lower() if w[:1].isupper() and w[1:].islower() else w for w in words)


def structural_opening(
    name: str,
    texts: Sequence[str],
    blocks: Sequence[str],
    doc: Document,
    parent: str | None = None,
) -> Opening | None:
    """The opening code writes for the page of `name` from the document's structure:
    `texts` are its facts and `blocks` the paragraphs they come from (the first is cited);
    `parent` is the page it belongs to (the command, endpoint or file), if any. None when the
    page has no fact to cite."""
    if not blocks:
        return None
    block = doc.block(blocks[0])
    heading = section_heading(doc.sections[block.section].heading)
    title = section_heading(doc.title)
    coded = (" " not in name and is_code_like(name)) or any(
        name in b.code_spans for b in doc.blocks
    )
    shown = f"`{name}`" if coded and "`" not in name else name
    kind = kind_of(name, texts, doc)
    key = name_key(name)
    if key in (name_key(title), name_key(parent or "")) and kind is None:
        return Opening(f"{shown} is the subject of “{title}”.", block.id)
    if heading and name_key(heading) == key and kind is None:  # the heading names it
        shows = command_lead_in(doc, block.section)
        if shows is not None:  # "Clearing the Cache: If you …, you can clear the cache: `…`."
            lead, command, cited = shows
            return Opening(f"{shown}: {lead} `{command}`.", cited)
        group = _group_of(doc.sections[block.section].path, title)
        if group is not None:  # "Static URLs is one of the lock strategies in “Lock file”."
            return Opening(f"{shown} is one of the {group} in “{title}”.", block.id)
        return Opening(f"{shown} is a section of “{title}”.", block.id)
    named = heading and heading != title and name_key(heading) != key
    where = f"under “{heading}” in “{title}”" if named else f"in “{title}”"
    if kind is not None:
        of = f" of {parent}" if parent and parent.casefold() != name.casefold() else ""
        article = "an" if kind[0] in "aeiou" else "a"
        text = f"{shown} is {article} {kind}{of} described {where}."
    else:
        text = f"{shown} is described {where}."
    return Opening(" ".join(text.split()), block.id)
