"""The per-stage time breakdown: prefill, decode, rows per decode step and idle time, summable
over rows and stages, as `--json` and the benches report it."""

from __future__ import annotations

from wikic.llm.backend import EMPTY_STATS, GenerationStats, Request, Segment
from wikic.llm.fake import FakeBackend


def _request(prompt: str) -> Request:
    return Request([Segment(prompt)])


def test_rows_per_step_is_the_mean_batch_of_the_steps_decoded() -> None:
    # three rows decoded together, of 2, 2 and 4 tokens: steps 1-2 hold three rows, 3-4 one
    fake = FakeBackend().enqueue("a b", "c d", "e f g h")
    rows = fake.generate_batch([_request("x"), _request("y"), _request("z")])
    total = sum((g.stats for g in rows), EMPTY_STATS)
    assert [g.stats.decode_steps for g in rows] == [2, 2, 4]
    assert total.decode_steps == 8 and round(total.step_share, 6) == 4  # 4 steps, 8 row-steps
    assert total.rows_per_step == 2.0 == fake.batch_stats.mean_batch
    alone = FakeBackend().enqueue("a b c").generate([Segment("x")]).stats
    assert alone.rows_per_step == 1.0  # decoded alone
    assert GenerationStats().rows_per_step is None  # a server cannot tell


def test_idle_is_the_wall_time_outside_the_model() -> None:
    stats = GenerationStats(
        prefill_tokens=100, generated_tokens=20, cache_load_s=0.5, prefill_s=2.0, decode_s=4.0
    )
    b = stats.breakdown(10.0)
    assert (b["prefill_s"], b["prefill_tokens"], b["decode_s"], b["decode_tokens"]) == (
        2.0,
        100,
        4.0,
        20,
    )
    assert b["model_s"] == 6.5 and b["wall_s"] == 10.0 and b["idle_s"] == 3.5
    assert "idle_s" not in stats.breakdown()  # no wall time, no idle
