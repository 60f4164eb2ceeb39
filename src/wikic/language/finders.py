"""The topic finders: every heuristic by which code finds what a document is about, as a named
unit in one catalogue, `FINDERS`, like lint's `RULES`.

A finder reads a document (`Reading`) and returns what it found (`Found`): pages of its own
(a section, the title's subject), names offered to the model, names that become pages when
enough sentences name them, aliases, and names precise enough that one sentence will do; two
find names that are no topic (made up, another page's title), which the others' findings then
lose. Extraction merges the enabled finders' findings in catalogue order, so with every finder
on it finds what it did before they were a catalogue; `ingest.disable_finders` in wikic.yaml and
`scripts/bench_compile.py --code-only --without NAME` switch one off, and `--ablate` measures
what each one adds (docs/topic-finders.md).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import IntEnum
from functools import cached_property, partial

from wikic.errors import ConfigError
from wikic.language import actions as _actions
from wikic.language import commands as _commands
from wikic.language import definitions as _definitions
from wikic.language import discussed as _discussed
from wikic.language import frequency as _frequency
from wikic.language import headings as _headings
from wikic.language import kinds as _kinds
from wikic.language import phrases as _phrases
from wikic.language import placeholders as _placeholders
from wikic.language import section_topics as _section_topics
from wikic.language.sentences import Sentence
from wikic.vault.document import Document

MAX_CODE_TERMS = 16  # code names offered before the prose's names; the rest after them
MAX_COMMANDS = 8  # of the offers: a changelog's dozens of subcommands leave room for names
MAX_RECURRING = 40  # recurring names and phrases offered (the offers are cut at 32 in all)


@dataclass(frozen=True, eq=False)
class Reading:
    """A document as the finders read it: its parse, its whole-fact sentences, and those of
    them that are prose (not table rows), which the names offered to the model come from."""

    doc: Document
    sentences: Sequence[Sentence]
    prose: Sequence[Sentence]

    @cached_property
    def commands(self) -> list[str]:
        """Programs and subcommands the document runs (`_commands.command_names`)."""
        return _commands.command_names(self.doc)

    @cached_property
    def code_terms(self) -> list[str]:
        """Names written as code, most frequent first (`_commands.code_terms`)."""
        return _commands.code_terms(self.doc)

    @cached_property
    def discussed_words(self) -> list[str]:
        """Plain words the prose discusses (`_discussed.discussed_words`)."""
        return _discussed.discussed_words(self.prose)


class Rank(IntEnum):
    """Where a finder's names go in the list offered to the model (cut at 32): the document's
    own names first, then what code reads in its sentences, then the rarer code names."""

    NAMED = 0
    READ = 1
    LATER = 2


@dataclass(frozen=True)
class Found:
    """What one finder found in a document. Pages of their own: `sections` (sections whose
    heading names a thing) and `subject` (what the title names). `offers`: names offered to
    the model, which also become pages when enough whole-fact sentences name them; `evidence`:
    names that become pages so, even where the offers were cut before them. `aliases`: a
    name's other names (a sentence naming one names it). `precise`: names one sentence is
    evidence enough for, weighing more (`_commands.is_precise`)."""

    sections: tuple[_section_topics.SectionTopic, ...] = ()
    subject: _section_topics.SectionTopic | None = None
    offers: tuple[tuple[Rank, tuple[str, ...]], ...] = ()
    evidence: tuple[str, ...] = ()
    aliases: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    precise: tuple[str, ...] = ()
    discussed: tuple[str, ...] = ()
    discussed_words: tuple[str, ...] = ()
    actions: tuple[_actions.ActionHeading, ...] = ()
    excluded: tuple[str, ...] = ()  # names that are no topic: the others' findings lose them


@dataclass(frozen=True)
class Finder:
    """A named topic finder: `find` reads a document; its docstring says what it finds and
    why."""

    name: str
    find: Callable[[Reading], Found]

    @property
    def summary(self) -> str:
        """The first paragraph of the finder's docstring: what it finds and why."""
        doc = (self.find.__doc__ or "").strip().split("\n\n", 1)[0]
        return " ".join(doc.split())


def section_headings(r: Reading) -> Found:
    """Sections whose heading names a thing ("Speculative decoding", "`llama-server`", a flag
    or subcommand the section demonstrates, what a question heading asks about), each a page
    whose evidence is the section's own sentences and code. A heading that only organises the
    text ("Installation", "FAQ") names nothing: the reader of a technical document looks up
    what its headings name."""
    sections = tuple(_section_topics.section_topics(r.doc, r.sentences, r.code_terms))
    return Found(sections=sections, offers=((Rank.NAMED, tuple(t.name for t in sections)),))


def title_subject(r: Reading) -> Found:
    """The subject the title names ("uv", "String interning", "Quiescent-State Based
    Reclamation" of "… (QSBR)") as a page of its own, with the sentences that name it: the
    source page is about the document, the subject's page about the thing."""
    subject = _headings.subject_name(r.doc)
    return Found(
        subject=_section_topics.title_topic(r.doc, r.sentences),
        offers=((Rank.NAMED, (subject[0],) if subject else ()),),
    )


