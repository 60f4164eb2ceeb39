"""`backend: http` over several servers: a batch goes out over all of them, a server that fails
leaves the rotation and its requests go to the others, all down is one clear error; ingest over
two servers still commits one source at a time, in order, and nothing when every server is down."""

from __future__ import annotations

import datetime as dt
import json
import logging
import shutil
import signal
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from tests.helpers.http_stub import StubServer, script_answer
from tests.helpers.ingest_fakes import two_source_script
from tests.helpers.wikitools import git, make_wiki, snapshot
from wikic.config import parse_config
from wikic.errors import BackendError, ConfigError
from wikic.ingest.pipeline import IngestRequest, ingest
from wikic.llm.backend import Request, user
from wikic.llm.factory import make_backend
from wikic.llm.http_backend import HttpBackend
from wikic.vault.tree import Vault

DATA = Path(__file__).parent / "data" / "ingest"


class City(BaseModel):
    city: str


def city(body: dict[str, Any]) -> str:
    return json.dumps({"city": body["messages"][-1]["content"]})


def requests(n: int) -> list[Request]:
    return [Request([user(f"c{i}")], schema=City, max_tokens=20) for i in range(n)]


@pytest.fixture
def servers() -> Iterator[list[StubServer]]:
    stubs = [StubServer(city, delay_s=0.05), StubServer(city, delay_s=0.05)]
    yield stubs
    for stub in stubs:
        stub.kill()


def test_a_batch_goes_out_over_every_server_at_once(servers: list[StubServer]) -> None:
    backend = HttpBackend(base_urls=[s.url for s in servers], model="m", concurrency=2)
    out = backend.generate_batch(requests(8))
    assert [g.value for g in out] == [City(city=f"c{i}") for i in range(8)]  # in request order
    assert all(s.answered >= 2 for s in servers) and sum(s.answered for s in servers) == 8
    assert all(s.most_in_flight == 2 for s in servers)  # each server's own bound
    assert backend.batch_stats.largest == 4
    assert backend.served == {s.url: s.answered for s in servers}


def test_a_server_killed_mid_run_hands_its_requests_to_the_other(
    servers: list[StubServer], caplog: pytest.LogCaptureFixture
) -> None:
    servers[0].die_after = 2  # its second request is cut off, then it stops listening
    backend = HttpBackend(base_urls=[s.url for s in servers], model="m", concurrency=2)
    with caplog.at_level(logging.WARNING, logger="wikic"):
        out = backend.generate_batch(requests(10))
    assert [g.value for g in out] == [City(city=f"c{i}") for i in range(10)]
    assert servers[1].answered >= 8 and servers[0].answered + servers[1].answered == 10
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1, warnings  # once per server, not once per request
    assert servers[0].url in warnings[0] and "other 1 server(s)" in warnings[0]


def test_a_5xx_or_a_timeout_also_moves_the_requests(servers: list[StubServer]) -> None:
    servers[0].answer = lambda _: "HTTP 503"
    backend = HttpBackend(base_urls=[s.url for s in servers], model="m", concurrency=2)
    assert [g.value for g in backend.generate_batch(requests(4))] == [
        City(city=f"c{i}") for i in range(4)
    ]
    assert servers[0].answered == 0 and servers[1].answered == 4
    slow = StubServer(city, delay_s=1.0)
    try:
        backend = HttpBackend(base_urls=[slow.url, servers[1].url], model="m", timeout_s=0.3)
        assert backend.generate([user("Oslo")], schema=City).value == City(city="Oslo")
    finally:
        slow.kill()


def test_a_request_the_server_refuses_is_not_retried(servers: list[StubServer]) -> None:
    servers[0].answer = servers[1].answer = lambda _: "HTTP 400"
    backend = HttpBackend(base_urls=[s.url for s in servers], model="m", concurrency=1)
    with pytest.raises(BackendError, match="HTTP 400"):
        backend.generate_batch(requests(3))
    assert servers[0].requests + servers[1].requests <= 2  # the batch stops at the first


def test_every_server_down_is_one_clear_error(servers: list[StubServer]) -> None:
    for stub in servers:
        stub.kill()
    backend = HttpBackend(base_urls=[s.url for s in servers], model="m")
    with pytest.raises(BackendError) as info:
        backend.generate_batch(requests(3))
    message = info.value.message
    assert message.startswith("all 2 LLM servers failed")
    assert all(s.url in message for s in servers)
    assert info.value.hint and "http.base_urls" in info.value.hint


def test_config_names_one_server_or_several() -> None:
    urls = ["http://a:8080/v1", "http://b:8080/v1/"]
    config = parse_config(
        {"backend": "http", "http": {"base_urls": urls, "concurrency": 3, "json_schema": "none"}}
    )
    backend = make_backend(config, "write", cache_dir=None)
    assert isinstance(backend, HttpBackend)
    assert backend.base_urls == ("http://a:8080/v1", "http://b:8080/v1")
    assert backend.concurrency == 3 and backend.json_schema == "none"
    single = make_backend(parse_config({"backend": "http"}), "write", cache_dir=None)
    assert isinstance(single, HttpBackend) and single.base_urls == ("http://127.0.0.1:8080/v1",)
    assert single.concurrency == 8  # generation.batch_size
    bad = [
        ({"base_url": "http://a/v1", "base_urls": urls}, "not both"),
        ({"base_urls": ["a:8080/v1"]}, "must start with http://"),
        ({"base_urls": [urls[0], urls[0]]}, "names a server twice"),
        ({"concurrency": 0}, "http.concurrency"),
        ({"json_schema": "grammar"}, "http.json_schema"),
    ]
    for http, message in bad:
        with pytest.raises(ConfigError, match=message):
            parse_config({"backend": "http", "http": http})


