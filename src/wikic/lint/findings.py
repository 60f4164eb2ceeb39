"""What lint reports: `Finding`s (level, rule id, page, message, hint) and the catalogue of rules.

Every rule has one id, a default level and a one-line description; `RULES` is the only list of
them, so config validation, `--rule`, `--help` and the docs cannot drift apart. A finding's page is
a path relative to the wiki root (`wiki/concepts/x.md`, `raw/a.md`), or "" for the whole wiki.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from wikic.errors import ConfigError, UsageError

Level = Literal["error", "warning", "info"]
LEVELS: tuple[Level, ...] = ("error", "warning", "info")
EXIT_CLEAN = 0
EXIT_PROBLEMS = 1
EXIT_USAGE = 2
EXIT_BUSY = 75  # sysexits EX_TEMPFAIL: another wikic process holds the writer lock; retry later


@dataclass(frozen=True)
class Finding:
    level: Level
    rule: str
    page: str
    message: str
    hint: str = ""
    fixable: bool = False
    line: int | None = None

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}" if self.page and self.line else self.page

    def to_dict(self) -> dict[str, Any]:
        return {
            "level": self.level,
            "rule": self.rule,
            "page": self.page,
            "line": self.line,
            "message": self.message,
            "hint": self.hint,
            "fixable": self.fixable,
        }

    def sort_key(self) -> tuple[int, str, int, str, str]:
        return (LEVELS.index(self.level), self.page, self.line or 0, self.rule, self.message)


@dataclass(frozen=True)
class Rule:
    id: str
    level: Level
    summary: str
    fixable: bool = False
    semantic: bool = False  # runs only with --semantic


_RULE_LIST = (
    Rule("unreadable-page", "error", "a page whose file or YAML properties cannot be read"),
    Rule("broken-link", "error", "a link to a page that does not exist", fixable=True),
    Rule("ambiguous-link", "warning", "a bare link name that matches several pages"),
    Rule("broken-anchor", "warning", "a link to a heading or block that the page lacks"),
    Rule("missing-citation-block", "error", "a citation to a source paragraph that does not exist"),
    Rule("uncited-fact", "warning", "a `## Facts` bullet without a citation to a source paragraph"),
    Rule(
        "invalid-block-id",
        "warning",
        "a block id with characters Obsidian does not allow, or a duplicate",
    ),
    Rule(
        "orphan-page", "warning", "a page no other page links to (sources: info; analyses exempt)"
    ),
    Rule(
        "index-drift",
        "warning",
        "index.md differs from the catalog generated from the pages",
        fixable=True,
    ),
    Rule(
        "duplicate-title",
        "warning",
        "pages whose titles or aliases are the same or nearly (merge candidates)",
    ),
    Rule("page-type", "warning", "a page without a `type` property, or with an unknown one"),
    Rule(
        "property-type",
        "warning",
        "a property whose value type differs from its type elsewhere in the wiki",
    ),
    Rule(
        "deprecated-property",
        "warning",
        "`tag`, `alias` or `cssclass` instead of `tags`, `aliases`, `cssclasses`",
        fixable=True,
    ),
    Rule(
        "unquoted-link-property",
        "error",
        "a [[link]] in a property without quotes (YAML reads it as a nested list)",
        fixable=True,
    ),
    Rule("nested-property", "error", "a nested value in a property (Obsidian properties are flat)"),
    Rule("invalid-tag", "warning", "a tag with characters Obsidian does not allow, or only digits"),
    Rule("raw-modified", "error", "a file in raw/ (immutable) changed after it was ingested"),
    Rule("raw-missing", "warning", "a source page whose raw file is gone"),
    Rule(
        "stale-page",
        "warning",
        "a page citing source paragraphs that changed or vanished since ingest",
    ),
    Rule("uningested-source", "info", "a text file in raw/ that has not been ingested yet"),
    Rule(
        "unusable-source",
        "warning",
        "a file in raw/ that is skipped: a symlink leaving raw/ or dangling, not a regular file",
    ),
    Rule(
        "outdated-page", "info", "a page not updated for `lint.stale_after_days` days (off when 0)"
    ),
    Rule("open-contradiction", "info", "an open entry in a page's `## Contradictions` section"),
    Rule("uncommitted-changes", "warning", "a file in wiki/ that differs from the last commit"),
    Rule(
        "interrupted-operation",
        "error",
        "an operation a crash interrupted (its journal is still in .wikic/)",
        fixable=True,
    ),
    Rule("fragment-fact", "warning", "a `## Facts` bullet that is not a whole sentence"),
    Rule(
        "cut-summary",
        "warning",
        "a summary, lead paragraph or consolidated sentence that ends mid-sentence",
    ),
    Rule("instruction-title", "error", "a page title copied from wikic's own prompt text"),
    Rule("empty-topic", "warning", "an entity or concept page with no cited facts"),
    Rule(
        "duplicate-from-one-ingest",
        "warning",
        "one topic made into two pages (same or nearly the same name) by one ingest",
    ),
    Rule(
        "twin-facts",
        "warning",
        "two topic pages that are one concept twice: the same opening sentence, >= 60 % of one "
        "page's facts on the other, or a command page named after a concept page",
    ),
    Rule(
        "contradiction",
        "warning",
        "two claims on one page that cannot both be true (LLM, and a check in code)",
        fixable=True,
        semantic=True,
    ),
    Rule(
        "missing-page",
        "info",
        "a name several pages mention or link that has no page of its own",
        semantic=True,
    ),
    Rule(
        "suggested-link",
        "info",
        "pages similar to this one that it does not link yet",
        semantic=True,
    ),
    Rule(
        "twin-page",
        "info",
        "two topic pages that say the same under names that mean the same (embeddings)",
        semantic=True,
    ),
    Rule("open-question", "info", "a question worth investigating next (LLM)", semantic=True),
)
RULES: dict[str, Rule] = {r.id: r for r in _RULE_LIST}


def check_rule_ids(ids: Iterable[str], *, where: str) -> None:
    """Raise a UsageError (command line) or ConfigError (wikic.yaml) naming unknown rule ids."""
    unknown = sorted(set(ids) - set(RULES))
    if not unknown:
        return
    message = f"{where}: unknown lint rule{'s' if len(unknown) > 1 else ''} {', '.join(unknown)}"
    hint = "Known rules: " + ", ".join(RULES)
    if where == "wikic.yaml lint.ignore":
        raise ConfigError(message, hint=hint)
    raise UsageError(message, hint=hint)


@dataclass(frozen=True)
class FixSummary:
    """What `--fix` changed: one commit (or none) and how many findings of each rule it fixed."""

    commit: str | None
    changed: tuple[str, ...]
    fixed: dict[str, int] = field(default_factory=dict)
    recovered: tuple[str, ...] = ()
    skipped: tuple[str, ...] = ()  # pages left alone: they have uncommitted edits

    def to_dict(self) -> dict[str, Any]:
        return {
            "commit": self.commit,
            "changed": list(self.changed),
            "fixed": dict(self.fixed),
            "recovered": list(self.recovered),
            "skipped": list(self.skipped),
        }


@dataclass(frozen=True)
class LintReport:
    findings: tuple[Finding, ...]
    pages: int
    rules: tuple[str, ...]  # the rules that ran
    seconds: float = 0.0
    fix: FixSummary | None = None
    notes: tuple[str, ...] = ()  # e.g. pages the semantic checks skipped

    def count(self, level: Level) -> int:
        return sum(1 for f in self.findings if f.level == level)

    def counts(self) -> dict[str, int]:
        by_level = Counter(f.level for f in self.findings)
        return {level: by_level.get(level, 0) for level in LEVELS}

    def exit_code(self, *, strict: bool = False) -> int:
        """0 clean, 1 errors (or warnings when `strict`); info never fails a run."""
        if self.count("error") or (strict and self.count("warning")):
            return EXIT_PROBLEMS
        return EXIT_CLEAN

    def to_dict(self, *, strict: bool = False) -> dict[str, Any]:
        return {
            "findings": [f.to_dict() for f in self.findings],
            "counts": self.counts(),
            "by_rule": dict(sorted(Counter(f.rule for f in self.findings).items())),
            "pages": self.pages,
            "rules": list(self.rules),
            "seconds": round(self.seconds, 3),
            "fix": self.fix.to_dict() if self.fix else None,
            "notes": list(self.notes),
            "exit_code": self.exit_code(strict=strict),
        }
