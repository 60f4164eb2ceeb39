"""Pages that earn their place: which of a source's topics get a page, before the plan.

An option, flag, request or response field or config key is a member of the thing it belongs
to (the command, endpoint or file): its facts go to that parent's page, where they stand as
a list of cited rows under the section they come from, and its name is a row of the page's
`## Listed here`, cited to a fact that names it, and so an alias of it (as `ingest.twins.LIST`
lists a thin member page): a reader and a link find it there, not another source, whose
`--no-root` or `subject` is about its own tool or API (`store.concepts`). Unless it has
a page's worth of its own — three facts that name it or one that defines it — and is
referred to from elsewhere in its document (a section other than the one that lists it).
The subjects the document's title names (`language.headings.title_subjects`: "Fine-Tuning
with LoRA or QLoRA" → LoRA, QLoRA) always get a page. Titles are sanitised so that they can
stand in a link.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace

from wikic.ingest.extract import Extraction, Topic
from wikic.ingest.openings import document_commands, kind_of
from wikic.language import grounding
from wikic.language.evidence import FACTS_PER_SECTION_TOPIC
from wikic.language.headings import title_subjects
from wikic.language.openings import defines
from wikic.language.sentences import Sentence
from wikic.vault.document import Document
from wikic.vault.names import name_key

OWN_PAGE_FACTS = 3  # facts naming a member that make it a page of its own (with a reference)
# characters of the name key of a member listed as a row, and so an alias, of its parent: the
# key of `-pg` ("pg") would resolve a later source's "PG" (PostgreSQL) to the page
MIN_ROW_KEY = 3
# what the document calls a thing that is a member of another: "the `top_p` field"
MEMBER_KINDS = frozenset({
    "option", "flag", "field", "parameter", "argument", "setting", "key", "config key",
    "request field", "response field", "command-line option", "command line option", "property",
    "header",
})  # fmt: skip
_FLAG_RE = re.compile(r"^--?[A-Za-z][\w-]*$")
_FIELD_RE = re.compile(r"^[a-z][a-z0-9]*(?:[_.][a-z0-9]+)+$")  # top_p, generation.batch_size
_KEY_RE = re.compile(r"^[a-z][a-z0-9]*(?:[_.-][a-z0-9]+)*$")  # a key: stop, top_p, max-tokens
# "`top_p`: …", "`stop` — …", "top_p (float): …": an item or row that lists a member
_LISTED_RE = re.compile(r"^`?(?P<name>[^`:—–]+?)`?(?:\s*\([^()]{1,24}\))?\s*[:—–|]\s*\S")


@dataclass(frozen=True)
class Placed:
    """A source's topics after `place_topics`: those that get a page, and notes on the rest."""

    topics: list[Topic]
    notes: list[str]


def place_topics(ex: Extraction) -> Placed:
    """The topics of `ex` that get a page: members folded into their parents (`is_member`,
    `keeps_page`) and listed there (a row where a fact names it), the title's subjects added
    where no topic names them, every name sanitised (`safe_title`)."""
    notes: list[str] = []
    topics = [_sanitised(t) for t in ex.topics]
    topics = _with_title_subjects(ex, topics)
    sentences = ex.sentences
    commands = document_commands(ex.document)
    of_kind = {id(t) for t in topics if is_member(t, ex, commands)}
    members = [
        t
        for t in topics
        if not t.subject
        and (id(t) in of_kind or _subcommand(t, topics, commands))
        and not keeps_page(t, ex)
    ]
    kept = [t for t in topics if t not in members]  # in the source's order
    parents = [i for i, t in enumerate(kept) if id(t) not in of_kind]  # never another member
    for member in members:
        at = _parent(member, [kept[i] for i in parents], sentences, ex)
        if at is None:
            kept.append(member)  # nothing it belongs to: a page of its own after all
            continue
        parent = kept[parents[at]]
        own = _own(member, sentences)
        # a row of the parent's list (and so an alias of it) where a fact of it writes its
        # name, which the row cites: not `--n-gen`, which llama-bench's prose writes only as
        # `-n`, nor `-pg` (`MIN_ROW_KEY`)
        named = len(name_key(member.name)) >= MIN_ROW_KEY and any(
            _names([member.name], sentences[f].text) for f in own
        )
        kept[parents[at]] = replace(
            parent,
            facts=tuple(dict.fromkeys((*parent.facts, *own))),
            listed=tuple(dict.fromkeys((*parent.listed, *((member.name,) if named else ())))),
        )
        notes.append(f"listed {member.name!r} on the page of {parent.name!r} (a member of it)")
    return Placed(kept, notes)


