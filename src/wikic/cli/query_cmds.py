"""`wikic query "QUESTION"`: answer from the wiki's facts with citations; `--save` files it.

The answer is generated as schema-constrained JSON, so it is not streamed as prose: stderr shows
progress (searching, loading, tokens written) and stdout gets the rendered answer once it is
complete (as markdown on a terminal). Reports (pages read, token counts, time to first token,
why an answer was declined) go to stderr so stdout holds just the answer.
"""

from __future__ import annotations

import datetime as dt

import typer

from wikic.cli import backends
from wikic.cli.app import (
    NO_WAIT_OPTION,
    app,
    current_paths,
    err_console,
    out_console,
    print_json,
    waiting_message,
)
from wikic.cli.notices import warn
from wikic.cli.progress import showing
from wikic.cli.syncing import SYNC_OPTION, after_write
from wikic.config import Config
from wikic.errors import UsageError
from wikic.llm.backend import Backend
from wikic.operation.preflight import preflight
from wikic.paths import WikiPaths
from wikic.query.answer import QueryResult, answer_question
from wikic.query.save import ANALYSIS_FOLDER, SavedAnalysis, analysis_page, save_answer
from wikic.store.db import open_store
from wikic.vault.pages import render_page
from wikic.vault.slugs import slugify

# A question longer than this is a document: searching it costs a minute and answers nothing.
MAX_QUESTION_CHARS = 4000


@app.command()
def query(
    question: str = typer.Argument(..., help="The question, in plain words."),
    save: bool = typer.Option(
        False, "--save", help="File the answer as an analysis page in wiki/analyses/ (one commit)."
    ),
    fmt: str | None = typer.Option(
        None,
        "--format",
        "-f",
        metavar="md|marp|json",
        help="Output: md (default), marp (a Marp slide deck; also how --save files it) or json.",
    ),
    model: str | None = typer.Option(
        None, "--model", "-m", help="Model to answer with (default: the query model of wikic.yaml)."
    ),
    style: str | None = typer.Option(
        None,
        "--style",
        metavar="quote|write",
        help="quote: the answer quotes the facts that answer it, each with its link; write: "
        "the model writes its own sentences, each citing its facts (default: "
        "query.answer_style).",
    ),
    no_wait: bool = NO_WAIT_OPTION,
    sync_after: bool = SYNC_OPTION,
    json_out: bool = typer.Option(False, "--json", help="Same as --format json."),
) -> None:
    """Answer QUESTION from the wiki's facts: search facts and source paragraphs, show the best
    within query.context_tokens, and answer by quoting the facts that answer it, each with its
    link (--style write: sentences the model writes, each citing the facts it uses; one that
    cites none is marked as inference). When the facts do not answer it, the answer is "The
    wiki does not say." with the closest pages, and --save refuses it (exit 1)."""
    if json_out and fmt not in (None, "json"):
        raise UsageError(f"--json and --format {fmt} disagree", hint="Use only one of them.")
    output = "json" if json_out else (fmt or "md")
    if output not in ("md", "marp", "json"):
        raise UsageError(f"unknown format {output!r}", hint="Use --format md, marp or json.")
    if style not in (None, "quote", "write"):
        raise UsageError(f"unknown answer style {style!r}", hint="Use --style quote or write.")
    if not question.strip():
        raise UsageError("the question is empty", hint='For example: wikic query "What is X?"')
    if len(question) > MAX_QUESTION_CHARS:
        raise UsageError(
            f"the question is {len(question):,} characters long; the limit is "
            f"{MAX_QUESTION_CHARS:,}",
            hint="Ask it in a few sentences. To add a document to the wiki, put it in raw/ "
            "and run wikic ingest.",
        )
    paths = current_paths()
    if save:
        preflight(paths)  # a commit that cannot happen should fail before the model work
    config = backends.config_with_model(paths.config, model)
    if style is not None:
        query_cfg = config.query.model_copy(update={"answer_style": style})
        config = config.model_copy(update={"query": query_cfg})
    paths = WikiPaths(paths.root, config)
    result = _answer(paths, question, config, show=output == "md")
    saved = None
    if save and result.answered:
        saved = save_answer(
            paths,
            result,
            fmt="marp" if output == "marp" else "md",
            wait=0 if no_wait else None,
            on_wait=waiting_message,
        )
    if output == "json":
        print_json({**result.to_dict(), "saved": _saved_json(saved)})
    elif output == "marp":
        out_console().print(_deck(paths, result, saved), markup=False, end="")
    _report(result, saved, save, paths.rel(paths.wiki))
    if saved is not None:
        after_write(paths, sync_after)
    if save and saved is None:
        raise typer.Exit(1)  # asked to file an answer and did not: a script must notice


