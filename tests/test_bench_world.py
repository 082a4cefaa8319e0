"""How the timing benchmarks run the world (bench/walters_wilder.py): in a process of its
own by default, on the engine's loop on request, and the engine's loop lag sampled."""

from __future__ import annotations

import asyncio
import math
import time

import aiohttp
import pytest
from walters_wilder import LagSummary, LoopLagSampler, open_world
from world_helpers import DEMO_CORPUS


def test_lag_percentiles_are_nearest_rank() -> None:
    lag = LagSummary(tuple(i / 1000 for i in range(1, 101)))  # 1 ms .. 100 ms
    assert lag.percentile(50) == 0.050 and lag.percentile(99) == 0.099
    assert lag.as_json() == {"loop_lag_p50_s": 0.05, "loop_lag_p99_s": 0.099,
                             "loop_lag_max_s": 0.1, "loop_lag_samples": 100}
    assert math.isnan(LagSummary(()).percentile(99))


@pytest.mark.asyncio
async def test_the_sampler_sees_a_blocked_loop() -> None:
    sampler = LoopLagSampler(interval_s=0.005)
    async with sampler.sampling():
        await asyncio.sleep(0.05)
        end = time.perf_counter() + 0.12
        while time.perf_counter() < end:  # holds the loop: the sleeping sampler wakes late
            pass
        await asyncio.sleep(0.05)
    lag = sampler.summary()
    assert len(lag.samples) >= 5
    assert max(lag.samples) >= 0.1
    assert lag.percentile(50) < 0.05


@pytest.mark.parametrize("in_process", [False, True])
@pytest.mark.asyncio
async def test_open_world_serves_and_counts_in_both_modes(in_process: bool) -> None:
    async with open_world(DEMO_CORPUS, time_scale=10, in_process=in_process) as world:
        url = world.base_urls["openalex"] + "/works/doi:10.1038/171737a0"
        async with aiohttp.ClientSession() as session, session.get(url) as response:
            assert response.status == 200
        stats = await world.stats()
    assert stats["requests"] == 1 and stats["by_source"] == {"openalex": 1}
    if in_process:
        assert world.stopped == {}
    else:
        assert world.stopped["event"] == "stopped" and world.stopped["requests"] == 1
