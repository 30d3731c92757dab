"""The games the evaluator knows, by name: how to build each env and read its results."""

from __future__ import annotations

from typing import Any

from agents.base import TableInfo
from agents.tables import table_info_from_env
from brag_env.evaluation.runner import Collector, GameAdapter


class BragAdapter(GameAdapter):
    """Three-Card Brag: one payoff sample per hand, in antes (see ``brag_stats``)."""

    name = "brag"
    sample_unit = "hand"
    payoff_unit = "antes/hand"
    default_num_players = 4
    allowed_num_players = tuple(range(2, 9))

    def make_env(self, num_agents: int, options: dict[str, Any]) -> Any:
        from brag_env import brag_v1

        return brag_v1.raw_env(**{**options, "num_players": num_agents})

    def table_info(self, env: Any) -> TableInfo:
        return table_info_from_env(env)

    def collector(self, env: Any, num_agents: int) -> Collector:
        from brag_env.evaluation.brag_stats import BragCollector

        return BragCollector(env, num_agents)

    def duplicate_caveat(self, env: Any) -> str | None:
        hands = env.unwrapped.config.hands_per_session
        if hands <= 1:
            return None
        return (
            f"--duplicate with hands_per_session={hands}: only the first hand of each session "
            "is replayed exactly; later hands depend on play (B16 sitting out, B18 shuffles, "
            "B19 hand choices), so their deals differ between seatings"
        )


class PutAdapter(GameAdapter):
    """Put: one sample per match (its reward, and a match-win indicator); see ``put_stats``."""

    name = "put"
    sample_unit = "match"
    payoff_unit = "reward/match"
    default_num_players = 2
    allowed_num_players = (2, 3, 4)

    def make_env(self, num_agents: int, options: dict[str, Any]) -> Any:
        from brag_env import put_v0

        return put_v0.raw_env(**{**options, "num_players": num_agents})

    def table_info(self, env: Any) -> TableInfo:
        return table_info_from_env(env)

    def collector(self, env: Any, num_agents: int) -> Collector:
        from brag_env.evaluation.put_stats import PutCollector

        return PutCollector(env, num_agents)


ADAPTERS: dict[str, type[GameAdapter]] = {"brag": BragAdapter, "put": PutAdapter}


def get_adapter(game: str) -> GameAdapter:
    """The adapter of a game by name; ``ValueError`` naming the known games otherwise."""
    cls = ADAPTERS.get(str(game).lower())
    if cls is None:
        raise ValueError(f"unknown game {game!r}; games: {', '.join(ADAPTERS)}")
    return cls()
