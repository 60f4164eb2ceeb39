"""The sync a writing command makes after its commits: with `--sync`, or always with
`sync: auto` in wikic.yaml. A remote out of reach is one warning line; the command's own
result stands and the next sync sends its commits."""

from __future__ import annotations

import typer

from wikic.cli.app import err_console, waiting_message
from wikic.cli.notices import warn
from wikic.paths import WikiPaths
from wikic.store.db import after_commit
from wikic.sync import SyncReport, sync_after_write

EXIT_OFFLINE = 75  # EX_TEMPFAIL: the remote could not be reached; the commits stay, retry later
SYNC_OPTION = typer.Option(
    False,
    "--sync",
    help="Then sync with the git remote, as `wikic sync` (always, with `sync: auto` in "
    "wikic.yaml).",
)


def after_write(paths: WikiPaths, requested: bool) -> None:
    """Sync after a writing command when asked or configured; a remote out of reach is one
    warning line, the command's own result stands."""
    report = sync_after_write(paths, requested, on_wait=waiting_message, on_commit=after_commit)
    if report is None:
        return
    if not report.synced:
        warn(f"not synced: {report.notice}; the next sync sends the commits")
        return
    err_console().print(summary(report), markup=False)


def summary(report: SyncReport) -> str:
    parts = [f"received {report.received} commit(s)"] if report.received else []
    if report.merge_commit:
        parts.append(f"merged {len(report.merged)} file(s) changed on both sides")
    elif report.fast_forward:
        parts.append("fast-forward")
    parts.append(f"sent {report.sent} commit(s)" if report.sent else "nothing to send")
    return f"Synced with {report.upstream}: {', '.join(parts)}."
