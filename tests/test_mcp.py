"""`wikic mcp` in process: the SDK's own client against the server, on a fixture wiki with
FakeBackend. Tools, schemas, resources, write guard, path confinement, errors, concurrency."""

from __future__ import annotations

import json
import os
import shutil
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest

pytest.importorskip("mcp")

from mcp import Client

from tests.helpers.consolidate_fakes import ConsolidateScript, add_episodes
from tests.helpers.ingest_fakes import two_source_script
from tests.helpers.query_fakes import answer, shown_units
from tests.helpers.storetools import sample_wiki
from tests.helpers.wikitools import git, make_wiki, snapshot
from tests.test_consolidate import DIGEST, NAME, NOTES, PATTERN
from wikic.config import Config, RoleName
from wikic.errors import UsageError
from wikic.llm.backend import Backend
from wikic.llm.fake import FakeBackend, FakeCall
from wikic.mcp import ServiceOptions, WikiService, with_author
from wikic.mcp.server import build_server
from wikic.operation.lock import writer_lock
from wikic.paths import WikiPaths

ANSWER = "Snapshots are taken at segment boundaries [[sources/paper#^p1]], never by trimming."
READ_TOOLS = {"search", "read_page", "query", "status", "log", "lint"}
INGEST_DATA = Path(__file__).parent / "data" / "ingest"


def fake_answer(call: FakeCall) -> Any:
    """The model's part in `query`, for the plain-text answer prompt and for the JSON one
    (cite the first fact shown about snapshots, else repeat the first fact shown)."""
    if call.schema is None:
        return ANSWER
    units = shown_units(call)
    about = [n for n, text in units.items() if "Snapshots" in text]
    if about:
        return answer(("Snapshots are taken.", about[:1]))
    first, text = next(iter(units.items()))
    return answer((text[:200], [first]))


class Backends:
    """A backend factory that counts how often it is asked and on which thread."""

    def __init__(self, backend: Backend) -> None:
        self.backend = backend
        self.made: list[RoleName] = []
        self.threads: set[str] = set()

    def __call__(self, role: RoleName) -> Backend:
        self.made.append(role)
        self.threads.add(threading.current_thread().name)
        return self.backend


@pytest.fixture
def wiki(tmp_path: Path) -> WikiPaths:
    return sample_wiki(tmp_path / "w")


def serve(
    paths: WikiPaths, backend: Backend | None = None, *, allow_write: bool = False
) -> tuple[WikiService, Backends]:
    factory = Backends(backend or FakeBackend(fake_answer))
    service = WikiService(paths, ServiceOptions(allow_write=allow_write), backend_for=factory)
    return service, factory


def talk(service: WikiService, script: Callable[[Client], Awaitable[Any]]) -> Any:
    """Run `script` with an SDK client connected in process to the server of `service`."""

    async def main() -> Any:
        async with Client(build_server(service)) as client:
            return await script(client)

    try:
        return anyio.run(main)
    finally:
        service.close()


def call(service: WikiService, tool: str, args: dict[str, Any]) -> Any:
    return talk(service, lambda c: c.call_tool(tool, args))


def error_text(result: Any) -> str:
    assert result.is_error, result.structured_content
    return result.content[0].text


def test_lists_the_read_tools_with_descriptions_and_schemas(wiki) -> None:
    service, _ = serve(wiki)
    tools = {t.name: t for t in talk(service, lambda c: c.list_tools()).tools}
    assert set(tools) == READ_TOOLS
    for tool in tools.values():
        assert len(tool.description or "") > 60, tool.name
        assert tool.input_schema["type"] == "object"
        assert tool.annotations is not None and tool.annotations.read_only_hint
        for name, prop in tool.input_schema["properties"].items():
            assert prop.get("description"), f"{tool.name}.{name} has no description"
    search = tools["search"].input_schema["properties"]
    assert set(search) == {"terms", "type", "tag", "where", "limit"}
    assert search["limit"]["minimum"] == 1 and search["limit"]["maximum"] == 100
    assert tools["read_page"].input_schema["required"] == ["page"]
    assert tools["query"].input_schema["required"] == ["question"]
    hit = tools["search"].output_schema["$defs"]["SearchHitResult"]
    assert set(hit["required"]) == {"path", "uri", "title", "type", "score", "snippet", "summary"}
    assert "markdown" in tools["read_page"].output_schema["required"]
    assert "writes_allowed" in tools["status"].output_schema["required"]
    assert tools["log"].output_schema["required"] == ["entries"]
    # reports passed through from the core stay open objects: a new field is no error
    assert tools["query"].output_schema["additionalProperties"] is True