def commands(r: Reading) -> Found:
    """Programs and subcommands the document shows being run (`uv pip install`, `llm aliases
    set`, `llama-bench`), most used first: what a reader of a tool's documentation looks up.
    They are precise names; the most used are offered to the model."""
    return Found(
        offers=((Rank.NAMED, tuple(r.commands[:MAX_COMMANDS])),), precise=tuple(r.commands)
    )


def defined_abbreviations(r: Reading) -> Found:
    """Terms the document defines with an abbreviation of their initials ("Safe memory
    reclamation (SMR)", "Prompt processing (pp)"): the document names them twice, so they are
    precise names, with the abbreviation as an alias that counts as naming them."""
    found = _definitions.defined_abbreviations(r.doc)
    return Found(evidence=tuple(found), aliases=found, precise=tuple(found))


def flag_aliases(r: Reading) -> Found:
    """Short forms the document pairs with a long flag ("`-ngl N` (or `--n-gpu-layers N`)",
    "`-b, --batch-size`"): aliases, so a sentence using the short form is evidence for the
    long flag's page and the short form makes no page of its own."""
    return Found(aliases=_commands.flag_aliases(r.doc))


def shorthand_commands(r: Reading) -> Found:
    """Commands the document also writes without their program (`uv pip install` and `pip
    install`), as aliases: one command, one page."""
    return Found(aliases=_commands.shorthand_commands(r.commands))


def short_names(r: Reading) -> Found:
    """Code names the document shortens ("`rustc_codegen_cranelift` or `cg_cranelift` for
    short"), as aliases: the short name counts as naming the long one."""
    return Found(aliases=_definitions.short_names(r.doc))


def linked_names(r: Reading) -> Found:
    """Names of what the document links to where the link's text is the last part of its
    address (`[Ruff](https://github.com/astral-sh/ruff)`): a project, package or tool as its
    own home calls it, a precise name a reader looks up."""
    found = tuple(_definitions.linked_names(r.doc))
    return Found(offers=((Rank.NAMED, found),), evidence=found, precise=found)


def code_names(r: Reading) -> Found:
    """Inline code that names something (`--n-gpu-layers`, `_Py_ID`, `git lfs track`) and
    identifiers written in plain prose (`eval_breaker`, `.lfsconfig`), most frequent first,
    offered to the model: in technical documents these are the things readers look up."""
    coded = tuple(r.code_terms)
    return Found(
        offers=((Rank.NAMED, coded[:MAX_CODE_TERMS]), (Rank.LATER, coded[MAX_CODE_TERMS:]))
    )


def defined_terms(r: Reading) -> Found:
    """Bold terms, "Long Name (ABBR)" definitions and the code name opening a list item,
    offered to the model: what the document marks as a term it defines."""
    return Found(offers=((Rank.NAMED, tuple(_definitions.defined_terms(r.doc))),))


def recurring_names(r: Reading) -> Found:
    """Proper names (capitalised runs that are not just sentence starts, acronyms, names with
    digits) and phrases the prose repeats, most useful first, offered to the model: the
    source's own recurring phrases are what a topic page is about."""
    found = _phrases.topic_candidates(r.prose, title=r.doc.title, limit=MAX_RECURRING)
    return Found(offers=((Rank.READ, tuple(found)),))


def shared_concepts(r: Reading) -> Found:
    """Names and phrases the document discusses substantively (several sentences, at least
    one about it, or a heading naming it), and the plain words its headings name ("Compaction
    & snapshots"): when two or more sources of a batch discuss one, under whatever spelling
    ("lock file"/"lockfile", "WAL"/"write-ahead log"), it becomes one page citing each of
    them, though none of them offered it as a page (`ingest.shared`)."""
    return Found(
        discussed=tuple(_discussed.discussed_names(r.doc, r.prose, code=r.code_terms)),
        discussed_words=tuple(r.discussed_words),
    )


def field_terms(r: Reading) -> Found:
    """Plain words the document discusses (`discussed_words`: several sentences name them, one
    is about them) that general English rarely writes (`frequency.is_field_term`: "snapshot",
    "checksum", "compaction"; not "file" or "version") and that it writes as a noun, after a
    determiner ("the snapshot"; not "differs", "periodically"): terms of the field, which count as
    names it discusses, so two sources that each discuss one in prose make it one page citing
    both (`ingest.shared`), where before a plain word counted only towards a name or heading
    of another source."""
    words = _discussed.discussed_nouns(r.prose, r.discussed_words)
    return Found(discussed=tuple(w for w in words if _frequency.is_field_term(w)))


def coined_names(r: Reading) -> Found:
    """Lower-case words general English lacks that the prose writes in several sentences
    (`discussed.coined_words`: "rqlite", "lockfile"): names made for one thing, which no capital
    or backticks mark, so the recurring-names and code-names finders miss them. They become
    pages when enough sentences name them, and count as names the document discusses. Not
    offered to the model: its request is what it was."""
    found = tuple(_discussed.coined_words(r.prose))
    return Found(evidence=found, discussed=found)


