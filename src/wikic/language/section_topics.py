"""Topics from the document's structure, before any model call.

A section whose heading names a thing ("Speculative decoding", "`llama-server`", "LoRA") is a
topic whose evidence is that section's own blocks: its whole-fact sentences and its code. A
heading that only organises the text ("Installation", "Tips", "Contents", "FAQ") is a section,
not a page. The subject the title names is a topic too.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from wikic.language.actions import prose_verbs, task_object
from wikic.language.commands import (
    USAGE_PER_TOPIC,
    code_terms,
    command_names,
    command_words,
    flag_aliases,
)
from wikic.language.definitions import defined_terms
from wikic.language.evidence import (
    FACTS_PER_SECTION_TOPIC,
    MIN_EVIDENCE,
    is_subject,
    names_sentence,
)
from wikic.language.grounding import mentions, split_abbreviation, word_keys
from wikic.language.headings import (
    asked_often,
    governed_name,
    heading_name,
    labels_a_part,
    question_names,
    specific_name,
    subject_name,
)
from wikic.language.sentences import Sentence
from wikic.language.stemming import stem
from wikic.vault.document import Block, Document
from wikic.vault.names import name_key

# sentences of the document that must name what a task heading works on: a phrase the heading
# alone uses ("arbitrary Python environments") is no thing of the document
TASK_OBJECT_SENTENCES = 2


@dataclass(frozen=True)
class SectionTopic:
    name: str
    section: int
    facts: tuple[str, ...]  # sentence ids, in document order
    usage: tuple[str, ...]  # block ids of code blocks
    aliases: tuple[str, ...] = ()  # "BPE" of the heading "Byte pair encoding (BPE)"
    precise: bool = False  # an option or a command the section demonstrates, not a phrase


def section_topics(
    doc: Document, sentences: Sequence[Sentence], code: Sequence[str] | None = None
) -> list[SectionTopic]:
    """One topic per section whose heading names a thing, with the section's own evidence.
    `code`: the document's `code_terms`, where the caller has them.

    The document's title section is the source page itself, not a topic."""
    by_block: dict[str, list[str]] = {}
    for s in sentences:
        by_block.setdefault(s.paragraph, []).append(s.id)
    title_key = name_key(doc.title)
    terms = defined_terms(doc)
    options = flag_aliases(doc)
    commands = command_names(doc)
    asked_by_most = asked_often([s.heading for s in doc.sections])
    # a verb the document writes as code is a command's name ("you'll need to `activate`
    # it"): its section is about the command, not about what the command works on
    coded = {t.casefold() for t in (code_terms(doc) if code is None else code)}
    verbs = prose_verbs(" ".join(b.text for b in doc.blocks if b.kind != "code")) - coded
    texts = {s.id: s.text for s in sentences}
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
            if not any(name_key(n).startswith(k) for k in asked_by_most)
        ]
        precise = option is not None or command is not None
        # a task's section is about what it works on, where its sentences name that
        # ("Using a requirements file": "… declare all dependencies in a Requirements File")
        worked_on = task_object(section.heading, verbs)
        if (
            worked_on is not None
            and any(mentions([worked_on], texts[f]) for f in facts)
            and sum(mentions([worked_on], t) for t in texts.values()) >= TASK_OBJECT_SENTENCES
        ):
            name = worked_on
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
                precise,
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
    said = {stem(w) for w in re.findall(r"[A-Za-z]+", heading)}
    code = "\n".join(b.text for b in blocks if b.kind == "code")
    best: tuple[int, str] | None = None
    for long, shorts in options.items():
        words = [w for w in long.lstrip("-").split("-") if len(w) > 1]
        if not words or not all(stem(w) in said for w in words):
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
    said = {stem(w) for w in re.findall(r"[A-Za-z]+", heading)}
    lines = [
        line.removeprefix("$ ").strip()
        for b in blocks
        if b.kind == "code"
        for line in b.text.splitlines()
    ]
    # the section's own lines count too: a subcommand the heading names is run there even
    # when the prose never writes it ("Verifying Lock File Integrity" runs `pipenv verify`)
    own = [
        " ".join(w[:n])
        for w in map(command_words, lines)
        for n in range(2, len(w) + 1)
        if w[0] not in w[1:n]  # `summarize summarize trace.json`: the program, then a file
    ]
    best: tuple[int, str] | None = None
    for command in dict.fromkeys((*commands, *own)):
        words = command.split()
        if len(words) < 2 or not all(stem(w) in said for w in words[1:]):
            continue
        runs = any(re.match(rf"{re.escape(command)}(?![\w-])", line) for line in lines)
        if runs and (best is None or len(words) > best[0]):
            best = (len(words), command)
    return best[1] if best else None


def named_by_phrase(
    name: str, candidates: Sequence[str], sentences: Sequence[Sentence]
) -> tuple[str, tuple[str, ...]] | None:
    """(phrase, its sentence ids) when a one-word heading (`name`: "Pointer") names the first
    word of a two-word phrase that `MIN_EVIDENCE` sentences use ("pointer file"): the section
    and the phrase are one page, under the phrase, not two. None otherwise."""
    if " " in name or not name.isalpha() or any(c.isupper() for c in name[1:]):
        return None
    return _phrase_one_word_longer((name_key(name),), candidates, sentences)


MAX_EXTENDED_WORDS = 4  # words of the longest heading a phrase one word longer may extend


def extended_by_phrase(
    name: str, candidates: Sequence[str], sentences: Sequence[Sentence]
) -> tuple[str, tuple[str, ...]] | None:
    """(phrase, its sentence ids) when a heading of several words (`name`: "Transaction
    Isolation") is the start of a phrase one word longer that `MIN_EVIDENCE` sentences use
    ("transaction isolation levels"): one concept, one page under the heading, the phrase its
    alias. Two pages had split the sentences on it, and a second source's joined the one
    that happened to match longest. None otherwise, or for a name written as code."""
    words = tuple(word_keys(name))
    if not 2 <= len(words) <= MAX_EXTENDED_WORDS or not all(w.isalpha() for w in words):
        return None
    return _phrase_one_word_longer(words, candidates, sentences)


def _phrase_one_word_longer(
    words: tuple[str, ...], candidates: Sequence[str], sentences: Sequence[Sentence]
) -> tuple[str, tuple[str, ...]] | None:
    """The first of `candidates` that is `words` (word keys) and one word more, a subject of
    `sentences` that `MIN_EVIDENCE` of them name, with their ids; None when none is."""
    texts = [s.text for s in sentences]
    for phrase in candidates:
        longer = tuple(word_keys(phrase))
        if len(longer) != len(words) + 1 or longer[: len(words)] != words:
            continue
        if not is_subject(phrase, texts):
            continue
        ids = tuple(s.id for s in sentences if names_sentence(phrase, s.text))
        if len(ids) >= MIN_EVIDENCE:
            return phrase, ids
    return None


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