def test_allow_write_adds_the_write_tools(wiki) -> None:
    service, _ = serve(wiki, allow_write=True)
    tools = {t.name: t for t in talk(service, lambda c: c.list_tools()).tools}
    assert set(tools) == READ_TOOLS | {"ingest", "save_answer", "consolidate"}
    assert tools["ingest"].annotations.read_only_hint is False
    fmt = tools["save_answer"].input_schema["properties"]["format"]
    assert fmt["enum"] == ["md", "marp"]


def test_search_returns_hits_with_paths_titles_snippets(wiki) -> None:
    service, factory = serve(wiki)
    result = call(service, "search", {"terms": "sliding window", "limit": 2})
    assert not result.is_error
    hits = result.structured_content["hits"]
    assert hits[0]["path"] == "concepts/sliding-window.md"
    assert hits[0]["uri"] == "wiki://concepts/sliding-window"
    assert hits[0]["title"] == "Sliding window" and hits[0]["type"] == "concept"
    assert len(hits) <= 2 and all("snippet" in h for h in hits)
    assert factory.made == []  # searching never loads a model
    typed = call(serve(wiki)[0], "search", {"type": ["entity"]})
    assert [h["path"] for h in typed.structured_content["hits"]] == ["entities/mlx.md"]


@pytest.mark.parametrize(
    "ref",
    ["concepts/prefix-cache", "wiki/concepts/prefix-cache.md", "Prefix cache", "KV reuse",
     "[[concepts/prefix-cache|the cache]]", "wiki://concepts/prefix-cache"],
)  # fmt: skip
def test_read_page_by_path_title_alias_link_or_uri(wiki, ref: str) -> None:
    service, _ = serve(wiki)
    page = call(service, "read_page", {"page": ref}).structured_content
    assert page["path"] == "concepts/prefix-cache.md"
    assert page["properties"]["aliases"] == ["KV reuse"]
    assert page["properties"]["created"] == "2025-03-01"  # YAML dates as JSON strings
    assert page["markdown"].startswith("# Prefix cache")
    assert "## Facts" in page["markdown"]
    assert page["links_to"] == ["concepts/sliding-window.md", "sources/paper.md"]
    assert page["block"] is None


def test_read_page_with_a_block_or_heading_returns_just_that_part(wiki) -> None:
    service, _ = serve(wiki)

    async def script(c: Client) -> list[Any]:
        return [
            await c.call_tool("read_page", {"page": ref})
            for ref in ("[[sources/paper#^p2]]", "concepts/prefix-cache#^f-bbb222",
                        "Prefix cache#Facts", "index", "sources/paper#^p9")
        ]  # fmt: skip

    p2, fact, facts, index, missing = talk(service, script)
    assert p2.structured_content["markdown"] == (
        "Trimming a rotating cache of sliding-window layers corrupts the output silently. ^p2"
    )
    assert p2.structured_content["block"] == "p2"
    assert p2.structured_content["linked_from"] == [
        "concepts/prefix-cache.md",
        "concepts/sliding-window.md",
    ]
    assert fact.structured_content["markdown"] == (
        "- Snapshots are persisted on disk. [[sources/paper#^p3]] ^f-bbb222"
    )
    assert facts.structured_content["markdown"].startswith("## Facts\n\n- Snapshots are taken")
    assert "## Related" not in facts.structured_content["markdown"]
    assert index.structured_content["path"] == "index.md"
    assert "no block ^p9" in error_text(missing)


def test_read_page_names_close_pages_when_none_matches(wiki) -> None:
    service, _ = serve(wiki)
    text = error_text(call(service, "read_page", {"page": "concepts/prefix"}))
    assert "no page 'concepts/prefix'" in text and "Did you mean" in text


@pytest.mark.parametrize(
    "ref", ["../wikic.yaml", "/etc/passwd", "wiki/../../outside", "concepts/../../AGENTS.md",
            "C:/Windows/win.ini", "wiki://../wikic.yaml", "concepts/a\x00b"],
)  # fmt: skip
def test_read_page_refuses_paths_outside_the_wiki(wiki, ref: str) -> None:
    service, _ = serve(wiki)
    text = error_text(call(service, "read_page", {"page": ref}))
    assert "outside the wiki" in text or "NUL" in text


