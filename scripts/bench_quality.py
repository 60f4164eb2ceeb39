"""Does compiling pay? A QA set over raw/ answered two ways with the same model, budget and
system prompt: (A) `wikic query` over the compiled wiki, (B) plain RAG — raw/ paragraphs ranked by
BM25 (SQLite FTS5, the tokenizer of wikic's page index), packed under the same token budget.

A question is correct when the prose of its answer (citation links not counted) holds every
expected fact, a regex from the QA file; an unanswerable one when the answer declines. Citation
validity is the share of `[[links]]` in the model's answers that resolve (A: what
`check_citations` keeps; B: chunk ids that exist); "on target" counts cited paragraphs that hold
an expected fact, "example" the links that are the instruction's example citation copied as is.
The wiki is copied to a temp dir and the prefix cache stays in memory: nothing is written into
the repository. Interleaved A, B per question, so both see the same machine load.

    WIKIC_MODELS_DIR=.cache/test-models python scripts/bench_quality.py        # first 8, ~12 min
    python scripts/bench_quality.py --all --answers --save-json out.json       # all 14, ~20 min
    python scripts/bench_quality.py --context-tokens 400   # a budget that cannot hold all of raw/
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import yaml

from wikic.config import load_config
from wikic.errors import UsageError, WikicError
from wikic.llm.backend import (
    EMPTY_STATS,
    Backend,
    Generation,
    GenerationStats,
    Segment,
    system,
    user,
)
from wikic.paths import WikiPaths
from wikic.query.answer import answer_question
from wikic.query.context import query_words
from wikic.vault.links import WikiLink, iter_links
from wikic.vault.sources import split_paragraphs

REPO = Path(__file__).resolve().parent.parent
DEFAULT_QA = Path(__file__).resolve().parent / "data" / "qa.yaml"
COPIED = ("wiki", "raw", "AGENTS.md", "wikic.yaml")
SYSTEMS = ("wiki", "rag")
DEFAULT_ANSWER_CAP = 160  # answers are asked for in 1–3 sentences; decode runs at ~4–5 tok/s
# ~87 s a question for both systems on an idle 2-core CPU (measured): 8 take ~12 minutes, which
# leaves room under the 15-minute budget; `--all` asks all 14 (~20 minutes)
DEFAULT_LIMIT = 8
RAW_SUFFIXES = (".md", ".markdown", ".txt")
# B's instruction mirrors query_context.TASK word for word, with passages in place of pages;
# like it, the example citation is a real one from the context (the first passage).
RAG_TASK = (
    "Using only the source passages above, answer this question in one to three sentences: "
    "{question}\nEnd each sentence with the citation of the passage it uses, copied from the "
    "passages, e.g. {example}."
)
# One decline detector for both systems, so neither is favoured by its own wording.
_DECLINE_RE = re.compile(
    r"\b(wiki|sources?|passages?|pages?|context|text|documents?)\b[^.]{0,40}?"
    r"\b(do|does|did)\s*(not|n't)\s+(contain|say|mention|include|provide|specify|state|give)"
    r"|\bnot\s+(mentioned|stated|specified|provided|given|found|contained|available|included)\b"
    r"|\bno\s+(information|mention|pages|details?|data)\b"
    r"|\b(cannot|can't|can\s+not|unable\s+to)\s+(be\s+)?(answer|determine|find|tell)"
    r"|\bnothing\s+to\s+answer",
    re.IGNORECASE,
)


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

    def render(self) -> str:
        return f"=== [[{self.id}]] · {self.title} ===\n{self.text}\n"


def chunk_sources(raw: Path) -> list[Chunk]:
    """Every paragraph of every text source under `raw`, in file then paragraph order."""
    chunks: list[Chunk] = []
    for path in sorted(p for p in raw.rglob("*") if p.suffix.lower() in RAW_SUFFIXES):
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


def pack_chunks(ranked: Sequence[Chunk], budget: int, count: Callable[[str], int]) -> list[Chunk]:
    """The best-ranked chunks that fit in `budget` tokens together, in source order."""
    kept: list[Chunk] = []
    left = budget
    for chunk in ranked:
        cost = count(chunk.render())
        if cost <= left:
            kept.append(chunk)
            left -= cost
    return sorted(kept, key=lambda c: (c.source, int(c.block[1:]) if c.block[1:].isdigit() else 0))


def rag_segments(agents: str, chunks: Sequence[Chunk], question: str) -> list[Segment]:
    """Schema → passages → task: the order `wikic query` uses, without the catalog."""
    segments = [system(agents)] if agents else []
    segments += [user(c.render()) for c in chunks]
    example = f"[[{chunks[0].id}]]" if chunks else "[[source#^p1]]"
    segments.append(user(RAG_TASK.format(question=question.strip(), example=example)))
    return segments


def _chunk_key(lnk: WikiLink) -> str:
    """`[[raw/x.md#^p2]]` → `x#^p2` (as Chunk.id spells it), `[[x]]` → `x`."""
    target = re.sub(r"\.(md|markdown|txt)$", "", lnk.target.removeprefix("raw/"))
    return f"{target}#^{lnk.block}" if lnk.block else target


def check_chunk_citations(answer: str, chunks: Sequence[Chunk]) -> tuple[list[str], list[str]]:
    """(links that resolve, links that do not): `[[stem#^pN]]` of an existing chunk, or
    `[[stem]]` of an existing source; `raw/` and the suffix are tolerated."""
    ids = {c.id for c in chunks}
    stems = {c.source for c in chunks}
    valid: list[str] = []
    invalid: list[str] = []
    for start, end, lnk in iter_links(answer):
        key = _chunk_key(lnk)
        ok = key in ids if lnk.block else key in stems and lnk.heading is None
        (valid if ok else invalid).append(answer[start:end])
    return valid, invalid


# ── scoring ──────────────────────────────────────────────────────────────────────────────


def prose(answer: str) -> str:
    """The answer as a reader sees it: links replaced by their alias (or nothing)."""
    pieces: list[str] = []
    pos = 0
    for start, end, lnk in iter_links(answer):
        pieces += [answer[pos:start], lnk.alias or ""]
        pos = end
    pieces.append(answer[pos:])
    return "".join(pieces)


def is_declined(text: str) -> bool:
    return bool(_DECLINE_RE.search(" ".join(text.split())))


@dataclass(frozen=True)
class Score:
    found: tuple[str, ...]
    missing: tuple[str, ...]
    declined: bool
    correct: bool

    @property
    def fact_share(self) -> float:
        total = len(self.found) + len(self.missing)
        return len(self.found) / total if total else float(self.correct)


def score_answer(item: QAItem, answer: str) -> Score:
    text = prose(answer)
    declined = is_declined(text)
    if not item.answerable:
        return Score((), (), declined, declined)
    found = tuple(f for f in item.facts if re.search(f, text, re.IGNORECASE))
    missing = tuple(f for f in item.facts if f not in found)
    return Score(found, missing, declined, not missing)


# ── running both systems ─────────────────────────────────────────────────────────────────


class _Recorder:
    """A backend wrapper that keeps the segments of the last call (the exact context)."""

    def __init__(self, inner: Backend) -> None:
        self.inner = inner
        self.segments: tuple[Segment, ...] = ()

    @property
    def model_name(self) -> str:
        return self.inner.model_name

    def count_tokens(self, text: str) -> int:
        return self.inner.count_tokens(text)

    def generate(self, segments: Sequence[Segment], **kwargs: Any) -> Generation:
        self.segments = tuple(segments)
        return self.inner.generate(segments, **kwargs)

    def example(self) -> str | None:
        """The example citation of the task segment (both tasks end with `e.g. [[…]].`)."""
        task = self.segments[-1].text if self.segments else ""
        found = re.search(r"e\.g\. (\[\[[^\[\]]+\]\])\.?\s*$", task)
        return found.group(1) if found else None

    def context(self) -> str:
        """What the model read besides the schema and the task."""
        body = [s.text for s in self.segments if s.role == "user"]
        return "\n".join(body[:-1])


@dataclass(frozen=True)
class Attempt:
    system: str
    answer: str  # as scored: A's checked answer, B's reply
    score: Score
    valid_citations: int
    invalid_citations: int
    broken_links: tuple[str, ...]  # the links that did not resolve, as the model wrote them
    block_citations: int  # distinct resolving citations of a paragraph or block
    on_target: int  # … of those, how many hold one of the expected facts
    copied_example: int  # links that are the instruction's example citation, copied verbatim
    context_facts: int  # expected facts present in what the model read
    context_tokens: int
    prompt_tokens: int
    cached_tokens: int
    generated_tokens: int
    seconds: float
    finish_reason: str
    called: bool  # False: retrieval found nothing, the model was not asked


@dataclass(frozen=True)
class Row:
    item: QAItem
    attempts: dict[str, Attempt] = field(default_factory=dict)


def _on_target(item: QAItem, passages: Sequence[str]) -> int:
    return sum(any(re.search(f, p, re.IGNORECASE) for f in item.facts) for p in passages)


def _attempt(
    system_name: str,
    item: QAItem,
    answer: str,
    raw: str,
    broken: Sequence[str],
    passages: Sequence[str],
    rec: _Recorder,
    stats: GenerationStats | None,
    finish_reason: str,
    seconds: float,
) -> Attempt:
    """`answer` is scored, `raw` (the model's text) has its links counted."""
    called = stats is not None
    context = rec.context() if called else ""
    stats = stats or EMPTY_STATS
    links = [raw[start:end] for start, end, _ in iter_links(raw)]
    example = rec.example()
    return Attempt(
        system_name,
        answer,
        score_answer(item, answer),
        len(links) - len(broken),
        len(broken),
        tuple(broken),
        len(passages),
        _on_target(item, passages),
        sum(1 for link in links if example and link == example),
        sum(1 for f in item.facts if re.search(f, context, re.IGNORECASE)),
        rec.count_tokens(context) if context else 0,
        stats.prompt_tokens,
        stats.cached_tokens,
        stats.generated_tokens,
        round(seconds, 2),
        finish_reason,
        called,
    )


def ask_wiki(
    paths: WikiPaths, item: QAItem, backend: Backend, *, budget: int, max_tokens: int
) -> Attempt:
    rec = _Recorder(backend)
    start = time.perf_counter()
    result = answer_question(
        paths, item.question, backend=rec, context_tokens=budget, max_tokens=max_tokens
    )
    seconds = time.perf_counter() - start
    broken = [r.link for r in result.removed]
    passages = [
        text
        for c in result.citations
        if c.block and (text := _block_line(paths.wiki / c.page, c.block)) is not None
    ]
    stats = result.stats if result.found else None
    return _attempt(
        "wiki",
        item,
        result.answer,
        result.raw_answer,
        broken,
        passages,
        rec,
        stats,
        result.finish_reason,
        seconds,
    )


def _block_line(page: Path, block: str) -> str | None:
    """The line of `page` that carries `^block` (source paragraphs and facts are one line)."""
    try:
        text = page.read_text(encoding="utf-8")
    except OSError:
        return None
    found = re.search(rf"^.*\^{re.escape(block)}[ \t]*$", text, re.MULTILINE)
    return found.group(0) if found else None


def ask_rag(
    paths: WikiPaths, index: Bm25, item: QAItem, backend: Backend, *, budget: int, max_tokens: int
) -> Attempt:
    rec = _Recorder(backend)
    start = time.perf_counter()
    chunks = pack_chunks(index.rank(item.question), budget, backend.count_tokens)
    if not chunks:
        answer = "The sources have no passages about this question, so there is nothing to answer."
        return _attempt(
            "rag", item, answer, "", (), (), rec, None, "stop", time.perf_counter() - start
        )
    agents = paths.agents_md.read_text(encoding="utf-8") if paths.agents_md.is_file() else ""
    gen_cfg = paths.config.generation
    gen = rec.generate(
        rag_segments(agents, chunks, item.question),
        max_tokens=max_tokens,
        temperature=gen_cfg.temperature,
        seed=gen_cfg.seed,
    )
    seconds = time.perf_counter() - start
    _, invalid = check_chunk_citations(gen.text, index.chunks)
    by_id = {c.id: c.text for c in index.chunks}
    cited = dict.fromkeys(_chunk_key(lnk) for _, _, lnk in iter_links(gen.text) if lnk.block)
    passages = [by_id[key] for key in cited if key in by_id]
    return _attempt(
        "rag",
        item,
        gen.text.strip(),
        gen.text,
        invalid,
        passages,
        rec,
        gen.stats,
        gen.finish_reason,
        seconds,
    )


def run_bench(
    paths: WikiPaths,
    items: Sequence[QAItem],
    backend: Backend,
    *,
    systems: Sequence[str] = SYSTEMS,
    budget: int | None = None,
    max_tokens: int | None = None,
    on_row: Callable[[int, Row], None] | None = None,
) -> list[Row]:
    """Ask every question of both systems, interleaved so both see the same machine load."""
    budget = budget or paths.config.query.context_tokens
    max_tokens = max_tokens or paths.config.query.max_answer_tokens
    index = Bm25(chunk_sources(paths.raw))
    rows: list[Row] = []
    for n, item in enumerate(items, 1):
        row = Row(item)
        for name in systems:
            row.attempts[name] = (
                ask_wiki(paths, item, backend, budget=budget, max_tokens=max_tokens)
                if name == "wiki"
                else ask_rag(paths, index, item, backend, budget=budget, max_tokens=max_tokens)
            )
        rows.append(row)
        if on_row is not None:
            on_row(n, row)
    return rows


def _ratio(num: float, den: float, digits: int = 3) -> float | None:
    return round(num / den, digits) if den else None


def summarize(rows: Sequence[Row], systems: Sequence[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in systems:
        atts = [(r.item, r.attempts[name]) for r in rows if name in r.attempts]
        answerable = [(i, a) for i, a in atts if i.answerable]
        unanswerable = [(i, a) for i, a in atts if not i.answerable]
        valid = sum(a.valid_citations for _, a in atts)
        cited = valid + sum(a.invalid_citations for _, a in atts)
        facts = sum(len(i.facts) for i, _ in answerable)
        n = len(atts) or 1
        correct = sum(a.score.correct for _, a in atts)
        out[name] = {
            "questions": len(atts),
            "correct": correct,
            "accuracy": _ratio(correct, len(atts)),
            "fact_recall": _ratio(sum(len(a.score.found) for _, a in answerable), facts),
            "answerable_correct": sum(a.score.correct for _, a in answerable),
            "answerable": len(answerable),
            "declined_unanswerable": sum(a.score.declined for _, a in unanswerable),
            "unanswerable": len(unanswerable),
            "declined_answerable": sum(a.score.declined for _, a in answerable),
            "facts_in_context": _ratio(sum(a.context_facts for _, a in answerable), facts),
            "citations": cited,
            "valid_citations": valid,
            "citation_validity": _ratio(valid, cited),
            "block_citations": sum(a.block_citations for _, a in atts),
            "on_target_citations": sum(a.on_target for _, a in atts),
            "citation_on_target": _ratio(
                sum(a.on_target for _, a in atts), sum(a.block_citations for _, a in atts)
            ),
            "copied_example_citations": sum(a.copied_example for _, a in atts),
            "uncited_answers": sum(1 for _, a in atts if a.called and not a.valid_citations),
            "hit_answer_cap": sum(1 for _, a in atts if a.finish_reason == "length"),
            "mean_context_tokens": round(sum(a.context_tokens for _, a in atts) / n),
            "mean_prompt_tokens": round(sum(a.prompt_tokens for _, a in atts) / n),
            "mean_cached_tokens": round(sum(a.cached_tokens for _, a in atts) / n),
            "mean_generated_tokens": round(sum(a.generated_tokens for _, a in atts) / n, 1),
            "mean_seconds": round(sum(a.seconds for _, a in atts) / n, 1),
            "total_seconds": round(sum(a.seconds for _, a in atts), 1),
        }
    return out


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.0f}%"


def render_markdown(rows: Sequence[Row], summary: dict[str, Any], *, answers: bool) -> str:
    lines = [
        "| question | needs | system | facts | correct | citations ok · on target · example | context "
        "| prompt (cached) | gen | s |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        needs = " + ".join(row.item.sources) if row.item.answerable else "(unanswerable)"
        for name, a in row.attempts.items():
            facts = (
                f"{len(a.score.found)}/{len(row.item.facts)}"
                if row.item.answerable
                else ("declined" if a.score.declined else "answered")
            )
            ctx = f"{a.context_facts}/{len(row.item.facts)}" if row.item.answerable else "–"
            cites = (
                f"{a.valid_citations}/{a.valid_citations + a.invalid_citations} · {a.on_target}"
                f" · {a.copied_example}"
            )
            cap = " (cap)" if a.finish_reason == "length" else ""
            lines.append(
                f"| {row.item.id} | {needs} | {name} | {facts} | {'yes' if a.score.correct else 'no'}"
                f" | {cites} | {ctx} | {a.prompt_tokens} ({a.cached_tokens}) "
                f"| {a.generated_tokens}{cap} | {a.seconds:.1f} |"
            )
    lines += [
        "",
        "| system | correct | accuracy | fact recall | facts in context | declined unanswerable "
        "| declined answerable | citation validity | on target | copied example | uncited | hit cap "
        "| mean prompt (cached) | mean gen | mean s | total s |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, s in summary.items():
        lines.append(
            f"| {name} | {s['correct']}/{s['questions']} | {_pct(s['accuracy'])} "
            f"| {_pct(s['fact_recall'])} | {_pct(s['facts_in_context'])} "
            f"| {s['declined_unanswerable']}/{s['unanswerable']} "
            f"| {s['declined_answerable']}/{s['answerable']} "
            f"| {s['valid_citations']}/{s['citations']} ({_pct(s['citation_validity'])}) "
            f"| {s['on_target_citations']}/{s['block_citations']} "
            f"| {s['copied_example_citations']} "
            f"| {s['uncited_answers']} | {s['hit_answer_cap']} "
            f"| {s['mean_prompt_tokens']} ({s['mean_cached_tokens']}) "
            f"| {s['mean_generated_tokens']} | {s['mean_seconds']} | {s['total_seconds']} |"
        )
    if answers:
        lines.append("")
        for row in rows:
            lines.append(f"### {row.item.id}: {row.item.question}")
            for name, a in row.attempts.items():
                broken = f" (removed: {', '.join(a.broken_links)})" if a.broken_links else ""
                lines.append(f"- **{name}**: {' '.join(a.answer.split())}{broken}")
    return "\n".join(lines) + "\n"


# ── command line ─────────────────────────────────────────────────────────────────────────


def copy_wiki(repo: Path, dest: Path) -> WikiPaths:
    """A private copy of the compiled wiki (pages, raw/, schema, config) to query."""
    missing = [name for name in COPIED if not (repo / name).exists()]
    if missing:
        raise UsageError(
            f"{repo} lacks {', '.join(missing)}", hint="Pass the wiki's root with --repo."
        )
    if not any((repo / "wiki").rglob("sources/*.md")):
        raise UsageError(
            f"{repo / 'wiki'} has no compiled source pages",
            hint="Compile it first: `wikic ingest --all` (or scripts/demo.sh).",
        )
    for name in COPIED:
        src = repo / name
        if src.is_dir():
            shutil.copytree(src, dest / name)
        else:
            shutil.copy2(src, dest / name)
    return WikiPaths(dest, load_config(dest / "wikic.yaml"))


def _parse(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    p.add_argument("--repo", type=Path, default=REPO, help="wiki root holding wiki/ and raw/")
    p.add_argument("--qa", type=Path, default=DEFAULT_QA, help="QA set (YAML)")
    p.add_argument(
        "--limit",
        type=int,
        help=f"ask the first N questions (default {DEFAULT_LIMIT}, to stay under 15 minutes)",
    )
    p.add_argument("--all", action="store_true", help="ask every question of the QA set")
    p.add_argument("--only", help="comma-separated question ids")
    p.add_argument("--systems", default="wiki,rag", help="wiki, rag or both (default)")
    p.add_argument("--model", help="model for both systems (default: the query model)")
    p.add_argument(
        "--max-answer-tokens",
        type=int,
        help=f"answer cap (default: query.max_answer_tokens, at most {DEFAULT_ANSWER_CAP})",
    )
    p.add_argument("--context-tokens", type=int, help="budget for both (query.context_tokens)")
    p.add_argument("--answers", action="store_true", help="print every answer after the tables")
    p.add_argument("--json", action="store_true", help="print one JSON object instead")
    p.add_argument("--save-json", type=Path, metavar="PATH", help="also write the JSON there")
    args = p.parse_args(argv)
    for opt in ("limit", "max_answer_tokens", "context_tokens"):
        if getattr(args, opt) is not None and getattr(args, opt) < 1:
            p.error(f"--{opt.replace('_', '-')} must be at least 1")
    return args


def main(argv: Sequence[str] | None = None, *, backend: Backend | None = None) -> int:
    """Run the bench; `backend` replaces the configured model (tests pass a FakeBackend)."""
    args = _parse(argv)
    try:
        return _run(args, backend)
    except WikicError as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return exc.exit_code


def _run(args: argparse.Namespace, backend: Backend | None) -> int:
    systems = [s.strip() for s in args.systems.split(",") if s.strip()]
    if not systems or set(systems) - set(SYSTEMS):
        raise UsageError(f"--systems {args.systems!r}", hint="Use wiki, rag or wiki,rag.")
    items = load_qa(args.qa)
    if args.only:
        wanted = [s.strip() for s in args.only.split(",") if s.strip()]
        unknown = sorted(set(wanted) - {i.id for i in items})
        if unknown:
            raise UsageError(f"unknown question ids {unknown}", hint=f"Ids in {args.qa}.")
        items = [i for i in items if i.id in wanted]
    if args.all and args.limit:
        raise UsageError("--all and --limit disagree", hint="Use only one of them.")
    limit = args.limit or (None if args.all or args.only else DEFAULT_LIMIT)
    items = items[:limit] if limit else items
    with tempfile.TemporaryDirectory(prefix="wikic-bench-") as tmp:
        paths = copy_wiki(args.repo.resolve(), Path(tmp))
        config = paths.config
        if args.model:
            from wikic.cli.backends import config_with_model

            config = config_with_model(config, args.model)
            paths = WikiPaths(paths.root, config)
        load_s = 0.0
        if backend is None:
            from wikic.llm.factory import make_backend

            start = time.perf_counter()
            backend = make_backend(config, "query", cache_dir=None)  # prefix cache in memory
            backend.count_tokens("warm up")
            load_s = time.perf_counter() - start
        max_tokens = args.max_answer_tokens or min(
            config.query.max_answer_tokens, DEFAULT_ANSWER_CAP
        )
        budget = args.context_tokens or config.query.context_tokens

        def progress(n: int, row: Row) -> None:
            parts = [
                f"{k}: {'ok' if a.score.correct else 'no'} {a.seconds:.0f}s"
                for k, a in row.attempts.items()
            ]
            print(f"[{n}/{len(items)}] {row.item.id}: {' | '.join(parts)}", file=sys.stderr)

        start = time.perf_counter()
        rows = run_bench(
            paths,
            items,
            backend,
            systems=systems,
            budget=budget,
            max_tokens=max_tokens,
            on_row=progress,
        )
        wall = time.perf_counter() - start
    summary = summarize(rows, systems)
    setup = {
        "model": backend.model_name,
        "questions": len(items),
        "context_tokens": budget,
        "max_answer_tokens": max_tokens,
        "temperature": config.generation.temperature,
        "model_load_s": round(load_s, 1),
        "wall_s": round(wall, 1),
    }
    rows_json = [
        {"item": asdict(r.item), **{k: asdict(a) for k, a in r.attempts.items()}} for r in rows
    ]
    report = json.dumps({"setup": setup, "summary": summary, "rows": rows_json}, indent=2)
    if args.save_json:
        args.save_json.write_text(report + "\n", encoding="utf-8")
    if args.json:
        print(report)
    else:
        print(
            f"model {setup['model']} · {len(items)} questions · context budget {budget} tokens · "
            f"answer cap {max_tokens} tokens · load {setup['model_load_s']} s · "
            f"wall {setup['wall_s']} s\n"
        )
        print(render_markdown(rows, summary, answers=args.answers), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
