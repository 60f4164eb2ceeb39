"""Semantic lint by the LLM: contradictions between the claims of one page, and questions.

Claims come from the store's claim ledger (`## Facts` bullets, citations taken out): one call
per page with two or more identified claims, ordered schema (AGENTS.md) → page claims → task so
the system prefix is computed once and reused; the pages' calls go to the backend together
(`generate_batch`). The reply is constrained to
`{"pairs": [{"a": id, "b": id, "reason": …}]}` with the page's block ids as an enum; ids the page
does not have (a server without constrained decoding) are dropped. Ingest's conservative check in
code (same words, different numbers or a negation) runs next to the model: a 0.5B model misses
exactly those. Verdicts are cached in `.wikic/lint-semantic.json` by (model, prompt), so a cron
run only asks about pages whose claims changed.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, create_model

from wikic.errors import BackendError
from wikic.fsutil import atomic_write
from wikic.language.conflicts import conflict_reason
from wikic.llm.backend import (
    Backend,
    Request,
    Segment,
    generate_batch,
    json_schema_for,
    system,
    user,
)
from wikic.paths import WikiPaths
from wikic.prompts import lint as lint_prompts
from wikic.store.db import open_store
from wikic.vault.catalog import one_line
from wikic.vault.schema_doc import schema_excerpt

log = logging.getLogger(__name__)
STRICT = ConfigDict(extra="forbid")
MAX_CLAIMS = 30  # per call: longer pages are checked on their first MAX_CLAIMS claims
CLAIM_CHARS = 200
MAX_PAIRS = 3
REASON_CHARS = 100
MAX_QUESTIONS = 3
QUESTION_CHARS = 120
CACHE_NAME = "lint-semantic.json"
CACHE_ENTRIES = 5000
ASK_BATCH = 32  # pages per generate_batch call (and progress update); the backend decodes
# generation.batch_size of them at a time
Progress = Callable[[int, int, str], None]  # (done, total, what)


@dataclass(frozen=True)
class ContradictionPair:
    page: str  # page path relative to wiki/
    a: str  # block ids of the two claims
    b: str
    reason: str


@dataclass
class SemanticResult:
    pairs: list[ContradictionPair] = field(default_factory=list)
    questions: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    calls: int = 0  # model calls made (cached verdicts excluded)
    model_down: bool = False  # the backend failed as a whole: no more calls this run


def contradiction_schema(ids: Sequence[str]) -> type[BaseModel]:
    """Pairs of claim ids; the enum lets a constrained decoder emit only the page's ids."""
    claim_id = (str, Field(json_schema_extra={"enum": list(ids)}))
    pair = create_model(
        "ContradictingPair",
        __config__=STRICT,
        a=claim_id,
        b=claim_id,
        reason=(str, Field(max_length=REASON_CHARS)),
    )
    return create_model(
        "Contradictions", __config__=STRICT, pairs=(list[pair], Field(max_length=MAX_PAIRS))
    )


class QuestionsReply(BaseModel):
    model_config = STRICT
    questions: list[str] = Field(max_length=MAX_QUESTIONS)


def claims_segment(title: str, claims: Sequence[tuple[str, str]]) -> Segment:
    return user(lint_prompts.claims(title, [(c, one_line(t, CLAIM_CHARS)) for c, t in claims]))


CONTRADICTION_TASK = user(lint_prompts.contradiction_task(MAX_PAIRS))
QUESTIONS_TASK = user(lint_prompts.questions_task())


class VerdictCache:
    """(model, prompt, schema) → reply JSON, in one small file under .wikic/."""

    def __init__(self, paths: WikiPaths) -> None:
        self.file = paths.state / CACHE_NAME
        self.data: dict[str, Any] = {}
        with contextlib.suppress(OSError, ValueError):
            loaded = json.loads(self.file.read_text(encoding="utf-8"))
            if isinstance(loaded, dict):
                self.data = loaded
        self.dirty = False

    @staticmethod
    def key(model: str, segments: Sequence[Segment], schema: type[BaseModel]) -> str:
        digest = hashlib.sha256(model.encode())
        for seg in segments:
            digest.update(b"\0" + seg.role.encode() + b"\0" + seg.text.encode())
        digest.update(json.dumps(json_schema_for(schema), sort_keys=True).encode())
        return digest.hexdigest()

    def get(self, key: str) -> Any:
        return self.data.get(key)

    def put(self, key: str, value: Any) -> None:
        self.data.pop(key, None)
        self.data[key] = value  # newest last, so trimming drops the oldest
        self.dirty = True

    def save(self) -> None:
        if not self.dirty:
            return
        keep = dict(list(self.data.items())[-CACHE_ENTRIES:])
        with contextlib.suppress(OSError):
            self.file.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(self.file, json.dumps(keep).encode())


@dataclass(frozen=True)
class _Call:
    """One model call: its prompt and the reply schema."""

    segments: tuple[Segment, ...]
    schema: type[BaseModel]
    max_tokens: int


