"""One hand of Three-card Brag as an OpenSpiel Python game, played by the real engine.

``pyspiel.load_game("python_brag_env_brag", {"num_players": 2, "deck_ranks": 2, ...})``.
Parameters are the ``brag_v1`` options that shape one hand: ``num_players``, ``deck_ranks``,
``starting_chips``, ``ante``, ``ante_mode``, ``min_stake``, ``max_stake``, ``raise_sizes``
(text, e.g. ``"2x_3x"``), ``pot_limit``, ``allow_blind``, ``blind_may_see_open``, ``cover_pot``,
``prial_bonus``, ``lowball``, plus ``dealer`` (the seat that deals; default the last one, so
seat 0 bets first). The session options (``hands_per_session`` > 1 with B15 carries, B18
shuffles, B19 kept hands) and Four-/Five-card Brag (B22) are not one-hand games and are not
parameters; a bad value is the engine's one-line ``ValueError``.

Chance deals whole hands, one chance node per seat in dealing order (from the dealer's left,
B9): outcome ``i`` is the ``i``-th 3-card combination of the deck (``deck_hands``), legal when
it shares no card with the hands dealt before, all equally likely. Dealing a whole hand at once
gives every deal the chance the card-by-card deal of B9 gives it; no suit abstraction, so the
game is exact. Then ``BragGame`` plays the hand from a stacked deck: legal actions, chips and
the showdown are the engine's (one rule, one place).

- ``information_state_string`` (perfect recall): the seat, its own cards once it has looked
  (from the start without blind play, B10), and every public action in order (seat and action
  id: bets, looks, folds, sees, covers).
- ``information_state_tensor``: the ``brag_v1`` observation with ``perfect_recall=True`` (the
  same knowledge: own cards once looked, every public event in order), so a network trained on
  it here plays in that env.
- ``observation_string/tensor``: the ``brag_v1`` observation of that seat (``BragObserver``,
  the env's layout; zeros before the deal).
- Returns: each seat's chip change for the hand (antes included).
"""

from __future__ import annotations

import dataclasses
import re
from math import comb
from typing import Any

import numpy as np
import pyspiel

from brag_env.brag.game import BragGame
from brag_env.brag.observation import BragObserver, observation_layout
from brag_env.brag.rules import LOOK, BragConfig
from brag_env.brag.scenario import stack_deck
from brag_env.brag.solver.tree import deck_hands
from brag_env.cards import format_cards
from brag_env.openspiel.game_type import card_game_type

SHORT_NAME = "python_brag_env_brag"

# The one-hand options (their brag_v1 defaults, heads-up) and the dealer (-1: the last seat).
DEFAULTS: dict[str, Any] = {
    "num_players": 2,
    "deck_ranks": 13,
    "starting_chips": 200,
    "ante": 1,
    "ante_mode": "every_hand",
    "min_stake": 2,
    "max_stake": 32,
    "raise_sizes": "2x",  # text: a bare "2" would read back as an int from a game string
    "pot_limit": False,
    "allow_blind": True,
    "blind_may_see_open": True,
    "cover_pot": True,
    "prial_bonus": 0,
    "lowball": False,
    "dealer": -1,
}

GAME_TYPE = card_game_type(SHORT_NAME, "brag-env Three-card Brag, one hand", DEFAULTS, 8)


def config_of(params: dict[str, Any]) -> tuple[BragConfig, int]:
    """The engine config and the dealer seat of a parameter dict (defaults filled in)."""
    full = {**DEFAULTS, **(params or {})}
    unknown = sorted(set(full) - set(DEFAULTS))
    if unknown:
        raise ValueError(f"unknown Brag game parameter(s): {', '.join(unknown)}")
    dealer = full.pop("dealer")
    text = str(full.pop("raise_sizes"))
    # "_" between multipliers: a comma would split the game string's parameters
    if not re.fullmatch(r"\d+x(_\d+x)*", text):
        raise ValueError(f"raise_sizes must be multipliers such as '2x' or '2x_3x', got {text!r}")
    raises = tuple(int(t) for t in re.findall(r"\d+", text))
    config = BragConfig(**full, raise_sizes=raises, hands_per_session=1)
    n = config.num_players
    if not isinstance(dealer, int) or not -1 <= dealer < n:
        raise ValueError(f"dealer must be a seat 0..{n - 1} or -1 (the last seat), got {dealer!r}")
    return config, dealer if dealer >= 0 else n - 1


