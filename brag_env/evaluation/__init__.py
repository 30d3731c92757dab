"""Tournaments between agents, with confidence intervals and behaviour statistics.

``evaluate("brag", ["brag:tight", "random", "random", "random"], 20_000, seed=0)`` plays the
hands with rotating seats and returns a ``TournamentResult``; ``round_robin`` fills a payoff
matrix over a pool of agents; ``run_headsup`` is the one-number summary ``train.py`` logs.
``evaluate.py`` is the command line over these functions.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import IO, Any

from brag_env.evaluation.games import ADAPTERS, get_adapter
from brag_env.evaluation.runner import (
    AgentResult,
    Collector,
    DuplicateWarning,
    FactoryAdapter,
    GameAdapter,
    MetricStore,
    RoundRobinResult,
    TournamentResult,
    run_round_robin,
    run_tournament,
)
from brag_env.evaluation.schedule import design_size, make_schedule, seating_design
from brag_env.evaluation.stats import Estimate, mean_ci, ratio_ci
from brag_env.games import game_spec

__all__ = [
    "ADAPTERS",
    "AgentResult",
    "Collector",
    "DuplicateWarning",
    "Estimate",
    "FactoryAdapter",
    "GameAdapter",
    "MetricStore",
    "RoundRobinResult",
    "TournamentResult",
    "design_size",
    "episodes_for",
    "evaluate",
    "few_sessions_warning",
    "get_adapter",
    "headline_of",
    "make_schedule",
    "mean_ci",
    "ratio_ci",
    "round_robin",
    "run_headsup",
    "run_round_robin",
    "run_tournament",
    "seating_design",
]


def episodes_for(game: str, count: int, options: dict[str, Any] | None = None) -> int:
    """Episodes needed for ``count`` hands (Brag sessions hold ``hands_per_session`` hands, and
    Seven-card Brag ones ``hands_per_session`` deals, default 10)."""
    if count < 1:
        raise ValueError(f"the number of hands/matches must be at least 1, got {count}")
    if game_spec(game).sessions:
        return -(-count // _session_length(game, options))
    return count


def _session_length(game: str, options: dict[str, Any] | None) -> int:
    """Hands (Brag) or deals (Seven-card Brag) a session of ``options`` holds: the option, checked
    as the env checks it, else the rules' default."""
    given = {k: v for k, v in (options or {}).items() if k == "hands_per_session"}
    return game_spec(game).config_class.from_dict(given).hands_per_session


MIN_CI_SESSIONS = 10  # fewer Seven-card Brag sessions than this: the CIs get a warning


def few_sessions_warning(
    game: str, count: int, options: dict[str, Any] | None = None
) -> str | None:
    """Seven-card Brag: a one-line warning when ``count`` deals make fewer than
    ``MIN_CI_SESSIONS`` sessions, else None. The CIs are taken over whole sessions (the deals
    of one share a carried pot), so a handful of sessions gives a rough interval."""
    spec = game_spec(game)
    if not spec.session_ci:
        return None
    sessions = episodes_for(game, count, options)
    if sessions >= MIN_CI_SESSIONS:
        return None
    return (
        f"the 95% CIs rest on {sessions} session(s) of {spec.title}, fewer than "
        f"{MIN_CI_SESSIONS}: the intervals are taken over whole sessions, so ask for at least "
        f"{MIN_CI_SESSIONS * _session_length(game, options)} {spec.samples}"
    )


def evaluate(
    game: str,
    specs: Sequence[str],
    count: int,
    seed: int = 0,
    duplicate: bool = False,
    options: dict[str, Any] | None = None,
    history: IO[str] | None = None,
    progress: bool = False,
    batched: bool = False,
) -> TournamentResult:
    """One table: ``specs[i]`` is agent i; ``count`` hands (Brag) or matches (Put).

    ``batched``: every episode at once on the game's batched engine (heads-up Put, Brag
    sessions at 2-8 seats; ``brag_env.evaluation.batched``, check ``supports_batched``
    first): same statistics, no histories, no duplicate deals."""
    adapter = get_adapter(game)
    episodes = episodes_for(adapter.name, count, options)
    if batched:
        return _batched_tournament(adapter.name, specs, episodes, seed, duplicate, options, history)
    return run_tournament(
        adapter, specs, episodes, seed, duplicate, options, history=history, progress=progress
    )


def round_robin(
    game: str,
    pool: Sequence[str],
    count: int,
    seed: int = 0,
    duplicate: bool = False,
    options: dict[str, Any] | None = None,
    table_size: int | None = None,
    history: IO[str] | None = None,
    progress: bool = False,
    batched: bool = False,
) -> RoundRobinResult:
    """Every pool agent against every other (see ``run_round_robin``); ``count`` per table;
    ``batched`` as for ``evaluate``, for every table."""
    adapter = get_adapter(game)
    episodes = episodes_for(adapter.name, count, options)
    table = _batched_table if batched else None
    return run_round_robin(
        adapter, pool, episodes, seed, duplicate, options, table_size, history, progress, table
    )


def _batched_table(adapter, specs, episodes, seed, duplicate, options, history, **_):
    """One round-robin table on the batched engine (``run_tournament``'s arguments)."""
    return _batched_tournament(adapter.name, specs, episodes, seed, duplicate, options, history)


def _batched_tournament(game, specs, episodes, seed, duplicate, options, history):
    from brag_env.evaluation.batched import run_tournament_batched

    if duplicate or history is not None:
        raise ValueError("the batched evaluator keeps no hand histories and deals no duplicates")
    return run_tournament_batched(game, specs, episodes, seed, options)


def run_headsup(
    game: str,
    agent_spec: str,
    opponent_spec: str,
    n: int,
    seed: int = 0,
    env_config: dict[str, Any] | None = None,
    duplicate: bool = False,
) -> dict[str, Any]:
    """``agent_spec`` against ``num_players - 1`` copies of ``opponent_spec``, one number.

    Returns ``{"metric", "mean", "ci_low", "ci_high", "n"}``: Brag, the mean payoff per hand in
    antes over ``n`` hands; Put, the match win rate over ``n`` matches.
    """
    options = dict(env_config or {})
    adapter = get_adapter(game)
    size = int(options.pop("num_players", adapter.default_num_players or 2))
    result = evaluate(
        adapter.name, [agent_spec] + [opponent_spec] * (size - 1), n, seed, duplicate, options
    )
    return headline_of(result)


def headline_of(result: TournamentResult) -> dict[str, Any]:
    """The first agent's headline figure (its game spec's: the payoff, or the match win rate)
    as ``{"metric", "mean", "ci_low", "ci_high", "n"}``."""
    agent = result.agents[0]
    metric = game_spec(result.game).headline
    estimate = agent.metrics[metric] if metric != "payoff" else agent.payoff
    return {
        "metric": "match win rate" if metric == "match_win" else f"payoff ({result.payoff_unit})",
        "mean": estimate.mean,
        "ci_low": estimate.low,
        "ci_high": estimate.high,
        "n": estimate.n,
    }
