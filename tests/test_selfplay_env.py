"""The self-play env (brag_env/selfplay.py) on a tiny fake AEC game with known payoffs."""

from __future__ import annotations

from typing import ClassVar

import gymnasium
import numpy as np
import pytest
from pettingzoo import AECEnv

from brag_env.selfplay import OpponentPool, VsPoolEnv

FOLD, CALL = 0, 1


class ShowdownEnv(AECEnv):
    """N players, one private number each, ante 1; in seat order each folds or calls (pays 1).

    A hand ends as soon as one player is left (everyone else folded) or everyone has acted; the
    highest number among the callers takes the pot (ties: lowest seat). An episode is ``hands``
    hands with rewards paid at the end of each hand, so rewards also arrive mid-episode.
    ``ledger`` records every seat's chip change, for comparison with what the learner was paid.
    """

    metadata: ClassVar[dict] = {"name": "showdown_v0", "is_parallelizable": False}

    def __init__(self, num_players: int = 3, hands: int = 1, eliminate: bool = False) -> None:
        super().__init__()
        self.possible_agents = [f"player_{i}" for i in range(num_players)]
        self.hands = hands
        self.eliminate = eliminate  # a player who folds is out (terminated) for the rest
        self.action_names = ["fold", "call"]
        box = gymnasium.spaces.Box(0.0, 1.0, (1 + num_players,), np.float32)
        mask = gymnasium.spaces.Box(0, 1, (2,), np.int8)
        self.observation_spaces = {
            a: gymnasium.spaces.Dict({"observation": box, "action_mask": mask})
            for a in self.possible_agents
        }
        self.action_spaces = {a: gymnasium.spaces.Discrete(2) for a in self.possible_agents}

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def reset(self, seed=None, options=None):
        self.rng = np.random.default_rng(seed)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.ledger = dict.fromkeys(self.agents, 0)
        self.out = [False] * len(self.possible_agents)
        self.hand = 0
        self._deal()
        self.agent_selection = self.possible_agents[self.to_act]

    def _deal(self):
        n = len(self.possible_agents)
        self.numbers = self.rng.integers(0, 10, n)
        self.in_hand = [not out for out in self.out]
        self.paid = [0 if out else 1 for out in self.out]
        self.to_act = self._next(0)

    def _next(self, seat):
        """The first seat from ``seat`` on still in the hand, or None."""
        n = len(self.possible_agents)
        return next((s for s in range(seat, n) if self.in_hand[s]), None)

    def observe(self, agent):
        seat = self.possible_agents.index(agent)
        obs = np.zeros(1 + len(self.possible_agents), np.float32)
        obs[0] = self.numbers[seat] / 9
        obs[1 + seat] = 1.0
        return {"observation": obs, "action_mask": np.ones(2, np.int8)}

    def step(self, action):
        if self.terminations[self.agent_selection]:
            self._was_dead_step(action)
            return
        self.rewards = dict.fromkeys(self.agents, 0.0)
        seat = self.to_act
        if action == FOLD:
            self.in_hand[seat] = False
            if self.eliminate:
                self.out[seat] = True
                self.terminations[self.possible_agents[seat]] = True
        else:
            self.paid[seat] += 1
        self.to_act = self._next(seat + 1)
        alive = [s for s, live in enumerate(self.in_hand) if live]
        if len(alive) == 1 or self.to_act is None:
            winner = max(alive, key=lambda s: (self.numbers[s], -s))
            pot = sum(self.paid)
            for s, agent in enumerate(self.possible_agents):
                delta = (pot if s == winner else 0) - self.paid[s]
                if agent in self.rewards:
                    self.rewards[agent] = float(delta)
                self.ledger[agent] += delta
            self.hand += 1
            if self.hand == self.hands or sum(not out for out in self.out) < 2:
                self.terminations = dict.fromkeys(self.agents, True)
            else:
                self._deal()
        if self.to_act is not None:
            self.agent_selection = self.possible_agents[self.to_act]
        self._cumulative_rewards[self.agent_selection] = 0
        self._accumulate_rewards()
        self._deads_step_first()


class Scripted:
    """An opponent that always plays one action."""

    def __init__(self, action: int) -> None:
        self.action = action
        self.resets = 0

    def act(self, observation, action_mask):
        assert action_mask[self.action]
        return self.action

    def reset(self):
        self.resets += 1


