#!/usr/bin/env python3
"""Record the model's extraction replies of a corpus compile once, then replay them: every rule
downstream of extraction (planning, twins, openings, titles, writing) measured on what the
model path makes in seconds instead of the model's minutes.

    scripts/extraction_replies.py record --corpus scripts/data/overlap --replies R --keep W1
    scripts/extraction_replies.py replay --corpus scripts/data/overlap --replies R --keep W2
    scripts/bench_compile.py --wiki W2 --corpus scripts/data/overlap --json

Both compile one `wikic ingest` per document in file order (as `bench_compile.py
--one-by-one`), or the whole corpus in one batch with `--batch`, in process: recording runs the
model for every role and stores each source's replies to its extraction windows with a digest
of each request; replaying loads the extraction model only to count tokens (its windows must
match), answers every window from the recording and runs no other model call (a contradiction
check of the write step makes none; its warnings are left out). A request that differs from
the recorded one (the prompt, the candidate names or the windows changed) stops the replay:
record again. A wiki replayed from replies recorded at the same requests is page for page the
wiki the model compile made, contradiction warnings apart; timings of a replay mean nothing.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any
from unittest import mock

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from scripts.bench_compile import BenchError, choose_files, load_expected, prepare_wiki  # noqa: E402

from wikic.ingest import pipeline  # noqa: E402
from wikic.ingest.extract import ExtractionJob  # noqa: E402
from wikic.llm.backend import Backend, Generation, GenerationStats, Request  # noqa: E402
from wikic.paths import WikiPaths  # noqa: E402

FORMAT = 1  # the replies files' format


def request_digest(request: Request) -> str:
    """sha256 of what the model was asked: every segment's role and text, the reply schema's
    name, the token budget and the sampling settings."""
    body = {
        "segments": [[s.role, s.text] for s in request.segments],
        "schema": request.schema.__name__ if request.schema is not None else None,
        "max_tokens": request.max_tokens,
        "temperature": request.temperature,
        "seed": request.seed,
    }
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()


def _replies_file(folder: Path, job: ExtractionJob) -> Path:
    return folder / (Path(job.source.rel).name + ".json")


def _dump(request: Request, reply: Generation) -> dict[str, Any]:
    return {
        "request": request_digest(request),
        "text": reply.text,
        "value": reply.value.model_dump() if reply.value is not None else None,
        "finish_reason": reply.finish_reason,
        "error": reply.error,
        "stats": reply.stats.to_dict(),
    }


def _load(request: Request, row: dict[str, Any], where: str) -> Generation:
    if row["request"] != request_digest(request):
        raise BenchError(
            f"{where}: the extraction request differs from the recorded one (the prompt, the "
            "candidate names or the windows changed since the recording): record again"
        )
    value = row["value"]
    if value is not None and request.schema is not None:
        value = request.schema.model_validate(value)
    return Generation(
        row["text"],
        value,
        GenerationStats(**row["stats"]),
        row["finish_reason"],
        row["error"],
    )


def recording(folder: Path, model: str) -> Callable[..., list[list[Generation]]]:
    """`extract_sources` that asks the model and stores each job's replies in `folder`."""
    real = pipeline.extract_sources

    def extract(backend: Backend, jobs: Sequence[ExtractionJob]) -> list[list[Generation]]:
        replies = real(backend, jobs)
        for job, generations in zip(jobs, replies, strict=True):
            rows = [_dump(r, g) for r, g in zip(job.requests, generations, strict=True)]
            record = {"format": FORMAT, "source": job.source.rel, "model": model, "replies": rows}
            _replies_file(folder, job).write_text(json.dumps(record, indent=1) + "\n", "utf-8")
        return replies

    return extract


