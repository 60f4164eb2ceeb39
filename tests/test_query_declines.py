"""The decline rules of `wikic query` (`query.declines`): each on a small case that fires it and
one that does not, and the order in which they are tried (the first that fires declines)."""

from __future__ import annotations

import pytest

from wikic.query.compose import Sentence
from wikic.query.declines import RULES, DeclineRule, Draft, decline
from wikic.query.evidence import Block, Fact, Packed, Shown
from wikic.query.terms import key_terms


def fact(n: int, text: str, *, heading: str = "C (concept)", section: str = "") -> Shown:
    unit = Fact(page=f"c{n}.md", heading=heading, text=text, link=f"c{n}#^f-{n}", score=1.0,
                section=section)  # fmt: skip
    return Shown(n, unit, text, len(text.split()))


def said(text: str, *cited: Shown) -> Sentence:
    return Sentence(text, cited, text)


def draft(
    question: str, *shown: Shown, answerable: bool = True, sentences: tuple[Sentence, ...] = ()
) -> Draft:
    return Draft(
        question=question,
        terms=tuple(key_terms(question)),
        packed=Packed("", shown, 0),
        answerable=answerable,
        sentences=sentences,
    )


def rule(name: str) -> DeclineRule:
    return next(r for r in RULES if r.name == name)


def test_the_rules_are_tried_in_this_order() -> None:
    assert [(r.name, r.stage) for r in RULES] == [
        ("no-fact", "shown"),
        ("lacking-term", "shown"),
        ("model-declined", "answer"),
        ("nothing-cited", "answer"),
        ("off-topic", "answer"),
        ("no-number", "answer"),
        ("unowned-amount", "answer"),
        ("unmet-condition", "answer"),
    ]


def test_every_rule_says_what_it_catches() -> None:
    for r in RULES:
        assert len(r.doc.split()) >= 12, r.name


def test_nothing_citable_shown_is_no_fact() -> None:
    overview = Block(page="c.md", heading="C", kind="overview", text="Gemma 3 is a model.",
                     link=None, score=1.0)  # fmt: skip
    only_overview = draft("What is Gemma 3?", Shown(0, overview, overview.text, 5))
    assert rule("no-fact").fires(only_overview) == "no fact was found"
    assert rule("no-fact").fires(draft("What is Gemma 3?", fact(1, "Gemma 3 is a model."))) is None


def test_a_name_no_shown_unit_holds_is_a_lacking_term() -> None:
    shown = fact(1, "Ollama stores models in ~/.ollama.")
    lacking = draft("Where does Ollama Pro store models?", shown)
    assert rule("lacking-term").fires(lacking) == "no fact shown holds 'Pro'"
    assert rule("lacking-term").fires(draft("Where does Ollama store models?", shown)) is None
    # a section label counts: the fact is filed under what it is about
    labelled = fact(1, "Run the check command.", section="Verifying the GPU with CUDA")
    assert rule("lacking-term").fires(draft("How is CUDA checked?", labelled)) is None


def test_a_model_that_finds_no_answer_declines() -> None:
    shown = fact(1, "Gemma 3 has 26 layers.")
    no = draft("How many layers?", shown, answerable=False)
    assert rule("model-declined").fires(no) == "the model found no answer in the facts"
    assert rule("model-declined").fires(draft("How many layers?", shown)) is None


def test_an_answer_citing_nothing_declines() -> None:
    shown = fact(1, "Gemma 3 has 26 layers.")
    uncited = draft("What is Gemma 3?", shown, sentences=(said("It is a model."),))
    assert rule("nothing-cited").fires(uncited) == "no sentence of the answer cites a fact"
    cited = draft("What is Gemma 3?", shown, sentences=(said(shown.text, shown),))
    assert rule("nothing-cited").fires(cited) is None


def test_cited_units_sharing_no_topic_word_are_off_topic() -> None:
    question = "How much does an Ollama license cost?"
    port = fact(1, "Ollama listens on port 11434.")
    off = draft(question, port, sentences=(said(port.text, port),))
    assert rule("off-topic").fires(off) == "the cited facts say nothing about license, cost"
    price = fact(2, "An Ollama license costs nothing.")
    assert (
        rule("off-topic").fires(draft(question, price, sentences=(said(price.text, price),)))
        is None
    )


def test_an_amount_question_answered_without_a_number_declines() -> None:
    question = "How many layers does Gemma have?"
    vague = fact(1, "Gemma has local and global layers.")
    none = draft(question, vague, sentences=(said(vague.text, vague),))
    assert rule("no-number").fires(none) == (
        "the question asks for an amount and no cited fact states a number"
    )
    counted = fact(2, "Gemma has 26 layers.")
    assert (
        rule("no-number").fires(draft(question, counted, sentences=(said(counted.text, counted),)))
        is None
    )
    not_amount = draft("What layers does Gemma have?", vague, sentences=(said(vague.text, vague),))
    assert rule("no-number").fires(not_amount) is None


def test_an_amount_stated_for_another_owner_is_unowned() -> None:
    question = "What is the vocabulary size of Llama's tokenizer?"
    gpt2 = fact(1, "The vocabulary size is 50257.", heading="GPT-2 (entity)")
    other = draft(question, gpt2, sentences=(said(gpt2.text, gpt2),))
    assert rule("unowned-amount").fires(other) == "no cited fact states the amount for 'Llama'"
    llama = fact(2, "Llama's vocabulary size is 32000.")
    assert (
        rule("unowned-amount").fires(draft(question, llama, sentences=(said(llama.text, llama),)))
        is None
    )


def test_a_closing_condition_no_cited_unit_states_is_unmet() -> None:
    question = "Where is the database stored on Windows?"
    docker = fact(1, "Docker runs on Linux, macOS and Windows.")
    unmet = draft(question, docker, sentences=(said(docker.text, docker),))
    assert rule("unmet-condition").fires(unmet) == "no cited fact says it for 'Windows'"
    windows = fact(2, "On Windows, the database is stored in %APPDATA%.")
    met = draft(question, windows, sentences=(said(windows.text, windows),))
    assert rule("unmet-condition").fires(met) is None


def test_the_first_rule_that_fires_declines() -> None:
    question = "How many layers does an Ollama license add?"
    port = fact(1, "Ollama listens on a port.")
    # off-topic (no "layers", "license" or "add" cited) and no-number both fire: off-topic first
    both = draft(question, port, sentences=(said(port.text, port),))
    assert rule("off-topic").fires(both) and rule("no-number").fires(both)
    found = decline(both, "answer")
    assert found is not None and found.rule == "off-topic"
    # the model's verdict comes before everything it said
    refused = draft(question, port, answerable=False)
    found = decline(refused, "answer")
    assert found is not None and found.rule == "model-declined"
    # a list of rules without it: the next one that fires
    found = decline(refused, "answer", [r for r in RULES if r.name != "model-declined"])
    assert found is not None and found.rule == "nothing-cited"


@pytest.mark.parametrize("stage", ["shown", "answer"])
def test_a_stage_runs_only_its_own_rules(stage: str) -> None:
    """Nothing shown (a `shown` decline) and a refusal (an `answer` one): each stage finds its own."""
    nothing = draft("Where does Ollama Pro store models?", answerable=False)
    found = decline(nothing, stage)  # type: ignore[arg-type]
    assert found is not None
    assert found.rule == ("no-fact" if stage == "shown" else "model-declined")
