"""Extraction asks the model only about windows that name a candidate: a topic must be one
of the source's candidate names and keeps only the facts that name it, so a window naming
none of them can give nothing (issue 37: skip the call where code is certain)."""

from __future__ import annotations

from wikic.llm.fake import FakeBackend


def test_a_window_that_names_no_candidate_is_not_asked() -> None:
    from pathlib import Path

    from wikic.config import IngestConfig
    from wikic.ingest.extract import finish_extraction, prepare_extraction
    from wikic.llm.backend import generate_batch
    from wikic.vault.sources import Source

    # the one window of the three corpora (165 windows) that names none of its source's
    # candidate names: a sentence of this essay's sixth window
    path = Path(__file__).parents[1] / "scripts/data/corpus/2019-12-20-major-change-process.md"
    source = Source(f"raw/{path.name}", path.read_text(encoding="utf-8"), "sha256:0", "article")
    fake = FakeBackend(lambda call: '{"topics": []}')
    config = IngestConfig()
    job = prepare_extraction(fake, source, agents_md="", config=config, max_context_tokens=32768)
    assert job.names and len(job.requests) == len(job.windows) - 1
    assert job.asked is not None and 6 not in job.asked
    ex = finish_extraction(job, generate_batch(fake, job.requests), config)
    assert "1 window(s) name no candidate: not asked" in ex.notes
    assert ex.stats.calls == len(job.requests) * 2  # each invalid reply repaired once