def is_member(topic: Topic, ex: Extraction, commands: Collection[str] | None = None) -> bool:
    """Whether `topic` is an option, flag, field or config key of something else: a flag by
    its form (`--threads`, `-p`); a field or key (`top_p`, `generation.batch_size`) or any name
    the document calls an option, field, parameter, setting or key ("the `seed` parameter"),
    or one listed as the term of items or rows ("`stop`: …")."""
    name = topic.name.strip("`")
    doc = ex.document
    if _FLAG_RE.match(name) and _in_code(name, doc):
        return True  # a flag a command line of the document passes ("the -wal file" is none)
    if not (_FIELD_RE.match(name) or any(name in b.code_spans for b in doc.blocks)):
        return False  # a name in plain words ("quantization") is a concept of its own
    texts = [ex.sentences[f].text for f in topic.facts if f in ex.sentences]
    kind = kind_of(name, texts, doc, commands)
    if kind is not None:
        return kind in MEMBER_KINDS
    if not _KEY_RE.match(name):
        return False  # `_PyUnicode_InternMortal`, `Config`: a function or a type, not a key
    return any(_listed_as(name, ex.sentences[f], ex) for f in topic.facts if f in ex.sentences)


def _in_code(name: str, doc: Document) -> bool:
    pattern = re.compile(rf"(?<![\w-]){re.escape(name)}(?![\w-])")
    return any(b.kind == "code" and pattern.search(b.text) for b in doc.blocks)


def keeps_page(topic: Topic, ex: Extraction) -> bool:
    """Whether a member has a page's worth of its own: `OWN_PAGE_FACTS` facts that name it, or
    one that defines it ("`top_p` is …"), and something else refers to it: a section of its
    own (a heading names it: "Different numbers of threads" runs `-t`) or a mention in a
    second section."""
    own = _own(topic, ex.sentences)
    names = [topic.name, *topic.aliases]
    texts = [ex.sentences[f].text for f in own]
    if len(own) < OWN_PAGE_FACTS and not any(defines(names, t) for t in texts):
        return False
    if topic.from_heading:
        return True
    doc = ex.document
    sections = {doc.block(ex.sentences[f].paragraph).section for f in own}
    return len(sections) >= 2


def safe_title(name: str) -> str:
    """`name` fit to be a page title that links can name: no `[[`, `]]`, `|`, `#` or `^`
    (`bitsandbytes[training]` → `bitsandbytes (training)`, `C#` → `C♯`)."""
    text = re.sub(r"(?<=\w)\[", " [", name).replace("[", "(").replace("]", ")").replace("|", "/")
    text = text.replace("#", "♯").replace("^", "")
    return " ".join(text.split())


def _sanitised(topic: Topic) -> Topic:
    name = safe_title(topic.name)
    aliases = tuple(a for a in (safe_title(a) for a in topic.aliases) if a and a != name)
    if name == topic.name and aliases == topic.aliases:
        return topic
    return replace(topic, name=name, aliases=aliases)


def _own(topic: Topic, sentences: dict[str, Sentence]) -> tuple[str, ...]:
    """The facts of `topic` that name it (not the neighbours `with_paragraph` added)."""
    names = [topic.name, *topic.aliases]
    own = tuple(f for f in topic.facts if f in sentences and _names(names, sentences[f].text))
    return own or tuple(f for f in topic.facts if f in sentences)


def _names(names: Sequence[str], text: str) -> bool:
    """Whether `text` names one of `names`: as written, or in words (`grounding.mentions`) for
    a name that is not a flag; a flag is named only as written (`--locked` is not "Locking
    and syncing are automatic")."""
    plain = [n.strip("`") for n in names]
    if any(re.search(rf"(?<![\w-]){re.escape(n)}(?![\w-])", text) for n in plain if n):
        return True
    return grounding.mentions([n for n in plain if not n.startswith("-")], text)


def _listed_as(name: str, sentence: Sentence, ex: Extraction) -> bool:
    """Whether `sentence` lists `name` as the term of an item or a table row."""
    if ex.document.block(sentence.paragraph).kind not in ("item", "table"):
        return False
    m = _LISTED_RE.match(sentence.text)
    return m is not None and m.group("name").strip().strip("`") == name


