"""Does compiling pay? One QA set answered two ways with the same model, budget, instruction
and answer machinery: (wiki) `wikic query` over the compiled wiki: facts and source paragraphs
from the page index; (rag) plain retrieval: the paragraphs of the raw files ranked by BM25
(SQLite FTS5, the tokenizer of wikic's index). Only retrieval differs.

Both arms pack their units under the same token budget, show them numbered and grouped by page
or file, and answer under the same JSON schema (`query.compose`): each sentence names the
numbers it uses and code renders the citations, each arm in its own form (`[[entities/x#^f-…]]`
or `[[sources/x#^p3]]` for the wiki, `[[file#^p3]]` for rag). Both decline by the same rule.

Scores, the same for both: correct = an answerable question's prose (sentences without links)
holds every expected fact (regexes in the QA file), or an unanswerable one is declined;
citation share = answers to answerable questions with at least one citation that resolves to
a block holding the cited text; decline rates on unanswerable and answerable questions.
The wiki is queried in a temp copy with the prefix cache in memory: nothing is written into it.

    WIKIC_MODELS_DIR=.cache/test-models python scripts/bench_quality.py   # samples in raw/
    python scripts/bench_quality.py --qa scripts/data/corpus/qa.yaml --raw scripts/data/corpus \\
        --wiki /tmp/corpus-wiki --compile   # compiles the corpus once (wikic ingest --all)

`--retrieval-only` asks no model: for each answerable question, and for each paraphrase of one
(`--paraphrases`, default paraphrase.yaml beside the QA set), it retrieves and packs the wiki's
context as `wikic query` does, once per ranking (`--rankings`: lexical = BM25 alone, hybrid,
semantic), and scores whether every expected fact is in the packed context. Tokens are counted
with the embedding model's tokenizer (Llama 2's), not the query model's.

    python scripts/bench_quality.py --retrieval-only --qa scripts/data/corpus/qa.yaml \\
        --wiki /tmp/corpus-wiki --raw scripts/data/corpus
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import yaml

from wikic.config import load_config
from wikic.embed.model import BUILTIN, load_embedder
from wikic.errors import UsageError, WikicError
from wikic.language.prose_checks import unescape
from wikic.llm.backend import Backend
from wikic.llm.fake import FakeBackend
from wikic.paths import WikiPaths
from wikic.query.answer import answer_question
from wikic.query.certain import RULE_NAMES as CERTAIN_RULES
from wikic.query.compose import AnswerStyle, Composed, compose, schema_text
from wikic.query.evidence import Block, Packed, pack, words
from wikic.query.retrieve import retrieve
from wikic.query.support import MIN_COVER, stems
from wikic.query.terms import key_terms
from wikic.store.db import open_store
from wikic.store.hybrid import RANKINGS
from wikic.store.rerank import resolve as resolve_rerank
from wikic.store.rows import search_text
from wikic.store.search import content_terms, name_words, parse_query
from wikic.vault.document import names_release
from wikic.vault.sources import split_paragraphs

REPO = Path(__file__).resolve().parent.parent
DEFAULT_QA = Path(__file__).resolve().parent / "data" / "qa.yaml"
RESULTS = Path(__file__).resolve().parent / "results"
COPIED = ("wiki", "AGENTS.md", "wikic.yaml")
SYSTEMS = ("wiki", "rag")
RAW_SUFFIXES = (".md", ".markdown", ".txt")
CORPUS_BOOKKEEPING = frozenset({"SOURCES.md", "README.md"})  # attribution, not content
RAG_WHERE = "source documents"
RAG_DECLINED = "The sources do not say."


def query_words(question: str) -> list[str]:
    """The question's topic words (stopwords dropped), as both arms' searches see them."""
    terms = content_terms(parse_query(question))  # `-Z` in a question is a flag, not a NOT
    return [w for t in terms for w in name_words(t.text)]


@dataclass(frozen=True)
class QAItem:
    id: str
    question: str
    facts: tuple[str, ...] = ()  # regexes, case-insensitive
    sources: tuple[str, ...] = ()  # raw/ stems that hold the answer
    answerable: bool = True


def load_qa(path: Path) -> list[QAItem]:
    """The QA set; every mistake in the file is a UsageError naming the item."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise UsageError(f"cannot read the QA set {path}: {exc}") from None
    if not isinstance(data, list) or not data:
        raise UsageError(f"{path} must hold a non-empty list of questions")
    items: list[QAItem] = []
    for n, raw in enumerate(data, 1):
        where = f"{path.name} item {n}"
        if not isinstance(raw, dict) or not isinstance(raw.get("id"), str):
            raise UsageError(f"{where}: each item is a mapping with a string `id`")
        unknown = set(raw) - {"id", "question", "facts", "sources", "answerable"}
        if unknown:
            raise UsageError(f"{where} ({raw['id']}): unknown keys {sorted(unknown)}")
        question, facts = raw.get("question"), raw.get("facts") or []
        answerable = raw.get("answerable", True)
        if not isinstance(question, str) or not question.strip():
            raise UsageError(f"{where} ({raw['id']}): `question` must be non-empty text")
        if not isinstance(facts, list) or not all(isinstance(f, str) and f for f in facts):
            raise UsageError(f"{where} ({raw['id']}): `facts` must be a list of regexes")
        if not isinstance(answerable, bool) or answerable != bool(facts):
            raise UsageError(
                f"{where} ({raw['id']}): an answerable question needs facts, an unanswerable "
                "one (`answerable: false`) has none"
            )
        for fact in facts:
            try:
                re.compile(fact)
            except re.error as exc:
                raise UsageError(f"{where} ({raw['id']}): bad regex {fact!r}: {exc}") from None
        sources = tuple(str(s) for s in raw.get("sources") or ())
        items.append(QAItem(raw["id"], question.strip(), tuple(facts), sources, answerable))
    ids = [i.id for i in items]
    if len(set(ids)) != len(ids):
        raise UsageError(f"{path}: duplicate ids {sorted({i for i in ids if ids.count(i) > 1})}")
    return items


