"""`wikic lint`: check the wiki's health; render findings as a table, plain lines or JSON."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator

import typer
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn
from rich.table import Table

from wikic.cli import backends
from wikic.cli.app import (
    JSON_OPTION,
    app,
    current_paths,
    err_console,
    out_console,
    print_error,
    print_json,
    waiting_message,
)
from wikic.cli.syncing import SYNC_OPTION, after_write
from wikic.errors import LockBusyError
from wikic.lint import EXIT_BUSY, RULES, LintOptions, LintReport, run_lint
from wikic.lint.runner import DEFAULT_WAIT_S, selected_rules
from wikic.lint.semantic import Progress as SemanticProgress

EPILOG = (
    "\b\nExit codes (for cron):\n"
    "  0   no errors (no warnings either, with --strict); info never fails a run\n"
    "  1   errors found (or warnings, with --strict), or wikic itself failed\n"
    "  2   usage error (unknown option or rule id)\n"
    f"  {EXIT_BUSY}  --fix found another wikic process writing the wiki: nothing was changed,\n"
    "      try again later (EX_TEMPFAIL)\n"
    "\b\nCron example: wikic -C ~/wiki lint --quiet || mail -s 'wiki lint' me@example.com\n"
    "Rule ids: wikic lint --list-rules. Skip rules for good with lint.ignore in wikic.yaml."
)
_STYLES = {"error": "bold red", "warning": "yellow", "info": "cyan"}


@app.command("lint", epilog=EPILOG)
def lint_cmd(
    fix: bool = typer.Option(
        False,
        "--fix",
        help="Apply the deterministic fixes (index.md, links with one possible target, quoted "
        "link properties, deprecated property names; with --semantic, contradictions) as one "
        "commit, then report what is left.",
    ),
    semantic: bool = typer.Option(
        False,
        "--semantic",
        help="Also run the semantic checks: contradictions and questions (LLM), missing pages "
        "and suggested links (text similarity). Slow on CPU; verdicts are cached.",
    ),
    strict: bool = typer.Option(False, "--strict", help="Exit 1 on warnings too."),
    rules: list[str] = typer.Option(
        [],
        "--rule",
        "-r",
        metavar="RULE",
        help="Check only this rule (repeatable); see --list-rules.",
    ),
    ignore: list[str] = typer.Option(
        [],
        "--ignore",
        metavar="RULE",
        help="Skip this rule (repeatable), on top of lint.ignore in wikic.yaml.",
    ),
    quiet: bool = typer.Option(
        False, "--quiet", "-q", help="Leave out info findings (errors, warnings, summary only)."
    ),
    wait: float = typer.Option(
        DEFAULT_WAIT_S,
        "--wait",
        min=0,
        metavar="SECONDS",
        help="Seconds --fix waits for another wikic process to finish before giving up.",
    ),
    model: str | None = typer.Option(
        None,
        "--model",
        "-m",
        metavar="MODEL",
        help="Model for the semantic checks (default: the lint role's).",
    ),
    list_rules: bool = typer.Option(False, "--list-rules", help="List the rules and exit."),
    sync_after: bool = SYNC_OPTION,
    json_out: bool = JSON_OPTION,
) -> None:
    """Check the wiki: broken links and citations, orphans, stale pages, raw/ changes, index
    drift, duplicates, properties, uncommitted or interrupted operations. Read-only unless
    --fix. Quiet when clean: one summary line."""
    if list_rules:
        _print_rules(json_out)
        return
    paths = current_paths()
    options = LintOptions(tuple(rules), tuple(ignore), semantic, fix, wait)
    # the model is loaded only when a rule that asks it will run
    asks_model = set(selected_rules(paths.config, options)) & {"contradiction", "open-question"}
    backend = backends.for_role(paths, "lint", model) if asks_model else None
    try:
        with _progress(semantic and sys.stderr.isatty()) as on_progress:
            report = run_lint(
                paths, options, backend=backend, progress=on_progress, on_wait=waiting_message
            )
    except LockBusyError as exc:
        print_error(
            LockBusyError(
                f"{exc.message}; nothing was fixed",
                hint="Try again later (cron: the next run will), or wait longer with --wait SECONDS.",
            )
        )
        raise typer.Exit(EXIT_BUSY) from None
    if json_out:
        print_json(report.to_dict(strict=strict))
    else:
        _render(report, quiet=quiet, root=paths.rel(paths.wiki))
    for note in report.notes:
        err_console().print(f"note: {note}", markup=False)
    if fix:
        after_write(paths, sync_after)
    raise typer.Exit(report.exit_code(strict=strict))


@contextlib.contextmanager
def _progress(live: bool) -> Iterator[SemanticProgress | None]:
    if not live:
        yield None
        return
    bar = Progress(
        TextColumn("checking claims"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.description}"),
        console=err_console(),
        transient=True,
    )
    with bar:
        task = bar.add_task("", total=None)

        def update(done: int, total: int, what: str) -> None:
            bar.update(task, completed=done, total=total, description=what)

        yield update


def _render(report: LintReport, *, quiet: bool, root: str) -> None:
    console = out_console()
    shown = [f for f in report.findings if not (quiet and f.level == "info")]
    if report.fix is not None and (report.fix.changed or report.fix.recovered):
        fixed = sum(report.fix.fixed.values())
        commit = f" (commit {report.fix.commit[:10]})" if report.fix.commit else ""
        console.print(
            f"Fixed {fixed} finding{'s' if fixed != 1 else ''}: {len(report.fix.changed)} files changed{commit}.",
            markup=False,
        )
        for note in report.fix.recovered:
            console.print(f"  {note}", markup=False)
    if report.fix is not None and report.fix.skipped:
        console.print(
            f"Left alone (uncommitted edits; commit them, then run --fix again): "
            f"{', '.join(report.fix.skipped)}",
            markup=False,
        )
    if shown and console.is_terminal:
        table = Table(box=None, pad_edge=False, show_header=True, header_style="bold")
        for name in ("level", "rule", "page", "message"):
            table.add_column(name, overflow="fold")
        for f in shown:
            message = escape(f.message) + (f"\n[dim]{escape(f.hint)}[/dim]" if f.hint else "")
            table.add_row(f"[{_STYLES[f.level]}]{f.level}[/]", f.rule, escape(f.where), message)
        console.print(table)
    else:
        for f in shown:
            where = f" {f.where}" if f.where else ""
            console.print(f"{f.level.upper()} {f.rule}{where}: {f.message}", markup=False)
            if f.hint:
                console.print(f"    {f.hint}", markup=False)
    console.print(_summary(report, root), markup=False)


def _summary(report: LintReport, root: str) -> str:
    counts = report.counts()
    where = f"{root}/: {report.pages} page{'s' if report.pages != 1 else ''}"
    took = f"{report.seconds:.2f} s"
    if not report.findings:
        return f"{where} checked, no problems found ({took})."
    parts = [
        f"{n} {level}{'s' if n != 1 and level != 'info' else ''}"
        for level, n in counts.items()
        if n
    ]
    fixable = sum(1 for f in report.findings if f.fixable)
    tail = f"; {fixable} fixable with --fix" if fixable else ""
    return f"{where} checked: {', '.join(parts)}{tail} ({took})."


def _print_rules(json_out: bool) -> None:
    if json_out:
        print_json(
            [
                {
                    "rule": r.id,
                    "level": r.level,
                    "fixable": r.fixable,
                    "semantic": r.semantic,
                    "description": r.summary,
                }
                for r in RULES.values()
            ]
        )
        return
    console = out_console()
    for r in RULES.values():
        flags = ", ".join(x for x, on in (("fixable", r.fixable), ("--semantic", r.semantic)) if on)
        console.print(
            f"{r.id:<24} {r.level:<8} {r.summary}{f' [{flags}]' if flags else ''}", markup=False
        )
