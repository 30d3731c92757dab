"""``run_headsup`` on the batched engines: every match (Put) or hand (Brag) at once.

``run_headsup_batched`` returns what ``run_headsup`` returns (the match win rate of the first
agent over ``n`` matches, rounded up to whole seating designs, with ``ratio_ci``'s 95%
interval over matches) from the same schedule (seat rotation) and the same per-agent seeds,
but the matches are the tables of one ``BatchedPut`` and each agent decides for all its tables
in one ``act_batch`` call. The deals come from the engine's own stream, so the numbers are
another sample of the same quantity, not the scalar evaluator's exact figures.

Brag (``BatchedBrag``: one-hand sessions, 2-8 players): the payoff per hand of the first agent
against ``num_players - 1`` copies of the other, in antes (min-stakes without an ante), with
``ratio_ci``'s interval over hands, as ``run_headsup("brag", ...)`` reports it; each copy of
the opponent is its own agent with its own seed, as in the scalar evaluator.

``supports_batched`` says when it applies: heads-up Put with the full pack, or Brag with
``hands_per_session: 1`` and three cards; no duplicate deals; every agent deciding natively
for many tables (``act_batch``: the baselines, ``random``, snapshots; not ``put:tips``).
Otherwise the scalar evaluator runs.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from brag_env.evaluation.schedule import agent_seeds, make_schedule
from brag_env.evaluation.stats import ratio_ci

_DEALS_TAG = 0xBA7C  # the engine's deal stream, apart from the schedule's and the agents'


def _engine_covers(game: str, env_config: dict[str, Any]) -> bool:
    if game == "brag":  # BatchedBrag: one-hand sessions of Three-card Brag
        return (
            int(env_config.get("hands_per_session", 1)) == 1
            and int(env_config.get("cards_dealt", 3)) == 3
        )
    # BatchedPut: heads-up, the full pack
    return (
        game == "put"
        and int(env_config.get("num_players", 2)) == 2
        and int(env_config.get("deck_ranks", 13)) == 13
    )


def supports_batched(game: str, specs: list[str], env_config: dict[str, Any]) -> bool:
    if not _engine_covers(game, env_config):
        return False
    from agents import make_agent, table_info
    from agents.batch import natively_batched

    table = table_info(game, **env_config)
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
    game: str = "put",
) -> dict[str, Any]:
    """``run_headsup(game, ...)`` on the batched engine (see the module docstring)."""
    if game == "brag":
        return _run_brag(agent_spec, opponent_spec, n, seed, env_config)
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


def _run_brag(
    agent_spec: str, opponent_spec: str, n: int, seed: int, env_config: dict[str, Any] | None
) -> dict[str, Any]:
    from agents import make_agent, table_info
    from brag_env.brag.batched import BatchedBrag
    from brag_env.brag.rules import BragConfig

    options = dict(env_config or {})
    options.setdefault("num_players", 4)  # brag_v1's default table, as run_headsup
    config = BragConfig.from_dict(options)
    p = config.num_players
    schedule = make_schedule(p, n, seed)
    tables = len(schedule)
    table = table_info("brag", **options)
    rngs = agent_seeds(seed, p)
    specs = [agent_spec] + [opponent_spec] * (p - 1)
    agents = [make_agent(s, table, rngs[i]) for i, s in enumerate(specs)]
    seat_agent = np.array([e.seats for e in schedule], np.int64)  # (tables, p): agent per seat
    for agent in agents:
        agent.reset_rows(np.arange(p * tables))
    engine = BatchedBrag(tables, config, seed=np.random.SeedSequence([seed, _DEALS_TAG]))
    engine.reset()
    rows = np.arange(tables)
    payoff = np.zeros(tables)
    live = rows
    while live.size:
        seats = engine.current[live]
        who = seat_agent[live, seats]
        obs = engine.observe(live, seats)
        masks = engine.masks(live)
        actions = np.empty(live.size, np.int64)
        for a in np.unique(who).tolist():
            k = np.flatnonzero(who == a)
            actions[k] = agents[a].act_batch(obs[k], masks[k], live[k] * p + seats[k])
        rewards, over = engine.step(live, actions)
        mine = seat_agent[live] == 0  # (k, p): the first agent's seat
        payoff[live] += (rewards * mine).sum(axis=1)
        live = live[~over]
    # brag_stats' unit: the ante, or the minimum stake when no ante is paid
    antes = config.ante > 0 and config.ante_mode != "none"
    unit = float(config.ante if antes else config.min_stake)
    estimate = ratio_ci(payoff / unit, np.ones(tables))
    return {
        "metric": f"payoff ({'antes/hand' if antes else 'min-stakes/hand'})",
        "mean": estimate.mean,
        "ci_low": estimate.low,
        "ci_high": estimate.high,
        "n": estimate.n,
    }
