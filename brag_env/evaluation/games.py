"""The games the evaluator knows, by name: how to build each env and read its results.

Each adapter takes its figures from the game's spec (brag_env/games.py: the sample and its
unit, the table sizes, the env, the collector); a subclass adds only what its game does
differently (Brag's caveat on duplicate deals).
"""

from __future__ import annotations

import importlib
from typing import Any

from agents.base import TableInfo
from agents.tables import table_info_from_env
from brag_env.evaluation.runner import Collector, GameAdapter
from brag_env.games import GAMES, GameSpec, game_spec


class TableAdapter(GameAdapter):
    """A game of the table as the evaluator sees it; a subclass names the game (``name``)."""

    spec: GameSpec

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.spec = game_spec(cls.name)
        cls.sample_unit = cls.spec.sample
        cls.payoff_unit = cls.spec.payoff_unit
        cls.default_num_players = cls.spec.default_num_players
        cls.allowed_num_players = cls.spec.num_players

    def make_env(self, num_agents: int, options: dict[str, Any]) -> Any:
        module = importlib.import_module(self.spec.env_module)
        return module.raw_env(**{**options, "num_players": num_agents})

    def table_info(self, env: Any) -> TableInfo:
        return table_info_from_env(env)

    def collector(self, env: Any, num_agents: int) -> Collector:
        return self.spec.load("collector")(env, num_agents)


class BragAdapter(TableAdapter):
    """Three-Card Brag: one payoff sample per hand, in antes (see ``brag_stats``)."""

    name = "brag"

    def duplicate_caveat(self, env: Any) -> str | None:
        hands = env.unwrapped.config.hands_per_session
        if hands <= 1:
            return None
        return (
            f"--duplicate with hands_per_session={hands}: only the first hand of each session "
            "is replayed exactly; later hands depend on play (B16 sitting out, B18 shuffles, "
            "B19 hand choices), so their deals differ between seatings"
        )


class PutAdapter(TableAdapter):
    """Put: one sample per match (its reward, and a match-win indicator); see ``put_stats``."""

    name = "put"


class Brag7Adapter(TableAdapter):
    """Seven-card Brag (B24): one payoff and one scoop sample per deal; see ``brag7_stats``."""

    name = "brag7"

    # No duplicate caveat: every deal of a session is shuffled by the session's generator
    # alone (play draws nothing from it), so a reset seed replays all of its deals exactly.


#: game -> its adapter class (each spec's ``adapter``).
ADAPTERS: dict[str, type[GameAdapter]] = {
    name: spec.load("adapter") for name, spec in GAMES.items()
}


def get_adapter(game: str) -> GameAdapter:
    """The adapter of a game by name; ``ValueError`` naming the known games otherwise."""
    return game_spec(game).load("adapter")()