def _parent(
    member: Topic, kept: Sequence[Topic], sentences: dict[str, Sentence], ex: Extraction
) -> int | None:
    """The index in `kept` of the topic `member` belongs to: the command a code line runs it
    with (`llama-bench -t 8`; of two, the longer: `uv run` of `uv run --locked`, not `uv`),
    then the one its facts name (the command `llama-bench` of `--threads`), then the one whose
    facts share most of its sections (the endpoint's section lists its fields), then the
    title's subject, each decisive in this order; never another member. None when nothing
    fits."""
    doc = ex.document
    own = _own(member, sentences)
    texts = [sentences[f].text for f in own]
    mine = {doc.block(sentences[f].paragraph).section for f in own}
    spelled = "|".join(re.escape(n.strip("`")) for n in (member.name, *member.aliases))
    flag = re.compile(rf"(?<![\w-])(?:{spelled})(?![\w-])")
    lines = [
        line.removeprefix("$ ").strip()
        for b in doc.blocks
        if b.kind == "code"
        for line in b.text.splitlines()
        if flag.search(line)
    ]
    best: tuple[tuple[int, ...], int] | None = None  # (rank, index)
    for i, t in enumerate(kept):
        if t is member:
            continue
        if member.name.startswith(t.name + " "):  # `llm aliases` of `llm aliases set`
            return i
        runs = any(_runs(t.name, line) for line in lines)  # `llama-bench -t 8`: its command
        named = any(_names([t.name, *t.aliases], x) for x in texts)
        theirs = {doc.block(sentences[f].paragraph).section for f in t.facts if f in sentences}
        rank = (
            runs,
            len(t.name.split()) if runs else 0,  # `uv run`, not `uv`, of `uv run --locked`
            named,
            len(mine & theirs),
            t.subject,
        )
        if any(rank) and (best is None or rank > best[0]):
            best = (rank, i)
    return best[1] if best is not None else None


def _subcommand(topic: Topic, topics: Sequence[Topic], commands: Collection[str]) -> bool:
    """Whether `topic` is the last word of a command the document runs under another topic's
    command (`llm aliases set` of `llm aliases`, not `llm aliases` of `llm`): a member of it,
    as its options are."""
    name = topic.name.strip("`")
    words = name.split()
    if len(words) < 3 or name not in commands:
        return False
    if any(t.name.strip("`").startswith(name + " ") for t in topics):
        return False  # it has subcommands of its own
    parent = " ".join(words[:-1])
    return any(t.name.strip("`") == parent for t in topics if t is not topic)


def _runs(command: str, line: str) -> bool:
    """Whether a code `line` runs `command` (`./llama-bench -p 512` runs `llama-bench`)."""
    name = command.strip("`")
    words = line.split()
    return bool(words) and (
        words[0] == name or words[0].endswith("/" + name) or line.startswith(name + " ")
    )


def _with_title_subjects(ex: Extraction, topics: list[Topic]) -> list[Topic]:
    """`topics` with a topic for each subject the title names that none of them is: its facts
    the sentences that name it (else those of the opening section)."""
    doc = ex.document
    taken = {name_key(n) for t in topics for n in (t.name, *t.aliases)}
    added = list(topics)
    for name, aliases in title_subjects(doc):
        names = [name, *aliases]
        facts = [s.id for s in ex.sentences.values() if _names(names, s.text)]
        if name_key(name) in taken:
            # a topic of that name already (the model's "TiDB" of one sentence): it is the
            # subject, and gets the sentences that name it as a page of its own would
            at = next(i for i, t in enumerate(added) if name_key(name) in _keys(t))
            have = added[at].facts
            more = [f for f in facts if f not in have][
                : max(0, FACTS_PER_SECTION_TOPIC - len(have))
            ]
            added[at] = replace(added[at], subject=True, facts=(*have, *more))
            continue
        if not facts:
            opening = doc.sections[0].block_ids if doc.sections else ()
            facts = [s.id for s in ex.sentences.values() if s.paragraph in opening]
        if not facts:
            continue
        added.append(
            Topic(
                safe_title(name),
                grounding.guess_type(name, ex.source.text, "concept"),
                aliases,
                tuple(facts[:FACTS_PER_SECTION_TOPIC]),
                subject=True,
            )
        )
        taken.add(name_key(name))
    return added


def _keys(topic: Topic) -> set[str]:
    return {name_key(n) for n in (topic.name, *topic.aliases)}
