"""Scripted `wikic query` replies for FakeBackend, in the shape the call's schema asks for: a
quoted answer (`{"ids": …, "answerable": …}`, `query.quote`) or written sentences that cite the
shown units holding given words (`query.compose`, answer_style: write)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from wikic.llm.fake import FakeCall

_UNIT_RE = re.compile(r"^\[(\d+)\] (.*)$", re.MULTILINE)
Sentences = tuple[tuple[str, list[int]], ...]


def shown_units(call: FakeCall) -> dict[int, str]:
    """The numbered units of the evidence segment (the one before the question)."""
    return {int(n): text for n, text in _UNIT_RE.findall(call.segments[-2].text)}


def id_of(call: FakeCall, needle: str) -> int:
    found = [n for n, text in shown_units(call).items() if needle in text]
    assert found, f"no shown unit holds {needle!r}: {shown_units(call)}"
    return found[0]


def quotes(call: FakeCall) -> bool:
    """Whether the call asks for a quoted answer (ids only) rather than sentences."""
    return call.schema is not None and "sentences" not in call.schema.model_fields


def shaped(call: FakeCall, sentences: Sentences, answerable: bool) -> dict[str, Any]:
    if not quotes(call):
        return {
            "sentences": [{"ids": ids, "text": t} for t, ids in sentences],
            "answerable": answerable,
        }
    ids = list(dict.fromkeys(n for _, ns in sentences for n in ns))
    return {"ids": ids or [min(shown_units(call))], "answerable": answerable}


def answer(*sentences: tuple[str, list[int]]) -> Callable[[FakeCall], dict[str, Any]]:
    """Sentences citing the given ids; quoted, the ids alone."""
    return lambda call: shaped(call, sentences, True)


def UNANSWERABLE(call: FakeCall) -> dict[str, Any]:  # named as the constant it replaced
    return shaped(call, (("The facts do not say.", []),), False)


def citing(text: str, *needles: str) -> Callable[[FakeCall], dict[str, Any]]:
    """A responder answering `text`, citing the shown units that hold `needles`."""

    def respond(call: FakeCall) -> dict[str, Any]:
        return shaped(call, ((text, [id_of(call, n) for n in needles]),), True)

    return respond
