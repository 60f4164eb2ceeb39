"""What code alone finds in a document: the model's candidate names and the topics extraction
keeps when every model call fails. The golden `tests/golden/finders/corpus.json` holds this
for the committed documents, captured before the topic finders became a catalogue.

    PYTHONPATH=src python -m tests.helpers.finder_snapshot   # rewrite the golden file
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from wikic.config import IngestConfig
from wikic.ingest.extract import finish_extraction, prepare_extraction
from wikic.llm.backend import EMPTY_STATS, Generation
from wikic.llm.fake import FakeBackend
from wikic.vault.sources import Source, sha256_bytes

REPO = Path(__file__).resolve().parents[2]
GOLDEN = REPO / "tests/golden/finders/corpus.json"
# the bench's corpus, the demo wiki's sources and the ingest tests' documents
DOCUMENTS = ("scripts/data/corpus", "raw", "tests/data/realistic", "tests/data/ingest")


def documents() -> list[Path]:
    return sorted(p for folder in DOCUMENTS for p in (REPO / folder).glob("*.md"))


def snapshot(path: Path, config: IngestConfig | None = None) -> dict[str, Any]:
    """{names, topics} of one document, every model reply missing (code-only)."""
    return snapshot_text(path.read_text(encoding="utf-8"), path.name, config)


def snapshot_text(text: str, name: str, config: IngestConfig | None = None) -> dict[str, Any]:
    """{names, topics} of a document's text, every model reply missing (code-only)."""
    config = config or IngestConfig()
    source = Source(f"raw/{name}", text, sha256_bytes(text.encode()), "article")
    job = prepare_extraction(
        FakeBackend(), source, agents_md="# Schema\n", config=config, max_context_tokens=8192
    )
    silent = [Generation("", None, EMPTY_STATS, error="no model") for _ in job.requests]
    extraction = finish_extraction(job, silent, config)
    return {
        "names": list(job.names),
        "topics": [
            {
                "name": t.name,
                "type": t.type,
                "aliases": list(t.aliases),
                "facts": list(t.facts),
                "usage": list(t.usage),
                "from_heading": t.from_heading,
                "precise": t.precise,
                "subject": t.subject,
                "spare": t.spare,
            }
            for t in extraction.topics
        ],
    }


def corpus_snapshot() -> dict[str, dict[str, Any]]:
    return {p.relative_to(REPO).as_posix(): snapshot(p) for p in documents()}


if __name__ == "__main__":
    GOLDEN.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(corpus_snapshot(), indent=1, ensure_ascii=False)
    GOLDEN.write_text(text + "\n", encoding="utf-8")
    print(f"wrote {GOLDEN.relative_to(REPO)}")
