"""The game table: one ``GameSpec`` per game, the one place that names the games.

A caller that differs by game looks the game's spec up by name (``game_spec("put")``) and asks
it (``spec.headline``, ``spec.config_class``, ``spec.load("play_session")``) instead of
comparing the name with a string. Adding a game is its folder (engine, env module, agents,
views) and one ``GameSpec`` entry in ``GAMES`` below; docs/development.md ("Adding a game")
lists the fields. ``tests/test_game_table.py`` refuses a comparison with a game's name, or a
dict keyed by games' names, anywhere else in the package but a game's own modules.

The table stands on the lowest floor (docs/development.md, ``## Layers``) so that every floor
can read it: what lives higher up (env modules, agent baselines, evaluation adapters, play
sessions) is named by ``"module:attribute"`` strings and imported only when asked for, as the
env registry already does with its entry points.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple


class FormNumber(NamedTuple):
    """A number field of the web form's rule options, held to ``low..high``."""

    option: str
    label: str  # the field's words on the page (and in its error messages)
    low: int
    high: int
    name: str = ""  # the page's field name; the option's when empty
    size: int = 3  # the box's width in characters
    default: int | None = None  # the page's first value; the config's default when None

    @property
    def field(self) -> str:
        """The name the page posts it under."""
        return self.name or self.option


class FormChoice(NamedTuple):
    """A checkbox or a menu of the web form. A checkbox named as a rule option sets it; a menu's
    entries are the ``"module:NAME"`` tuple ``entries`` names, and the config's default entry
    leaves the option unset."""

    name: str
    label: str  # the words beside it on the page
    default: Any = None  # its first value; the config's default when None
    entries: str = ""  # a menu's ``"module:NAME"`` of its entries


