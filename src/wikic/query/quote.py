"""Quoted answers (`query.answer_style: quote`, the default): the model names the numbers of the
shown units that answer the question, and the answer quotes them, each with its link.

Why: with the default 0.5B model on the realistic corpus, the fact a question asks for was in
the shown evidence 96 % of the time, but the model's own sentences stated it 15 % of the time
(bench_compile-corpus6-qa.json): it paraphrased numbers and names away. Choosing is what a small
model does well; a few ids also decode in seconds where sentences take a minute. Larger models
can write their own sentences (`answer_style: write`, `query.compose`).

A quote is a fact whole (a fact is one self-contained sentence) or the sentences of a
paragraph most about the question, so a citation always holds exactly what is quoted. A chosen
unit that shares no word with the question is dropped: small models list ids loosely.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model

from wikic.query.evidence import Packed, Shown, TokenCounter, excerpt, words
from wikic.query.support import stems
from wikic.query.terms import holds as holds_term
from wikic.query.terms import key_terms, text_words

MAX_QUOTES = 3
QUOTE_TOKENS = 60  # a paragraph is quoted by its sentences most about the question, this many
# The schema's field names are part of the prompt the model reads: plain words.
QUOTE_TASK = (
    "Find the answer to the question at the end in the numbered facts below, which come from "
    "{where}. Reply in JSON: in ids, the numbers of the one to three facts that answer the "
    "question, best first; then set answerable to true if those facts answer it, false if no "
    "fact does."
)


def quote_model(ids: Sequence[int]) -> type[BaseModel]:
    """The schema: one to `MAX_QUOTES` ids (an enum of the shown numbers), then `answerable`
    (after the ids: asked first, the default model said false to questions a fact answers)."""
    id_type: Any = Literal[tuple(ids)] if ids else Literal[0]
    return create_model(
        "Answer",
        __config__=ConfigDict(extra="forbid"),
        ids=(list[id_type], Field(min_length=1, max_length=MAX_QUOTES)),
        answerable=(bool, ...),
    )


def quote_text(unit: Shown, question: str, count: TokenCounter) -> str:
    """What the answer quotes of `unit`: a fact whole; a paragraph's sentences about the
    question, the most relevant that fit in `QUOTE_TOKENS`, in text order, with `…` where
    sentences were left out (its opening sentences when none shares a word with it)."""
    text = " ".join(unit.text.split())
    if unit.evidence.kind == "fact" or count(text) <= QUOTE_TOKENS:
        return text
    asked = words(question)
    return (
        excerpt(text, asked, QUOTE_TOKENS, count, relevant_only=True)
        or excerpt(text, [], QUOTE_TOKENS, count)
        or text
    )


def about_question(unit: Shown, question: str) -> bool:
    """Whether `unit` (its text or page heading) shares a content word or key term with the
    question: a chosen unit that does not was named loosely."""
    text = f"{unit.evidence.heading} {unit.text}"
    if stems(question) & stems(text):
        return True
    haystack = text_words([text])
    return any(holds_term(haystack, t) for t in key_terms(question))


def chosen(packed: Packed, ids: Sequence[int], question: str) -> list[Shown]:
    """The units the model chose, in its order, once each, without those off the question."""
    units = [u for n in dict.fromkeys(ids) if (u := packed.by_id(n)) and u.evidence.link]
    return [u for u in units if about_question(u, question)]
