"""Heads-up Put evaluations on the batched engine: every match of ``run_headsup`` at once.

``run_headsup_batched`` returns what ``run_headsup`` returns (the match win rate of the first
agent over ``n`` matches, rounded up to whole seating designs, with ``ratio_ci``'s 95%
interval over matches) from the same schedule (seat rotation) and the same per-agent seeds,
but the matches are the tables of one ``BatchedPut`` and each agent decides for all its tables
in one ``act_batch`` call. The deals come from the engine's own stream, so the numbers are
another sample of the same quantity, not the scalar evaluator's exact figures.

``supports_batched`` says when it applies: Put, two players, no duplicate deals, and both
agents deciding natively for many tables (``act_batch``: the Put baselines, ``random``,
snapshots). Otherwise the scalar evaluator runs.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from brag_env.evaluation.schedule import agent_seeds, make_schedule
from brag_env.evaluation.stats import ratio_ci

_DEALS_TAG = 0xBA7C  # the engine's deal stream, apart from the schedule's and the agents'


def supports_batched(game: str, specs: list[str], env_config: dict[str, Any]) -> bool:
    if game != "put" or int(env_config.get("num_players", 2)) != 2:
        return False
    if int(env_config.get("deck_ranks", 13)) != 13:  # the batched engine deals the full pack
        return False
    from agents import make_agent, table_info
    from agents.batch import natively_batched

    table = table_info("put", **env_config)
    for spec in specs:
        agent = make_agent(spec, table, 0)
        if not natively_batched(agent):
            return False
        if getattr(agent, "_layers", True) is None:  # a model without the numpy actor
            return False
    return True


def run_headsup_batched(
    agent_spec: str,
    opponent_spec: str,
    n: int,
    seed: int = 0,
    env_config: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """``run_headsup("put", ...)`` on the batched engine (see the module docstring)."""
    from agents import make_agent, table_info
    from brag_env.put.batched import BatchedPut
    from brag_env.put.rules import PutConfig

    options = dict(env_config or {})
    config = PutConfig.from_dict(options)
    schedule = make_schedule(2, n, seed)
    tables = len(schedule)
    table = table_info("put", **options)
    rngs = agent_seeds(seed, 2)
    agents = [make_agent(s, table, rngs[i]) for i, s in enumerate((agent_spec, opponent_spec))]
    seat_agent = np.array([e.seats for e in schedule], np.int64)  # (tables, 2): agent per seat
    rows = np.arange(tables)
    for agent in agents:
        agent.reset_rows(np.arange(2 * tables))
    engine = BatchedPut(tables, config, seed=np.random.SeedSequence([seed, _DEALS_TAG]))
    engine.reset()
    live = rows
    while live.size:
        seats = engine.current[live]
        who = seat_agent[live, seats]
        obs = engine.observe(live, seats)
        masks = engine.masks(live)
        actions = np.empty(live.size, np.int64)
        for a in (0, 1):
            k = np.flatnonzero(who == a)
            if k.size:
                state_rows = live[k] * 2 + seats[k]
                actions[k] = agents[a].act_batch(obs[k], masks[k], state_rows)
        engine.step(live, actions)
        live = live[engine.current[live] >= 0]
    won = (seat_agent[rows, engine.winner] == 0).astype(np.float64)
    estimate = ratio_ci(won, np.ones(tables))
    return {
        "metric": "match win rate",
        "mean": estimate.mean,
        "ci_low": estimate.low,
        "ci_high": estimate.high,
        "n": estimate.n,
    }
