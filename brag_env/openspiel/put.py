"""Put as OpenSpiel Python games, played by the real engine (``brag_env.put.game.PutGame``).

Two games are registered:

``python_brag_env_put_hand``
    One hand from given match scores (``score_0``.. per scoring unit), returns in points: the
    game the exact solver measures (``brag_env.put.solver``, ``brag_env.exploit``).
``python_brag_env_put_match``
    A whole match to ``target_points``, every hand dealt by chance nodes; returns are the
    points of every hand (``reward="points"``) or the match result (``reward="match"``). Drawn
    hands score nothing, so a match has no length bound: it is cut after ``max_hands`` hands
    (then nobody won; ``"match"`` returns are 0).

Parameters are the ``PutConfig`` options: ``players`` (2, 3, or 4 in partnerships),
``target_points``, ``seen_put_points`` (``seen_put_wins_match=True`` for ``"game"``),
``put_draw_to_opponent``, ``put_answers``, ``partner_exchange``, ``deck_ranks``,
``perfect_recall`` (the observation option), ``put_timing`` (observations as put_v2's, which
say when each Put came; default: put_v1's), plus those above.

Chance deals each hand seat by seat from the dealer's left (P2): one outcome per seat, the
rank multiset of its three cards, with its probability from the cards left. Suits never
matter in play (P1), so each rank is given the lowest card ids still free. The first dealer
is the last seat, so seat 0 leads the first hand; the deal then passes left (P2).

Observations (``observation_tensor``/``_string``) are exactly the PettingZoo env's for that
seat (``brag_env.put.observation.PutObserver``, same config: put_v1's, or put_v2's with
``put_timing``). Information states have perfect
recall: the string lists every deal and action the player saw, in order (the own pass card of
P8, the answers once they take effect, P7); the one-hand game's tensor is the env observation
with ``perfect_recall=True`` (every event of the hand in order). The match game gives no
information-state tensor: a fixed-size vector cannot recall every hand of an unbounded match.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from itertools import combinations_with_replacement
from math import comb
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python import policy as os_policy

from brag_env.clone import StateCopier
from brag_env.openspiel.game_type import card_game_type
from brag_env.put.game import PHASE_PASS, PutGame
from brag_env.put.observation import PutObserver, decode_observation, history_length
from brag_env.put.rules import (
    ACTION_NAMES,
    CARDS_PER_HAND,
    FOLD,
    NUM_RANKS,
    PASS,
    PASS_NONE,
    PLAY,
    PUT,
    PUT_RANK,
    RANK_NAMES,
    SEE,
    PutConfig,
    hand_rewards,
    match_rewards,
)

HAND_GAME = "python_brag_env_put_hand"
MATCH_GAME = "python_brag_env_put_match"
_MAX_UNITS = 3  # score_0.. score_2: three players score alone, four as two sides (P7, P8)

_RULE_PARAMETERS: dict[str, Any] = {
    "players": 2,
    "target_points": 5,
    "seen_put_points": 2,
    "seen_put_wins_match": False,
    "put_draw_to_opponent": False,
    "put_answers": "simultaneous",
    "partner_exchange": "optional",
    "deck_ranks": NUM_RANKS,
    "perfect_recall": False,
    "put_timing": False,  # the observation of put_v2 (True) or put_v1
}
_HAND_PARAMETERS = {**_RULE_PARAMETERS, **{f"score_{u}": 0 for u in range(_MAX_UNITS)}}
_MATCH_PARAMETERS = {**_RULE_PARAMETERS, "reward": "points", "max_hands": 100}


_HAND_TYPE = card_game_type(HAND_GAME, "brag-env Put, one hand", _HAND_PARAMETERS, 4)
_MATCH_TYPE = card_game_type(
    MATCH_GAME, "brag-env Put, a match", _MATCH_PARAMETERS, 4, information_state_tensor=False
)


def config_of(params: dict[str, Any]) -> PutConfig:
    """The ``PutConfig`` of a game's parameters (``PutConfig`` checks every value)."""
    spp = "game" if params["seen_put_wins_match"] else params["seen_put_points"]
    return PutConfig(
        num_players=params["players"],
        target_points=params["target_points"],
        seen_put_points=spp,
        put_draw_to_opponent=params["put_draw_to_opponent"],
        put_answers=params["put_answers"],
        partner_exchange=params["partner_exchange"],
        deck_ranks=params["deck_ranks"],
        perfect_recall=params["perfect_recall"],
    )


