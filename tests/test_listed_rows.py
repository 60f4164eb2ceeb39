"""A page's listed rows (`## Listed here`) are aliases for a reader and a link, but no name of
the page for another source: two mail APIs both have a `subject` field, and the second one's
sentences about its own `subject` are not about the first one's endpoint."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.helpers.wikitools import make_wiki
from wikic.ingest.pipeline import IngestRequest, ingest
from wikic.llm.fake import FakeBackend
from wikic.paths import open_paths
from wikic.store.concepts import StoredConcepts
from wikic.store.db import open_store
from wikic.vault.names import name_key
from wikic.vault.pages import Page
from wikic.vault.sections import listed_names, split_body
from wikic.vault.tree import Vault

DATA = Path(__file__).parent / "data" / "members"
ENDPOINT = """\
---
type: concept
title: Send endpoint
aliases:
- mail endpoint
- subject
---

# Send endpoint

The send endpoint accepts a message.

## Listed here

- `subject` — [[sources/relay#^p3]]
"""


def _page() -> Page:
    return Page("concepts/send-endpoint.md", {"type": "concept", "title": "Send endpoint",
                "aliases": ["mail endpoint", "subject"]}, ENDPOINT.split("---\n", 2)[2])  # fmt: skip


def test_a_listed_row_is_an_alias_but_no_concept_name() -> None:
    page = _page()
    assert listed_names(split_body(page.body)) == ["subject"]
    assert "subject" in page.aliases  # Obsidian finds the page by it
    stored = StoredConcepts.from_pages([page])
    assert stored.page(name_key("mail endpoint")) is not None  # a name of the page
    assert stored.page(name_key("subject")) is None  # a member of it


def test_the_store_leaves_listed_rows_out_of_the_concept_index(tmp_path: Path) -> None:
    paths = make_wiki(tmp_path / "w")
    (paths.wiki / "concepts").mkdir(exist_ok=True)
    (paths.wiki / "concepts" / "send-endpoint.md").write_text(ENDPOINT, encoding="utf-8")
    with open_store(paths) as store:
        concepts = StoredConcepts(store.conn)
        found = concepts.page(name_key("mail endpoint"))
        assert found is not None and found[0].path == "concepts/send-endpoint.md"
        assert concepts.page(name_key("subject")) is None


def _ingest_one_by_one(tmp_path: Path) -> Vault:
    paths = make_wiki(tmp_path / "w")
    config = paths.root / "wikic.yaml"
    config.write_text(config.read_text().replace("extraction: model", "extraction: code"))
    paths = open_paths(paths.root)
    fake = FakeBackend(lambda call: "no model", name="no model")
    for name in ("relay-api.md", "postbox-guide.md"):
        shutil.copy(DATA / name, paths.raw / name)
        outcome = ingest(
            paths,
            IngestRequest((paths.raw / name,)),
            extract_backend=lambda: fake,
            write_backend=lambda: fake,
        ).outcomes[0]
        assert outcome.status == "ingested", outcome.error
    return Vault.load(paths.wiki)


def test_another_source_s_field_of_the_same_name_does_not_join_the_page_listing_it(
    tmp_path: Path,
) -> None:
    vault = _ingest_one_by_one(tmp_path)
    listing = [
        p
        for p in vault
        if p.path.startswith("concepts/") and "subject" in listed_names(split_body(p.body))
    ]
    relay = [p for p in listing if "[[sources/relay-api]]" in p.sources]
    assert relay, "Relay's endpoint lists its `subject` field"
    for page in relay:
        # Postbox's own `subject` sentences stay on Postbox's pages
        assert page.sources == ["[[sources/relay-api]]"], page.path
        assert "Postbox" not in page.body and "postbox-guide" not in page.body