# ── B: plain RAG over raw/ ────────────────────────────────────────────────────────────────


@dataclass(frozen=True)
class Chunk:
    """A paragraph of a raw source, cited as `[[stem#^pN]]`."""

    source: str  # path under raw/ without suffix, posix
    block: str
    title: str
    text: str

    @property
    def id(self) -> str:
        return f"{self.source}#^{self.block}"


def chunk_sources(raw: Path) -> list[Chunk]:
    """Every paragraph of every text source under `raw`, in file then paragraph order."""
    chunks: list[Chunk] = []
    for path in sorted(p for p in raw.rglob("*") if p.suffix.lower() in RAW_SUFFIXES):
        if path.name in CORPUS_BOOKKEEPING:
            continue
        stem = path.relative_to(raw).with_suffix("").as_posix()
        text = path.read_text(encoding="utf-8", errors="replace")
        for para in split_paragraphs(text):
            chunks.append(Chunk(stem, para.id, para.heading or stem, para.text))
    return chunks


class Bm25:
    """BM25 over chunks in an in-memory FTS5 table (title and text columns, equal weights);
    a query matches any of the question's topic words, as `wikic query`'s search does."""

    def __init__(self, chunks: Sequence[Chunk]) -> None:
        self.chunks = list(chunks)
        # a file's title: the heading of its first paragraph (its `# Title`), else its name
        self.titles = {c.source: c.title for c in reversed(self.chunks)}
        self._db = sqlite3.connect(":memory:")
        self._db.execute(
            "CREATE VIRTUAL TABLE chunks USING fts5(title, text, "
            "tokenize = 'porter unicode61 remove_diacritics 2')"
        )
        self._db.executemany(
            "INSERT INTO chunks(rowid, title, text) VALUES (?, ?, ?)",
            [(i, c.title, c.text) for i, c in enumerate(self.chunks)],
        )

    def rank(self, question: str) -> list[Chunk]:
        words = list(dict.fromkeys(query_words(question)))
        if not words:
            return []
        match = " OR ".join('"' + w.replace('"', '""') + '"' for w in words)
        rows = self._db.execute(
            "SELECT rowid FROM chunks WHERE chunks MATCH ? ORDER BY bm25(chunks), rowid", (match,)
        )
        return [self.chunks[r[0]] for r in rows]


_FENCED_RE = re.compile(r"^\s*(`{3,}|~{3,})[^\n]*\n(.*?)\n?\s*\1\s*$", re.DOTALL)


def _unfenced(text: str) -> str:
    """A fenced code chunk as its non-blank lines, as the wiki's store indexes a source page's
    code block; other text as it is."""
    m = _FENCED_RE.match(text)
    return "\n".join(x.rstrip() for x in m.group(2).split("\n") if x.strip()) if m else text


def _kind(text: str) -> str:
    """A raw chunk's kind as the wiki's source pages name their blocks (a list is one chunk
    here, its items one block each there)."""
    if _FENCED_RE.match(text):
        return "code"
    if text.lstrip().startswith("|"):
        return "table"
    return "item" if re.match(r"\s*(?:[-*+]|\d+[.)])\s", text) else "para"


def rag_evidence(index: Bm25, question: str) -> list[Block]:
    """The ranked paragraphs as units, grouped by file, cited as `[[file#^pN]]`; a code block,
    list or table is a `code`, `item` or `table` unit, as on the wiki's source pages (so a
    lead-in brings what it introduces in both arms when both were found)."""
    ranked = index.rank(question)
    titles = index.titles
    return [
        Block(
            page=c.source,
            heading=f"{titles.get(c.source, c.source)} (source)",
            kind=_kind(c.text),
            text=_unfenced(c.text),
            link=c.id,
            score=float(len(ranked) - n),
            ordinal=int(c.block[1:]) if c.block[1:].isdigit() else 0,
            # the release or day its heading names, as a quote from the wiki opens with it
            section=c.title if names_release(c.title) else "",
        )
        for n, c in enumerate(ranked)
    ]


# ── running both arms ────────────────────────────────────────────────────────────────────