def table_instances(r: Reading) -> Found:
    """Things a table lists by their kind, its first column headed by what they are ("Isolation
    Level" over "Read uncommitted", "Read committed", …), that the prose names too
    (`kinds.table_instances`): members of a kind the document enumerates, precise names (its
    row and a sentence are evidence enough), like their siblings other finders found ("Read
    Uncommitted" beside "Read Committed"). Not offered to the model: its request is what it
    was."""
    found = tuple(_kinds.table_instances(r.doc))
    return Found(evidence=found, precise=found)


def shared_sections(r: Reading) -> Found:
    """Headings that may name a task ("Installing from Lock Files", "Export locked packages
    to alternative formats"): alone a section, but when another source of the batch gives
    the same task a section of its own (`language.actions.shared_action`), the task becomes
    one page citing both sections (`ingest.shared.shared_sections`)."""
    return Found(actions=tuple(_actions.action_headings(r.doc)))


def made_up_names(r: Reading) -> Found:
    """Names the document invents to illustrate (`package_coffee`, the `cup` of an example
    box), which no finder may offer, make a page of or count as discussed: the document calls
    them hypothetical, or brings them in inside a box titled "Example"
    (`language.placeholders`). They are an example's props, not what the document is about."""
    return Found(excluded=_placeholders.made_up_names(r.doc))


def site_page_titles(r: Reading) -> Found:
    """Titles of other pages of the document's site, which no finder may offer, make a page
    of or count as discussed: a run of capitalised words the document writes only as the text
    of a link to a page of its own site ("see the [Configuration Reference](/reference/config)
    for details", "[Getting Started](/getting-started)"), which names that page, not a thing
    it discusses (`language.placeholders.site_page_titles`). A web address elsewhere
    (`[RFC 6838](https://…)`) and an anchor in the document itself keep their names."""
    return Found(excluded=_placeholders.site_page_titles(r.doc))


# In this order extraction merges their findings (offers within a rank, evidence, aliases: a
# later finder's aliases of a name replace an earlier one's).
FINDERS: tuple[Finder, ...] = (
    Finder("title-subject", title_subject),
    Finder("section-headings", section_headings),
    Finder("commands", commands),
    Finder("defined-abbreviations", defined_abbreviations),
    Finder("flag-aliases", flag_aliases),
    Finder("shorthand-commands", shorthand_commands),
    Finder("short-names", short_names),
    Finder("linked-names", linked_names),
    Finder("code-names", code_names),
    Finder("defined-terms", defined_terms),
    Finder("recurring-names", recurring_names),
    Finder("shared-concepts", shared_concepts),
    Finder("field-terms", field_terms),
    Finder("coined-names", coined_names),
    Finder("table-instances", table_instances),
    Finder("shared-sections", shared_sections),
    Finder("made-up-names", made_up_names),
    Finder("site-page-titles", site_page_titles),
)
FINDER_NAMES: tuple[str, ...] = tuple(f.name for f in FINDERS)


def check_finder_names(names: Iterable[str], *, where: str) -> None:
    """Raise a ConfigError naming the unknown finders of `names`, and every known one."""
    unknown = sorted(set(names) - set(FINDER_NAMES))
    if unknown:
        plural = "s" if len(unknown) > 1 else ""
        raise ConfigError(
            f"{where}: unknown topic finder{plural} {', '.join(unknown)}",
            hint="Known finders: " + ", ".join(FINDER_NAMES),
        )


def enabled_finders(disabled: Iterable[str] = ()) -> tuple[Finder, ...]:
    """The finders left on when `disabled` (wikic.yaml's `ingest.disable_finders`) are off, in
    catalogue order; an unknown name is an error."""
    off = set(disabled)
    check_finder_names(off, where="wikic.yaml ingest.disable_finders")
    return tuple(f for f in FINDERS if f.name not in off)


def find_all(reading: Reading, finders: Sequence[Finder]) -> tuple[Found, ...]:
    """What each of `finders` found in the document, in their order, less the names one of
    them excludes (`made_up_names`, `site_page_titles`)."""
    found = tuple(f.find(reading) for f in finders)
    excluded = [n for f in found for n in f.excluded]
    return tuple(_without(f, excluded) for f in found) if excluded else found


def _without(found: Found, excluded: Sequence[str]) -> Found:
    """`found` without the names of `excluded` (compared by name key) as pages, offers,
    evidence, aliases or discussed names."""
    keep = partial(_placeholders.without, excluded=excluded)
    return replace(
        found,
        sections=tuple(t for t in found.sections if keep([t.name])),
        offers=tuple((rank, tuple(keep(names))) for rank, names in found.offers),
        evidence=tuple(keep(found.evidence)),
        aliases={k: tuple(keep(v)) for k, v in found.aliases.items() if keep([k])},
        precise=tuple(keep(found.precise)),
        discussed=tuple(keep(found.discussed)),
        discussed_words=tuple(keep(found.discussed_words)),
    )


def offered_names(found: Sequence[Found]) -> list[str]:
    """Every finder's offers, by rank, then in catalogue order (not yet deduplicated)."""
    return [
        name for rank in Rank for f in found for r, names in f.offers if r == rank for name in names
    ]
