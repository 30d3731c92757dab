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
        from brag_env import put_v1

        return put_v1.raw_env(**{**options, "num_players": num_agents})

    def table_info(self, env: Any) -> TableInfo:
        return table_info_from_env(env)

    def collector(self, env: Any, num_agents: int) -> Collector:
        from brag_env.evaluation.put_stats import PutCollector

        return PutCollector(env, num_agents)


class Brag7Adapter(GameAdapter):
    """Seven-card Brag (B24): one payoff and one scoop sample per deal; see ``brag7_stats``."""

    name = "brag7"
    sample_unit = "deal"
    payoff_unit = "antes/deal"
    default_num_players = 4
    allowed_num_players = tuple(range(2, 8))

    def make_env(self, num_agents: int, options: dict[str, Any]) -> Any:
        from brag_env import brag7_v0

        return brag7_v0.raw_env(**{**options, "num_players": num_agents})

    def table_info(self, env: Any) -> TableInfo:
        return table_info_from_env(env)

    def collector(self, env: Any, num_agents: int) -> Collector:
        from brag_env.evaluation.brag7_stats import Brag7Collector

        return Brag7Collector(env, num_agents)

    # No duplicate caveat: every deal of a session is shuffled by the session's generator
    # alone (play draws nothing from it), so a reset seed replays all of its deals exactly.


ADAPTERS: dict[str, type[GameAdapter]] = {
    "brag": BragAdapter,
    "put": PutAdapter,
    "brag7": Brag7Adapter,
}


def get_adapter(game: str) -> GameAdapter:
    """The adapter of a game by name; ``ValueError`` naming the known games otherwise."""
    cls = ADAPTERS.get(str(game).lower())
    if cls is None:
        raise ValueError(f"unknown game {game!r}; games: {', '.join(ADAPTERS)}")
    return cls()