@dataclass(frozen=True)
class Attempt:
    system: str
    answer: str  # as rendered
    prose: str  # the sentences without links or marks: what is scored
    correct: bool
    found: tuple[str, ...]
    declined: bool
    decline_reason: str | None
    citations: int  # distinct citations in the answer
    citations_ok: int  # … that resolve to a block holding the cited text
    inferred: int  # sentences marked as the model's inference
    reattributed: int  # sentences credited to the unit they repeat, not the ids given
    context_facts: int  # expected facts present in what the model was shown
    context_tokens: int
    prompt_tokens: int
    cached_tokens: int
    generated_tokens: int
    ttft_s: float
    seconds: float
    finish_reason: str
    called: bool
    # where the time went (`GenerationStats.breakdown`): prefill, decode, rows per step, idle
    breakdown: dict[str, Any] = field(default_factory=dict)
    decided_by: str | None = None  # the `query.certain` rule that answered without the model


@dataclass(frozen=True)
class Row:
    item: QAItem
    attempts: dict[str, Attempt] = field(default_factory=dict)


def _score(item: QAItem, prose: str, declined: bool) -> tuple[bool, tuple[str, ...]]:
    """Scored on the text as a reader sees it: markdown escapes (`q4\\_0`) and entities undone."""
    if not item.answerable:
        return declined, ()
    prose = unescape(prose)
    found = tuple(f for f in item.facts if re.search(f, prose, re.IGNORECASE))
    return (not declined and len(found) == len(item.facts)), found


def _holds(block: str | None, text: str) -> bool:
    """Whether the block's words contain the cited text's words (gaps `…` allowed)."""
    if block is None:
        return False
    flat = " ".join(words(search_text(block)))
    return all(" ".join(words(part)) in flat for part in text.split("…") if words(part))


def _citations_ok(composed: Composed, resolve: Callable[[str], str | None]) -> int:
    """Distinct citations whose block, read back from the wiki or the raw file, holds the cited
    text, in sentences whose cited blocks together hold most of the sentence's content words
    (`query.support.MIN_COVER`): a citation to the right block of the wrong fact does not count."""
    ok: set[str] = set()
    for sentence in composed.sentences:
        blocks = {
            s.evidence.link: resolve(s.evidence.link) for s in sentence.cited if s.evidence.link
        }
        mine = stems(sentence.text)
        held = set().union(*(stems(search_text(b)) for b in blocks.values() if b))
        if mine and len(mine & held) < MIN_COVER * len(mine):
            continue
        ok |= {
            s.evidence.link
            for s in sentence.cited
            if s.evidence.link and _holds(blocks[s.evidence.link], s.text)
        }
    return len(ok)


def _attempt(
    system: str,
    item: QAItem,
    composed: Composed,
    packed: Packed,
    resolve: Callable[[str], str | None],
    seconds: float,
    ttft: float,
) -> Attempt:
    declined = composed.declined is not None
    correct, found = _score(item, composed.prose, declined)
    cited = composed.cited
    context = unescape("\n".join(s.text for s in packed.shown))
    stats = composed.stats
    return Attempt(
        system,
        composed.answer,
        composed.prose,
        correct,
        found,
        declined,
        composed.declined,
        len({s.evidence.link for s in cited}),
        _citations_ok(composed, resolve),
        sum(1 for s in composed.sentences if not s.cited),
        sum(1 for s in composed.sentences if s.reattributed),
        sum(1 for f in item.facts if re.search(f, context, re.IGNORECASE)),
        packed.tokens,
        stats.prompt_tokens,
        stats.cached_tokens,
        stats.generated_tokens,
        round(ttft, 2),
        round(seconds, 2),
        composed.finish_reason,
        composed.model_called,
        stats.breakdown(seconds),
        composed.decided_by,
    )


def wiki_block(wiki: Path, target: str) -> str | None:
    """The text of the block `target` (`entities/x#^f-1`) names in the wiki: the line or
    paragraph that ends with its block id."""
    page, _, block = target.partition("#^")
    try:
        text = (wiki / f"{page}.md").read_text(encoding="utf-8")
    except OSError:
        return None
    parts = re.split(r"\n\s*\n", text)
    for n, part in enumerate(parts):
        if part.strip() == f"^{block}" and n:  # a code block's id stands alone below it
            return parts[n - 1].strip()
        for line in part.split("\n"):
            if re.search(rf"\s\^{re.escape(block)}\s*$", line):
                return line if line.lstrip().startswith(("-", "*")) else part.strip()
    return None


def ask_wiki(
    paths: WikiPaths, item: QAItem, backend: Backend, *, budget: int, cap: int, style: AnswerStyle
) -> Attempt:
    result = answer_question(
        paths, item.question, backend=backend, context_tokens=budget, max_tokens=cap, style=style
    )
    packed = result.packed or Packed("", (), 0)
    composed = Composed(
        answer=result.answer,
        sentences=result.sentences,
        declined=result.decline_reason,
        raw=result.raw_answer,
        stats=result.stats,
        finish_reason=result.finish_reason,
        ttft_s=result.ttft_s,
        model_called=result.model_called,
        key_terms=(),
        decided_by=result.decided_by,
    )
    return _attempt(
        "wiki",
        item,
        composed,
        packed,
        lambda t: wiki_block(paths.wiki, t),
        result.total_s,
        result.ttft_s,
    )


