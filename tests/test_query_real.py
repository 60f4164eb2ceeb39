"""`wikic query` with the real default model on a small wiki (pages in the format ingest writes,
facts under `###` subheadings): one answer with citations that resolve, one declined.

Two questions, one model load: about a minute on a 2-core CPU.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.helpers.wikitools import commit_pages, make_wiki
from wikic.cli import app
from wikic.vault.tree import Vault

pytestmark = [pytest.mark.real_model]
runner = CliRunner()

SOURCE = """---
type: source
title: Ollama FAQ
kind: article
---

# Ollama FAQ

## Text

Ollama binds 127.0.0.1 port 11434 by default. Change the bind address with the OLLAMA_HOST environment variable. ^p1

Ollama uses 4-bit quantization (q4_0) by default for its models. ^p2

Models are stored in ~/.ollama/models on macOS and Linux. ^p3
"""

ENTITY = """---
type: entity
title: Ollama
sources:
- '[[sources/ollama-faq]]'
---

# Ollama

Ollama runs language models locally and serves them over HTTP.

## Facts

### Network

- Ollama binds 127.0.0.1 port 11434 by default. [[sources/ollama-faq#^p1]] ^f-0a1b2c
- Change the bind address with the OLLAMA_HOST environment variable. [[sources/ollama-faq#^p1]] ^f-3d4e5f

### Models

- Ollama uses 4-bit quantization (q4_0) by default for its models. [[sources/ollama-faq#^p2]] ^f-6a7b8c
- Models are stored in ~/.ollama/models on macOS and Linux. [[sources/ollama-faq#^p3]] ^f-9d0e1f

## Sources

- [[sources/ollama-faq|Ollama FAQ]]
"""


@pytest.fixture
def wiki(tmp_path: Path, real_models_env):
    paths = make_wiki(tmp_path / "w")
    commit_pages(
        paths,
        {"wiki/sources/ollama-faq.md": SOURCE, "wiki/entities/ollama.md": ENTITY},
        "pages",
    )
    return paths


def ask(paths, question: str) -> dict:
    result = runner.invoke(app, ["-C", str(paths.root), "query", question, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_a_cited_answer_and_a_declined_one(wiki) -> None:
    data = ask(wiki, "On which port does Ollama listen by default?")
    assert not data["declined"], data
    assert "11434" in " ".join(s["text"] for s in data["sentences"])
    vault = Vault.load(wiki.wiki)
    assert data["citations"]
    for c in data["citations"]:  # every citation opens a block that holds its sentence's facts
        assert c["block"] in vault.anchors(vault.pages[c["page"]])[0], c
    assert any("11434" in s["text"] and s["citations"] for s in data["sentences"])
    assert data["stats"]["prompt_tokens"] <= 1600 and data["stats"]["ttft_s"] > 0

    declined = ask(wiki, "How much does a commercial Ollama license cost per year?")
    assert declined["declined"] and declined["answer"].startswith("The wiki does not say.")
    assert declined["citations"] == [] and declined["closest_pages"]
    assert declined["stats"]["cached_tokens"] > 0  # schema and task: one cached prefix
