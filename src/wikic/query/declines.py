"""Why `wikic query` says "The wiki does not say." instead of answering: the decline rules, each
a named check with the reason the user sees, in one ordered list (`RULES`).

Rules run in `RULES` order and the first that fires declines (`decline`). A `shown` rule looks
at the evidence before the model is asked (when one fires, the model is not called); an
`answer` rule at the model's verdict and the answer's sentences. Checks are pure functions of
a `Draft`, so a rule's place in the list is the only thing that decides between two that fire.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from wikic.query import support
from wikic.query.evidence import Packed, Shown
from wikic.query.terms import KeyTerm, asks_quantity, states_quantity, unsupported

Stage = Literal["shown", "answer"]


class Stated(Protocol):
    """A sentence of the answer as the rules read it (`compose.Sentence`)."""

    @property
    def text(self) -> str: ...

    @property
    def cited(self) -> tuple[Shown, ...]: ...


@dataclass(frozen=True, kw_only=True)
class Draft:
    """What the rules look at: the question and its key terms, the evidence shown and, once the
    model has answered, its verdict and the sentences the answer would give."""

    question: str
    terms: tuple[KeyTerm, ...]  # `terms.key_terms(question)`
    packed: Packed
    answerable: bool = False  # the model said the units it chose answer the question
    sentences: tuple[Stated, ...] = ()

    @property
    def cited(self) -> list[Shown]:
        """The units the answer's sentences cite, in order (with repeats)."""
        return [u for s in self.sentences for u in s.cited]


# None: the rule does not fire; else what goes into its reason's `{}` ('' when it has none)
Check = Callable[[Draft], str | None]


@dataclass(frozen=True)
class DeclineRule:
    """A named decline check: `reason` is what the user sees (`decline_reason` in --json), its
    `{}` filled with what the check found; the check's docstring says what it catches and why."""

    name: str
    stage: Stage
    reason: str
    check: Check

    @property
    def doc(self) -> str:
        return inspect.getdoc(self.check) or ""

    def fires(self, draft: Draft) -> str | None:
        """The reason this rule declines `draft` with, or None."""
        found = self.check(draft)
        return None if found is None else self.reason.format(found)


@dataclass(frozen=True)
class Declined:
    rule: str  # the name of the rule that fired
    reason: str


def quoted_terms(terms: Sequence[KeyTerm]) -> str:
    """`'Windows', 'AMD ROCm'`: terms as a reason names them."""
    return ", ".join(f"'{t.text}'" for t in terms)


def headings(packed: Packed) -> list[str]:
    """The page headings and section labels of the shown units: a fact under "Verifying that
    the model is running on the GPU with CUDA" is shown with that label, and answers about CUDA."""
    labels = (x for s in packed.shown for x in (s.evidence.heading, s.evidence.section))
    return [x for x in dict.fromkeys(labels) if x]


def no_fact(draft: Draft) -> str | None:
    """Nothing citable was shown (search found only overviews, or nothing fitted the budget):
    an answer could cite nothing, so the model is not asked."""
    return None if draft.packed.ids else ""


def lacking_term(draft: Draft) -> str | None:
    """A number or name of the question that no shown unit holds, in its text, page heading or
    section label ("Ollama Pro", "AMD ROCm", "$100"); or all the key terms, when none is held
    (`terms.unsupported`). Units that never say it cannot answer it, whatever the model would
    say, so it is not asked."""
    shown = [s.text for s in draft.packed.shown] + headings(draft.packed)
    lacking = unsupported(list(draft.terms), shown)
    return quoted_terms(lacking) if lacking else None


def model_declined(draft: Draft) -> str | None:
    """The model said the shown units do not answer (`answerable: false`), or gave no reply in
    the schema: code does not overrule a model that finds no answer."""
    return None if draft.answerable else ""


def nothing_cited(draft: Draft) -> str | None:
    """No sentence of the answer cites a shown unit (code picked no quote, or every written
    sentence is the model's inference): an answer the wiki does not back is not the wiki's."""
    return None if any(s.cited for s in draft.sentences) else ""


def off_topic(draft: Draft) -> str | None:
    """The cited units share none of the question's topic words (`support.untouched_topic`):
    "How much does an Ollama license cost?" answered from facts about Ollama's port cites units
    about the name, never about a license or a cost."""
    topic = support.untouched_topic(draft.question, draft.cited)
    return ", ".join(topic) if topic else None


def no_number(draft: Draft) -> str | None:
    """The question asks for an amount ("how many", "what is the maximum …") and no sentence of
    the answer states a number: whatever it says, it does not give the amount."""
    if not asks_quantity(draft.question):
        return None
    return None if any(states_quantity(s.text) for s in draft.sentences) else ""


def unowned_amount(draft: Draft) -> str | None:
    """The amount asked for belongs to a name ("Llama's vocabulary size", "faster than pdm")
    that no sentence stating a number names (`support.unowned_amount`): GPT-2's vocabulary
    size is not Llama's, and "10-100x faster than pip" says nothing about pdm."""
    if not asks_quantity(draft.question):
        return None
    owners = support.unowned_amount(draft.question, [(s.text, s.cited) for s in draft.sentences])
    return quoted_terms(owners) if owners else None


def unmet_condition(draft: Draft) -> str | None:
    """The question's closing condition ("… stored on Windows?") is stated by no cited unit
    together with something else it asks about (`support.unmet_conditions`): a fact about
    Docker that lists Windows among its platforms does not say where a database is kept on
    Windows."""
    unmet = support.unmet_conditions(draft.question, draft.cited)
    return quoted_terms(unmet) if unmet else None


RULES: tuple[DeclineRule, ...] = (
    DeclineRule("no-fact", "shown", "no fact was found", no_fact),
    DeclineRule("lacking-term", "shown", "no fact shown holds {}", lacking_term),
    DeclineRule("model-declined", "answer", "the model found no answer in the facts",
                model_declined),
    DeclineRule("nothing-cited", "answer", "no sentence of the answer cites a fact",
                nothing_cited),
    DeclineRule("off-topic", "answer", "the cited facts say nothing about {}", off_topic),
    DeclineRule("no-number", "answer",
                "the question asks for an amount and no cited fact states a number", no_number),
    DeclineRule("unowned-amount", "answer", "no cited fact states the amount for {}",
                unowned_amount),
    DeclineRule("unmet-condition", "answer", "no cited fact says it for {}", unmet_condition),
)  # fmt: skip


def decline(draft: Draft, stage: Stage, rules: Sequence[DeclineRule] = RULES) -> Declined | None:
    """The first rule of `stage` in `rules` (in their order) that declines `draft`, or None."""
    for rule in rules:
        if rule.stage == stage and (reason := rule.fires(draft)) is not None:
            return Declined(rule.name, reason)
    return None
