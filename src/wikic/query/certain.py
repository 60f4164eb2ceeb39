"""Deciding without the model: the rules under which code is certain the shown units answer,
so `compose` quotes them without asking the model whether they do (its picks only break ties
among them, and its verdict is the one thing code would not know).

Each rule is named (the name is what `--json` records as `decided_without_model`) and runs only
where `query.decide_without_model` lists it; the answer-stage decline rules still check what
code quotes (`query.declines`). Off by default: a rule earns its place when
`scripts/bench_quality.py` shows the questions it decides are answered as well as with the
model (it records how often each rule decided and how often that was right).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from wikic.query.declines import Draft
from wikic.query.evidence import Shown
from wikic.query.support import holds_terms


def one_unit_holds_every_term(draft: Draft) -> Shown | None:
    """A citable shown unit holds every key term of the question (its numbers, names and code,
    in its text or page heading): the first such, in the order search ranked them. A question
    with no key term is never decided here (any unit would "hold" it)."""
    if not draft.terms:
        return None
    for unit in draft.packed.shown:
        if unit.id and unit.evidence.link and not holds_terms([unit], draft.terms):
            return unit
    return None


@dataclass(frozen=True)
class CertainRule:
    name: str
    check: Callable[[Draft], Shown | None]

    @property
    def doc(self) -> str:
        return inspect.getdoc(self.check) or ""


RULES: tuple[CertainRule, ...] = (
    CertainRule("one-unit-holds-every-term", one_unit_holds_every_term),
)
RULE_NAMES = tuple(r.name for r in RULES)


def certain(draft: Draft, enabled: Sequence[str]) -> tuple[str, Shown] | None:
    """(the rule's name, the unit it found) of the first enabled rule that is certain."""
    for rule in RULES:
        if rule.name in enabled and (unit := rule.check(draft)) is not None:
            return rule.name, unit
    return None
