"""`wikic mcp` as an agent starts it: a subprocess speaking MCP on stdin/stdout, driven by the
SDK's stdio client. Nothing but protocol may reach stdout."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from typer.testing import CliRunner

pytest.importorskip("mcp")

from mcp import Client, StdioServerParameters

from tests.helpers.storetools import sample_wiki
from tests.helpers.wikitools import snapshot
from wikic.cli import app, backends
from wikic.llm.fake import FakeBackend
from wikic.mcp.server import WikiServer


def _over_stdio(root: Path, *extra: str) -> list[Any]:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "wikic", "mcp", "-C", str(root), *extra],
        env=dict(os.environ),
        cwd=str(root.parent),  # not the wiki: -C must be what finds it
    )

    async def main() -> list[Any]:
        with anyio.fail_after(120):
            async with Client(params) as client:
                return [
                    client.server_info,
                    await client.list_tools(),
                    await client.call_tool("search", {"terms": "prefix cache"}),
                    await client.call_tool("read_page", {"page": "[[sources/paper#^p3]]"}),
                    await client.call_tool("ingest", {"paths": ["raw/x.md"]}),
                    await client.call_tool("read_page", {"page": "../wikic.yaml"}),
                    await client.list_resources(),
                ]

    return anyio.run(main)


def test_stdio_server_answers_tools_and_resources(tmp_path: Path) -> None:
    paths = sample_wiki(tmp_path / "w")
    before = snapshot(paths.root)
    info, tools, search, read, ingest, outside, resources = _over_stdio(paths.root)
    assert info.name == "wikic"
    assert {t.name for t in tools.tools} == {
        "search",
        "read_page",
        "query",
        "status",
        "log",
        "lint",
    }
    assert search.structured_content["hits"][0]["path"] == "concepts/prefix-cache.md"
    assert read.structured_content["markdown"].endswith("^p3")
    assert ingest.is_error and "--allow-write" in ingest.content[0].text
    assert outside.is_error and "outside the wiki" in outside.content[0].text
    assert "wiki://concepts/sliding-window" in {str(r.uri) for r in resources.resources}
    assert snapshot(paths.root) == before


def test_cli_options_reach_the_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    paths = sample_wiki(tmp_path / "w")
    served: list[WikiServer] = []
    monkeypatch.setattr(WikiServer, "run", lambda self, transport: served.append(self))
    fake = FakeBackend()
    built: list[tuple[str, str]] = []

    def build(config: Any, role: str, cache_dir: Path | None) -> FakeBackend:
        built.append((config.model, role))
        return fake

    monkeypatch.setattr(backends, "build", build)
    args = ["mcp", "-C", str(paths.root), "--allow-write", "--author", "Claude <c@ai.org>"]
    result = CliRunner().invoke(app, [*args, "--model", "smollm2-135m"])
    assert result.exit_code == 0, result.output
    (server,) = served
    service = server.service
    assert service.options.allow_write
    assert service.paths.root == paths.root
    git_cfg = service.paths.config.git
    assert (git_cfg.author_name, git_cfg.author_email) == ("Claude", "c@ai.org")
    assert service.backend("query") is fake and built == [("smollm2-135m", "query")]


def test_cli_refuses_a_bad_author_before_serving(tmp_path: Path) -> None:
    paths = sample_wiki(tmp_path / "w")
    result = CliRunner().invoke(app, ["mcp", "-C", str(paths.root), "--author", "<a@b.org>"])
    assert result.exit_code == 2
    assert "bad author" in result.output


def test_cli_needs_a_wiki(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["mcp", "-C", str(tmp_path)])
    assert result.exit_code == 1
    assert "no wiki found" in result.output