def ask_rag(
    paths: WikiPaths,
    index: Bm25,
    item: QAItem,
    backend: Backend,
    *,
    budget: int,
    cap: int,
    style: AnswerStyle,
) -> Attempt:
    start = time.perf_counter()
    packed = pack(
        rag_evidence(index, item.question),
        words(item.question),
        budget,
        backend.count_tokens,
        key_terms(item.question),
    )
    agents = paths.agents_md.read_text(encoding="utf-8") if paths.agents_md.is_file() else ""
    before = time.perf_counter() - start
    composed = compose(
        backend,
        item.question,
        packed,
        schema=schema_text(agents),
        where=RAG_WHERE,
        decline_text=RAG_DECLINED,
        max_tokens=cap,
        style=style,
        temperature=paths.config.generation.temperature,
        seed=paths.config.generation.seed,
        decide=paths.config.query.decide_without_model,
    )
    seconds = time.perf_counter() - start
    by_id = {c.id: c.text for c in index.chunks}
    ttft = before + composed.ttft_s if composed.model_called else 0.0
    return _attempt("rag", item, composed, packed, by_id.get, seconds, ttft)


def run_bench(
    paths: WikiPaths,
    raw: Path,
    items: Sequence[QAItem],
    backend: Backend,
    *,
    systems: Sequence[str] = SYSTEMS,
    budget: int,
    cap: int,
    style: AnswerStyle = "quote",
    on_row: Callable[[int, Row], None] | None = None,
) -> list[Row]:
    """Ask every question of both arms, interleaved so both see the same machine load."""
    index = Bm25(chunk_sources(raw))
    rows: list[Row] = []
    for n, item in enumerate(items, 1):
        row = Row(item)
        for name in systems:
            row.attempts[name] = (
                ask_wiki(paths, item, backend, budget=budget, cap=cap, style=style)
                if name == "wiki"
                else ask_rag(paths, index, item, backend, budget=budget, cap=cap, style=style)
            )
        rows.append(row)
        if on_row is not None:
            on_row(n, row)
    return rows


# ── summary and tables ───────────────────────────────────────────────────────────────────


def _ratio(num: float, den: float) -> float | None:
    return round(num / den, 3) if den else None


