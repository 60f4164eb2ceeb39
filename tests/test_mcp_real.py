"""`wikic mcp` with a real model: two queries through one server process; the model is loaded
once and the second query reuses the prefix cache (schema + catalog) of the first."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest

pytest.importorskip("mcp")

from mcp import Client

from tests.helpers.model_fixtures import test_models_dir
from tests.helpers.storetools import sample_wiki
from wikic.llm.models.resolve import ResolvedModel
from wikic.mcp import ServiceOptions, WikiService
from wikic.mcp.server import build_server
from wikic.paths import WikiPaths

pytestmark = [pytest.mark.real_model, pytest.mark.slow]
MODEL = "smollm2-135m"


def test_second_query_reuses_the_warm_model_and_prefix_cache(
    tmp_path: Path, installed_model: Callable[[str], ResolvedModel]
) -> None:
    installed_model(MODEL)
    wiki = sample_wiki(tmp_path / "w")
    config = wiki.config.model_copy(update={"model": MODEL, "models_dir": str(test_models_dir())})
    service = WikiService(WikiPaths(wiki.root, config), ServiceOptions())

    async def main() -> list[Any]:
        async with Client(build_server(service)) as client:
            return [
                await client.call_tool(
                    "query", {"question": question, "max_tokens": 256}, read_timeout_seconds=600
                )
                for question in ("How are snapshots taken?", "Where are snapshots persisted?")
            ]

    try:
        first, second = anyio.run(main)
    finally:
        service.close()
    assert not first.is_error, first.content
    assert not second.is_error, second.content
    one, two = first.structured_content["stats"], second.structured_content["stats"]
    assert first.structured_content["model"] == second.structured_content["model"] == MODEL
    assert one["cached_tokens"] == 0 and one["prefill_tokens"] > 0
    assert two["cached_tokens"] > 0  # AGENTS.md + the catalog, at least
    assert two["prefill_tokens"] < two["prompt_tokens"]