def recall_config(config: BragConfig) -> BragConfig:
    """The rules with ``perfect_recall`` on: the information-state tensor's observation."""
    return dataclasses.replace(config, perfect_recall=True)


def max_game_length(config: BragConfig) -> int:
    """A bound on the decisions of one hand: every stay, raise and see costs at least one chip
    (B11: S >= 2, a blind seat pays S/2), and each seat looks, folds or covers at most once."""
    return config.num_players * (config.starting_chips + 3) + 1


class BragHandGame(pyspiel.Game):
    def __init__(self, params: dict[str, Any] | None = None) -> None:
        self.config, self.dealer = config_of(params or {})
        cfg = self.config
        n = cfg.num_players
        self.hands = deck_hands(cfg)
        self.deal_order = [(self.dealer + 1 + j) % n for j in range(n)]  # B9
        self.max_length = max_game_length(cfg)
        chips = cfg.starting_chips
        info = pyspiel.GameInfo(
            num_distinct_actions=cfg.num_actions,
            max_chance_outcomes=len(self.hands),
            num_players=n,
            min_utility=-float(chips),
            max_utility=float((n - 1) * chips),
            utility_sum=0.0,
            max_game_length=self.max_length,
        )
        self._params = {**DEFAULTS, **(params or {})}
        super().__init__(GAME_TYPE, info, self._params)
        self.observation_size = observation_layout(cfg).size
        self.info_size = observation_layout(recall_config(cfg)).size

    def new_initial_state(self) -> BragHandState:
        return BragHandState(self)

    # A game is immutable; a copy or a pickle is the same game rebuilt from its parameters
    # (pyspiel's own pickling would skip __init__ and lose the Python attributes).
    def __deepcopy__(self, memo: dict) -> BragHandGame:
        return self

    def __reduce__(self) -> tuple:
        return (BragHandGame, (dict(self._params),))

    def make_py_observer(self, iig_obs_type=None, params=None):
        if params:
            raise ValueError(f"observer parameters are not supported, got {params}")
        perfect = iig_obs_type is None or iig_obs_type.perfect_recall
        return InfoStateObserver(self) if perfect else EnvObserver(self)

    def observation_tensor_size(self) -> int:
        return self.observation_size

    def information_state_tensor_size(self) -> int:
        return self.info_size


class _Engine:
    """Holds the state's ``BragGame``. pyspiel's C++ ``Clone()`` of a Python state deep-copies
    its attributes (not through ``__deepcopy__`` of the state): this keeps that copy cheap."""

    __slots__ = ("game",)

    def __init__(self, game: BragGame | None) -> None:
        self.game = game

    def __deepcopy__(self, memo: dict) -> _Engine:
        return _Engine(None if self.game is None else self.game.copy())


