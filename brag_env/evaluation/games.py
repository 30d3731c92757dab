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
    #: The report's rows of behaviour statistics: (behaviour key, title), in order.
    behaviour_columns: tuple[tuple[str, str], ...] = ()
    #: The text report's rates by strength decile: (title, behaviour table key, numerator
    #: column, denominator columns); Brag counts hands (``hands_by_decile``), Put decisions.
    decile_tables: tuple[tuple[str, str, str, tuple[str, ...]], ...] = ()
    #: The per-agent decile charts: the behaviour table they read and, per series, its legend,
    #: its numerator column and its denominator columns; None: no charts.
    decile_series: tuple[str, list[tuple[str, str, tuple[str, ...]]]] | None = None

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
    behaviour_columns = (
        ("blind_play_rate", "blind play"),
        ("look_rate", "looks"),
        ("turns_before_look", "blind moves before look"),
        ("blind_to_end_rate", "blind to the end"),
        ("fold_rate", "fold"),
        ("raise_rate", "raise"),
        ("bluff_raise_rate", "bluff raise rate"),
        ("bluff_success", "bluff success"),
        ("bluff_frequency", "bluff frequency"),
        ("light_see_rate", "light see rate"),
        ("bluff_rate", "bluff rate (raise or see)"),
        ("fold_to_raise", "fold to raise"),
        ("see_frequency", "see freq"),
        ("showdown_win_rate", "showdown win"),
        ("cover_rate", "covers (B16)"),
        ("cover_chance_rate", "covers per chance"),
        ("cover_win_rate", "cover won"),
        ("cover_decided_rate", "decided by a cover"),
        ("carried_rate", "pot carried (B15)"),
    )
    decile_tables = (
        (
            "Brag: fold rate by strength decile (share of its hands in the decile)",
            "hands_by_decile",
            "folded",
            ("hands",),
        ),
        (
            "Brag: open raise rate by strength decile (share of its hands in the decile)",
            "hands_by_decile",
            "raised",
            ("hands",),
        ),
    )
    decile_series = (
        "hands_by_decile",
        [
            ("looked", "looked", ("hands",)),
            ("folded", "folded", ("hands",)),
            ("raised open", "raised", ("hands",)),
            ("saw open", "saw", ("hands",)),
        ],
    )

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
    behaviour_columns = (
        ("put_rate", "Put rate"),
        ("put_success", "Put success"),
        ("bluff_put_rate", "bluff Put rate"),
        ("bluff_success", "bluff success"),
        ("bluff_frequency", "bluff frequency"),
        ("light_see_rate", "light see rate"),
        ("bluff_rate", "bluff rate (Put or see)"),
        ("fold_to_put", "fold to Put"),
        ("see_frequency", "see freq"),
        ("showdown_win_rate", "showdown win"),
    )
    decile_tables = (
        (
            "Put: Put rate by strength decile (share of its turns where Put was legal)",
            "actions_by_decile",
            "put",
            ("put", "no_put"),
        ),
        (
            "Put: fold-to-Put rate by strength decile (share of the Puts it answered)",
            "actions_by_decile",
            "fold",
            ("see", "fold"),
        ),
    )
    decile_series = (
        "actions_by_decile",
        [
            ("called Put (of chances)", "put", ("put", "no_put")),
            ("saw a Put (of Puts faced)", "see", ("see", "fold")),
            ("folded to a Put (of Puts faced)", "fold", ("see", "fold")),
        ],
    )


class Brag7Adapter(TableAdapter):
    """Seven-card Brag (B24): one payoff and one scoop sample per deal; see ``brag7_stats``."""

    name = "brag7"
    behaviour_columns = (
        ("scoop_rate", "scoop (B24)"),
        ("best_first_rate", "best first hand"),
        ("best_second_rate", "best second hand"),
        ("tied_best_rate", "tied for a best hand"),
        ("stronger_first_rate", "stronger hand first"),
        ("carried_rate", "pot carried"),
        ("share_out_rate", "sessions shared out"),
        ("carried_pot_win_rate", "scoops of a carried pot"),
        ("antes_per_scoop", "antes per scoop"),
        ("longest_carry", "longest carry (deals)"),
    )

    # No duplicate caveat: every deal of a session is shuffled by the session's generator
    # alone (play draws nothing from it), so a reset seed replays all of its deals exactly.


#: game -> its adapter class (each spec's ``adapter``).
ADAPTERS: dict[str, type[GameAdapter]] = {
    name: spec.load("adapter") for name, spec in GAMES.items()
}


def get_adapter(game: str) -> GameAdapter:
    """The adapter of a game by name; ``ValueError`` naming the known games otherwise."""
    return game_spec(game).load("adapter")()