def parameters_of(config: PutConfig) -> dict[str, Any]:
    """The rule parameters that give ``config`` (the inverse of ``config_of``)."""
    game = config.seen_put_points == "game"
    return {
        "players": config.num_players,
        "target_points": config.target_points,
        "seen_put_points": 2 if game else config.seen_put_points,
        "seen_put_wins_match": game,
        "put_draw_to_opponent": config.put_draw_to_opponent,
        "put_answers": config.put_answers,
        "partner_exchange": config.partner_exchange,
        "deck_ranks": config.deck_ranks,
        "perfect_recall": config.perfect_recall,
    }


def load_hand(
    config: PutConfig, scores: tuple[int, ...] | None = None, put_timing: bool = False
) -> PutOpenSpielGame:
    """The one-hand game of ``config`` from match ``scores`` (one per scoring unit);
    ``put_timing``: observations as put_v2's."""
    params: dict[str, Any] = {**parameters_of(config), "put_timing": put_timing}
    for unit, score in enumerate(scores or ()):
        params[f"score_{unit}"] = int(score)
    return pyspiel.load_game(HAND_GAME, params)


def load_match(
    config: PutConfig, reward: str = "points", max_hands: int = 100, put_timing: bool = False
) -> PutOpenSpielGame:
    """The match game of ``config`` (``put_timing``: observations as put_v2's)."""
    params = {
        **parameters_of(config),
        "reward": reward,
        "max_hands": max_hands,
        "put_timing": put_timing,
    }
    return pyspiel.load_game(MATCH_GAME, params)


# The card ids of each put rank, lowest first (suits never matter in play, P1).
_CARDS_OF_RANK = tuple(tuple(c for c in range(52) if PUT_RANK[c] == r) for r in range(NUM_RANKS))


# Every rank multiset of a three-card hand, strongest ranks first: the chance outcomes.
def _multisets(deck_ranks: int) -> list[tuple[int, ...]]:
    return list(combinations_with_replacement(range(deck_ranks), CARDS_PER_HAND))


@dataclass(frozen=True)
class PutSetup:
    """What a state needs of its game. States keep this, not the game object: the Python side
    of a game that OpenSpiel rebuilt from its name is not kept alive with the state."""

    config: PutConfig
    match: bool
    scores: tuple[int, ...] | None  # the hand game's match scores, one per scoring unit
    reward: str  # "points" or "match"
    max_hands: int
    multisets: list[tuple[int, ...]]
    put_timing: bool  # observations are put_v2's (else put_v1's)


class PutOpenSpielGame(pyspiel.Game):
    """One hand (``HAND_GAME``) or a match (``MATCH_GAME``) of Put with the given parameters."""

    def __init__(self, params: dict[str, Any] | None = None, match: bool = False) -> None:
        game_type = _MATCH_TYPE if match else _HAND_TYPE
        full = {**game_type.parameter_specification, **(params or {})}
        try:
            config = config_of(full)
        except ValueError as e:
            raise ValueError(f"{game_type.short_name}: {e}") from None
        self.config, self.match = config, match
        self.num_units = config.num_units
        units = range(self.num_units)
        self.scores = None if match else tuple(int(full[f"score_{u}"]) for u in units)
        self.reward = full.get("reward", "points")
        self.max_hands = int(full.get("max_hands", 1))
        if match and (self.reward not in ("points", "match") or self.max_hands < 1):
            raise ValueError(
                f"{MATCH_GAME}: reward must be points or match and max_hands >= 1, got "
                f"{self.reward!r}, {self.max_hands}"
            )
        if not match:
            extra = [u for u in range(self.num_units, _MAX_UNITS) if full[f"score_{u}"]]
            if extra or any(not 0 <= s < config.target_points for s in self.scores):
                raise ValueError(
                    f"{HAND_GAME}: score_0..score_{self.num_units - 1} must lie in "
                    f"0..{config.target_points - 1} (one per scoring unit)"
                )
        self.multisets = _multisets(config.deck_ranks)
        spp = config.seen_put_points
        top = float(config.target_points if spp == "game" else spp)
        if match:
            bound = 1.0 if self.reward == "match" else config.target_points - 1 + top
        else:
            bound = top
        length = history_length(config.num_players)
        info = pyspiel.GameInfo(
            num_distinct_actions=config.num_actions,
            max_chance_outcomes=len(self.multisets),
            num_players=config.num_players,
            min_utility=-bound,
            max_utility=bound,
            utility_sum=0.0,
            max_game_length=length * (self.max_hands if match else 1),
        )
        super().__init__(game_type, info, params or {})
        self.put_timing = bool(full["put_timing"])
        self.setup = PutSetup(
            config, match, self.scores, self.reward, self.max_hands, self.multisets, self.put_timing
        )

    def new_initial_state(self) -> PutOpenSpielState:
        return PutOpenSpielState(self, self.setup)

    def make_py_observer(self, iig_obs_type=None, params=None) -> PutOpenSpielObserver:
        if params:
            raise ValueError(f"observation parameters are not supported, got {params}")
        perfect_recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        return PutOpenSpielObserver(self.config, perfect_recall, self.put_timing)