def replaying(folder: Path) -> Callable[..., list[list[Generation]]]:
    """`extract_sources` that answers each job from its recording in `folder`."""

    def extract(backend: Backend, jobs: Sequence[ExtractionJob]) -> list[list[Generation]]:
        out = []
        for job in jobs:
            path = _replies_file(folder, job)
            if not path.is_file():
                raise BenchError(f"no recorded replies for {job.source.rel} in {folder}")
            record = json.loads(path.read_text("utf-8"))
            if record.get("format") != FORMAT:
                raise BenchError(f"{path}: format {record.get('format')}, expected {FORMAT}")
            rows = record["replies"]
            if len(rows) != len(job.requests):
                raise BenchError(
                    f"{job.source.rel}: {len(job.requests)} extraction windows, "
                    f"{len(rows)} recorded: record again"
                )
            out.append(
                [
                    _load(r, row, f"{job.source.rel} window {i}")
                    for i, (r, row) in enumerate(zip(job.requests, rows, strict=True), 1)
                ]
            )
        return out

    return extract


def compile_corpus(
    mode: str,
    corpus: Path,
    files: Sequence[str],
    root: Path,
    replies: Path,
    *,
    batch: bool,
    backend_for: Callable[[WikiPaths, str], Backend] | None = None,
) -> list[str]:
    """Compile `files` of `corpus` into the new wiki `root`, recording or replaying the
    extraction replies in `replies`; the documents whose ingest failed. `backend_for(paths,
    role)`: the model of a role (default: the wiki's, `wikic.cli.backends.for_role`)."""
    from wikic.cli import backends
    from wikic.ingest.pipeline import IngestRequest, ingest
    from wikic.llm.fake import FakeBackend
    from wikic.paths import open_paths

    prepare_wiki(root, corpus, files)
    paths = open_paths(root)
    model = paths.config.model_for("extract")
    role_backend = backend_for or (lambda p, role: backends.for_role(p, role, None))
    extract = functools.cache(lambda: role_backend(paths, "extract"))
    if mode == "record":
        replies.mkdir(parents=True, exist_ok=True)
        write = functools.cache(lambda: role_backend(paths, "write"))
        hook = recording(replies, model)
    else:
        if not replies.is_dir():
            raise BenchError(f"{replies} holds no recording")
        silent = FakeBackend(lambda call: "not replayed", name="replay")
        write = functools.cache(lambda: silent)
        hook = replaying(replies)
    requests = (
        [IngestRequest(all_new=True)]
        if batch
        else [IngestRequest(paths=[root / "raw" / f]) for f in sorted(files)]
    )
    failed: list[str] = []
    with mock.patch.object(pipeline, "extract_sources", hook):
        for request in requests:
            report = ingest(open_paths(root), request, extract_backend=extract, write_backend=write)
            failed += [o.raw for o in report.outcomes if o.status == "failed"]
    return failed


def _parse(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    p.add_argument("mode", choices=("record", "replay"))
    p.add_argument("--corpus", type=Path, required=True, help="corpus folder (expected.yaml)")
    p.add_argument("--replies", type=Path, required=True, help="folder of the recorded replies")
    p.add_argument("--keep", type=Path, required=True, help="compile into this new folder")
    p.add_argument("--files", help="comma-separated document names of the corpus (default: all)")
    p.add_argument(
        "--batch", action="store_true", help="one `wikic ingest --all` (default: one per file)"
    )
    args = p.parse_args(argv)
    args.limit = None  # `bench_compile.choose_files` reads it; only --files chooses here
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = _parse(argv)
    try:
        if args.keep.exists():
            raise BenchError(f"{args.keep} exists: --keep needs a new folder")
        corpus = args.corpus.resolve()
        files = choose_files(args, load_expected(corpus / "expected.yaml"))
        failed = compile_corpus(
            args.mode, corpus, files, args.keep.resolve(), args.replies, batch=args.batch
        )
    except BenchError as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return 2
    if failed:
        print(f"Error: ingest failed for {', '.join(failed)}", file=sys.stderr)
        return 1
    print(f"{args.mode}: {len(files)} documents compiled into {args.keep}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
