"""Writing one source into the wiki: the LLM writes the source page's summary and judges
contradictions; code decides everything else (which facts, where, links, citations, retractions).

A topic page opens with its lead: by default (`ingest.page_summary: fact`) the fact that best
says what its subject is, verbatim and cited below, chosen by code (`defining_fact`). Measured on
the corpus with the default model, the model's own page summaries were mostly copies (136 of the
229 sentences of 175 pages repeated a fact word for word) and the rest often misstated whose
fact it was ("The LLVM project is currently complete enough to compile many programs", a fact
about cg_cranelift), while they took 9,052 of 17,915 decoded tokens and 54 % of the compile
(scripts/results/bench_compile-corpus14-notes.json). `page_summary: model` keeps the model's
summary, checked against the facts, for models that write better.

A source's model calls are one for the source page's summary (from the document's title,
outline and opening) and one per page that already has facts from other sources (the
contradiction check; in `model` mode, one per page with two facts or more, for its summary).
They see facts, not the source: short contexts decode faster on CPU (see `prompts`).
`prepare_write` builds them, `finish_write` reads the replies, so the calls of several sources
can share one batch. Nothing is written here: the result is the pages to commit.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from wikic.config import ContradictionCheck, PageSummary
from wikic.ingest import prompts
from wikic.ingest.extract import Extraction, Topic, opening
from wikic.ingest.openings import DERIVED, structural_opening
from wikic.ingest.plan import PageTarget, SourcePlan
from wikic.ingest.related import related_topics
from wikic.ingest.render import TopicEdit, apply_topic_edit, render_source_page
from wikic.ingest.schemas import (
    PAGE_SUMMARY_CHARS,
    SummaryOnly,
    page_update_model,
    source_summary_model,
)
from wikic.ingest.text import quote
from wikic.language import grounding
from wikic.language.commands import MAX_USAGE_LINES, is_code_like
from wikic.language.conflicts import conflict_reason, may_conflict
from wikic.language.openings import (
    OpeningFaults,
    defining_text,
    leans_on_context,
    opening_fault,
    opening_faults,
    proper_names,
    subject_aliases,
)
from wikic.language.prose_checks import cut_reason, fold, meta_reason, table_row_reason
from wikic.language.sentences import ends_whole
from wikic.llm.backend import (
    EMPTY_STATS,
    Generation,
    GenerationStats,
    Request,
    Segment,
)
from wikic.vault.links import link
from wikic.vault.pages import Page
from wikic.vault.sections import split_body
from wikic.vault.topic_page import (
    Fact,
    SourceSections,
    citation,
    cited_sources,
    fact_id,
    parse_facts,
    retract_source,
)
from wikic.vault.tree import Vault

MAX_OLD_FACTS = 10
MAX_SECTION_LINKS = 4
_SENTENCE_END_RE = re.compile(r"[.!?…][\"'”’)]*(?=\s|$)")
MAX_KEY_CLAIMS = 12
MAX_OUTLINE = 12  # section headings shown to the source-summary call
OPENING_CHARS = 900  # opening sentences shown to it


@dataclass
class SourceWrite:
    pages: dict[str, Page] = field(default_factory=dict)  # path relative to wiki/ → page
    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    contradictions: list[tuple[str, str, str, str]] = field(
        default_factory=list
    )  # page, new, old, why
    retracted: int = 0
    unsupported: list[str] = field(default_factory=list)
    stats: GenerationStats = EMPTY_STATS


def clean_prose(text: str, limit: int = PAGE_SUMMARY_CHARS, *, sentences: bool = True) -> str:
    """One line of model prose, link syntax defused, within `limit`. With `sentences`, whole
    sentences only ("" when not even one fits: a summary never ends mid-sentence); else cut at
    a word (a contradiction's reason is a phrase)."""
    flat = " ".join(str(text).split()).replace("[[", "[").replace("]]", "]").strip()
    if not sentences:
        return flat if len(flat) <= limit else flat[:limit].rsplit(" ", 1)[0]
    if len(flat) <= limit and ends_whole(flat):
        return flat
    cut = flat[:limit]
    ends = [m.end() for m in _SENTENCE_END_RE.finditer(cut)]
    return cut[: ends[-1]].strip() if ends else ""


def defining_fact(
    title: str, facts: Sequence[Fact], *, shared: bool = False, aliases: Sequence[str] = ()
) -> str:
    """The text of the fact that best says what `title` (also called `aliases`) is
    (`language.openings.defining_text`; `shared`: the page cites several sources)."""
    return defining_text(title, [f.text for f in facts], shared=shared, aliases=aliases)


def usage_example(ex: Extraction, source_page: str, block_id: str) -> str | None:
    """A code block of the source, verbatim in a fence, followed by its citation; None for
    code too long to be an example."""
    block = ex.document.block(block_id)
    code = block.text.rstrip("\n")
    if not code.strip() or code.count("\n") >= MAX_USAGE_LINES:
        return None
    fence = "~~~~" if "```" in code or "~~~" in code else "```"
    return f"{fence}{block.lang}\n{code}\n{fence}\n{citation(source_page, block_id)}"


@dataclass
class WriteJob:
    """One source's writing prepared against a vault: its retractions done, its model requests
    (a page's overview, the source page's summary) built, nothing asked yet. Jobs of sources
    that write no page in common can share one batch (`ingest.pipeline`)."""

    plan: SourcePlan
    vault: Vault
    out: SourceWrite
    pages: list[_PageJob]
    summary_request: Request | None
    summary_chars: int
    today: dt.date
    sections: SourceSections
    page_summary: PageSummary = "fact"

    @property
    def requests(self) -> list[Request]:
        pages = [j.request for j in self.pages if j.request is not None]
        return pages + ([self.summary_request] if self.summary_request is not None else [])

    @property
    def paths(self) -> set[str]:
        """Every page this source writes: its topic pages, its source page (not when it is
        revisited), retractions."""
        own = set() if self.plan.revisit else {self.plan.source_page}
        return {t.path for _, t in self.plan.topics} | own | set(self.out.pages)


def prepare_write(
    plan: SourcePlan,
    vault: Vault,
    *,
    agents_md: str,
    today: dt.date,
    summary_chars: int = 600,
    page_summary: PageSummary = "fact",
    contradiction_check: ContradictionCheck = "shared-words",
) -> WriteJob:
    ex = plan.extraction
    out = SourceWrite()
    if not plan.revisit:  # a revisit adds to pages of this batch; it retracts nothing
        _retract_changed(plan, vault, out)
    head: list[Segment] = [prompts.schema_segment(agents_md)]
    sections = SourceSections(lambda path: out.pages.get(path) or vault.pages.get(path))
    sections.add_document(plan.source_page, ex.document)
    jobs = []
    for topic, target in plan.topics:
        existing = out.pages.get(target.path) or vault.pages.get(target.path)
        new_facts = [
            Fact(
                fact_id(quote(s.text)),
                quote(s.text),
                (citation(plan.source_page, s.paragraph),),
                sections.heading(plan.source_page, s.paragraph) or "",
            )
            for s in (ex.sentences[sid] for sid in topic.facts)
        ]
        jobs.append(
            _page_job(head, plan, target, existing, new_facts, page_summary, contradiction_check)
        )
    summary_request = None if plan.revisit else _source_summary_request(head, ex, summary_chars)
    return WriteJob(
        plan, vault, out, jobs, summary_request, summary_chars, today, sections, page_summary
    )


def finish_write(job: WriteJob, replies: Sequence[Generation]) -> SourceWrite:
    """The pages of `job` from the model's `replies` to `job.requests`, in their order."""
    plan, vault, out = job.plan, job.vault, job.out
    ex = plan.extraction
    links = {t.path: link(t.path.removesuffix(".md"), alias=t.title) for _, t in plan.topics}
    answers = iter(replies)
    ranked = related_topics(ex, [t for t, _ in plan.topics])
    results = []
    for (topic, target), page in zip(plan.topics, job.pages, strict=True):
        reply = next(answers) if page.request else None
        names = subject_aliases(
            target.title, *topic.aliases, *(page.existing.aliases if page.existing else ())
        )
        results.append(_page_result(page, reply, target, out, job.page_summary, names))
    elsewhere = functools.cache(lambda: _openings(vault, job))  # read once, if asked at all
    leads = _distinct_leads([r[0] for r in results], [p.existing for p in job.pages], elsewhere)
    leads = _new_leads_apart(
        leads,
        [
            (t.title, p.new_facts) if p.existing is None else None
            for (_, t), p in zip(plan.topics, job.pages, strict=True)
        ],
        elsewhere,
    )
    for n, ((topic, target), page) in enumerate(zip(plan.topics, job.pages, strict=True)):
        existing, new_facts = page.existing, page.new_facts
        summary, pairs = leads[n], results[n][1]
        derived, lead_citation = _derived(plan, topic, target, existing, summary, new_facts)
        if derived:
            summary = derived
        edit = TopicEdit(
            path=target.path,
            title=target.title,
            type=target.type,
            aliases=(topic.name, *topic.aliases) if existing else topic.aliases,
            new_facts=tuple(new_facts),
            summary=summary,
            contradictions=tuple(pairs),
            related=tuple(links[plan.topics[j][1].path] for j in ranked[n]),
            source_page=plan.source_page,
            source_title=ex.title,
            usage=tuple(
                e for e in (usage_example(ex, plan.source_page, b) for b in topic.usage) if e
            ),
            section_of=job.sections.of,
            derived=bool(derived) if derived or summary else None,
            lead_citation=lead_citation,
            listed=_rows(topic, new_facts),
        )
        out.pages[target.path] = apply_topic_edit(existing, edit, job.today)
        (out.updated if existing else out.created).append(target.path)

    if plan.revisit:  # its source page stays as its own ingest wrote it
        return out
    if job.summary_request is not None:
        summary_reply = next(answers)
        out.stats = out.stats + summary_reply.stats
        ex = replace(ex, summary=_source_summary(ex, summary_reply, job.summary_chars))
    out.pages[plan.source_page] = render_source_page(
        ex,
        plan.source_page,
        list(links.values()),
        _key_facts(plan),
        job.today,
        vault.pages.get(plan.source_page),
        _section_links(plan, links),
    )
    return out


def _rows(topic: Topic, facts: Sequence[Fact]) -> tuple[tuple[str, str], ...]:
    """(name, citation) of each name `topic` lists (`ingest.twins.LIST`, `ingest.members`):
    the citation of the first of `facts` that writes it as it is, else (a name in words) of the
    first that mentions it (`grounding.mentions`). A row cites where its name is written:
    `--all-extras` had cited "… referred to as "extras"", which mentions its words, rather than
    "… use the `--all-extras` option"; a code name is matched as written only (`--locked` is
    not "the project is locked"). A name none of the page's facts holds is no row, and so no
    alias: `--locked`, folded into `uv`, had cited uv's opening sentence."""
    rows = []
    cited = [f for f in facts if f.citations]
    for name in topic.listed:
        written = [f for f in cited if name in f.text]
        worded = (
            [] if is_code_like(name) else [f for f in cited if grounding.mentions([name], f.text)]
        )
        chosen = (written or worded)[:1]
        if chosen:
            rows.append((name, chosen[0].citations[0]))
    return tuple(rows)


def _derived(
    plan: SourcePlan,
    topic: Topic,
    target: PageTarget,
    existing: Page | None,
    summary: str | None,
    facts: Sequence[Fact],
) -> tuple[str, str]:
    """(an opening code writes from the document's structure, its citation) when the page's
    opening would not stand alone (`opening_fault`): the summary chosen now, or the one it
    keeps; ("", "") when it stands, or the page keeps a derived opening of its own."""
    current = summary or (str(existing.props.get("summary") or "") if existing else "")
    names = [target.title, *(a for a in topic.aliases if grounding.related(a, target.title))]
    if not current or opening_fault(names, current) is None:
        return "", ""
    if existing is not None and existing.props.get("opening") == DERIVED and not summary:
        return "", ""  # it keeps the opening code wrote for it
    ex = plan.extraction
    sentences = [ex.sentences[sid] for sid in topic.facts if sid in ex.sentences]
    naming = [s for s in sentences if grounding.mentions(names, s.text)] or sentences
    parent = next(
        (t.title for other, t in plan.topics if other.subject and t.path != target.path), None
    )
    found = structural_opening(
        target.title,
        [f.text for f in facts],
        [s.paragraph for s in naming],
        ex.document,
        parent=parent,
    )
    if found is None:
        return "", ""
    # the fact chosen before goes on after it when it only fails to name the subject: "The
    # self-profiler can be configured to record event arguments …" under its heading
    said = current if leans_on_context(current) is None else ""
    if not any(_flat(s.text) == _flat(said) for s in sentences):
        said = ""  # another source's sentence: the opening is cited to this source
    if _flat(said).rstrip(".:") in _flat(found.text):
        said = ""  # the lead-in it quotes already says it
    return " ".join(p for p in (found.text, said) if p), citation(plan.source_page, found.block)


def _source_summary_request(
    head: list[Segment], ex: Extraction, summary_chars: int
) -> Request | None:
    """The source page's summary call; None for an episode (its opening is its summary)."""
    if ex.episode or not ex.sentences:
        return None
    doc = ex.document
    opening_text = opening(doc, list(ex.sentences.values()), OPENING_CHARS, count=6)
    task = prompts.source_summary_task(ex.title, _outline(ex), opening_text, summary_chars)
    return Request(
        [*head, task],
        schema=source_summary_model(summary_chars),
        max_tokens=summary_chars // 3 + 24,
    )


def _outline(ex: Extraction) -> list[str]:
    return [s.heading for s in ex.document.sections if s.heading and s.level > 1][:MAX_OUTLINE]


def _source_summary(ex: Extraction, gen: Generation, summary_chars: int) -> str:
    """The model's summary if whole sentences grounded in the source and not a copy of the
    prompt, else the source's opening."""
    text = clean_prose(getattr(gen.value, "summary", ""), summary_chars)
    if (
        text
        and grounding.grounded(text, ex.source.text)
        and ends_whole(text)
        and cut_reason(text) is None  # lint's rule: "… available via rust." is cut in a bracket
        and not copies_prompt(text, _outline(ex))
    ):
        return text
    return ex.summary


def copies_prompt(summary: str, outline: Sequence[str]) -> bool:
    """A "summary" that repeats the task's labels or strings section headings together is the
    prompt copied, not a summary (seen with the default model on an FAQ: "FAQ: How can I
    upgrade Ollama? How can I view the logs? … Opening: To upgrade Ollama, …")."""
    folded = summary.casefold()
    if any(label.casefold() in folded for label in prompts.SUMMARY_LABELS):
        return True
    return sum(1 for h in outline if len(h) > 3 and h.casefold() in folded) >= 3


def _section_links(plan: SourcePlan, links: dict[str, str]) -> dict[int, list[str]]:
    """Document section index → links of the pages its sentences fed (for the outline)."""
    ex = plan.extraction
    fed: dict[int, list[str]] = {}
    for topic, target in plan.topics:
        for sid in topic.facts:
            section = ex.document.block(ex.sentences[sid].paragraph).section
            pages = fed.setdefault(section, [])
            if links[target.path] not in pages and len(pages) < MAX_SECTION_LINKS:
                pages.append(links[target.path])
    return fed


@dataclass
class _PageJob:
    """One page's model call (None: nothing new to say) and what its reply is read against."""

    existing: Page | None
    new_facts: list[Fact]
    request: Request | None = None
    fresh: list[Fact] = field(default_factory=list)
    old_facts: list[Fact] = field(default_factory=list)
    on_page: list[Fact] = field(default_factory=list)  # every fact the page has now
    new_labels: dict[str, Fact] = field(default_factory=dict)
    old_labels: dict[str, Fact] = field(default_factory=dict)


def _page_job(
    head: list[Segment],
    plan: SourcePlan,
    target: PageTarget,
    existing: Page | None,
    new_facts: list[Fact],
    page_summary: PageSummary,
    contradiction_check: ContradictionCheck = "shared-words",
) -> _PageJob:
    job = _PageJob(existing, new_facts)
    if existing is None and (page_summary == "fact" or len(new_facts) <= 1):
        return job  # it opens with its defining fact (with one fact the model could only copy it)
    if existing is None:
        task = prompts.new_page_task(
            target.title, target.type, [(f"n{i + 1}", f.text) for i, f in enumerate(new_facts)]
        )
        job.request = Request(
            [*head, *task], schema=SummaryOnly, max_tokens=PAGE_SUMMARY_CHARS // 3 + 24
        )
        return job
    source_name = plan.source_page.removesuffix(".md").casefold()
    on_page = job.on_page = parse_facts(split_body(existing.body))
    job.old_facts = [
        f
        for f in on_page
        if not any(c[2:-2].split("#", 1)[0].casefold() == source_name for c in f.citations)
    ][-MAX_OLD_FACTS:]
    old_ids = {f.id for f in on_page}
    job.fresh = [f for f in new_facts if f.id not in old_ids]
    if not job.fresh:
        return job
    fresh, old = job.fresh, job.old_facts
    if page_summary == "fact" and contradiction_check == "shared-words":
        # the model judges only facts that could state one claim two ways (code's own check,
        # `conflict_reason`, still reads every pair)
        fresh = [f for f in fresh if any(may_conflict(f.text, o.text, target.title) for o in old)]
        old = [o for o in old if any(may_conflict(f.text, o.text, target.title) for f in fresh)]
    job.new_labels = {f"n{i + 1}": f for i, f in enumerate(fresh)}
    job.old_labels = {f"o{i + 1}": f for i, f in enumerate(old)}
    if page_summary == "fact" and not old:
        return job  # nothing of another source's to contradict, and code picks the lead
    old_listed = [(k, f.text) for k, f in job.old_labels.items()]
    new_listed = [(k, f.text) for k, f in job.new_labels.items()]
    schema = page_update_model(
        list(job.new_labels), list(job.old_labels), summary=page_summary == "model"
    )
    if page_summary == "model":
        task = prompts.update_page_task(
            target.title, str(existing.props.get("summary") or ""), old_listed, new_listed
        )
        job.request = Request(
            [*head, *task], schema=schema, max_tokens=PAGE_SUMMARY_CHARS // 3 + 120
        )
    else:
        task = prompts.contradiction_task(target.title, old_listed, new_listed)
        job.request = Request([*head, *task], schema=schema, max_tokens=120)
    return job


def _page_result(
    job: _PageJob,
    gen: Generation | None,
    target: PageTarget,
    out: SourceWrite,
    page_summary: PageSummary,
    aliases: Sequence[str] = (),
) -> tuple[str | None, list[tuple[str, str, str]]]:
    """(new summary or None to keep, contradictions as (new id, old id, reason)); `aliases`:
    the page's other names of its subject (`subject_aliases`)."""
    if gen is not None:
        out.stats = out.stats + gen.stats
    value = gen.value if gen is not None else None
    if job.existing is None:
        summary = clean_prose(getattr(value, "summary", "")) if page_summary == "model" else ""
        facts_text = " ".join([target.title, *(f.text for f in job.new_facts)])
        if (
            not summary
            or cut_reason(summary)
            or meta_reason(summary)
            or table_row_reason(summary)
            or not grounding.grounded(summary, facts_text)
        ):
            # verbatim, never invented
            summary = defining_fact(target.title, job.new_facts, aliases=aliases)
        return summary or None, []
    if not job.fresh:
        return None, []
    pairs: dict[tuple[str, str], str] = {}
    for c in getattr(value, "contradictions", None) or []:
        if c.new in job.new_labels and c.old in job.old_labels:
            pairs[(job.new_labels[c.new].id, job.old_labels[c.old].id)] = clean_prose(
                c.why, 120, sentences=False
            )
    for new in job.fresh:
        for old in job.old_facts:
            reason = conflict_reason(new.text, old.text)
            if reason:
                pairs.setdefault((new.id, old.id), reason)
    by_id = {f.id: f for f in [*job.fresh, *job.old_facts]}
    for (new_id, old_id), why in pairs.items():
        out.contradictions.append((target.path, by_id[new_id].text, by_id[old_id].text, why))
    found = [(n, o, why) for (n, o), why in pairs.items()]
    if page_summary == "fact":
        facts = [*job.on_page, *job.fresh]
        return _better_lead(target.title, job.existing, facts, aliases), found
    summary = clean_prose(getattr(value, "summary", ""))
    reference = " ".join(
        [
            target.title,
            str(job.existing.props.get("summary") or ""),
            *(f.text for f in [*job.old_facts, *job.fresh]),
        ]
    )
    if summary and (
        cut_reason(summary)
        or meta_reason(summary)
        or table_row_reason(summary)
        or not grounding.grounded(summary, reference)
    ):
        summary = ""  # keep the current summary rather than one the facts do not support
    if not summary and table_row_reason(str(job.existing.props.get("summary") or "")):
        # the page opened with a table row (its first source had only rows): a fact of prose
        # that defines it now replaces the row
        better = defining_fact(target.title, [*job.old_facts, *job.fresh], aliases=aliases)
        summary = "" if table_row_reason(better) else better
    return summary or None, found


def _openings(vault: Vault, job: WriteJob) -> set[str]:
    """The openings of the wiki's topic pages this job does not write, folded."""
    mine = job.paths
    return {
        fold(str(p.props.get("summary") or ""))
        for p in vault
        if p.type in ("entity", "concept") and p.path not in mine
    }


def _distinct_leads(
    summaries: Sequence[str | None],
    existing: Sequence[Page | None],
    elsewhere: Callable[[], set[str]] = set,
) -> list[str | None]:
    """`summaries` (a page's new opening, None to keep its own), none of an existing page the
    opening another page of the source has or gets, or another page of the wiki has
    (`elsewhere`, asked only when an existing page changes its opening): a sentence on two
    pages opens one of them (Postgres's "The most strict is Serializable, … is guaranteed …"
    had become the opening of LiteFS's "Guarantees" too, a twin of "Serializable")."""

    finals = [
        fold(str(s)) if s is not None else _final_of(page)
        for s, page in zip(summaries, existing, strict=True)
    ]
    leads = list(summaries)
    taken: set[str] | None = None
    for n, summary in enumerate(summaries):
        if summary is None or existing[n] is None:
            continue
        if finals[n] in finals[:n] + finals[n + 1 :]:
            leads[n] = None
            continue
        if finals[n] == _final_of(existing[n]):
            continue
        taken = elsewhere() if taken is None else taken
        if finals[n] in taken:
            leads[n] = None
    return leads


def _new_leads_apart(
    leads: Sequence[str | None],
    new: Sequence[tuple[str, Sequence[Fact]] | None],
    elsewhere: Callable[[], set[str]] = set,
) -> list[str | None]:
    """`leads` with each new page's (`new`: its title and facts; None for an existing page)
    opening moved off a sentence another page of the source opens with, or another page of
    the wiki does (`elsewhere`): it opens with its best fact besides, where it has one. Two
    new pages of one source had opened with the same sentence (the overlap set's `python`
    and `activate` pages: "Activating a virtual environment will put … `python` …"), twins
    to a reader and to `wikic lint`."""
    out = list(leads)
    taken: set[str] | None = None

    def fit(n: int) -> OpeningFaults | None:
        entry, lead = new[n], leads[n]
        return None if entry is None or lead is None else opening_faults(entry[0], lead)

    fits = [fit(n) for n in range(len(leads))]
    # of pages that would open with one sentence, the one it opens worst moves off it first:
    # "Bolt is a pure Go key/value store …" stays the opening of "Bolt", its subject, and
    # "Key value" opens with a fact of its own (before, the page listed first moved)
    order = sorted(range(len(leads)), key=lambda n: fits[n] or (), reverse=True)
    for n in order:
        lead, entry = leads[n], new[n]
        if lead is None or entry is None:
            continue
        others = {fold(str(x)) for i, x in enumerate(out) if i != n and x is not None}
        if fold(lead) not in others:
            taken = elsewhere() if taken is None else taken
            if fold(lead) not in taken:
                continue
            others |= taken
        title, facts = entry
        rest = [f for f in facts if fold(f.text) not in others]
        if rest:
            out[n] = defining_fact(title, rest)
    return out


def _final_of(page: Page | None) -> str:
    return fold(str(page.props.get("summary") or "")) if page is not None else ""


def _better_lead(
    title: str, existing: Page, facts: Sequence[Fact], aliases: Sequence[str] = ()
) -> str | None:
    """A fact of the page (`facts`: all it will have) that replaces its summary, or None to keep
    it. A lead stays unless it is no longer a fact of the page (its source changed; or a model
    wrote it, `page_summary: model`) or fails as one (it does not name the subject, refers
    back, is no sentence or a table row) and a fact now says what the subject is: a page first
    met in passing gets the source that defines it, and one that opened with what its subject
    does ("The WAL also allows read transactions …") gets the fact that names its kind
    ("Write-Ahead Logging (WAL) is a standard method …"); a page does not change its opening
    with every source."""
    current = str(existing.props.get("summary") or "")
    shared = len(cited_sources(facts)) >= 2
    best = defining_fact(title, facts, shared=shared, aliases=aliases)
    if existing.props.get("opening") == DERIVED:  # code wrote it: a fact that stands replaces it
        return best if opening_fault([title, *existing.aliases], best) is None else None
    if not current or fold(current) not in {fold(f.text) for f in facts}:
        return best
    proper = proper_names([f.text for f in facts]) if shared else None
    now = opening_faults(title, current, proper=proper, aliases=aliases)
    then = opening_faults(title, best, proper=proper, aliases=aliases)
    if then.row or best == current:
        return None
    if now.row or now.unnamed:
        return best  # the current lead fails as one
    if now.other_subject and not (
        then.other_subject or then.late_subject or then.not_alone or then.weak
    ):
        return best  # a shared page opens with what the subject is, not what one tool does
    if now.weak or then.weak:
        return None if then.weak else best  # it refers back or opens mid-sentence
    if now.no_kind and not then.no_subject and not then.no_kind:
        return best  # what the subject is ("WAL is a standard method …") over what it does
    return best if now.no_subject and not then.no_subject else None  # this one defines it


def _key_facts(plan: SourcePlan) -> list[tuple[str, str]]:
    ex = plan.extraction
    ids = dict.fromkeys(sid for topic, _ in plan.topics for sid in topic.facts)
    ordered = sorted(ids, key=lambda sid: int(sid[1:]))[:MAX_KEY_CLAIMS]
    return [(ex.sentences[sid].text, ex.sentences[sid].paragraph) for sid in ordered]


def _retract_changed(plan: SourcePlan, vault: Vault, out: SourceWrite) -> None:
    """On re-ingest the source's contribution is replaced: facts this extraction chose again are
    re-pointed to their (possibly moved) paragraph, the others lose this source's citation.
    A first ingest has nothing to retract: its source page is new, under a file name no page
    had, so no page cites it (and the wiki's pages are not read one by one)."""
    if plan.source_page not in vault.pages:
        return
    name = plan.source_page.removesuffix(".md").casefold()
    ex = plan.extraction
    chosen = {sid for topic, _ in plan.topics for sid in topic.facts}
    relocate = {
        fact_id(quote(ex.sentences[sid].text)): ex.sentences[sid].paragraph for sid in chosen
    }
    for page in vault:
        if page.type == "source" or "sources/" not in page.body:
            continue
        if not any(
            c[2:-2].split("#", 1)[0].casefold() == name
            for f in parse_facts(split_body(page.body))
            for c in f.citations
        ):
            continue
        new_page, dropped = retract_source(page, plan.source_page, relocate)
        if new_page is page:
            continue
        out.retracted += dropped
        if not parse_facts(split_body(new_page.body)) and not new_page.props.get("sources"):
            tags = [str(t) for t in new_page.props.get("tags") or []]
            if "unsupported" not in tags:
                tags.append("unsupported")
            new_page = new_page.with_props(tags=tags)
            out.unsupported.append(page.path)
        out.pages[page.path] = new_page


def _flat(text: str) -> str:
    return " ".join(text.replace("`", "").split())