def summarize(rows: Sequence[Row], systems: Sequence[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in systems:
        atts = [(r.item, r.attempts[name]) for r in rows if name in r.attempts]
        answerable = [a for i, a in atts if i.answerable]
        unanswerable = [a for i, a in atts if not i.answerable]
        answered = [a for a in answerable if not a.declined]
        cited_ok = sum(1 for a in answered if a.citations_ok)
        called = [a for _, a in atts if a.called] or [a for _, a in atts]
        n = len(called) or 1
        out[name] = {
            "questions": len(atts),
            "correct": sum(a.correct for _, a in atts),
            "accuracy": _ratio(sum(a.correct for _, a in atts), len(atts)),
            "answerable": len(answerable),
            "answerable_correct": sum(a.correct for a in answerable),
            "answered_answerable": len(answered),
            "cited_ok_answers": cited_ok,
            "citation_share": _ratio(cited_ok, len(answered)),
            "citation_share_of_answerable": _ratio(cited_ok, len(answerable)),
            "unanswerable": len(unanswerable),
            "declined_unanswerable": sum(a.declined for a in unanswerable),
            "decline_rate_unanswerable": _ratio(
                sum(a.declined for a in unanswerable), len(unanswerable)
            ),
            "declined_answerable": sum(a.declined for a in answerable),
            "decline_rate_answerable": _ratio(sum(a.declined for a in answerable), len(answerable)),
            "facts_in_context": _ratio(
                sum(a.context_facts for a in answerable),
                sum(len(i.facts) for i, _ in atts if i.answerable),
            ),
            "inferred_sentences": sum(a.inferred for _, a in atts),
            "reattributed_sentences": sum(a.reattributed for _, a in atts),
            "hit_answer_cap": sum(1 for _, a in atts if a.finish_reason == "length"),
            "model_calls": sum(1 for _, a in atts if a.called),
            "mean_prompt_tokens": round(sum(a.prompt_tokens for a in called) / n),
            "max_prompt_tokens": max((a.prompt_tokens for a in called), default=0),
            "mean_cached_tokens": round(sum(a.cached_tokens for a in called) / n),
            "mean_generated_tokens": round(sum(a.generated_tokens for a in called) / n, 1),
            "mean_ttft_s": round(sum(a.ttft_s for a in called) / n, 1),
            "mean_seconds": round(sum(a.seconds for a in called) / n, 1),
            "max_seconds": round(max((a.seconds for a in called), default=0.0), 1),
            "time": time_breakdown([a for _, a in atts]),
            # answered by a `query.certain` rule, without the model, and how often rightly
            "decided_without_model": sum(1 for _, a in atts if a.decided_by),
            "decided_without_model_correct": sum(1 for _, a in atts if a.decided_by and a.correct),
        }
    return out


TIME_KEYS = ("wall_s", "prefill_s", "prefill_tokens", "decode_s", "decode_tokens", "idle_s")


def time_breakdown(attempts: Sequence[Attempt]) -> dict[str, Any]:
    """Where one system's time went over all its questions: the sums of each attempt's
    prefill, decode and idle seconds and tokens, and the mean rows per decode step."""
    out: dict[str, Any] = {
        k: round(sum(a.breakdown.get(k) or 0 for a in attempts), 3) for k in TIME_KEYS
    }
    steps = [a.breakdown.get("rows_per_step") for a in attempts]
    known = [x for x in steps if x]
    out["rows_per_step"] = round(sum(known) / len(known), 3) if known else None
    out["model_calls"] = sum(a.breakdown.get("calls") or 0 for a in attempts)
    return out


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.0f}%"


def render_markdown(rows: Sequence[Row], summary: dict[str, Any], *, answers: bool) -> str:
    lines = [
        "| question | system | facts | correct | declined | citations ok | context facts "
        "| prompt (cached) | gen | first token s | s |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        need = len(row.item.facts)
        for name, a in row.attempts.items():
            facts = f"{len(a.found)}/{need}" if row.item.answerable else "(unanswerable)"
            ctx = f"{a.context_facts}/{need}" if row.item.answerable else "–"
            cap = " (cap)" if a.finish_reason == "length" else ""
            lines.append(
                f"| {row.item.id} | {name} | {facts} | {'yes' if a.correct else 'no'} "
                f"| {'yes' if a.declined else 'no'} | {a.citations_ok}/{a.citations} | {ctx} "
                f"| {a.prompt_tokens} ({a.cached_tokens}) | {a.generated_tokens}{cap} "
                f"| {a.ttft_s:.1f} | {a.seconds:.1f} |"
            )
    lines += [
        "",
        "| system | correct | accuracy | citation share | declined unanswerable "
        "| declined answerable | facts in context | inferred | mean prompt (max) "
        "| mean gen | mean first token s | mean s (max) |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, s in summary.items():
        lines.append(
            f"| {name} | {s['correct']}/{s['questions']} | {_pct(s['accuracy'])} "
            f"| {s['cited_ok_answers']}/{s['answered_answerable']} ({_pct(s['citation_share'])}) "
            f"| {s['declined_unanswerable']}/{s['unanswerable']} "
            f"| {s['declined_answerable']}/{s['answerable']} | {_pct(s['facts_in_context'])} "
            f"| {s['inferred_sentences']} | {s['mean_prompt_tokens']} ({s['max_prompt_tokens']}) "
            f"| {s['mean_generated_tokens']} | {s['mean_ttft_s']} "
            f"| {s['mean_seconds']} ({s['max_seconds']}) |"
        )
    if answers:
        lines.append("")
        for row in rows:
            lines.append(f"### {row.item.id}: {row.item.question}")
            for name, a in row.attempts.items():
                why = f" ({a.decline_reason})" if a.decline_reason else ""
                lines.append(f"- **{name}**: {' '.join(a.answer.split())}{why}")
    return "\n".join(lines) + "\n"


# ── the wiki to query ────────────────────────────────────────────────────────────────────


def compile_wiki(root: Path, raw: Path) -> None:
    """`wikic init ROOT`, the files of `raw` copied into ROOT/raw/, `wikic ingest --all`
    (in a child process, as a user would run it; its progress goes to stderr). A corpus's own
    bookkeeping (SOURCES.md, README.md: attribution, not content) is not a source."""
    from wikic.init import init_wiki

    init_wiki(root)
    for path in sorted(raw.rglob("*")):
        if path.name in CORPUS_BOOKKEEPING:
            continue
        if path.is_file() and path.suffix.lower() in RAW_SUFFIXES:
            dest = root / "raw" / path.relative_to(raw)
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, dest)
    cmd = [sys.executable, "-m", "wikic", "-C", str(root), "ingest", "--all"]
    done = subprocess.run(cmd, stdout=sys.stderr, check=False)
    if done.returncode != 0:
        raise UsageError(
            f"`wikic ingest --all` in {root} failed (exit {done.returncode})",
            hint="Fix the failing sources or run it again; sources done so far are kept.",
        )


def copy_wiki(
    root: Path, dest: Path, embedding_model: str | None = None, rerank_model: str | None = None
) -> WikiPaths:
    """A private copy of the compiled wiki (pages, schema, config) to query; with
    `embedding_model`, its search.embedding_model set to that (the index re-embeds on open),
    with `rerank_model` its search.rerank_model."""
    missing = [name for name in COPIED if not (root / name).exists()]
    if missing:
        raise UsageError(
            f"{root} lacks {', '.join(missing)}",
            hint="Pass a compiled wiki's root with --wiki, or --compile to make one.",
        )
    if not any((root / "wiki").rglob("sources/*.md")):
        raise UsageError(
            f"{root / 'wiki'} has no compiled source pages",
            hint="Compile it first: `wikic ingest --all`, or pass --compile.",
        )
    for name in COPIED:
        src = root / name
        if src.is_dir():
            shutil.copytree(src, dest / name)
        else:
            shutil.copy2(src, dest / name)
    (dest / "raw").mkdir(exist_ok=True)
    settings = {"embedding_model": embedding_model, "rerank_model": rerank_model}
    if any(v is not None for v in settings.values()):
        data = yaml.safe_load((dest / "wikic.yaml").read_text(encoding="utf-8")) or {}
        search = data.setdefault("search", {})
        search.update({k: v for k, v in settings.items() if v is not None})
        (dest / "wikic.yaml").write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return WikiPaths(dest, load_config(dest / "wikic.yaml"))


class NoDecodeBackend(FakeBackend):
    """`--no-decode`: every call says the facts answer and names fact 1; tokens are counted by
    `counter` (the model's tokenizer), so packing is the real run's. With quoted answers code
    picks the quotes, so this predicts a real run but for the model's declines and the ties
    its picks break: on the corpus set it matched a real run on 117 of 118 answers
    (bench_quality_corpus14-selection.json), in a minute instead of 38."""

    def __init__(self, counter: Backend) -> None:
        super().__init__(
            lambda call: {"ids": [1], "answerable": True},
            name=f"{counter.model_name} (not decoded)",
        )
        self._counter = counter

    def count_tokens(self, text: str) -> int:
        return self._counter.count_tokens(text)


# ── command line ─────────────────────────────────────────────────────────────────────────


def _parse(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    p.add_argument("--wiki", type=Path, default=REPO, help="compiled wiki root (default: repo)")
    p.add_argument("--raw", type=Path, help="raw sources for the rag arm (default: WIKI/raw)")
    p.add_argument(
        "--compile",
        action="store_true",
        help="if --wiki does not exist yet, make it: wikic init + the --raw files + ingest --all",
    )
    p.add_argument("--qa", type=Path, default=DEFAULT_QA, help="QA set (YAML)")
    p.add_argument("--limit", type=int, help="ask only the first N questions (default: all)")
    p.add_argument("--only", help="comma-separated question ids")
    p.add_argument("--systems", default="wiki,rag", help="wiki, rag or both (default)")
    p.add_argument("--model", help="model for both systems (default: the query model)")
    p.add_argument("--max-answer-tokens", type=int, help="default: query.max_answer_tokens")
    p.add_argument("--context-tokens", type=int, help="budget for both (query.context_tokens)")
    p.add_argument(
        "--style", choices=("quote", "write"), help="answer style for both (query.answer_style)"
    )
    p.add_argument(
        "--no-decode",
        action="store_true",
        help="quote style only: predict the answers without decoding (the model's tokenizer "
        "counts; every call says 'answerable' and names fact 1). Skips the model's declines and "
        "its tie-breaking picks; about a minute for the corpus set",
    )
    p.add_argument(
        "--decide-without-model",
        default="",
        metavar="RULES",
        help="comma-separated rules of query.certain under which code answers without the "
        "model (sets query.decide_without_model; default: the wiki's setting)",
    )
    p.add_argument(
        "--retrieval-only",
        action="store_true",
        help="no model: is each answer's fact in the packed context, per --rankings, for the QA "
        "set and its --paraphrases",
    )
    p.add_argument("--paraphrases", type=Path, help="default: paraphrase.yaml beside --qa")
    p.add_argument("--rankings", default="lexical,hybrid,semantic", help="for --retrieval-only")
    p.add_argument(
        "--embedding-model",
        help="for --retrieval-only: search.embedding_model of the copy queried (wordllama, "
        "minilm, a directory; default: the wiki's)",
    )
    p.add_argument(
        "--rerank-model",
        choices=["auto", "minilm", "none"],
        help="search.rerank_model of the copy queried (default: the wiki's)",
    )
    p.add_argument("--answers", action="store_true", help="print every answer after the tables")
    p.add_argument("--json", action="store_true", help="print the JSON report instead")
    p.add_argument(
        "--out",
        type=Path,
        help="where the JSON report goes (default: scripts/results/bench_quality_<set>.json)",
    )
    args = p.parse_args(argv)
    for opt in ("limit", "max_answer_tokens", "context_tokens"):
        if getattr(args, opt) is not None and getattr(args, opt) < 1:
            p.error(f"--{opt.replace('_', '-')} must be at least 1")
    return args


def main(argv: Sequence[str] | None = None, *, backend: Backend | None = None) -> int:
    """Run the bench; `backend` replaces the configured model (tests pass a FakeBackend)."""
    args = _parse(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)
    try:
        return _run(args, backend)
    except WikicError as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return exc.exit_code


def _items(args: argparse.Namespace) -> list[QAItem]:
    items = load_qa(args.qa)
    if args.only:
        wanted = [s.strip() for s in args.only.split(",") if s.strip()]
        unknown = sorted(set(wanted) - {i.id for i in items})
        if unknown:
            raise UsageError(f"unknown question ids {unknown}", hint=f"Ids in {args.qa}.")
        items = [i for i in items if i.id in wanted]
    return items[: args.limit] if args.limit else items


def _default_out(qa: Path) -> Path:
    name = "samples" if qa.resolve() == DEFAULT_QA else qa.resolve().parent.name
    return RESULTS / f"bench_quality_{name}.json"


def _run(args: argparse.Namespace, backend: Backend | None) -> int:
    systems = [s.strip() for s in args.systems.split(",") if s.strip()]
    if not systems or set(systems) - set(SYSTEMS):
        raise UsageError(f"--systems {args.systems!r}", hint="Use wiki, rag or wiki,rag.")
    items = _items(args)
    root = args.wiki.resolve()
    raw = (args.raw or root / "raw").resolve()
    if not raw.is_dir():
        raise UsageError(f"no raw sources at {raw}", hint="Pass the sources with --raw.")
    if args.compile and not root.exists():
        compile_wiki(root, raw)
    if args.retrieval_only:
        return _run_retrieval(args, items, root)
    with tempfile.TemporaryDirectory(prefix="wikic-bench-") as tmp:
        paths = copy_wiki(root, Path(tmp), rerank_model=args.rerank_model)
        config = paths.config
        if args.model:
            from wikic.cli.backends import config_with_model

            config = config_with_model(config, args.model)
            paths = WikiPaths(paths.root, config)
        if args.decide_without_model:
            rules = [r for r in args.decide_without_model.split(",") if r]
            unknown = sorted(set(rules) - set(CERTAIN_RULES))
            if unknown:
                raise UsageError(
                    f"no rule {', '.join(unknown)}", hint=f"Rules: {', '.join(CERTAIN_RULES)}."
                )
            query = config.query.model_copy(update={"decide_without_model": rules})
            config = config.model_copy(update={"query": query})
            paths = WikiPaths(paths.root, config)
        load_s = 0.0
        if backend is None:
            from wikic.llm.factory import make_backend

            start = time.perf_counter()
            backend = make_backend(config, "query", cache_dir=None)  # prefix cache in memory
            backend.count_tokens("warm up")
            load_s = time.perf_counter() - start
        if args.no_decode:
            if (args.style or config.query.answer_style) != "quote":
                raise UsageError("--no-decode predicts quoted answers", hint="Use --style quote.")
            backend = NoDecodeBackend(backend)
        cap = args.max_answer_tokens or config.query.max_answer_tokens
        budget = args.context_tokens or config.query.context_tokens
        style: AnswerStyle = args.style or config.query.answer_style

        def progress(n: int, row: Row) -> None:
            parts = [
                f"{k}: {'ok' if a.correct else 'no'}{' (declined)' if a.declined else ''} "
                f"{a.seconds:.0f}s"
                for k, a in row.attempts.items()
            ]
            print(f"[{n}/{len(items)}] {row.item.id}: {' | '.join(parts)}", file=sys.stderr)

        start = time.perf_counter()
        rows = run_bench(
            paths,
            raw,
            items,
            backend,
            systems=systems,
            budget=budget,
            cap=cap,
            style=style,
            on_row=progress,
        )
        wall = time.perf_counter() - start
    summary = summarize(rows, systems)
    setup = {
        "model": backend.model_name,
        "qa": str(args.qa),
        "wiki": str(root),
        "raw": str(raw),
        "questions": len(items),
        "context_tokens": budget,
        "max_answer_tokens": cap,
        "answer_style": style,
        "temperature": config.generation.temperature,
        "decoded": not args.no_decode,  # False: the model's declines and picks were skipped
        "decide_without_model": list(config.query.decide_without_model),
        "model_load_s": round(load_s, 1),
        "wall_s": round(wall, 1),
        "command": shlex.join(["python", "scripts/bench_quality.py", *args.argv]),
    }
    rows_json = [
        {"item": asdict(r.item), **{k: asdict(a) for k, a in r.attempts.items()}} for r in rows
    ]
    report = json.dumps({"setup": setup, "summary": summary, "rows": rows_json}, indent=2)
    out = args.out or _default_out(args.qa)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(report + "\n", encoding="utf-8")
    if args.json:
        print(report)
    else:
        print(
            f"model {setup['model']} · {len(items)} questions · context budget {budget} tokens · "
            f"{style} answers · answer cap {cap} tokens · load {setup['model_load_s']} s · wall {setup['wall_s']} s"
            f" · JSON in {out}\n"
        )
        print(render_markdown(rows, summary, answers=args.answers), end="")
    return 0


# ── --retrieval-only: is the answer in the context, without a model ─────────────────────


def load_paraphrases(path: Path, items: Sequence[QAItem]) -> list[QAItem]:
    """Paraphrased questions, each with the facts, sources and answerability of its
    `paraphrase_of` item."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise UsageError(f"cannot read the paraphrases {path}: {exc}") from None
    by_id = {i.id: i for i in items}
    found: list[QAItem] = []
    for n, raw in enumerate(data if isinstance(data, list) else [], 1):
        if not isinstance(raw, dict) or set(raw) != {"id", "paraphrase_of", "question"}:
            raise UsageError(f"{path.name} item {n}: needs exactly id, paraphrase_of, question")
        original = by_id.get(raw["paraphrase_of"])
        if original is None:
            raise UsageError(
                f"{path.name} item {n} ({raw['id']}): paraphrase_of {raw['paraphrase_of']!r} "
                "is no question of the QA set"
            )
        found.append(QAItem(raw["id"], str(raw["question"]).strip(), original.facts,
                            original.sources, original.answerable))  # fmt: skip
    if not found:
        raise UsageError(f"{path} holds no paraphrases")
    return found


def retrieval_rows(
    paths: WikiPaths,
    items: Sequence[QAItem],
    rankings: Sequence[str],
    budget: int,
    cost: dict[str, float] | None = None,
) -> list[dict[str, Any]]:
    """For each answerable item: the expected facts found in the packed context, per ranking;
    `cost` gets each ranking's search seconds (wall) and the texts the re-ranker encoded."""
    rows = []
    # packing counts with wordllama's tokenizer whatever the embedding model, so the budget is
    # the same text for every model
    tokenizer = load_embedder(BUILTIN).tokenizer  # type: ignore[attr-defined]
    with open_store(paths) as store:

        def count(text: str) -> int:
            return len(tokenizer.encode(text, add_special_tokens=False).ids)

        for item in (i for i in items if i.answerable):
            row: dict[str, Any] = {"id": item.id, "question": item.question}
            for ranking in rankings:
                start, encoded = time.perf_counter(), store.reranker.encoded
                found = retrieve(store, item.question, limit=paths.config.query.search_limit,
                                 ranking=ranking)  # type: ignore[arg-type]  # fmt: skip
                seconds = time.perf_counter() - start
                if cost is not None:
                    key = f"{ranking}_search_s"
                    cost[key] = cost.get(key, 0.0) + seconds
                packed = pack(found.evidence, words(item.question), budget, count,
                              key_terms(item.question))  # fmt: skip
                context = unescape("\n".join(s.text for s in packed.shown))
                hit = [f for f in item.facts if re.search(f, context, re.IGNORECASE)]
                row[ranking] = {"facts": len(hit), "of": len(item.facts),
                                "all": len(hit) == len(item.facts), "search_s": round(seconds, 3),
                                "encoded": store.reranker.encoded - encoded}  # fmt: skip
            rows.append(row)
        if cost is not None:
            cost["rerank_encoded"] = cost.get("rerank_encoded", 0) + store.reranker.encoded
    return rows


def _spread(values: Sequence[float]) -> dict[str, float]:
    ordered = sorted(values)
    if not ordered:
        return {}
    return {"median": round(statistics.median(ordered), 3), "max": round(ordered[-1], 3)}


def _retrieval_summary(rows: Sequence[dict[str, Any]], rankings: Sequence[str]) -> dict[str, Any]:
    out: dict[str, Any] = {"questions": len(rows)}
    for r in rankings:
        answered = sum(1 for row in rows if row[r]["all"])
        facts = sum(row[r]["facts"] for row in rows) / max(1, sum(row[r]["of"] for row in rows))
        out[r] = {"answer_in_context": answered, "share": _ratio(answered, len(rows)),
                  "fact_share": round(facts, 3)}  # fmt: skip
    return out


def _run_retrieval(args: argparse.Namespace, items: list[QAItem], root: Path) -> int:
    rankings = [r.strip() for r in args.rankings.split(",") if r.strip()]
    if not rankings or set(rankings) - set(RANKINGS):
        raise UsageError(f"--rankings {args.rankings!r}", hint="Use lexical, hybrid, semantic.")
    para_file = args.paraphrases or args.qa.parent / "paraphrase.yaml"
    sets = {"literal": items}
    if para_file.is_file():
        sets["paraphrase"] = load_paraphrases(para_file, load_qa(args.qa))
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="wikic-bench-") as tmp:
        paths = copy_wiki(root, Path(tmp), args.embedding_model, args.rerank_model)
        budget = args.context_tokens or paths.config.query.context_tokens
        embed_start, embed_cpu = time.perf_counter(), time.process_time()
        with open_store(paths):  # the first open builds the index: every passage and page
            embed_s = time.perf_counter() - embed_start
            embed_cpu = time.process_time() - embed_cpu
        with sqlite3.connect(paths.db) as conn:
            counts = {t: conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
                      for t in ("passages", "pages", "vectors")}  # fmt: skip
        cost: dict[str, float] = {}  # literal questions first: paraphrases find the cache warm
        rows = {
            name: retrieval_rows(paths, qs, rankings, budget, cost) for name, qs in sets.items()
        }
    summary = {name: _retrieval_summary(r, rankings) for name, r in rows.items()}
    setup = {
        "wiki": str(root),
        "qa": str(args.qa),
        "paraphrases": str(para_file) if "paraphrase" in sets else None,
        "context_tokens": budget,
        "token_counter": "wordllama's tokenizer (Llama 2 SentencePiece), whatever the model",
        "embedding_model": paths.config.search.embedding_model,
        "rerank_model": paths.config.search.rerank_model,
        "reranked_by": resolve_rerank(
            paths.config.search.rerank_model, paths.config.search.embedding_model
        ),
        # the re-ranker encodes a passage the first time a question reaches it
        "rerank_encoded_texts": int(cost.get("rerank_encoded", 0)),
        "search_s": {k: round(v, 1) for k, v in cost.items() if k.endswith("_search_s")},
        # one question's search, each ranking: the first questions encode their passages
        "search_s_per_question": {
            r: _spread([row[r]["search_s"] for rs in rows.values() for row in rs]) for r in rankings
        },
        "index_build_s": round(embed_s, 1),
        "index_build_cpu_s": round(embed_cpu, 1),  # all threads; the machine may be shared
        "load_average": [round(x, 1) for x in os.getloadavg()],
        "index_rows": counts,
        "wall_s": round(time.perf_counter() - start, 1),
        "command": shlex.join(["python", "scripts/bench_quality.py", *args.argv]),
    }
    report = json.dumps({"setup": setup, "summary": summary, "rows": rows}, indent=2)
    out = args.out or RESULTS / f"bench_quality_{_default_out(args.qa).stem[14:]}-retrieval.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(report + "\n", encoding="utf-8")
    if args.json:
        print(report)
        return 0
    print(f"answer in the packed context ({budget} tokens) · JSON in {out}\n")
    print("| questions | n | " + " | ".join(rankings) + " |")
    print("|---|---|" + "---|" * len(rankings))
    for name, s in summary.items():
        cells = [f"{s[r]['answer_in_context']} ({_pct(s[r]['share'])})" for r in rankings]
        print(f"| {name} | {s['questions']} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
