"""MlxBackend.generate_batch: lockstep decoding gives exactly what one call at a time gives.

Greedy (and seeded) batched output is compared with sequential `generate` on tiny llama, qwen2
and gemma3 models (the gemma3 window is 16 tokens, so its rotating caches wrap), with JSON
constraints, prefixes cached to different depths per row, rows that stop early, rows that join
the batch mid-way, and a row whose reply fails validation. One test runs a real model.
"""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel, Field, field_validator

from wikic.errors import BackendError, GenerationError
from wikic.llm.backend import (
    EMPTY_STATS,
    Generation,
    Request,
    batch_values,
    request_options,
    system,
    user,
)

pytestmark = pytest.mark.mlx

ARCHES = ["llama", "qwen2", "gemma3_text"]


class Item(BaseModel):
    name: str = Field(max_length=12)
    kind: str = Field(max_length=8)


class Record(BaseModel):
    title: str = Field(max_length=20)
    items: list[Item] = Field(min_length=1, max_length=3)
    year: int = Field(ge=1000, le=2999)
    done: bool


class NeverValid(BaseModel):
    word: str = Field(max_length=4)

    @field_validator("word")
    @classmethod
    def _reject(cls, value: str) -> str:
        raise ValueError("no word is good enough")


SYSTEM = system("You are a tiny test model that writes records. " * 3)
CONTEXT = user("Context: the river, the falls, the castle and the boats. " * 2)


