"""The topic finders: with every finder on, extraction finds what it found before they were a
catalogue (the golden file was captured from the code before the change)."""

from __future__ import annotations

import json

import pytest

from tests.helpers.finder_snapshot import GOLDEN, REPO, documents, snapshot

_GOLDEN = json.loads(GOLDEN.read_text(encoding="utf-8"))


def test_the_golden_file_covers_every_committed_document() -> None:
    assert sorted(_GOLDEN) == [p.relative_to(REPO).as_posix() for p in documents()]


@pytest.mark.parametrize("rel", sorted(_GOLDEN))
def test_every_finder_on_finds_what_extraction_found_before(rel: str) -> None:
    assert snapshot(REPO / rel) == _GOLDEN[rel]
