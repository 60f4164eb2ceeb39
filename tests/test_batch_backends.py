"""Batched generation without mlx: FakeBackend batches, HttpBackend concurrency against a stub
OpenAI-compatible server on 127.0.0.1, and the `generate_batch` fallback for other backends."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Sequence
from typing import Any

import pytest
from pydantic import BaseModel, Field, field_validator

from tests.helpers.http_stub import StubServer
from wikic.config import parse_config
from wikic.errors import BackendError, GenerationError
from wikic.llm.backend import (
    BatchBackend,
    BatchStats,
    Generation,
    Request,
    Segment,
    batch_values,
    generate_batch,
    user,
)
from wikic.llm.factory import make_backend
from wikic.llm.fake import FakeBackend
from wikic.llm.http_backend import HttpBackend


class City(BaseModel):
    city: str = Field(max_length=20)


class Even(BaseModel):
    n: int

    @field_validator("n")
    @classmethod
    def _even(cls, value: int) -> int:
        if value % 2:
            raise ValueError("n must be even")
        return value


def _requests(*prompts: str, schema: type[BaseModel] | None = City) -> list[Request]:
    return [Request([user(p)], schema=schema, max_tokens=30) for p in prompts]


# -- FakeBackend -------------------------------------------------------------------------------


def test_fake_batch_takes_replies_in_request_order_and_records_history() -> None:
    fake = FakeBackend().enqueue({"city": "Bern"}, {"city": "Oslo"}, "free text")
    requests = [*_requests("a?", "b?"), Request([user("c?")], max_tokens=5)]
    out = fake.generate_batch(requests)
    assert [g.text for g in out] == ['{"city":"Bern"}', '{"city":"Oslo"}', "free text"]
    assert [g.value for g in out] == [City(city="Bern"), City(city="Oslo"), None]
    assert [c.prompt for c in fake.history] == ["a?", "b?", "c?"]
    assert [c.max_tokens for c in fake.history] == [30, 30, 5]
    assert fake.batches == [3] and fake.batch_stats.rows == 3 and fake.batch_stats.batches == 1
    assert isinstance(fake, BatchBackend)


def test_fake_batch_repairs_only_the_invalid_row_and_never_fails_the_batch() -> None:
    # first pass: row 1 invalid; repair pass: row 1 again invalid -> error on that row only
    fake = FakeBackend().enqueue({"n": 2}, {"n": 3}, {"n": 4}, {"n": 5})
    out = fake.generate_batch(_requests("x", "y", "z", schema=Even))
    assert [g.error is None for g in out] == [True, False, True]
    assert out[0].value == Even(n=2) and out[2].value == Even(n=4)
    assert out[1].value is None and "even after one repair attempt" in (out[1].error or "")
    assert out[1].stats.calls == 2  # the first attempt and the repair are both counted
    repair = fake.history[3]
    assert repair.segments[0] == user("y") and "n must be even" in repair.prompt
    assert len(fake.history) == 4  # the valid rows were not run again
    with pytest.raises(GenerationError, match="even after one repair"):
        out[1].checked()
    with pytest.raises(GenerationError):
        batch_values(out)


def test_a_repaired_row_gets_the_repair_reply() -> None:
    fake = FakeBackend().enqueue({"n": 1}, {"n": 2}, {"n": 6})
    out = fake.generate_batch(_requests("x", "y", schema=Even))
    assert batch_values(out) == [Even(n=6), Even(n=2)]
    assert [c.prompt for c in fake.history][:2] == ["x", "y"]


def test_an_empty_batch_is_empty() -> None:
    fake = FakeBackend()
    assert fake.generate_batch([]) == [] and fake.history == []


class _Plain:
    """A backend with only the single-call contract (like a test double or a wrapper)."""

    def __init__(self) -> None:
        self.fake = FakeBackend().enqueue({"n": 2}, {"n": 3})

    @property
    def model_name(self) -> str:
        return "plain"

    def count_tokens(self, text: str) -> int:
        return 1

    def generate(self, segments: Sequence[Segment], **kwargs: Any) -> Generation:
        return self.fake.generate(segments, **kwargs)


def test_generate_batch_falls_back_to_one_call_per_request() -> None:
    plain = _Plain()
    assert not isinstance(plain, BatchBackend)
    out = generate_batch(plain, _requests("x", "y", schema=Even))  # type: ignore[arg-type]
    assert out[0].value == Even(n=2) and out[1].error and "must be even" in out[1].error
    fake = FakeBackend().enqueue("one", "two")
    assert [g.text for g in generate_batch(fake, _requests("a", "b", schema=None))] == [
        "one",
        "two",
    ]
    assert fake.batches == [2]


def test_batch_stats_add_up() -> None:
    a = BatchStats(batches=1, rows=4, largest=4, steps=10, row_steps=30, generated_tokens=30)
    b = BatchStats(batches=1, rows=2, largest=2, steps=5, row_steps=10, generated_tokens=10)
    total = a + BatchStats(decode_s=2.0) + b
    assert (total.batches, total.rows, total.largest, total.steps) == (2, 6, 4, 15)
    assert total.mean_batch == pytest.approx(40 / 15) and total.decode_tok_s == 20.0
    assert total.to_dict()["decode_tok_s"] == 20.0


# -- HttpBackend against a stub server ---------------------------------------------------------


def _last_user(body: dict[str, Any]) -> str:
    return str(body["messages"][-1]["content"])


@pytest.fixture
def city_stub() -> Iterator[tuple[StubServer, str]]:
    """Replies {"city": <the prompt>}; a prompt starting with "bad" gets invalid JSON until
    its repair prompt (which quotes the error) comes."""

    def answer(body: dict[str, Any]) -> str:
        prompt = _last_user(body)
        if prompt.startswith("bad") and "Error:" not in prompt:
            return '{"city": 12'
        if prompt.startswith("down"):
            return "HTTP 503"
        return json.dumps({"city": prompt.split()[0][:20]})

    stub = StubServer(answer, delay_s=0.2)
    try:
        yield stub, stub.url
    finally:
        stub.kill()


def test_http_batch_runs_requests_concurrently_up_to_the_bound(
    city_stub: tuple[StubServer, str],
) -> None:
    stub, url = city_stub
    backend = HttpBackend(base_url=url, model="m", concurrency=3)
    prompts = [f"c{i}" for i in range(7)]
    start = time.perf_counter()
    out = backend.generate_batch(_requests(*prompts))
    elapsed = time.perf_counter() - start
    assert [g.value for g in out] == [City(city=p) for p in prompts]  # in request order
    assert stub.most_in_flight == 3
    assert elapsed < 7 * stub.delay_s * 0.75  # ceil(7/3) = 3 rounds, not 7
    assert backend.batch_stats.rows == 7 and backend.batch_stats.largest == 3
    assert backend.batch_stats.generated_tokens == 14
    assert all(b["response_format"]["json_schema"]["name"] == "City" for b in stub.bodies)


def test_http_batch_repairs_the_invalid_row_alone(city_stub: tuple[StubServer, str]) -> None:
    stub, url = city_stub
    stub.delay_s = 0.0
    backend = HttpBackend(base_url=url, model="m", concurrency=4)
    out = backend.generate_batch(_requests("Bern", "bad one", "Oslo"))
    assert [g.value for g in out] == [City(city="Bern"), City(city="bad"), City(city="Oslo")]
    assert len(stub.bodies) == 4  # three first attempts, one repair
    assert out[1].stats.calls == 2 and out[0].stats.calls == 1
    assert backend.batch_stats.repairs == 1 and backend.batch_stats.rows == 4


def test_http_batch_raises_when_the_server_fails(city_stub: tuple[StubServer, str]) -> None:
    stub, url = city_stub
    stub.delay_s = 0.0
    backend = HttpBackend(base_url=url, model="m", concurrency=2)
    with pytest.raises(BackendError, match="HTTP 503"):
        backend.generate_batch(_requests("Bern", "down"))
    with pytest.raises(BackendError, match="max_tokens"):
        backend.generate_batch([Request([user("x")], max_tokens=0)])


def test_batch_size_setting_bounds_http_concurrency(city_stub: tuple[StubServer, str]) -> None:
    _, url = city_stub
    config = parse_config(
        {"backend": "http", "http": {"base_url": url}, "generation": {"batch_size": 5}}
    )
    backend = make_backend(config, "extract", cache_dir=None)
    assert isinstance(backend, HttpBackend) and backend.concurrency == 5
    with pytest.raises(Exception, match="batch_size"):
        parse_config({"generation": {"batch_size": 0}})
