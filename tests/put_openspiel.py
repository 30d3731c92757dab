"""Test-only: one heads-up Put hand as an OpenSpiel Python game, played by the real engine.

A chance node deals the pair of rank multisets (non-dealer's, dealer's) with their card-deal
probabilities; then ``PutGame`` (seat 0 non-dealer, seat 1 dealer, stacked deck) runs the hand,
and the returns are the points the engine credits. The information state of a player is their
dealt hand and every public action, so OpenSpiel's best response sees what the solver assumes.
"""

from __future__ import annotations

from itertools import combinations_with_replacement
from math import comb

import numpy as np
import pyspiel
from open_spiel.python import policy as os_policy

from brag_env.put.game import PutGame
from brag_env.put.observation import PutObserver
from brag_env.put.rules import NUM_ACTIONS, PLAY, PUT, PUT_RANK, PutConfig

_TYPE = pyspiel.GameType(
    short_name="python_brag_env_put_hand",
    long_name="brag-env heads-up Put, one hand",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=2,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=False,
    provides_observation_string=False,
    provides_observation_tensor=False,
    provides_factored_observation_string=False,
)


def _deals(k: int) -> list[tuple[tuple[int, ...], tuple[int, ...], float]]:
    total = comb(4 * k, 3) * comb(4 * k - 3, 3)
    out = []
    for a in combinations_with_replacement(range(k), 3):
        for b in combinations_with_replacement(range(k), 3):
            ways = 1
            for r in range(k):
                ways *= comb(4, a.count(r)) * comb(4 - a.count(r), b.count(r))
            if ways:
                out.append((a, b, ways / total))
    return out


class PutHandGame(pyspiel.Game):
    def __init__(self, config: PutConfig, score: tuple[int, int] = (0, 0)) -> None:
        self.config, self.score = config, score
        self.deals = _deals(config.deck_ranks)
        spp = config.seen_put_points
        top = float(config.target_points if spp == "game" else max(spp, 1))
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_ACTIONS,
            max_chance_outcomes=len(self.deals),
            num_players=2,
            min_utility=-top,
            max_utility=top,
            utility_sum=0.0,
            max_game_length=9,
        )
        super().__init__(_TYPE, info, {})

    def new_initial_state(self):
        return PutHandState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        return _InfoStateObserver()


class _InfoStateObserver:
    def __init__(self) -> None:
        self.tensor = np.zeros(0, np.float32)
        self.dict: dict = {}

    def set_from(self, state, player):
        pass

    def string_from(self, state, player):
        return f"p{player} hand{state.dealt[player]} {state.public}"


class PutHandState(pyspiel.State):
    def __init__(self, game: PutHandGame) -> None:
        super().__init__(game)
        self.hand_game = game
        self.engine: PutGame | None = None
        self.dealt: tuple = ((), ())
        self.public: list[int] = []
        self.put_depth: int | None = None
        self.plays: list[int] = []
        self.log: list[int] = []  # every action, chance included, for clone()

    # pyspiel would clone a Python state by loading the game by name; replay instead
    def clone(self):
        other = PutHandState(self.hand_game)
        for action in self.log:
            other.apply_action(action)
        return other

    def child(self, action):
        other = self.clone()
        other.apply_action(action)
        return other

    def current_player(self):
        if self.engine is None:
            return pyspiel.PlayerId.CHANCE
        if self.engine.history:
            return pyspiel.PlayerId.TERMINAL
        return self.engine.current

    def _legal_actions(self, player):
        return self.engine.legal_actions()

    def chance_outcomes(self):
        return [(i, p) for i, (_, _, p) in enumerate(self.hand_game.deals)]

    def _apply_action(self, action):
        self.log.append(action)
        if self.engine is None:
            a, b, _ = self.hand_game.deals[action]
            self.dealt = (a, b)
            cards = {r: [c for c in range(52) if PUT_RANK[c] == r] for r in range(13)}
            hands = []
            for hand in (a, b):
                hands.append([cards[r].pop() for r in hand])
            deck = [hands[i % 2][i // 2] for i in range(6)]  # non-dealer first (P2)
            self.engine = PutGame(self.hand_game.config)
            self.engine.reset(
                np.random.default_rng(0), deck=deck, dealer=1, scores=list(self.hand_game.score)
            )
            return
        self.public.append(action)
        if action == PUT:
            self.put_depth = len(self.plays)
        elif PLAY <= action < PLAY + 13:
            self.plays.append(action - PLAY)
        self.engine.apply(action)

    def _action_to_string(self, player, action):
        return f"deal{action}" if player == pyspiel.PlayerId.CHANCE else str(action)

    def is_terminal(self):
        return self.engine is not None and bool(self.engine.history)

    def returns(self):
        if not self.is_terminal():
            return [0.0, 0.0]
        _, unit, points = self.engine.history[0].result
        if unit < 0:
            return [0.0, 0.0]
        return [float(points), -float(points)] if unit == 0 else [-float(points), float(points)]

    def __str__(self):
        return f"{self.dealt} {self.public}"


class StrategyPolicy(os_policy.Policy):
    """A solver ``Strategy`` looked up at each state (through ``observe.locate``)."""

    def __init__(self, game: PutHandGame, tree, strategy) -> None:
        super().__init__(game, [0, 1])
        self.tree, self.strategy = tree, strategy

    def action_probabilities(self, state, player_id=None):
        from brag_env.put.solver.observe import locate
        from brag_env.put.solver.strategy import action_probabilities

        e = state.engine
        p = e.current
        seen = e.put_seen or e.put_caller < 0
        where = locate(self.tree, state.plays, state.put_depth, seen, e.counts[p])
        return action_probabilities(self.tree, self.strategy, where)


class AgentPolicy(os_policy.Policy):
    """An agent asked one env observation at a time (``PutObserver``, the env's own encoder)."""

    def __init__(self, game: PutHandGame, probs) -> None:
        super().__init__(game, [0, 1])
        self.probs = probs
        self.observer = PutObserver(game.config)

    def action_probabilities(self, state, player_id=None):
        e = state.engine
        obs = self.observer.set_from(e, e.current).copy()[None]
        p = self.probs(obs, e.mask.astype(np.int8)[None])[0]
        return {a: float(p[a]) for a in e.legal_actions()}