def test_a_symlink_out_of_the_wiki_is_refused(wiki, tmp_path: Path) -> None:
    secret = tmp_path / "secret.md"
    secret.write_text("---\ntitle: Secret\n---\n\nThe password is hunter2.\n")
    os.symlink(secret, wiki.wiki / "concepts" / "secret.md")
    service, _ = serve(wiki)
    text = error_text(call(service, "read_page", {"page": "concepts/secret"}))
    assert "outside the wiki" in text and "hunter2" not in text


def test_query_answers_with_citations_progress_and_one_model(wiki) -> None:
    backend = FakeBackend(fake_answer)
    service, factory = serve(wiki, backend)
    progress: list[tuple[float, float | None, str | None]] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append((done, total, message))

    async def script(c: Client) -> list[Any]:
        first = await c.call_tool(
            "query", {"question": "How are snapshots taken?"}, progress_callback=on_progress
        )
        second = await c.call_tool("query", {"question": "How are snapshots taken?"})
        return [first, second]

    first, second = talk(service, script)
    data = first.structured_content
    assert not first.is_error and data["answer"].startswith("Snapshots are taken")
    assert data["answered"] and data["answer_id"] and data["citations"]
    assert "concepts/prefix-cache.md" in [p["path"] for p in data["pages"]]
    assert data["stats"]["cached_tokens"] == 0
    assert next(m for _, _, m in progress) == "searching the wiki"
    assert progress[-1][0] == progress[-1][1]  # done
    # the backend is made once, on the model thread, and its prefix cache is reused
    assert factory.made == ["query"]
    assert factory.threads == {"wikic-model_0"}
    stats = second.structured_content["stats"]
    assert stats["cached_tokens"] == stats["prompt_tokens"] > 0


def test_query_about_nothing_in_the_wiki_never_loads_the_model(wiki) -> None:
    service, factory = serve(wiki)
    data = call(service, "query", {"question": "What is the capital of Zanzibar?"})
    assert data.structured_content["found"] is False
    assert data.structured_content["answer_id"] is None
    assert factory.made == []


def test_write_tools_are_refused_without_allow_write(wiki) -> None:
    shutil.copy(INGEST_DATA / "kv-cache.md", wiki.raw / "kv-cache.md")
    before = snapshot(wiki.root)
    service, factory = serve(wiki)

    async def script(c: Client) -> list[Any]:
        return [
            await c.call_tool("ingest", {"paths": ["raw/kv-cache.md"]}),
            await c.call_tool("save_answer", {"question": "How are snapshots taken?"}),
            await c.call_tool("lint", {"fix": True}),
            await c.call_tool("consolidate", {"dry_run": True}),
        ]

    for result in talk(service, script):
        assert "--allow-write" in error_text(result)
    assert snapshot(wiki.root) == before
    assert factory.made == []


@pytest.mark.parametrize(
    "source", ["../wikic.yaml", "/etc/passwd", "wiki/index.md", "raw/../AGENTS.md"]
)
def test_ingest_refuses_sources_outside_raw(wiki, source: str) -> None:
    before = snapshot(wiki.root)
    service, factory = serve(wiki, allow_write=True)
    text = error_text(call(service, "ingest", {"paths": [source]}))
    assert "must be inside raw/" in text
    assert snapshot(wiki.root) == before and factory.made == []


def test_ingest_compiles_a_source_with_progress(wiki) -> None:
    shutil.copy(INGEST_DATA / "kv-cache.md", wiki.raw / "kv-cache.md")
    raw_before = (wiki.raw / "kv-cache.md").read_bytes()
    service, factory = serve(wiki, two_source_script().backend(), allow_write=True)
    progress: list[str | None] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append(message)

    async def script(c: Client) -> Any:
        return await c.call_tool(
            "ingest", {"paths": ["kv-cache.md"]}, progress_callback=on_progress
        )  # relative to raw/

    data = talk(service, script).structured_content
    (outcome,) = data["sources"]
    assert outcome["status"] == "ingested", outcome
    assert outcome["commit"] and (wiki.wiki / outcome["source_page"]).exists()
    assert any(m and m.startswith("raw/kv-cache.md: extract") for m in progress)
    assert (wiki.raw / "kv-cache.md").read_bytes() == raw_before
    assert set(factory.made) <= {"extract", "write"}


