"""Deciding without the model (`query.certain`): a named rule, off by default, under which code
quotes a shown unit that holds every key term of the question without asking the model; --json
records whether the model was consulted and which rule decided."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from tests.helpers.query_fakes import UNANSWERABLE
from tests.helpers.storetools import sample_wiki
from wikic.config import QueryConfig
from wikic.llm.fake import FakeBackend
from wikic.paths import WikiPaths
from wikic.query.answer import answer_question
from wikic.query.certain import one_unit_holds_every_term
from wikic.query.declines import Draft
from wikic.query.evidence import Fact, Packed, Shown
from wikic.query.terms import key_terms

RULE = "one-unit-holds-every-term"
QUESTION = "Where does the Prefix cache persist its snapshots?"


def _deciding(paths: WikiPaths, *rules: str) -> WikiPaths:
    query = paths.config.query.model_copy(update={"decide_without_model": list(rules)})
    return WikiPaths(paths.root, paths.config.model_copy(update={"query": query}))


@pytest.fixture
def wiki(tmp_path: Path) -> WikiPaths:
    return sample_wiki(tmp_path / "w")


def test_a_unit_holding_every_key_term_is_answered_without_the_model(wiki) -> None:
    silent = FakeBackend()  # no reply scripted: asking it would fail
    result = answer_question(_deciding(wiki, RULE), QUESTION, backend=silent)
    assert silent.history == [] and not result.model_called
    assert result.answered and "persisted on disk" in result.answer
    data = result.to_dict()
    assert data["model_called"] is False and data["decided_without_model"] == RULE
    assert data["stages"]["answer"]["calls"] == 0


def test_off_by_default_the_model_is_asked_and_may_decline(wiki) -> None:
    backend = FakeBackend().enqueue(UNANSWERABLE)
    result = answer_question(wiki, QUESTION, backend=backend)
    assert len(backend.history) == 1 and result.model_called and result.declined
    assert result.to_dict()["decided_without_model"] is None


def test_a_question_with_a_term_no_unit_holds_alone_asks_the_model(wiki) -> None:
    backend = FakeBackend().enqueue(UNANSWERABLE)
    question = "Does MLX use the Prefix cache?"  # no one unit names both
    result = answer_question(_deciding(wiki, RULE), question, backend=backend)
    assert len(backend.history) == 1 and result.model_called


def _unit(n: int, text: str, heading: str = "Page") -> Shown:
    evidence = Fact(
        page="concepts/p.md", heading=heading, text=text, link=f"concepts/p#^f-{n}", score=1.0
    )
    return Shown(n, evidence, text, len(text.split()))


def test_the_rule_needs_a_key_term_and_one_unit_with_all_of_them() -> None:
    units = (_unit(1, "Ollama serves on port 11434."), _unit(2, "Ollama runs on Linux."))
    packed = Packed("", units, 10)

    def decided(question: str) -> Shown | None:
        return one_unit_holds_every_term(
            Draft(question=question, terms=tuple(key_terms(question)), packed=packed)
        )

    assert decided("Does Ollama run on Linux?") is units[1]
    assert decided("Which port does Ollama serve on?") is units[0]  # the first holding it
    assert decided("Does Ollama serve on Linux with port 11434?") is None  # no one unit
    assert decided("what is a port?") is None  # no key term: never certain


def test_an_unknown_rule_is_a_config_error() -> None:
    with pytest.raises(ValidationError):
        QueryConfig(decide_without_model=["always"])  # type: ignore[list-item]