@dataclass(frozen=True, eq=False)  # one object per game: compared and hashed by identity
class GameSpec:
    """Everything outside a game's own folder that differs by game."""

    #: The short name of specs, configs and records: ``brag:tight``, ``game: brag``.
    name: str
    #: The game's title in messages ("Seven-card Brag deal 3").
    title: str
    #: env name -> the module holding its ``env()``/``raw_env()``, oldest first.
    envs: Mapping[str, str]
    #: The env of the game's tables when only the game is named (evaluation, play, training).
    default_env: str
    #: The gymnasium id and entry point of its single-agent self-play env (brag_env/selfplay.py).
    selfplay_id: str
    selfplay_entry: str
    #: ``"module:Class"`` of the rules config (``from_dict``/``to_dict``).
    config: str
    #: The modules of its baseline agents, which register their styles (``brag:tight``) with
    #: agents/registry.py when imported.
    agents: tuple[str, ...]
    #: Table options that change what a trained model's observation numbers or action ids mean.
    model_options: tuple[str, ...]
    #: Players when none are given, and the table sizes the rules allow.
    default_num_players: int
    num_players: tuple[int, ...]
    #: What one sample of the evaluation is: a hand, a match of Put (P6), a deal of Seven-card
    #: Brag (B24); and its plural for counts.
    sample: str
    samples: str
    #: The flag that counts the samples of ``evaluate.py`` (``--hands`` or ``--matches``) and
    #: how many it plays when not given.
    count_flag: Literal["hands", "matches"]
    default_count: int
    #: Whether an episode is a session of several hands (``hands_per_session``, B17/B24);
    #: an episode of Put is one match.
    sessions: bool
    #: Whether the confidence intervals, taken over whole sessions, warn when few sessions are
    #: played (Seven-card Brag: a deal's pot carries to the next, so deals are not independent).
    session_ci: bool
    #: The headline figure of a result: the payoff, or the match win rate (Put: the reward is
    #: 2 * rate - 1 heads-up, so the rate is what a reader wants).
    headline: Literal["payoff", "match_win"]
    #: What one line of a history file holds: a hand, or a deal of Seven-card Brag.
    hand_word: str
    #: The history record's key holding the hand's number and the number its first hand has.
    number_key: str
    first_number: int
    #: The record keys of a seat's total before and after the hand (chips or match scores);
    #: None when the hands of a session replay on their own (Seven-card Brag's views hold
    #: nothing of the deals before).
    totals_keys: tuple[str, str] | None
    #: ``"module:Class"`` replaying its history lines in the viewer (brag_env/replay.py).
    replayer: str
    #: ``"module:function"`` checking a history line's shape (brag_env/ui/records.py).
    record_check: str
    #: ``"module:Class"`` of the evaluation adapter (brag_env/evaluation/games.py) and of the
    #: collector of its behaviour statistics, ``Collector(env, num_agents)``.
    adapter: str
    collector: str
    #: ``"module:Class"`` of the terminal play session (brag_env/ui/) and of the web table.
    play_session: str
    web_table: str
    #: The illegal-action reward of the game's ``env()``: ``"module:NAME"`` of a constant, or
    #: None for minus the starting chips (the stack a seat can lose, B16/B24).
    illegal_reward: str | None = None
    #: ``"module:function"`` building the batched engine (brag_env/training/batched.py), or
    #: None for a game without one.
    batched_engine: str | None = None
    #: ``"module:function"`` refusing, with a one-line ValueError, a rules config the batched
    #: engine does not cover, without loading the engine; set with ``batched_engine``.
    batched_check: str | None = None
    #: ``"module:NAME"`` of its batched evaluator (``BatchedRunner``, brag_env/evaluation/
    #: batched.py), or None: the scalar evaluator only.
    batched_runner: str | None = None
    #: ``"module:main"`` of its exploiter suite's command line (``python -m brag_env.exploit
    #: GAME``), or None.
    exploiters: str | None = None
    #: Whether the exact solver (brag_env/put/solver) covers its heads-up tables.
    exact_solver: bool = False
    #: Whether a self-play learner's episode may end with each hand while the match goes on
    #: (``episode: hand``): a game whose hands are scored one by one (Put's points, P5).
    hand_episodes: bool = False
    #: Whether four players sit as two partnerships, partners opposite (P8).
    partners: bool = False
    #: What the behaviour statistics count per strength decile ("hands" a seat played, or
    #: "decisions"), which strength the deciles are of, and whether a blind column exists (B10).
    behaviour_unit: str = "decisions"
    behaviour_strength: str = "its live strength"
    blind_play: bool = False
    #: Whether the actions-by-decile chart pairs two kinds of decision side by side (Put:
    #: calling Put, and answering one) instead of stacking the shares of one decision.
    paired_deciles: bool = False
    #: Boolean options that add an action, newer than the game's first env: a trained model's
    #: record that does not name one is read from the model's action count (agents/model.py).
    action_flags: tuple[str, ...] = ()
    #: The terminal's words for a table of the game (``python -m brag_env.play GAME``), and the
    #: rule of a session's length (``hands_per_session``).
    play_help: str = ""
    session_rule: str = ""
    #: The opponents of a table in the terminal (brag_env/play.py) and on the web page when
    #: none are named.
    play_opponents: tuple[str, ...] = ()
    web_opponents: tuple[str, ...] = ()
    #: The heading of the game's web form; ``title`` when empty.
    form_title: str = ""
    #: The web form's number fields of rule options, in the page's order. A session's hands stop
    #: at 100, as the form's matches do: a page, not a tournament.
    form_numbers: tuple[FormNumber, ...] = ()
    #: The web form's checkboxes of this game, then its menus (Brag's wild cards, B25).
    form_boxes: tuple[FormChoice, ...] = ()
    form_menus: tuple[FormChoice, ...] = ()

    @property
    def env_module(self) -> str:
        """The module of ``default_env``."""
        return self.envs[self.default_env]

    @property
    def config_class(self) -> Any:
        """The rules config class (imported on first use)."""
        return load(self.config)

    @property
    def matches(self) -> bool:
        """Whether the headline is the match win rate (a result is read as a share)."""
        return self.headline == "match_win"

    @property
    def payoff_unit(self) -> str:
        """The unit of a payoff figure: antes per hand or per deal, the reward per match."""
        return "reward/match" if self.matches else f"antes/{self.sample}"

    def load(self, what: str) -> Any:
        """The object a ``"module:attribute"`` field names, e.g. ``spec.load("adapter")``."""
        path = getattr(self, what)
        if path is None:
            raise ValueError(f"{self.name} has no {what.replace('_', ' ')}")
        return load(path)


def load(path: str) -> Any:
    """``"package.module:attribute"`` -> the attribute, importing its module."""
    module, _, attribute = path.partition(":")
    value: Any = importlib.import_module(module)
    for part in attribute.split(".") if attribute else ():
        value = getattr(value, part)
    return value