def test_consolidate_digests_episodes_with_progress(tmp_path: Path) -> None:
    paths = make_wiki(tmp_path / "w")
    add_episodes(paths, NOTES)
    service, factory = serve(
        paths, ConsolidateScript(DIGEST, [PATTERN]).backend(), allow_write=True
    )
    progress: list[str | None] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append(message)

    async def script(c: Client) -> list[Any]:
        return [
            await c.call_tool("consolidate", {"since": "April"}),
            await c.call_tool("consolidate", {}, progress_callback=on_progress),
            await c.call_tool("consolidate", {}),
        ]

    bad, first, again = talk(service, script)
    assert "valid date" in error_text(bad)
    data = first.structured_content
    assert data["episodes_consolidated"] == 4
    assert data["periods"][0]["patterns"], data
    assert data["periods"][0]["patterns"][0]["name"] == NAME
    assert data["periods"][0]["commit"]
    assert any(m and m.startswith("2026-W14: ") for m in progress)
    assert again.structured_content["periods"] == []  # nothing left to do
    assert factory.made == ["write"]


def test_save_answer_files_a_query_answer_with_the_given_author(wiki) -> None:
    paths = with_author(wiki, "Agent Two <two@agents.example>")
    service, _ = serve(paths, allow_write=True)

    async def script(c: Client) -> list[Any]:
        answer = await c.call_tool("query", {"question": "How are snapshots taken?"})
        saved = await c.call_tool(
            "save_answer", {"answer_id": answer.structured_content["answer_id"]}
        )
        unknown = await c.call_tool("save_answer", {"answer_id": "nope"})
        return [saved, unknown]

    saved, unknown = talk(service, script)
    data = saved.structured_content["saved"]
    assert data["path"].startswith("analyses/") and data["created"]
    assert (wiki.wiki / data["path"]).exists()
    assert git(wiki.root, "log", "-1", "--format=%an <%ae>").strip() == (
        "Agent Two <two@agents.example>"
    )
    assert "no answer 'nope'" in error_text(unknown)


def test_a_write_while_another_process_writes_is_a_tool_error(wiki) -> None:
    factory = Backends(FakeBackend(fake_answer))
    options = ServiceOptions(allow_write=True, write_wait_s=0.2)
    service = WikiService(wiki, options, backend_for=factory)
    before = snapshot(wiki.root)

    async def script(c: Client) -> Any:
        with writer_lock(wiki.lock_file, op="ingest"):  # as another wikic process would
            return await c.call_tool("save_answer", {"question": "How are snapshots taken?"})

    text = error_text(talk(service, script))
    assert "being changed" in text
    assert snapshot(wiki.root) == before


@pytest.mark.parametrize("author", ["<x@y.org>", "", "Name\nInjected: x", "A <not an email>"])
def test_a_bad_author_is_refused(author: str) -> None:
    with pytest.raises(UsageError, match="bad author"):
        with_author(WikiPaths(Path("."), Config()), author)


def test_author_sets_the_git_identity_of_writes() -> None:
    paths = with_author(WikiPaths(Path("."), Config()), "Claude")
    assert (paths.config.git.author_name, paths.config.git.author_email) == (
        "Claude",
        Config().git.author_email,
    )


@pytest.mark.parametrize(
    ("tool", "args", "says"),
    [
        ("search", {"terms": "cache", "limit": 0}, "greater than or equal to 1"),
        ("search", {"terms": "cache", "limit": "many"}, "valid integer"),
        ("search", {}, "nothing to search for"),
        ("search", {"where": ["novalue"]}, "expected KEY=VALUE"),
        ("query", {}, "question"),
        ("query", {"question": "   "}, "question is empty"),
        ("read_page", {"page": ""}, "at least 1 character"),
        ("log", {"number": -3}, "greater than or equal to 1"),
        ("lint", {"rules": ["no-such-rule"]}, "no-such-rule"),
        ("nope", {}, "Unknown tool"),
    ],
)
def test_bad_arguments_are_tool_errors_and_the_server_goes_on(wiki, tool, args, says) -> None:
    service, _ = serve(wiki)

    async def script(c: Client) -> list[Any]:
        return [await c.call_tool(tool, args), await c.call_tool("log", {"number": 1})]

    bad, after = talk(service, script)
    assert says in error_text(bad)
    assert not after.is_error and after.structured_content["entries"]


