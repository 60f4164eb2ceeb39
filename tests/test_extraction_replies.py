"""scripts/extraction_replies.py: a compile replayed from the recorded extraction replies makes
the pages the recorded compile made, asks the model nothing, and stops when a request differs
from the recorded one."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.helpers.ingest_fakes import two_source_script
from tests.helpers.scripts import load_script
from wikic.llm.fake import FakeBackend
from wikic.vault.sections import split_body
from wikic.vault.topic_page import parse_facts
from wikic.vault.tree import Vault

replies = load_script("extraction_replies")
DATA = Path(__file__).parent / "data" / "ingest"
FILES = ("kv-cache.md", "sliding-window.md")


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    folder = tmp_path / "corpus"
    folder.mkdir()
    for name in FILES:
        shutil.copy(DATA / name, folder / name)
    (folder / "expected.yaml").write_text(
        "".join(f"- file: {n}\n  topics:\n    - [KV cache]\n" for n in FILES), "utf-8"
    )
    return folder


def _pages(root: Path) -> dict[str, tuple[str, list[str]]]:
    """Each topic page's title and fact ids."""
    vault = Vault.load(root / "wiki")
    return {
        path: (page.title, [f.id for f in parse_facts(split_body(page.body))])
        for path, page in vault.pages.items()
        if path.startswith(("concepts/", "entities/"))
    }


def test_a_replay_makes_the_recorded_compile_s_pages_without_the_model(
    corpus: Path, tmp_path: Path
) -> None:
    script = two_source_script().backend()
    rec = tmp_path / "replies"
    failed = replies.compile_corpus(
        "record", corpus, FILES, tmp_path / "a", rec, batch=False,
        backend_for=lambda paths, role: script,
    )  # fmt: skip
    assert failed == [] and sorted(p.name for p in rec.iterdir()) == [f + ".json" for f in FILES]
    asked = FakeBackend(lambda call: pytest.fail("a replay asked the model"), name="counter")
    failed = replies.compile_corpus(
        "replay", corpus, FILES, tmp_path / "b", rec, batch=False,
        backend_for=lambda paths, role: asked,
    )  # fmt: skip
    assert failed == [] and asked.history == []
    recorded, replayed = _pages(tmp_path / "a"), _pages(tmp_path / "b")
    assert recorded == replayed and "entities/gemma-3.md" in replayed


def test_a_request_that_differs_from_the_recording_stops_the_replay(
    corpus: Path, tmp_path: Path
) -> None:
    script = two_source_script().backend()
    rec = tmp_path / "replies"
    replies.compile_corpus(
        "record", corpus, FILES, tmp_path / "a", rec, batch=True,
        backend_for=lambda paths, role: script,
    )  # fmt: skip
    stored = rec / "kv-cache.md.json"
    record = json.loads(stored.read_text("utf-8"))
    record["replies"][0]["request"] = "0" * 64  # as if the prompt had changed since
    stored.write_text(json.dumps(record), "utf-8")
    with pytest.raises(replies.BenchError, match="differs from the recorded one"):
        replies.compile_corpus(
            "replay", corpus, FILES, tmp_path / "b", rec, batch=True,
            backend_for=lambda paths, role: FakeBackend(name="counter"),
        )  # fmt: skip
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(replies.BenchError, match="no recorded replies"):
        replies.compile_corpus(
            "replay", corpus, FILES, tmp_path / "c", empty, batch=True,
            backend_for=lambda paths, role: FakeBackend(name="counter"),
        )  # fmt: skip
