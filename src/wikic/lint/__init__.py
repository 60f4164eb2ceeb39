"""`wikic lint`: structural checks in code, semantic checks with the LLM, deterministic fixes.

Use `run_lint(paths, LintOptions(...))`; it returns a `LintReport` of `Finding`s. `RULES` lists
every rule id with its level and description.
"""

from wikic.lint.findings import (
    EXIT_BUSY,
    EXIT_CLEAN,
    EXIT_PROBLEMS,
    EXIT_USAGE,
    RULES,
    Finding,
    FixSummary,
    LintReport,
    Rule,
)
from wikic.lint.runner import LintOptions, run_lint, selected_rules

__all__ = [
    "EXIT_BUSY", "EXIT_CLEAN", "EXIT_PROBLEMS", "EXIT_USAGE", "RULES", "Finding", "FixSummary",
    "LintOptions", "LintReport", "Rule", "run_lint", "selected_rules",
]  # fmt: skip