def test_a_crash_inside_a_tool_is_a_tool_error(wiki) -> None:
    def broken(role: RoleName) -> Backend:
        raise RuntimeError("the model file is corrupt")

    service = WikiService(wiki, backend_for=broken)

    async def script(c: Client) -> list[Any]:
        return [
            await c.call_tool("query", {"question": "How are snapshots taken?"}),
            await c.call_tool("status", {}),
        ]

    crashed, after = talk(service, script)
    text = error_text(crashed)
    assert "internal error: RuntimeError: the model file is corrupt" in text
    assert not after.is_error and after.structured_content["writes_allowed"] is False


def test_concurrent_calls_all_answer(wiki) -> None:
    backend = FakeBackend(fake_answer)
    service, factory = serve(wiki, backend)
    calls = [
        ("search", {"terms": "prefix cache"}),
        ("search", {"terms": "sliding"}),
        ("read_page", {"page": "entities/mlx"}),
        ("read_page", {"page": "sources/paper#^p1"}),
        ("status", {}),
        ("log", {"number": 3}),
        ("lint", {}),
        ("query", {"question": "How are snapshots taken?"}),
        ("query", {"question": "What does a sliding window see?"}),
        ("query", {"question": "Where are snapshots persisted?"}),
    ]

    async def script(c: Client) -> list[Any]:
        results: list[Any] = [None] * len(calls)

        async def one(i: int) -> None:
            results[i] = await c.call_tool(*calls[i])

        async with anyio.create_task_group() as tg:
            for i in range(len(calls)):
                tg.start_soon(one, i)
        return results

    results = talk(service, script)
    for (tool, _), result in zip(calls, results, strict=True):
        assert not result.is_error, (tool, result.content)
    assert all(r.structured_content["answered"] for r in results[-3:])
    assert factory.made == ["query"]  # three queries, one backend
    assert len(backend.history) == 3


def test_concurrent_writes_take_turns_at_the_writer_lock(wiki) -> None:
    service, _ = serve(wiki, allow_write=True)
    questions = ["How are snapshots taken?", "Where are snapshots persisted?"]

    async def script(c: Client) -> list[Any]:
        results: list[Any] = [None, None]

        async def one(i: int) -> None:
            results[i] = await c.call_tool("save_answer", {"question": questions[i]})

        async with anyio.create_task_group() as tg:
            tg.start_soon(one, 0)
            tg.start_soon(one, 1)
        return results

    results = talk(service, script)
    saved = [r.structured_content["saved"] for r in results]
    assert len({s["path"] for s in saved}) == 2 and all(s["commit"] for s in saved)
    subjects = git(wiki.root, "log", "-2", "--format=%s").split("\n")
    assert sorted(subjects[:2]) == sorted(f"query: {q}" for q in questions)


def test_pages_are_resources(wiki) -> None:
    service, _ = serve(wiki)

    async def script(c: Client) -> list[Any]:
        listed = await c.list_resources()
        page = await c.read_resource("wiki://concepts/prefix-cache")
        by_title = await c.read_resource("wiki://index")
        templates = await c.list_resource_templates()
        try:
            await c.read_resource("wiki://concepts/no-such-page")
            missing = None
        except Exception as exc:  # the SDK raises MCPError for a failed read
            missing = exc
        return [listed, page, by_title, templates, missing]

    listed, page, index, templates, missing = talk(service, script)
    uris = {str(r.uri): r for r in listed.resources}
    assert {"wiki://concepts/prefix-cache", "wiki://sources/paper", "wiki://index"} <= set(uris)
    assert uris["wiki://concepts/prefix-cache"].title == "Prefix cache"
    assert uris["wiki://concepts/prefix-cache"].mime_type == "text/markdown"
    text = page.contents[0].text
    assert text.startswith("---\ntype: concept\n") and "^f-aaa111" in text
    assert index.contents[0].text.startswith("# ")
    assert templates.resource_templates[0].uri_template == "wiki://{+path}"
    assert missing is not None and "no page" in str(missing)


def test_results_are_json_text_too(wiki) -> None:
    """Clients that ignore structured content read the same data as JSON text."""
    service, _ = serve(wiki)
    result = call(service, "status", {"recent": 1})
    assert json.loads(result.content[0].text) == result.structured_content