class PutOpenSpielState(pyspiel.State):
    """The engine, the chance deal in progress, and what each seat has seen (``events``)."""

    def __init__(self, game: PutOpenSpielGame, setup: PutSetup) -> None:
        super().__init__(game)
        self.setup = setup
        cfg = setup.config
        self.engine = PutGame(cfg, deal_between_hands=False)
        self.dealt: list[tuple[int, ...]] = []  # the hand being dealt, seat by seat
        self.dealing = True
        self.hands_played = 0
        self.totals = [0.0] * cfg.num_players  # reward="points": every hand's share
        # (seats that saw it or None for everyone, text): the information-state string.
        self.events: list[tuple[tuple[int, ...] | None, str]] = []
        self.log: list[int] = []  # every action, chance included (pyspiel's history())

    #: While ``clone()`` applies the actions again: the player of each, in order (a class
    #: default, so a state's pickled ``__dict__``, which serialisation writes, is unchanged).
    _copying: list[int] | None = None

    def clone(self) -> PutOpenSpielState:
        """An independent state in this one's position: the engine's ``copy()`` and copies of
        the deal in progress and of what the seats saw. pyspiel keeps a state's history on its
        C++ side and fills it only through ``apply_action``, so the copy applies the same
        actions again with the engine left out (``_copying``): ``history()``, ``serialize()``
        and ``log`` come out right without the hand being played again."""
        other = PutOpenSpielState(self.get_game(), self.setup)
        other._copying = [step.player for step in self.full_history()]
        for action in self.log:
            other.apply_action(action)
        del other._copying
        twin = StateCopier()  # new lists (the deal, totals, events), the rest shared
        state = {name: twin(value) for name, value in self.__dict__.items()}
        state["engine"] = self.engine.copy()
        other.__dict__.update(state)
        return other

    def child(self, action: int) -> PutOpenSpielState:
        other = self.clone()
        other.apply_action(action)
        return other

    # ------------------------------------------------------------------ chance
    def _next_dealer(self) -> int:
        """The dealer of the hand being dealt: the last seat first, then it passes left."""
        return (
            self.engine.dealer if self.engine.awaiting_deal else self.setup.config.num_players - 1
        )

    def _deal_seat(self) -> int:
        n = self.setup.config.num_players
        return (self._next_dealer() + 1 + len(self.dealt)) % n

    def _left(self) -> list[int]:
        """Cards left per rank for the seat being dealt."""
        left = [4] * self.setup.config.deck_ranks
        for hand in self.dealt:
            for r in hand:
                left[r] -= 1
        return left

    def chance_outcomes(self) -> list[tuple[int, float]]:
        left = self._left()
        total = comb(sum(left), CARDS_PER_HAND)
        out = []
        for i, hand in enumerate(self.setup.multisets):
            ways = 1
            for r in set(hand):
                ways *= comb(left[r], hand.count(r))
            if ways:
                out.append((i, ways / total))
        return out

    def _deal(self, outcome: int) -> None:
        hand = self.setup.multisets[outcome]
        left = self._left()
        if any(left[r] < hand.count(r) for r in hand):
            raise ValueError(f"chance outcome {outcome} ({_ranks(hand)}) is not in the cards left")
        seat = self._deal_seat()
        if not self.dealt:
            dealer = self._next_dealer()
            self.events.append((None, f"hand {self.hands_played + 1} dealer {dealer}"))
        self.events.append(((seat,), f"you are dealt {_ranks(hand)}"))
        self.dealt.append(hand)
        n = self.setup.config.num_players
        if len(self.dealt) < n:
            return
        # Lowest free card ids of each rank; deck order is one card at a time (P2).
        taken = [0] * NUM_RANKS
        cards: list[list[int]] = []
        for dealt in self.dealt:
            cards.append([])
            for r in dealt:
                cards[-1].append(_CARDS_OF_RANK[r][taken[r]])
                taken[r] += 1
        deck = [cards[i % n][i // n] for i in range(CARDS_PER_HAND * n)]
        self.dealt, self.dealing = [], False
        engine = self.engine
        if engine.awaiting_deal:
            engine.deal_next_hand(deck)
        else:
            scores = self.setup.scores
            engine.new_session(np.random.default_rng(0), deck=deck, dealer=n - 1, scores=scores)

    # ------------------------------------------------------------------ play
    def current_player(self) -> int:
        if self._copying is not None:  # clone() applying an action again: who took it
            return self._copying[len(self.log)]
        if self.is_terminal():
            return pyspiel.PlayerId.TERMINAL
        if self.dealing:
            return pyspiel.PlayerId.CHANCE
        return self.engine.current_player

    def _legal_actions(self, player: int) -> list[int]:
        return self.engine.legal_actions()

    def _apply_action(self, action: int) -> None:
        self.log.append(action)
        if self._copying is not None:  # clone(): the engine is copied afterwards
            return
        if self.dealing:
            self._deal(action)
            return
        engine = self.engine
        record = engine.record
        seat, before, phase = engine.current_player, len(record.actions), engine.phase
        outcome = engine.apply(action)
        self._note(seat, action, record, before, phase)
        if outcome is not None and self.setup.reward == "points":
            share = hand_rewards(engine.config, *outcome)
            self.totals = [a + b for a, b in zip(self.totals, share, strict=True)]
        if engine.awaiting_deal or engine.session_over:  # the hand is over
            self.hands_played += 1
            game = self.setup
            self.dealing = (
                game.match and engine.awaiting_deal and self.hands_played < game.max_hands
            )

    def _note(self, seat: int, action: int, record, before: int, phase: int) -> None:
        """Add what each seat saw of ``seat``'s ``action`` to ``events``: the record's new
        entries are public except a pass card (P8); a held first answer (P7) is the answerer's
        own until the second answer puts both into effect."""
        events = self.events
        n = self.setup.config.num_players
        new = record.actions[before:]
        if not new and action in (SEE, FOLD):
            events.append(((seat,), f"you answer {ACTION_NAMES[action]} (held)"))
        for s, a, _ in new:
            if PASS <= a <= PASS_NONE:
                events.append(((s,), f"you choose {ACTION_NAMES[a]}"))
                others = tuple(q for q in range(n) if q != s)
                events.append((others, f"p{s} chooses a pass"))
            else:
                events.append((None, f"p{s} {ACTION_NAMES[a]}"))
        engine = self.engine
        if phase == PHASE_PASS and engine.phase != PHASE_PASS:  # all four chose: cards move
            events.append((None, f"exchanged {engine.exchanged[0]} {engine.exchanged[1]}"))
            for q in range(n):
                if engine.received[q] >= 0:
                    events.append(((q,), f"you receive {RANK_NAMES[engine.received[q]]}"))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {_ranks(self.setup.multisets[action])}"
        return ACTION_NAMES[action]

    def is_terminal(self) -> bool:
        if self.dealing:
            return False
        engine = self.engine
        if not self.setup.match:
            return bool(engine.records)
        return engine.session_over or (
            engine.awaiting_deal and self.hands_played >= self.setup.max_hands
        )

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0] * self.setup.config.num_players
        if self.setup.reward == "match":
            engine = self.engine
            if engine.winner < 0:
                return [0.0] * engine.n
            return match_rewards(engine.config, engine.winners())
        return list(self.totals)

    def information_string(self, player: int) -> str:
        """Everything ``player`` has seen, in order (perfect recall)."""
        seen = [text for who, text in self.events if who is None or player in who]
        return f"p{player}: " + ", ".join(seen)

    def __str__(self) -> str:
        return "; ".join(text for _, text in self.events) or "dealing"


def _ranks(hand: tuple[int, ...]) -> str:
    return " ".join(RANK_NAMES[r] for r in hand)


class PutOpenSpielObserver:
    """OpenSpiel's observer: ``tensor`` is the env's observation buffer, ``dict`` its views.

    ``perfect_recall=False``: the env observation of the game's config. ``True``: the env
    observation with ``perfect_recall`` on (the information-state tensor) and the event
    string."""

    def __init__(self, config: PutConfig, perfect_recall: bool, put_timing: bool) -> None:
        self.perfect_recall = perfect_recall
        if perfect_recall and not config.perfect_recall:
            config = PutConfig.from_dict({**config.to_dict(), "perfect_recall": True})
        self.config, self.put_timing = config, put_timing
        self.observer = PutObserver(config, put_timing)
        self.tensor = self.observer.buffer
        self.dict = self.observer.views

    def set_from(self, state: PutOpenSpielState, player: int) -> None:
        self.observer.set_from(state.engine, player)

    def string_from(self, state: PutOpenSpielState, player: int) -> str:
        if self.perfect_recall:
            return state.information_string(player)
        self.observer.set_from(state.engine, player)
        return str(decode_observation(self.tensor, self.config, self.put_timing))


def hand_plays(engine: PutGame) -> tuple[list[int], int | None]:
    """Heads-up: the ranks played so far this hand, in order, and how many were played before
    the Put (None: no Put yet); how the exact solver locates a decision."""
    plays: list[int] = []
    put_depth = None
    for _, action, _ in engine.record.actions:
        if action == PUT:
            put_depth = len(plays)
        elif PLAY <= action < PLAY + NUM_RANKS:
            plays.append(action - PLAY)
    return plays, put_depth


class StrategyPolicy(os_policy.Policy):
    """A solver ``Strategy`` of the heads-up hand game, looked up at each state."""

    def __init__(self, game: PutOpenSpielGame, tree: Any, strategy: Any) -> None:
        super().__init__(game, [0, 1])
        self.tree, self.strategy = tree, strategy

    def action_probabilities(self, state: PutOpenSpielState, player_id=None) -> dict[int, float]:
        from brag_env.put.solver.observe import locate
        from brag_env.put.solver.strategy import action_probabilities

        e = state.engine
        plays, put_depth = hand_plays(e)
        seen = e.put_seen or e.put_caller < 0
        where = locate(self.tree, plays, put_depth, seen, e.counts[e.current_player])
        return action_probabilities(self.tree, self.strategy, where)


class AgentPolicy(os_policy.Policy):
    """An agent asked one env observation at a time: ``probs(observations, masks)`` gives
    each row's action probabilities (``agents.put_policy.batch_probabilities``)."""

    def __init__(
        self, game: PutOpenSpielGame, probs: Callable[[np.ndarray, np.ndarray], np.ndarray]
    ) -> None:
        super().__init__(game, list(range(game.num_players())))
        self.probs = probs
        self.observer = PutObserver(game.config)

    def action_probabilities(self, state: PutOpenSpielState, player_id=None) -> dict[int, float]:
        e = state.engine
        obs = self.observer.set_from(e, e.current_player).copy()[None]
        p = self.probs(obs, e.legal_mask().astype(np.int8)[None])[0]
        return {a: float(p[a]) for a in e.legal_actions()}


class PutMatchGame(PutOpenSpielGame):
    """``MATCH_GAME``: a whole match (a class, not a lambda, is registered: pyspiel keeps the
    factory until the interpreter exits, and freeing a lambda then aborts the process)."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        super().__init__(params, match=True)


pyspiel.register_game(_HAND_TYPE, PutOpenSpielGame)
pyspiel.register_game(_MATCH_TYPE, PutMatchGame)
