"""An answer cited by construction, in one of two styles. `quote` (the default, `query.quote`):
the answer quotes the shown units that answer (code picks them; the model's choice breaks ties
and it says whether they answer). `write`:
the model fills a JSON schema in which every sentence names the numbers of the units it uses
(only numbers that were shown), and code renders the prose with their links. Used alike by
`wikic query` and by the plain-retrieval arm of bench_quality.

Invariants: a rendered citation always points at a unit that was shown and that supports its
sentence (`query.support`); a sentence no shown unit supports is marked as the model's
inference and carries no citation; the answer is declined ("… does not say") by the first rule
of `query.declines` that fires: on the shown units before the model is asked (then it is not
called), and on its answer after. Prompt order: schema → task → evidence → question,
so everything before the evidence is the same for every question (one cached prefix).
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model

from wikic.llm.backend import (
    EMPTY_STATS,
    Backend,
    Generation,
    GenerationStats,
    Segment,
    TextCallback,
)
from wikic.llm.backend import system as system_segment
from wikic.llm.backend import user as user_segment
from wikic.prompts.query import QUESTION, TASKS, WHERE_WIKI
from wikic.query.certain import certain
from wikic.query.declines import Draft, decline
from wikic.query.evidence import Evidence, Packed, Shown, is_lead_in, release_of
from wikic.query.quote import in_context, quote_model, quote_text, select
from wikic.query.support import best_support, exact_terms, holds_terms, supporting
from wikic.query.terms import KeyTerm, key_terms
from wikic.vault.links import iter_links
from wikic.vault.schema_doc import schema_excerpt

MAX_SENTENCES = 2  # decode is the cost on a CPU: ~5 tokens/s for the default model
SENTENCE_CHARS = 180
IDS_PER_SENTENCE = 3
INFERENCE_MARK = "*(inference: no cited fact says this)*"


def schema_text(agents_md: str) -> str:
    """The part of the wiki's schema (AGENTS.md) that steers answering (see `schema_doc`)."""
    return schema_excerpt(agents_md, "Query")


def answer_model(ids: Sequence[int]) -> type[BaseModel]:
    """The answer schema: one to `MAX_SENTENCES` sentences, each with the ids (an enum of the
    shown numbers) it uses, then `answerable`. Measured with the default 0.5B model: asked to
    decide first, it answered `false` to questions a shown fact answers word for word, so the
    verdict comes after the sentences and code checks the answer (see `compose`)."""
    strict = ConfigDict(extra="forbid")
    id_type: Any = Literal[tuple(ids)] if ids else Literal[0]
    sentence = create_model(
        "Sentence",
        __config__=strict,
        ids=(list[id_type], Field(max_length=IDS_PER_SENTENCE if ids else 0)),
        text=(Annotated[str, Field(min_length=1, max_length=SENTENCE_CHARS)], ...),
    )
    return create_model(
        "Answer",
        __config__=strict,
        sentences=(list[sentence], Field(min_length=1, max_length=MAX_SENTENCES)),
        answerable=(bool, ...),
    )


AnswerStyle = Literal["quote", "write"]


def prompt(
    schema: str, packed: Packed, question: str, *, where: str, style: AnswerStyle = "quote"
) -> list[Segment]:
    segments = [system_segment(schema)] if schema else []
    segments += [user_segment(TASKS[style].format(where=where)), user_segment(packed.text)]
    segments.append(user_segment(QUESTION.format(question=question)))
    return segments


@dataclass(frozen=True)
class Sentence:
    """One sentence of the answer as rendered: `cited` the units it cites (empty: inference)."""

    text: str  # as the model wrote it, cleaned
    cited: tuple[Shown, ...]
    rendered: str
    why_uncited: str | None = None  # why it is marked as inference
    reattributed: bool = False  # cited the unit that holds it, not the ids the model gave
    label: str = ""  # the release or day a quote sits under ("0.5 (2023-07-12)"), or ''

    @property
    def links(self) -> list[str]:
        return [f"[[{s.evidence.link}]]" for s in self.cited]