def test_no_schema_is_sent_when_json_schema_is_none(servers: list[StubServer]) -> None:
    bodies: list[dict[str, Any]] = []

    def record(body: dict[str, Any]) -> str:
        bodies.append(body)
        return city(body)

    servers[0].answer = record
    backend = HttpBackend(base_url=servers[0].url, model="m", json_schema="none")
    assert backend.generate([user("Rome")], schema=City).value == City(city="Rome")
    assert "response_format" not in bodies[0]


# ingest --all over two servers


@pytest.fixture
def wiki(tmp_path: Path):
    paths = make_wiki(tmp_path / "w")
    for name in ("kv-cache.md", "sliding-window.md"):
        shutil.copy(DATA / name, paths.raw / name)
    return paths


def ingest_over(wiki, urls: list[str]):
    backend = HttpBackend(base_urls=urls, model="m", concurrency=2)
    return ingest(
        wiki,
        IngestRequest(all_new=True),
        extract_backend=lambda: backend,
        write_backend=lambda: backend,
        today=dt.date(2026, 11, 22),
    )


def test_ingest_over_two_servers_commits_each_source_in_order(wiki) -> None:
    stubs = [StubServer(script_answer(two_source_script().respond), delay_s=0.02) for _ in "ab"]
    try:
        stubs[0].die_after = 1  # one server dies at its first request, mid-run
        report = ingest_over(wiki, [s.url for s in stubs])
        assert stubs[0].dead and stubs[0].answered == 0 and stubs[1].answered > 1
    finally:
        for stub in stubs:
            stub.kill()
    assert [o.status for o in report.outcomes] == ["ingested", "ingested"]
    subjects = git(wiki.root, "log", "-2", "--format=%s").splitlines()
    assert subjects == ["ingest: Sliding-window attention", "ingest: The KV cache"]
    assert git(wiki.root, "status", "--porcelain", "--", "wiki") == ""


def test_ingest_with_every_server_down_writes_nothing(wiki) -> None:
    stubs = [StubServer(script_answer(two_source_script().respond)) for _ in range(2)]
    for stub in stubs:
        stub.kill()
    before, head = snapshot(wiki.root), git(wiki.root, "rev-parse", "HEAD")
    report = ingest_over(wiki, [s.url for s in stubs])
    assert [o.status for o in report.outcomes] == ["failed", "failed"]
    assert all("all 2 LLM servers failed" in (o.error or "") for o in report.outcomes)
    assert snapshot(wiki.root) == before and git(wiki.root, "rev-parse", "HEAD") == head
    assert git(wiki.root, "status", "--porcelain", "--", "wiki") == ""


DRIVER = textwrap.dedent(
    """
    import datetime as dt, os, signal, sys
    from pathlib import Path
    from wikic.operation import journal
    from wikic.ingest.pipeline import IngestRequest, ingest
    from wikic.llm.http_backend import HttpBackend
    from wikic.paths import open_paths

    root, title, urls = Path(sys.argv[1]), sys.argv[2], sys.argv[3:]
    real_apply = journal.Journal._apply_one
    count = {"n": 0}
    def apply_one(self, entry):
        if self.manifest["title"] == title:
            count["n"] += 1
            if count["n"] == 2:  # one file of the source written, the others not
                os.kill(os.getpid(), signal.SIGKILL)
        return real_apply(self, entry)
    journal.Journal._apply_one = apply_one
    b = HttpBackend(base_urls=urls, model="m", concurrency=2)
    ingest(open_paths(root), IngestRequest(all_new=True), extract_backend=lambda: b,
           write_backend=lambda: b, today=dt.date(2026, 11, 22))
    """
)


@pytest.mark.parametrize("title", ["The KV cache", "Sliding-window attention"])
def test_sigkill_during_a_fanned_out_ingest_leaves_whole_sources(
    wiki, tmp_path: Path, title: str
) -> None:
    driver = tmp_path / "driver.py"
    driver.write_text(DRIVER)
    stubs = [StubServer(script_answer(two_source_script().respond), delay_s=0.05) for _ in "ab"]
    try:
        proc = subprocess.run(
            [sys.executable, str(driver), str(wiki.root), title] + [s.url for s in stubs]
        )
        assert proc.returncode == -signal.SIGKILL
        assert all(s.answered for s in stubs), [(s.requests, s.answered) for s in stubs]
        subprocess.run(
            [sys.executable, "-m", "wikic", "-C", str(wiki.root), "status"],
            check=True,
            capture_output=True,
        )
        assert git(wiki.root, "status", "--porcelain", "--", "wiki") == ""
        committed = git(wiki.root, "log", "--format=%s").splitlines()
        vault = Vault.load(wiki.wiki)
        assert not vault.broken
        for source, page in (
            ("The KV cache", "kv-cache"),
            ("Sliding-window attention", "sliding-window"),
        ):
            done = f"ingest: {source}" in committed
            assert done == (source != title and source == "The KV cache")  # in order: none after
            assert bool(vault.resolve(f"sources/{page}")) == done
        report = ingest_over(wiki, [s.url for s in stubs])  # the rest is simply ingested again
        assert [o.status for o in report.outcomes] == ["ingested"] * (1 + (title == "The KV cache"))
    finally:
        for stub in stubs:
            stub.kill()
