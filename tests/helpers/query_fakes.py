"""Scripted `wikic query` replies for FakeBackend: sentences that cite the shown units holding
given words, as the answer schema of `query.compose` wants them."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from wikic.llm.fake import FakeCall

_UNIT_RE = re.compile(r"^\[(\d+)\] (.*)$", re.MULTILINE)


def shown_units(call: FakeCall) -> dict[int, str]:
    """The numbered units of the evidence segment (the one before the question)."""
    return {int(n): text for n, text in _UNIT_RE.findall(call.segments[-2].text)}


def id_of(call: FakeCall, needle: str) -> int:
    found = [n for n, text in shown_units(call).items() if needle in text]
    assert found, f"no shown unit holds {needle!r}: {shown_units(call)}"
    return found[0]


def answer(*sentences: tuple[str, list[int]]) -> dict[str, Any]:
    return {"sentences": [{"ids": ids, "text": t} for t, ids in sentences], "answerable": True}


UNANSWERABLE: dict[str, Any] = {
    "sentences": [{"ids": [], "text": "The facts do not say."}],
    "answerable": False,
}


def citing(text: str, *needles: str) -> Callable[[FakeCall], dict[str, Any]]:
    """A responder answering `text`, citing the shown units that hold `needles`."""

    def respond(call: FakeCall) -> dict[str, Any]:
        return answer((text, [id_of(call, n) for n in needles]))

    return respond
