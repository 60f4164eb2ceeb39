"""`wikic search` and `wikic reindex`: full-text search over the pages, and its index."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn
from rich.text import Text

from wikic.cli.app import JSON_OPTION, app, current_paths, err_console, out_console, print_json
from wikic.cli.notices import warn
from wikic.errors import UsageError
from wikic.store.db import SearchHit, Store, open_store
from wikic.store.hybrid import RANKINGS
from wikic.store.search import parse_where


@contextlib.contextmanager
def indexing_progress(min_pages: int = 300) -> Iterator[Callable[[int, int], None]]:
    """A progress callback for the store's sync that shows a bar on stderr only when many
    pages need indexing (a fresh clone, a big pull); the usual sync stays silent."""
    bar: Progress | None = None
    task = None

    def update(done: int, total: int) -> None:
        nonlocal bar, task
        if bar is None:
            if total < min_pages:
                return
            bar = Progress(
                TextColumn("Indexing pages"),
                BarColumn(),
                MofNCompleteColumn(),
                console=err_console(),
                transient=True,
            )
            bar.start()
            task = bar.add_task("index", total=total)
        if task is not None:
            bar.update(task, completed=done, total=total)

    try:
        yield update
    finally:
        if bar is not None:
            bar.stop()


def _marked(snippet: str) -> Text:
    """Snippet markdown (`**hit**`) as rich text with the hits in bold."""
    text = Text()
    for i, part in enumerate(snippet.split("**")):
        text.append(part, style="bold" if i % 2 else "")
    return text


def _print_notes(notes: list[str]) -> None:
    for note in notes:
        warn(note)  # the store logged it too: printed once


@app.command()
def search(
    terms: list[str] | None = typer.Argument(
        None,
        help='Words to find. "a phrase" matches words together, -word leaves pages '
        "with that word out, the last word also matches as a prefix.",
    ),
    page_type: list[str] = typer.Option(
        [], "--type", "-t", help="Only pages of this type (repeatable: any of them)."
    ),
    tag: list[str] = typer.Option(
        [], "--tag", help="Only pages with this tag or a nested one (repeatable: all of them)."
    ),
    where: list[str] = typer.Option(
        [],
        "--where",
        "-w",
        metavar="KEY=VALUE",
        help="Only pages whose property KEY is (or, for a list, holds) VALUE; case-insensitive; "
        "repeatable.",
    ),
    limit: int = typer.Option(10, "--limit", "-n", min=1, help="How many results at most."),
    mode: str | None = typer.Option(
        None,
        "--mode",
        "-m",
        help="hybrid: words and meaning fused; lexical: words only (BM25); semantic: meaning "
        "only (embeddings). Default: search.mode in wikic.yaml (hybrid).",
    ),
    json_out: bool = JSON_OPTION,
) -> None:
    """Search the wiki's pages by words (title and aliases count most, then tags, summary,
    body) and by meaning. With filters and no words, list the pages that match the filters."""
    query = " ".join(terms or [])
    filters = parse_where(where)
    if mode is not None and mode not in RANKINGS:
        raise UsageError(f"--mode {mode!r}", hint="Use hybrid, lexical or semantic.")
    if not query.strip() and not (page_type or tag or filters):
        raise UsageError("nothing to search for", hint="Pass words, or a --type/--tag/--where.")
    paths = current_paths()
    ranking = mode or paths.config.search.mode
    with indexing_progress() as progress, open_store(paths, progress=progress) as store:
        hits = store.search(
            query, types=page_type, tags=tag, where=filters, limit=limit, ranking=ranking
        )
        types = store.counts()["types"] if not hits and page_type else {}
        notes = store.notes
    if json_out:
        print_json([_hit_json(h, paths.rel(paths.wiki)) for h in hits])
        _print_notes(notes)
        return
    _print_notes(notes)
    console = out_console()
    if not hits:
        console.print(f"No pages match {query.strip()!r}." if query.strip() else "No pages match.")
        unknown = [t for t in page_type if t.casefold() not in types]
        if unknown:
            known = ", ".join(sorted(types)) or "none yet"
            console.print(f"No pages of type {', '.join(unknown)} (types here: {known}).")
        return
    wiki_rel = paths.rel(paths.wiki)
    for n, hit in enumerate(hits, 1):
        line = Text(f"{n:>2}. ")
        line.append(hit.title, style="bold")
        line.append(f"  ({hit.type or 'page'})  {wiki_rel}/{hit.path}", style="dim")
        console.print(line)
        detail = hit.snippet or hit.summary
        if detail:
            console.print(Text("    ") + _marked(detail))
    if len(hits) == limit:
        err_console().print(f"(first {limit} results; --limit N shows more)", markup=False)


def _n(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _hit_json(hit: SearchHit, wiki_rel: str) -> dict[str, object]:
    return {
        "path": hit.path,
        "file": f"{wiki_rel}/{hit.path}",
        "title": hit.title,
        "type": hit.type,
        "score": hit.score,
        "snippet": hit.snippet,
        "summary": hit.summary,
    }


@app.command()
def reindex(json_out: bool = JSON_OPTION) -> None:
    """Rebuild the search index and claims ledger (.wikic/wikic.sqlite) from the pages alone.
    Never needed for correctness (every command re-indexes changed pages); use it after
    moving a wiki or to recover from a damaged .wikic/."""
    paths = current_paths()
    with Store(paths) as store:
        with indexing_progress(0 if not json_out else 10**9) as progress:
            report = store.rebuild(progress=progress)
        counts = store.counts()
        notes = store.notes
    if json_out:
        print_json(
            {
                **counts,
                "seconds": round(report.seconds, 3),
                "embedded": report.embedded,
                "database": str(paths.db),
                "broken_pages": [{"path": p, "error": e} for p, e in report.broken],
                "notes": notes,
            }
        )
        return
    _print_notes(notes)
    console = out_console()
    console.print(
        f"Indexed {_n(counts['pages'], 'page')} ({_n(counts['claims'], 'claim')}, "
        f"{_n(counts['contradictions'], 'contradiction')}, {counts['open_contradictions']} open), "
        f"{_n(report.embedded, 'text')} embedded, in {report.seconds:.2f} s.",
        markup=False,
    )
    for path, error in report.broken:
        console.print(f"  unreadable: {path}: {error}", markup=False)