BRAG = GameSpec(
    name="brag",
    title="Brag",
    envs={"brag_v0": "brag_env.brag_v0", "brag_v1": "brag_env.brag_v1"},
    default_env="brag_v1",
    selfplay_id="brag_env/BragVsPool-v0",
    selfplay_entry="brag_env.selfplay:BragVsPoolEnv",
    config="brag_env.brag.rules:BragConfig",
    agents=("agents.brag", "agents.brag_equilibrium", "agents.brag_planted"),
    model_options=(
        "num_players",  # the seat blocks
        "starting_chips",  # every chip amount is divided by it
        "min_stake",  # the stake's starting value
        "max_stake",  # the stake is divided by it
        "raise_sizes",  # the raise actions
        "hands_per_session",  # the hand number is divided by it
        "lowball",  # the hand-strength order (B21)
        "cover_pot",  # the cover action and the cover block (B16): off for brag_v0 models
        "perfect_recall",  # the recall block appended to the vector
        "wild_cards",  # the strength order and percentiles, and the B25 block
        # the percentiles' deck (B1): a record without it was trained on the full pack, which
        # is the config's default
        "deck_ranks",
    ),
    action_flags=("cover_pot",),  # B16, from brag_v1
    default_num_players=4,
    num_players=tuple(range(2, 9)),  # B7
    sample="hand",
    samples="hands",
    count_flag="hands",
    default_count=10_000,
    sessions=True,
    session_ci=False,
    headline="payoff",
    hand_word="hand",
    number_key="hand_number",
    first_number=0,
    totals_keys=("chips_before", "chips_after"),
    replayer="brag_env.replay:BragReplayer",
    record_check="brag_env.ui.records:check_brag",
    adapter="brag_env.evaluation.games:BragAdapter",
    collector="brag_env.evaluation.brag_stats:BragCollector",
    play_session="brag_env.ui.brag_play:BragSession",
    web_table="brag_env.web.tables:BragWebTable",
    batched_engine="brag_env.training.batched:make_brag_engine",
    batched_check="brag_env.brag.batched_options:check_batched_brag",
    batched_runner="brag_env.evaluation.batched:BRAG_RUNNER",
    exploiters="brag_env.exploiters.cli:main",
    behaviour_unit="hands",
    behaviour_strength="its true hand",
    blind_play=True,
    play_help="a session of Three-Card Brag hands",
    session_rule="B17",
    play_opponents=("brag:tight", "brag:bluffer", "random"),
    web_opponents=("brag:tight", "brag:bluffer", "random"),
    form_title="Three-Card Brag",
    form_numbers=(
        # the page's session is 10 hands, not the config's one
        FormNumber("hands_per_session", "Hands", 1, 100, name="hands", default=10),
        FormNumber("ante", "Ante", 0, 10**6),
        FormNumber("starting_chips", "Starting chips", 1, 10**9, size=5),
    ),
    form_boxes=(
        FormChoice("allow_blind", "blind play (B10)"),
        FormChoice("cover_pot", "covering the pot (B16)"),
    ),
    form_menus=(
        FormChoice("wild_cards", "Wild cards (B25)", entries="brag_env.brag.rules:WILD_MODES"),
    ),
)