@dataclass(frozen=True, kw_only=True)
class Composed:
    """What came of one question. `declined` holds why it was declined (None: answered)."""

    answer: str
    sentences: tuple[Sentence, ...]
    declined: str | None
    raw: str  # the model's JSON ('' when it was not called)
    stats: GenerationStats
    finish_reason: str
    ttft_s: float  # from the call to the first generated text (0 when not called)
    model_called: bool
    key_terms: tuple[KeyTerm, ...]
    decided_by: str | None = None  # the `query.certain` rule that answered without the model

    @property
    def cited(self) -> list[Shown]:
        return list({id(s): s for x in self.sentences for s in x.cited}.values())

    @property
    def prose(self) -> str:
        """The answer's sentences as a reader takes them in, without links or marks."""
        return " ".join(f"{s.label}: {s.text}" if s.label else s.text for s in self.sentences)


_MODEL_LINK_RE = re.compile(r"\s*\[\d+(?:\s*,\s*\d+)*\]")


def clean_sentence(text: str) -> str:
    """The model's sentence without links or `[3]` references it wrote itself (citations come
    from the ids only), one line, ending with punctuation. A sentence the length cap cut is
    taken back to its last whole sentence, or at least its last whole word ("summar," goes)."""
    if len(text) >= SENTENCE_CHARS and text.rstrip()[-1:] not in ".!?":
        ends = [m.end() for m in re.finditer(r"[.!?](?=\s)", text)]
        text = text[: ends[-1]] if ends and ends[-1] > len(text) // 2 else text.rsplit(" ", 1)[0]
        text = text.rstrip(" ,;:")
    pieces: list[str] = []
    pos = 0
    for start, end, lnk in iter_links(text):
        pieces += [text[pos:start], lnk.alias or ""]
        pos = end
    pieces.append(text[pos:])
    flat = " ".join(_MODEL_LINK_RE.sub("", "".join(pieces)).split())
    flat = re.sub(r"\s+([.,;:!?])", r"\1", flat)
    return flat if not flat or flat[-1] in ".!?" else flat + "."


def _attach(text: str, cited: Sequence[Shown]) -> str:
    """`text` with the links of `cited` before its final punctuation."""
    links = dict.fromkeys(f"[[{s.evidence.link}]]" for s in cited)
    body = text.rstrip(".!?")
    return f"{body} {' '.join(links)}{text[len(body) :]}"


def render_sentence(text: str, ids: Sequence[int], packed: Packed) -> Sentence | None:
    """The sentence with the links of the units that support it (see `query.support`)."""
    clean = clean_sentence(text)
    if not clean:
        return None
    named = [s for n in dict.fromkeys(ids) if (s := packed.by_id(n)) and s.evidence.link]
    cited = supporting(clean, named)
    lacking = holds_terms(cited, exact_terms(clean))
    if cited and not lacking:
        return Sentence(clean, tuple(cited), _attach(clean, cited))
    found = best_support(clean, packed.shown)
    if found is not None:
        return Sentence(clean, (found,), _attach(clean, [found]), reattributed=True)
    if not named:
        why = "it names no fact"
    elif lacking:
        why = "its facts do not hold " + ", ".join(t.text for t in lacking)
    else:
        why = "its facts do not share its words"
    return Sentence(clean, (), f"{clean} {INFERENCE_MARK}", why)