@pytest.fixture(scope="module")
def chat_tokenizer(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from tests.helpers.tiny_tokenizer import build_tokenizer, load_tokenizer

    return load_tokenizer(build_tokenizer(tmp_path_factory.mktemp("tok")))


def _backend(arch: str, tokenizer: Any, model: Any = None, **kwargs: Any) -> Any:
    from tests.helpers.tiny_models import tiny_fingerprint, tiny_model
    from wikic.llm.cache.prefix import PrefixCache
    from wikic.llm.mlx_backend import MlxBackend

    model = model if model is not None else tiny_model(arch)
    cache = PrefixCache(None, fingerprint=tiny_fingerprint(model), max_bytes=1 << 28)
    return MlxBackend(model, tokenizer, name=f"tiny-{arch}", prefix_cache=cache, **kwargs)


def _sequential(backend: Any, requests: list[Request]) -> list[Generation]:
    """One `generate` per request; a GenerationError becomes the row's `error` (as in a batch)."""
    out = []
    for r in requests:
        try:
            out.append(backend.generate(r.segments, **request_options(r)))
        except GenerationError as exc:
            out.append(Generation("", None, EMPTY_STATS, error=exc.message))
    return out


def _mixed_requests() -> list[Request]:
    return [
        Request([SYSTEM, CONTEXT, user("Record one.")], schema=Record, max_tokens=300),
        Request([SYSTEM, user("Record two, from another text entirely.")], schema=Record),
        Request([user("Free text please. " * 6)], max_tokens=40),
        Request([SYSTEM, CONTEXT, user("Stop soon.")], max_tokens=3),  # leaves early: length
        Request([SYSTEM, CONTEXT, user("Record three.")], schema=Record, max_tokens=300),
        Request([SYSTEM, user("Sampled.")], max_tokens=25, temperature=1.0, seed=4),
        Request([SYSTEM, CONTEXT, user("Record one.")], schema=Record, max_tokens=12),  # cut off
    ]


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("batch_size", [3, 8])
def test_batched_output_is_identical_to_sequential(
    arch: str, batch_size: int, chat_tokenizer: Any
) -> None:
    from tests.helpers.tiny_models import tiny_model

    model = tiny_model(arch)
    requests = _mixed_requests()
    expected = _sequential(_backend(arch, chat_tokenizer, model), requests)

    batched = _backend(arch, chat_tokenizer, model, batch_size=batch_size)
    # cache prefixes to different depths: row 0's whole prompt, rows 3/4 up to the context
    batched.generate(requests[0].segments, schema=Record, max_tokens=300)
    batched.generate([SYSTEM, CONTEXT, user("x")], max_tokens=1)
    before = batched.batch_stats
    got = batched.generate_batch(requests)

    for want, row in zip(expected, got, strict=True):
        assert row.error == want.error
        if want.error is None:
            assert (row.text, row.finish_reason) == (want.text, want.finish_reason)
            assert row.value == want.value
            assert row.stats.generated_tokens == want.stats.generated_tokens
    assert [g.finish_reason for g in got][2:4] == ["length", "length"]
    assert got[3].stats.generated_tokens == 3
    assert isinstance(got[0].value, Record) and got[6].error is not None  # 12 tokens: too few
    framed = [sum(len(t) for t in batched.framer.frame_segments(r.segments)) for r in requests]
    boundaries = [len(t) for t in batched.framer.frame_segments([SYSTEM, CONTEXT, user("x")])]
    system_end, context_end = boundaries[0], boundaries[0] + boundaries[1]
    cached = [g.stats.cached_tokens for g in got]
    assert cached[0] == framed[0]  # the whole prompt
    assert cached[1] == system_end and cached[2] == 0 and cached[4] == context_end
    assert all(g.stats.prompt_tokens >= n for g, n in zip(got, framed, strict=True))
    done = batched.batch_stats
    assert done.batches - before.batches == 2  # the batch and the cut-off row's repair
    assert done.largest == min(batch_size, len(requests))
    assert done.steps < done.row_steps  # rows shared forward passes


@pytest.mark.parametrize("arch", ARCHES)
def test_merged_caches_give_each_row_its_own_logits(arch: str) -> None:
    """Why batched == sequential holds (on mlx's CPU backend): with left padding masked out, a
    one-token step gives every row its own logits bit for bit. A multi-token step (a forced run)
    takes the masked-array attention path instead of the causal one: equal up to rounding."""
    from mlx_lm.models.cache import make_prompt_cache

    from tests.helpers.tiny_models import tiny_model, tiny_tokens

    mx = pytest.importorskip("mlx.core")
    model = tiny_model(arch)
    prompts = [tiny_tokens(n, seed=n) for n in (40, 23, 57)]  # all wider than gemma's window
    steps = [[[5], [13], [23]], [[9], [17], [29]], [[11, 7], [19, 3], [31, 37]], [[2], [4], [6]]]

    def prefilled() -> list[Any]:
        caches = []
        for prompt in prompts:
            cache = make_prompt_cache(model)
            model(mx.array(prompt)[None], cache=cache)
            caches.append(cache)
        return caches

    alone = prefilled()
    caches = prefilled()
    batch = [layer.merge([c[i] for c in caches]) for i, layer in enumerate(caches[0])]
    exact = True  # until the first multi-token step: its rounding stays in the cache
    for step in steps:
        exact = exact and all(len(tokens) == 1 for tokens in step)
        together = model(mx.array(step), cache=batch)[:, -1]
        for row, cache in enumerate(alone):
            own = model(mx.array(step[row])[None], cache=cache)[0, -1]
            if exact:
                assert mx.array_equal(together[row], own).item()
            else:
                assert mx.allclose(together[row], own, atol=1e-4).item()
                assert mx.argmax(together[row]).item() == mx.argmax(own).item()


@pytest.mark.parametrize("arch", ARCHES)
def test_forced_steps_do_not_change_the_output(arch: str, chat_tokenizer: Any) -> None:
    from tests.helpers.tiny_models import tiny_model

    model = tiny_model(arch)
    requests = [
        Request([SYSTEM, user(f"Record {i}.")], schema=Record, max_tokens=300) for i in range(4)
    ]
    runs = {}
    for forced_steps in (True, False):
        backend = _backend(arch, chat_tokenizer, model)
        backend.forced_steps = forced_steps
        runs[forced_steps] = (backend.generate_batch(requests), backend.batch_stats)
    assert [g.text for g in runs[True][0]] == [g.text for g in runs[False][0]]
    assert runs[True][1].steps < runs[False][1].steps  # the opening `{"title":"` is one step
    assert all(g.stats.forced_tokens > 0 for g in runs[True][0])


class BatchScripted:
    """A tiny model whose next token is forced by {input token: next token}, row by row."""

    def __init__(self, inner: Any, table: dict[int, int]) -> None:
        self.inner = inner
        self.table = table

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def __call__(self, inputs: Any, cache: Any = None) -> Any:
        import mlx.core as mx

        logits = self.inner(inputs, cache=cache)
        targets = mx.array([[self.table.get(t, -1) for t in row] for row in inputs.tolist()])
        return logits + (targets[..., None] == mx.arange(logits.shape[-1])) * 1000.0


def test_a_row_that_stops_leaves_the_batch_and_the_others_go_on(chat_tokenizer: Any) -> None:
    from tests.helpers.tiny_models import tiny_model

    ids = chat_tokenizer.encode
    h, i = ids("H", add_special_tokens=False)[0], ids("i", add_special_tokens=False)[0]
    newline = ids("\n", add_special_tokens=False)[0]
    stop = chat_tokenizer.convert_tokens_to_ids("<|im_end|>")
    model = BatchScripted(tiny_model("qwen2"), {newline: h, h: i, i: stop})
    requests = [
        Request([user("Say hi")], max_tokens=20),
        Request([SYSTEM, user("Record.")], schema=Record, max_tokens=300),
        Request([user("Say hi again")], max_tokens=20),
    ]
    expected = _sequential(_backend("qwen2", chat_tokenizer, model), requests)
    backend = _backend("qwen2", chat_tokenizer, model)
    got = backend.generate_batch(requests)
    assert (got[0].text, got[0].finish_reason, got[0].stats.generated_tokens) == ("Hi", "stop", 2)
    assert [g.text for g in got] == [g.text for g in expected]
    assert isinstance(got[1].value, Record)
    assert backend.batch_stats.steps > 2 and backend.batch_stats.mean_batch < 3
    # each row's share of the steps adds up to the batch's: rows per step, stage by stage
    total = sum((g.stats for g in got), EMPTY_STATS)
    assert total.decode_steps == backend.batch_stats.row_steps
    assert round(total.step_share, 6) == backend.batch_stats.steps
    assert total.rows_per_step == round(backend.batch_stats.mean_batch, 3)
    assert [g.stats.rows_per_step for g in expected] == [1.0, 1.0, 1.0]  # decoded alone


def test_a_row_that_fails_validation_is_retried_alone(chat_tokenizer: Any) -> None:
    from tests.helpers.tiny_models import tiny_model

    model = tiny_model("llama")
    requests = [
        Request([SYSTEM, user("Record.")], schema=Record, max_tokens=300),
        Request([SYSTEM, user("A word.")], schema=NeverValid, max_tokens=40),
        Request([SYSTEM, user("Another record.")], schema=Record, max_tokens=300),
    ]
    backend = _backend("llama", chat_tokenizer, model)
    got = backend.generate_batch(requests)
    assert isinstance(got[0].value, Record) and isinstance(got[2].value, Record)
    assert got[1].value is None and "no word is good enough" in (got[1].error or "")
    assert got[1].stats.calls == 2 and got[0].stats.calls == 1
    stats = backend.batch_stats
    assert (stats.batches, stats.rows) == (2, 4)  # the repair batch held the failed row alone
    expected = _sequential(_backend("llama", chat_tokenizer, model), [requests[0], requests[2]])
    assert [got[0].text, got[2].text] == [g.text for g in expected]


def test_bad_requests_fail_the_batch_before_any_work(chat_tokenizer: Any) -> None:
    backend = _backend("llama", chat_tokenizer, max_context_tokens=20)
    good = Request([user("x")], max_tokens=2)
    with pytest.raises(BackendError, match="max_context_tokens"):
        backend.generate_batch([good, Request([user("word " * 40)], max_tokens=4)])
    with pytest.raises(BackendError, match="max_tokens"):
        backend.generate_batch([good, Request([user("x")], max_tokens=0)])
    assert backend.batch_stats.batches == 0 and backend.generate_batch([]) == []
    with pytest.raises(BackendError, match="batch size"):
        _backend("llama", chat_tokenizer, batch_size=0)


@pytest.mark.real_model
@pytest.mark.slow
def test_real_model_batched_equals_sequential(installed_model: Any) -> None:
    from wikic.llm.cache.prefix import PrefixCache
    from wikic.llm.mlx_backend import MlxBackend
    from wikic.llm.models.resolve import load_mlx_model

    class Fact(BaseModel):
        subject: str = Field(max_length=30)
        claim: str = Field(max_length=80)

    resolved = installed_model("smollm2-135m")
    model, tokenizer = load_mlx_model(resolved)

    def backend() -> MlxBackend:
        cache = PrefixCache(None, fingerprint=resolved.fingerprint, max_bytes=1 << 30)
        return MlxBackend(model, tokenizer, name="smollm2-135m", prefix_cache=cache)

    head = system("You state one fact from the text as JSON.")
    text = user("The Rhine Falls are 150 metres wide. Goethe saw them in 1797. ")
    requests = [
        Request([head, text, user(f"The fact about {topic}.")], schema=Fact, max_tokens=60)
        for topic in ("the width", "Goethe", "the year 1797")
    ]
    expected = _sequential(backend(), requests)
    batched = backend()
    got = batched.generate_batch(requests)
    assert [g.text for g in got] == [g.text for g in expected]
    assert batch_values(got) == [g.value for g in expected]
    assert batched.batch_stats.largest == 3


@pytest.mark.parametrize("arch", ARCHES)
def test_ragged_step_logits_match_the_full_model_call(arch: str) -> None:
    """A step where rows feed different numbers of tokens (right padding, then `finalize`)
    takes each row's logits at its own last token, with the LM head run only there; the
    result equals the model's own call, and the next one-token step equals each row alone."""
    from mlx_lm.models.cache import make_prompt_cache

    from tests.helpers.tiny_models import tiny_model, tiny_tokens
    from wikic.llm.lockstep import _split_head, last_logits

    mx = pytest.importorskip("mlx.core")
    model = tiny_model(arch)
    prompts = [tiny_tokens(n, seed=n) for n in (40, 23, 57)]
    feeds = [[5, 6, 7], [9], [11, 12]]
    assert _split_head(model)  # the path under test: the LM head apart from the body

    def batch_cache() -> tuple[list[Any], list[list[Any]]]:
        alone = []
        for prompt in prompts:
            cache = make_prompt_cache(model)
            model(mx.array(prompt)[None], cache=cache)
            alone.append(cache)
        merged = [layer.merge([c[i] for c in alone]) for i, layer in enumerate(alone[0])]
        return merged, alone

    lengths = [len(f) for f in feeds]
    padding = [3 - n for n in lengths]
    inputs = mx.array([f + [0] * p for f, p in zip(feeds, padding, strict=True)])
    split_cache, alone = batch_cache()
    full_cache, _ = batch_cache()
    for cache in (split_cache, full_cache):
        for c in cache:
            c.prepare(lengths=lengths, right_padding=padding)
    split = last_logits(model, inputs, split_cache, lengths)
    full = model(inputs, cache=full_cache)[mx.arange(3), mx.array(lengths) - 1]
    assert mx.allclose(split, full, atol=1e-4).item()
    for c in split_cache:
        c.finalize()
    for row, cache in enumerate(alone):
        own = model(mx.array(feeds[row])[None], cache=cache)[0, -1]
        assert mx.allclose(split[row], own, atol=1e-4).item()
    nxt = last_logits(model, mx.array([[3], [4], [8]]), split_cache, [1, 1, 1])
    for row, cache in enumerate(alone):
        own = model(mx.array([[3, 4, 8][row]])[None], cache=cache)[0, -1]
        assert mx.allclose(nxt[row], own, atol=1e-4).item()


def test_rows_with_the_largest_budgets_join_first_and_results_keep_their_order(
    chat_tokenizer: Any,
) -> None:
    """The longest reply (an ingest's source summary, queued last) starts first instead of
    finishing alone in a batch of one; each request still gets its own reply."""
    requests = [
        Request([user("Short one.")], max_tokens=4),
        Request([user("Middle one.")], max_tokens=9),
        Request([user("The summary, queued last.")], max_tokens=30),
    ]
    expected = _sequential(_backend("qwen2", chat_tokenizer), requests)
    backend = _backend("qwen2", chat_tokenizer, batch_size=2)
    joined: list[int] = []
    prefill = backend._prefix_cache.prefill

    def recording(model: Any, segments: Any) -> Any:
        joined.append(sum(len(s) for s in segments))
        return prefill(model, segments)

    backend._prefix_cache.prefill = recording
    got = backend.generate_batch(requests)
    lengths = [sum(len(t) for t in backend._framed(r.segments)) for r in requests]
    assert joined == [lengths[2], lengths[1], lengths[0]]
    assert [g.text for g in got] == [g.text for g in expected]