class Coin:
    """An opponent that folds or calls at random."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def act(self, observation, action_mask):
        return int(self.rng.integers(2))

    def reset(self):
        pass


def make_env(num_players=3, hands=1, opponents=("call",), eliminate=False, **kwargs) -> VsPoolEnv:
    actions = {"call": CALL, "fold": FOLD}
    return VsPoolEnv(
        game="showdown",
        opponents=opponents,
        opponent_factory=lambda spec, seed: Scripted(actions[spec]),
        aec_env_fn=lambda: ShowdownEnv(num_players, hands, eliminate),
        **kwargs,
    )


def play(env: VsPoolEnv, action: int, episodes: int) -> list[tuple[int, float, dict]]:
    """Per episode: (learner seat, learner return, the fake env's ledger)."""
    out = []
    for _ in range(episodes):
        _, info = env.reset()
        total, done = 0.0, False
        while not done:
            _, reward, done, truncated, _ = env.step(action)
            assert not truncated
            total += reward
        out.append((info["learner_seat"], total, dict(env.aec.ledger)))
    return out


def test_learner_is_paid_its_own_result_when_an_opponent_ends_the_hand():
    # Seat 0 acts first; the last move of every hand is an opponent's call.
    env = make_env(learner_seat=0, seed=1)
    for seat, total, ledger in play(env, CALL, 50):
        assert seat == 0
        assert total == ledger["player_0"]
    # Some of those hands were lost and some won: the payment is not trivially zero.
    results = {total for _, total, _ in play(env, CALL, 50)}
    assert min(results) < 0 < max(results)


def test_rewards_of_hands_ended_by_opponents_reach_the_learner_within_a_session():
    env = make_env(hands=4, seed=2, reward_scale=0.5)
    for seat, total, ledger in play(env, CALL, 60):
        assert total == pytest.approx(0.5 * ledger[f"player_{seat}"])


def test_opponents_eliminated_mid_episode_take_their_dead_steps_and_the_learner_is_paid():
    # A folding opponent is terminated for the rest of the episode; PettingZoo then makes it take
    # a "dead step" (sometimes right after the step that ended a hand and paid rewards).
    env = VsPoolEnv(
        game="showdown",
        opponents=["x"],
        opponent_factory=lambda spec, seed: Coin(seed),
        aec_env_fn=lambda: ShowdownEnv(4, hands=3, eliminate=True),
        learner_seat=0,
        seed=13,
    )
    for seat, total, ledger in play(env, CALL, 40):
        assert total == ledger[f"player_{seat}"]


def test_seats_rotate_from_the_offset():
    env = make_env(num_players=3, seat_offset=2, seed=3)
    seats = [seat for seat, _, _ in play(env, CALL, 6)]
    assert seats == [2, 0, 1, 2, 0, 1]


def test_reset_skips_episodes_the_learner_cannot_influence():
    # Learner in the last seat: when both opponents drew "fold", the hand ends before its turn.
    env = make_env(num_players=3, opponents=("fold", "call"), learner_seat=2, seed=6)
    skipped = 0
    for _ in range(40):
        _, info = env.reset()
        skipped += info["skipped_episodes"]
        _, _, done, _, _ = env.step(CALL)
        assert done
    assert skipped > 0


def test_a_table_where_the_learner_never_acts_is_an_error_not_a_hang():
    env = make_env(num_players=3, opponents=("fold",), learner_seat=2, seed=5)
    with pytest.raises(RuntimeError, match="no decision"):
        env.reset()


def test_illegal_action_is_refused():
    env = make_env(seed=7)
    env.reset()
    with pytest.raises(ValueError, match="not legal"):
        env.step(5)


def test_action_masks_follow_the_learners_turn():
    env = make_env(seed=8)
    env.reset()
    assert env.action_masks().tolist() == [True, True]
    env.step(CALL)
    # Episode over: no legal action until reset.
    assert env.action_masks().tolist() == [False, False]


def test_opponents_are_reset_every_episode_and_reused():
    made = []

    def factory(spec, seed):
        made.append(spec)
        return Scripted(CALL)

    env = VsPoolEnv(
        game="showdown",
        opponents=["a"],
        opponent_factory=factory,
        aec_env_fn=lambda: ShowdownEnv(3),
        learner_seat=0,
        seed=9,
    )
    play(env, CALL, 5)
    assert made == ["a", "a"]  # one per opponent seat, built once
    assert all(agent.resets == 5 for agent in env._opponent_cache.values())


def test_pool_draws_snapshots_with_the_configured_probability():
    rng = np.random.default_rng(0)
    pool = OpponentPool(["random"], snapshot_prob=1.0, max_snapshots=2)
    assert {pool.draw(rng) for _ in range(20)} == {"random"}  # no snapshot yet
    for name in ("a.zip", "b.zip", "c.zip"):
        pool.add_snapshot(name)
    assert pool.snapshots == ["b.zip", "c.zip"]
    assert {pool.draw(rng) for _ in range(50)} == {"b.zip", "c.zip"}
    pool.snapshot_prob = 0.0
    assert {pool.draw(rng) for _ in range(50)} == {"random"}


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"opponents": []}, "at least one"),
        ({"opponents": "random"}, "list of agent specs"),
        ({"snapshot_prob": 1.5}, "snapshot_prob"),
        ({"max_snapshots": 0}, "max_snapshots"),
        ({"reward_scale": 0}, "reward_scale"),
        ({"learner_seat": 3}, "learner_seat"),
    ],
)
def test_bad_arguments_are_named(kwargs, match):
    args = {"opponents": ("call",)} | kwargs
    with pytest.raises(ValueError, match=match):
        make_env(**args)


def test_unknown_game_is_refused():
    with pytest.raises(ValueError, match="game must be one of"):
        VsPoolEnv(game="chess")


def test_same_seed_same_episodes():
    a = play(make_env(num_players=4, hands=3, seed=11), CALL, 10)
    b = play(make_env(num_players=4, hands=3, seed=11), CALL, 10)
    assert a == b


def test_passes_the_sb3_env_checker():
    from stable_baselines3.common.env_checker import check_env

    check_env(make_env(seed=12), warn=False)


def test_seeded_reset_replays_the_same_episodes():
    def make() -> VsPoolEnv:
        return VsPoolEnv(
            game="showdown",
            opponents=["coin"],
            opponent_factory=lambda spec, seed: Coin(seed),
            aec_env_fn=lambda: ShowdownEnv(3, hands=2),
            seat_offset=1,
            seed=0,
        )

    def after_seeded_reset(env: VsPoolEnv) -> list:
        obs, info = env.reset(seed=5)
        first = (obs.tolist(), info["learner_seat"])
        return [first, *play(env, CALL, 6)]  # the following episodes, too

    env = make()
    play(env, CALL, 3)  # the seat rotation, the opponents' RNGs and the env's stream have moved
    once = after_seeded_reset(env)
    twice = after_seeded_reset(env)
    assert once == twice
    assert after_seeded_reset(make()) == once
    assert len({seat for seat, _, _ in once[1:]}) == 3  # seats still rotate after it