def _answer(paths: WikiPaths, question: str, config: Config, *, show: bool) -> QueryResult:
    """Run the query with a progress line on stderr; print the rendered answer when `show`."""
    console = out_console()
    status = err_console().status("Searching the wiki …")
    written: list[int] = []

    def load() -> Backend:
        status.update(f"Loading {config.model_for('query')} …")
        backend = backends.build(config, "query", paths.kv_cache)
        status.update("Reading the facts …")
        return backend

    def progress(piece: str) -> None:
        written.append(len(piece))
        status.update(f"Writing the answer … {sum(written)} characters")

    status.start()
    try:
        with showing(status):  # a first-use model install pauses it
            result = answer_question(paths, question, backend=load, on_text=progress)
    finally:
        status.stop()
    if show:
        if console.is_terminal:
            from rich.markdown import Markdown  # imported here: slow to import

            console.print(Markdown(result.answer))
        else:
            console.print(result.answer, markup=False, highlight=False)
    return result


def _deck(paths: WikiPaths, result: QueryResult, saved: SavedAnalysis | None) -> str:
    if saved is not None:
        return (paths.wiki / saved.path).read_text(encoding="utf-8")
    with open_store(paths) as store:
        path = f"{ANALYSIS_FOLDER}/{slugify(result.question)}.md"
        page = analysis_page(store, result, path, fmt="marp", today=dt.date.today())
    return render_page(page)


def _saved_json(saved: SavedAnalysis | None) -> dict[str, object] | None:
    if saved is None:
        return None
    return {
        "path": saved.path,
        "created": saved.created,
        "linked_from": list(saved.linked_from),
        "commit": saved.commit,
    }


def _report(
    result: QueryResult, saved: SavedAnalysis | None, wanted_save: bool, wiki_rel: str
) -> None:
    console = err_console()
    for note in result.notes:
        warn(note)  # the store logged it too: printed once
    if result.removed:
        n = len(result.removed)
        console.print(f"Removed {n} citation{'s' if n != 1 else ''} that did not resolve:")
        for item in result.removed:
            console.print(f"  {item.link}: {item.reason}", markup=False)
    if not result.found:
        if wanted_save:
            console.print("Nothing saved: there is no answer to file.")
        return
    names = ", ".join(p.name for p in result.pages)
    console.print(f"Read {len(result.pages)} pages: {names}", markup=False, highlight=False)
    s = result.stats
    timing = f"first token {result.ttft_s:.1f} s, total {result.total_s:.1f} s"
    line = (
        f"[{result.model}] {s.prompt_tokens} prompt tokens ({s.cached_tokens} cached), "
        f"{s.generated_tokens} generated; {timing}"
        if s.calls
        else f"The model was not asked; total {result.total_s:.1f} s"
    )
    if result.finish_reason == "length":
        line += "; the answer was cut off at query.max_answer_tokens"
    console.print(line, markup=False, highlight=False)
    if result.declined:
        console.print(f"Declined: {result.decline_reason}.", markup=False, highlight=False)
    elif result.inferred:
        n = result.inferred
        what = "1 sentence cites" if n == 1 else f"{n} sentences cite"
        console.print(f"{what} no fact: marked as the model's inference.", markup=False)
    if saved is not None:
        what = "Saved" if saved.created else "Updated"
        n = len(saved.linked_from)
        linked = f", linked from {n} page{'s' if n != 1 else ''}" if n else ""
        commit = f" (commit {saved.commit[:10]})" if saved.commit else ""
        console.print(f"{what} {wiki_rel}/{saved.path}{linked}{commit}", markup=False)
    if saved is None and wanted_save:
        why = "the wiki does not say" if result.declined else "the answer cites nothing"
        console.print(f"Nothing saved: {why}.")