def compose(
    backend: Backend,
    question: str,
    packed: Packed,
    *,
    schema: str,
    where: str = WHERE_WIKI,
    decline_text: str,
    max_tokens: int,
    style: AnswerStyle = "quote",
    temperature: float = 0.0,
    seed: int = 0,
    on_text: TextCallback | None = None,
    decide: Sequence[str] = (),
) -> Composed:
    """Answer `question` from `packed` (see the module docstring). `decide`: the rules of
    `query.certain` under which code quotes without asking the model (quoted answers only)."""
    draft = Draft(question=question, terms=tuple(key_terms(question)), packed=packed)
    early = decline(draft, "shown")
    if early is not None:
        return Composed(
            answer=decline_text,
            sentences=(),
            declined=early.reason,
            raw="",
            stats=EMPTY_STATS,
            finish_reason="stop",
            ttft_s=0.0,
            model_called=False,
            key_terms=draft.terms,
        )
    sure = certain(draft, decide) if style == "quote" else None
    if sure is not None:  # code is certain the unit answers: the model is not asked
        value: Any = quote_model(packed.ids)(ids=[sure[1].id], answerable=True)
        gen = Generation("", value, EMPTY_STATS)
        ttft = 0.0
    else:
        started = time.perf_counter()
        first: list[float] = []

        def seen(piece: str) -> None:
            if not first:
                first.append(time.perf_counter() - started)
            if on_text is not None:
                on_text(piece)

        gen = backend.generate(
            prompt(schema, packed, question, where=where, style=style),
            schema=quote_model(packed.ids) if style == "quote" else answer_model(packed.ids),
            max_tokens=max_tokens,
            temperature=temperature,
            seed=seed,
            on_text=seen,
        )
        ttft = first[0] if first else gen.stats.cache_load_s + gen.stats.prefill_s
        value = gen.value
    picked: list[Shown] = []
    if style == "quote":
        picked = select(packed, question, getattr(value, "ids", []), backend.count_tokens)
        sentences = tuple(quoted(u, question, backend) for u in picked)
    else:
        sentences = tuple(
            s
            for item in getattr(value, "sentences", [])
            if (s := render_sentence(item.text, item.ids, packed)) is not None
        )
    answerable = value is not None and bool(value.answerable)
    late = decline(replace(draft, answerable=answerable, sentences=sentences), "answer")
    declined = late.reason if late is not None else None
    if style == "quote" and not declined:
        whole = in_context(picked, backend.count_tokens)
        sentences = tuple(quoted(u, question, backend, fact) for u, fact in whole)
    answer = decline_text if declined else joined(sentences)
    return Composed(
        answer=answer,
        sentences=sentences if not declined else (),
        declined=declined,
        raw=gen.text,
        stats=gen.stats,
        finish_reason=gen.finish_reason,
        ttft_s=ttft,
        model_called=sure is None,
        key_terms=draft.terms,
        decided_by=sure[0] if sure is not None else None,
    )


def joined(sentences: Sequence[Sentence]) -> str:
    """The answer's sentences as prose; the list items a quoted lead-in introduces as a list
    under it ("The required keys are:" then `- version …`), the prose after a list as a new
    paragraph; a quote under another release or day than the one before opens with it
    ("0.5 (2023-07-12): Plugins are available for 19 models …")."""
    parts: list[str] = []
    in_list = False
    previous: Evidence | None = None
    label = ""
    for sentence in sentences:
        unit = sentence.cited[0].evidence if sentence.cited else None
        item = (
            unit is not None
            and previous is not None
            and unit.kind == "item"
            and unit.page == previous.page
            and unit.ordinal == previous.ordinal + 1
            and (in_list or is_lead_in(previous))
        )
        if parts:
            parts.append("\n- " if item else "\n\n" if in_list else " ")
        if sentence.label and sentence.label != label:
            parts.append(f"{sentence.label}: ")
        parts.append(sentence.rendered)
        in_list, previous, label = item, unit, sentence.label or label
    return "".join(parts)


def quoted(unit: Shown, question: str, backend: Backend, fact: Shown | None = None) -> Sentence:
    """What the answer quotes of `unit`, cited to it (and to the `fact` it stands for: a fact
    quoted as its source paragraph, `quote.in_context`), with the release or day its section
    sits under (`release_of`): "Which release added plugins?" is answered by the heading of
    the changelog section the quote is from."""
    text = quote_text(unit, question, backend.count_tokens)
    cited = (fact, unit) if fact is not None else (unit,)
    return Sentence(text, cited, _attach(text, cited), label=release_of(unit.evidence))