class BragHandState(pyspiel.State):
    def __init__(self, game: BragHandGame) -> None:
        super().__init__(game)
        self.hand_game = game
        self.dealt: list[tuple[int, ...]] = []  # hands in dealing order
        self._engine = _Engine(None)

    @property
    def engine(self) -> BragGame | None:
        return self._engine.game

    @engine.setter
    def engine(self, game: BragGame) -> None:
        self._engine = _Engine(game)

    def clone(self) -> BragHandState:
        # pyspiel keeps the history on its side: replaying it is the portable copy
        other = BragHandState(self.hand_game)
        for action in self.history():
            other.apply_action(action)
        return other

    def __deepcopy__(self, memo: dict) -> BragHandState:
        return self.clone()  # pyspiel's C++ Clone() of a Python state deep-copies it

    def child(self, action: int) -> BragHandState:
        other = self.clone()
        other.apply_action(action)
        return other

    def seat_hand(self, seat: int) -> tuple[int, ...] | None:
        order = self.hand_game.deal_order
        j = order.index(seat)
        return self.dealt[j] if j < len(self.dealt) else None

    def current_player(self) -> int:
        if self.engine is None:
            return pyspiel.PlayerId.CHANCE
        if self.engine.session_over:
            return pyspiel.PlayerId.TERMINAL
        return self.engine.current_player

    def _legal_actions(self, player: int) -> list[int]:
        assert self.engine is not None
        return self.engine.legal_actions()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        used = {c for hand in self.dealt for c in hand}
        free = [i for i, h in enumerate(self.hand_game.hands.tolist()) if not used.intersection(h)]
        p = 1.0 / len(free)
        return [(i, p) for i in free]

    def _apply_action(self, action: int) -> None:
        if self.engine is None:
            game = self.hand_game
            self.dealt.append(tuple(int(c) for c in game.hands[action]))
            n = game.config.num_players
            if len(self.dealt) == n:
                hands = [list(self.seat_hand(s) or ()) for s in range(n)]
                engine = BragGame(game.config)
                deck = stack_deck(hands, game.dealer)
                engine.new_session(np.random.default_rng(0), deck=deck, dealer=game.dealer)
                self.engine = engine
            return
        self.engine.apply(action)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return "deal " + format_cards(self.hand_game.hands[action].tolist(), symbols=False)
        return self.hand_game.config.action_names[action]

    def is_terminal(self) -> bool:
        return self.engine is not None and self.engine.session_over

    def returns(self) -> list[float]:
        n = self.hand_game.config.num_players
        if not self.is_terminal():
            return [0.0] * n
        assert self.engine is not None
        return [float(d) for d in self.engine.hand_results[-1].deltas]

    def known_cards(self, seat: int) -> tuple[int, ...] | None:
        """The seat's own cards once it has looked (from the deal without blind play, B10)."""
        e = self.engine
        if e is None:
            return None
        looked = not self.hand_game.config.allow_blind or (seat, LOOK) in self.public_actions()
        return self.seat_hand(seat) if looked else None

    def public_actions(self) -> list[tuple[int, int]]:
        return [] if self.engine is None else [(s, a) for s, a, _ in self.engine.betting]

    def __str__(self) -> str:
        deals = " | ".join(format_cards(h, symbols=False) for h in self.dealt)
        names = self.hand_game.config.action_names
        return f"{deals} :: " + " ".join(f"{s}:{names[a]}" for s, a in self.public_actions())


class _EngineObserver:
    """An observer whose tensor is a ``BragObserver`` encoding of the engine's hand (zeros
    before the deal); the subclass picks the encoding and the string."""

    observer: BragObserver
    tensor: np.ndarray

    def set_from(self, state: BragHandState, player: int) -> None:
        if state.engine is None:
            self.tensor.fill(0.0)
        else:
            self.tensor[:] = self.observer.set_from(state.engine, player)


class InfoStateObserver(_EngineObserver):
    """Perfect recall. The tensor is the ``brag_v1`` observation with ``perfect_recall=True``
    (every public event of the hand in order, own cards once looked; zeros before the deal), so
    a network trained on it here reads that env's observations; the string is a short form."""

    def __init__(self, game: BragHandGame) -> None:
        self.game = game
        self.observer = BragObserver(recall_config(game.config))
        self.tensor = np.zeros(game.info_size, np.float32)
        self.dict = self.observer.layout.views(self.tensor)

    def string_from(self, state: BragHandState, player: int) -> str:
        cards = state.known_cards(player)
        own = "blind" if cards is None else format_cards(sorted(cards), symbols=False)
        names = self.game.config.action_names
        public = " ".join(f"{s}:{names[a]}" for s, a in state.public_actions())
        return f"p{player} {own} | {public}"


class EnvObserver(_EngineObserver):
    """The ``brag_v1`` observation of the seat (zeros before the deal)."""

    def __init__(self, game: BragHandGame) -> None:
        self.game = game
        self.observer = BragObserver(game.config)
        self.tensor = np.zeros(game.observation_size, np.float32)
        self.dict = {"observation": self.tensor}

    def string_from(self, state: BragHandState, player: int) -> str:
        self.set_from(state, player)
        return " ".join(f"{i}:{v:g}" for i, v in enumerate(self.tensor.tolist()) if v)


def num_deals(config: BragConfig) -> int:
    """Ordered deals of one hand: C(d, 3) * C(d - 3, 3) * ... per seat."""
    d, out = config.deck_size, 1
    for s in range(config.num_players):
        out *= comb(d - 3 * s, 3)
    return out