PUT = GameSpec(
    name="put",
    title="Put",
    envs={"put_v0": "brag_env.put_v0", "put_v1": "brag_env.put_v1", "put_v2": "brag_env.put_v2"},
    # put_v1, whose observation the shipped Put models read (docs/envs.md: put_v2 is opt-in).
    default_env="put_v1",
    selfplay_id="brag_env/PutVsPool-v0",
    selfplay_entry="brag_env.selfplay:PutVsPoolEnv",
    config="brag_env.put.rules:PutConfig",
    agents=("agents.put", "agents.put_equilibrium"),
    # seats and sides; scores are / target_points; the recall block; the ranks dealt (a
    # short deck's model never saw the low cards)
    model_options=("num_players", "target_points", "perfect_recall", "deck_ranks"),
    default_num_players=2,
    num_players=(2, 3, 4),  # heads-up; three (P7); two partnerships (P8)
    sample="match",
    samples="matches",
    count_flag="matches",
    default_count=1_000,
    sessions=False,
    session_ci=False,
    headline="match_win",
    hand_word="hand",
    number_key="hand",
    first_number=1,
    totals_keys=("scores_before", "scores_after"),
    replayer="brag_env.replay:PutReplayer",
    record_check="brag_env.ui.records:check_put",
    adapter="brag_env.evaluation.games:PutAdapter",
    collector="brag_env.evaluation.put_stats:PutCollector",
    play_session="brag_env.ui.put_play:PutSession",
    web_table="brag_env.web.tables:PutWebTable",
    illegal_reward="brag_env.put_v1:ILLEGAL_REWARD",
    batched_engine="brag_env.training.batched:make_put_engine",
    batched_check="brag_env.put.batched_options:check_batched_put",
    batched_runner="brag_env.evaluation.batched:PUT_RUNNER",
    exact_solver=True,
    hand_episodes=True,
    partners=True,
    paired_deciles=True,
    play_help="Put matches to target_points",
    play_opponents=("put:caller",),
    web_opponents=("put:caller",),
    form_numbers=(FormNumber("target_points", "Points to win", 1, 100),),
    form_boxes=(  # P7: how two opponents answer a Put (``put_answers``; not an option itself)
        FormChoice(
            "simultaneous",
            "with two opponents, both answer a Put unseen by each other (P7)",
            default=True,
        ),
    ),
)

BRAG7 = GameSpec(
    name="brag7",
    title="Seven-card Brag",
    envs={"brag7_v0": "brag_env.brag7_v0"},
    default_env="brag7_v0",
    selfplay_id="brag_env/Brag7VsPool-v0",
    selfplay_entry="brag_env.selfplay:Brag7VsPoolEnv",
    config="brag_env.brag7.rules:Brag7Config",
    agents=("agents.brag7",),
    # seats; chips / starting_chips; the deal number; the percentile order and deck (B21, B1)
    model_options=("num_players", "starting_chips", "hands_per_session", "lowball", "deck_ranks"),
    default_num_players=4,
    num_players=tuple(range(2, 8)),  # B24
    sample="deal",
    samples="deals",
    count_flag="hands",
    default_count=10_000,
    sessions=True,
    session_ci=True,
    headline="payoff",
    hand_word="deal",
    number_key="deal_number",
    first_number=0,
    totals_keys=None,
    replayer="brag_env.replay:Brag7Replayer",
    record_check="brag_env.ui.records:check_brag7",
    adapter="brag_env.evaluation.games:Brag7Adapter",
    collector="brag_env.evaluation.brag7_stats:Brag7Collector",
    play_session="brag_env.ui.brag7_play:Brag7Session",
    web_table="brag_env.web.tables:Brag7WebTable",
    play_help="a session of Seven-card Brag deals (B24)",
    session_rule="B24",
    play_opponents=("brag7:balanced", "brag7:strongest_first", "random"),
    web_opponents=("brag7:balanced", "brag7:strongest_first"),
    form_numbers=(
        FormNumber("hands_per_session", "Hands", 1, 100, name="hands"),
        FormNumber("ante", "Ante", 1, 10**6),
    ),
    form_boxes=(FormChoice("lowball", "lowball (B21)"),),
)

#: Every game by name, in the order menus and messages list them.
GAMES: dict[str, GameSpec] = {spec.name: spec for spec in (BRAG, PUT, BRAG7)}
#: The names alone: ``("brag", "put", "brag7")``.
GAME_NAMES: tuple[str, ...] = tuple(GAMES)


def game_spec(name: str) -> GameSpec:
    """The spec of a game by name (any case); ``ValueError`` naming the known games otherwise."""
    spec = GAMES.get(str(name).lower())
    if spec is None:
        raise ValueError(f"unknown game {name!r}; games: {', '.join(GAMES)}")
    return spec


def game_of_env(env_name: str) -> GameSpec | None:
    """The game whose table holds env ``env_name`` (``"put_v2"`` -> Put), or None."""
    return next((spec for spec in GAMES.values() if env_name in spec.envs), None)


def games_with(feature: str) -> tuple[str, ...]:
    """The names of the games whose spec has ``feature`` (a field): ``games_with("exact_solver")``
    -> ``("put",)``."""
    return tuple(name for name, spec in GAMES.items() if getattr(spec, feature))