def _ask_all(
    backend: Backend,
    cache: VerdictCache,
    calls: Sequence[_Call],
    result: SemanticResult,
    progress: Progress | None = None,
    labels: Sequence[str] = (),
) -> list[dict[str, Any] | None]:
    """Each call's reply (None: not answered); cached verdicts first, the rest in batches."""
    keys = [VerdictCache.key(backend.model_name, c.segments, c.schema) for c in calls]
    replies: list[dict[str, Any] | None] = [None] * len(calls)
    todo = []
    for i, key in enumerate(keys):
        cached = cache.get(key)
        if isinstance(cached, dict):
            replies[i] = cached
        else:
            todo.append(i)
    for start in range(0, len(todo), ASK_BATCH):
        if result.model_down:
            break
        chunk = todo[start : start + ASK_BATCH]
        if progress is not None and labels:
            progress(len(calls) - len(todo) + start, len(calls), labels[chunk[0]])
        requests = [Request(calls[i].segments, calls[i].schema, calls[i].max_tokens) for i in chunk]
        try:
            generations = generate_batch(backend, requests)
        except BackendError as exc:  # the model cannot be reached or run: stop asking it
            result.notes.append(f"{exc.message}; the remaining pages were checked in code only")
            result.model_down = True
            break
        for i, gen in zip(chunk, generations, strict=True):
            if gen.error is not None:  # one bad reply: skip this call, keep going
                result.notes.append(gen.error)
                continue
            result.calls += 1
            if gen.value is not None:
                replies[i] = gen.value.model_dump()
                cache.put(keys[i], replies[i])
    return replies


def run_semantic(
    paths: WikiPaths,
    backend: Backend,
    *,
    contradictions: bool = True,
    questions: bool = True,
    overview: Callable[[], str] = lambda: "",
    progress: Progress | None = None,
) -> SemanticResult:
    """Ask the model about contradictions (per page) and questions (once)."""
    result = SemanticResult()
    cache = VerdictCache(paths)
    schema_text = paths.agents_md.read_text(encoding="utf-8") if paths.agents_md.is_file() else ""
    head = [system(schema_excerpt(schema_text, "Lint"))] if schema_text else []
    try:
        if contradictions:
            _contradictions(paths, backend, cache, head, result, progress)
        if questions:
            ask = _Call((*head, user(overview()), QUESTIONS_TASK), QuestionsReply, 160)
            (reply,) = _ask_all(backend, cache, [ask], result)
            if reply:
                asked = [" ".join(str(q).split()) for q in reply.get("questions", [])]
                result.questions = [q[:QUESTION_CHARS] for q in asked if q][:MAX_QUESTIONS]
    finally:
        cache.save()
    return result


def _conflicts_in_code(claims: Sequence[tuple[str, str]]) -> list[tuple[str, str, str]]:
    """Pairs ingest's conservative check flags (nearly the same words, different numbers or a
    negation): a small model often misses exactly these."""
    found = []
    for i, (a, text_a) in enumerate(claims):
        for b, text_b in claims[i + 1 :]:
            reason = conflict_reason(text_a, text_b)
            if reason:
                found.append((a, b, reason))
    return found


def _contradictions(
    paths: WikiPaths,
    backend: Backend,
    cache: VerdictCache,
    head: list[Segment],
    result: SemanticResult,
    progress: Progress | None,
) -> None:
    with open_store(paths) as store:
        by_page: dict[str, list[tuple[str, str]]] = {}
        for claim in store.all_claims():
            if claim.block and claim.text.strip():
                by_page.setdefault(claim.page, []).append((claim.block, claim.text))
        recorded = {
            (c.page, frozenset(r.block for r in c.refs))
            for c in store.contradictions()
            if len(c.refs) >= 2
        }
        titles = {p.path: p.title for p in store.pages()}
    pages = sorted(p for p, claims in by_page.items() if len(claims) >= 2)
    by_ids = {p: {cid for cid, _ in claims} for p, claims in by_page.items()}
    checked: dict[str, list[tuple[str, str]]] = {}
    for page in pages:
        claims = by_page[page]
        if len(claims) > MAX_CLAIMS:
            result.notes.append(
                f"{page} has {len(claims)} claims; checked the first {MAX_CLAIMS} for contradictions"
            )
            claims = claims[:MAX_CLAIMS]
        checked[page] = claims
    calls = [
        _Call(
            (*head, claims_segment(titles.get(page, page), checked[page]), CONTRADICTION_TASK),
            contradiction_schema([cid for cid, _ in checked[page]]),
            60 * MAX_PAIRS,
        )
        for page in pages
    ]
    replies = _ask_all(backend, cache, calls, result, progress, pages)
    for page, reply in zip(pages, replies, strict=True):
        found = [
            (str(p.get("a", "")), str(p.get("b", "")), str(p.get("reason", "")))
            for p in (reply or {}).get("pairs", [])
        ]
        found += _conflicts_in_code(by_page[page])
        seen: set[frozenset[str]] = set()
        for a, b, why in found:
            key = frozenset((a, b))
            if a == b or a not in by_ids[page] or b not in by_ids[page] or key in seen:
                continue  # invented ids, self-pairs and repeats are ignored
            seen.add(key)
            if (page, key) in recorded:
                continue
            reason = " ".join(why.split())[:REASON_CHARS]
            result.pairs.append(ContradictionPair(page, a, b, reason or "these claims disagree"))
    if progress is not None:
        progress(len(pages), len(pages), "")
